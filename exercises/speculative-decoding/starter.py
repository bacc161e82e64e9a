import numpy as np  # noqa: F401  (you will need it)


def speculative_accept(draft_tokens, p_draft, p_target, u_accept, u_sample):
    """Verify k drafted tokens against the target model, as speculative sampling does.

    draft_tokens: the k tokens the draft model proposed, shape (k,), integers.
    p_draft: shape (k, V); row i is the draft model's distribution for token i.
    p_target: shape (k + 1, V); row i is the target model's distribution for token i.
    u_accept: shape (k,), uniforms in [0, 1), one per drafted token.
    u_sample: a float in [0, 1), for the one token sampled at the end.
    Returns the list of tokens emitted: the accepted drafts, then one sampled token.
    """
    raise NotImplementedError("accept or reject each drafted token, then sample one more")
