def param_count(vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, tied):
    head_dim = d_model // n_heads
    norms = 2 * d_model
    attention = (
        d_model * n_heads * head_dim  # W_q
        + 2 * d_model * n_kv_heads * head_dim  # W_k and W_v
        + n_heads * head_dim * d_model  # W_o
    )
    mlp = 3 * d_model * d_ff  # W_gate, W_up, W_down
    per_layer = norms + attention + mlp
    embedding = vocab * d_model
    lm_head = 0 if tied else d_model * vocab
    return embedding + n_layers * per_layer + d_model + lm_head


def forward_flops(vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, seq_len):
    head_dim = d_model // n_heads
    T = seq_len
    projections = (
        2 * T * d_model * n_heads * head_dim  # q
        + 2 * (2 * T * d_model * n_kv_heads * head_dim)  # k and v
        + 2 * T * n_heads * head_dim * d_model  # o
    )
    scores = n_heads * 2 * T * head_dim * T  # Q_h K_h^T for every head
    mixing = n_heads * 2 * T * T * head_dim  # P_h V_h for every head
    mlp = 3 * (2 * T * d_model * d_ff)
    per_layer = projections + scores + mixing + mlp
    lm_head = 2 * T * d_model * vocab
    return n_layers * per_layer + lm_head
