def param_count(vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, tied):
    """The number of parameters of a Llama-style decoder, as an exact int.

    Every argument is a Python int except tied, a bool: when tied, the LM head is the token
    embedding and is counted once.
    """
    raise NotImplementedError("add up the embedding, every layer's weights, the final norm and the LM head")


def forward_flops(vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, seq_len):
    """The FLOPs of one forward pass over seq_len tokens, as an exact int.

    Only matrix products count, 2·m·k·n for (m, k) @ (k, n).
    """
    raise NotImplementedError("add up 2·m·k·n over every matrix product of the forward pass")
