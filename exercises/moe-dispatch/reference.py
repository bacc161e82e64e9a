import numpy as np


def moe_forward(x, router_w, w_in, w_out, k, capacity):
    n_tokens, n_experts = x.shape[0], router_w.shape[1]

    # Router: a stable softmax over the experts, one row per token.
    logits = x @ router_w
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)

    # Each token's experts from the most probable down; a stable sort keeps ties in id order.
    choices = np.argsort(-p, axis=1, kind="stable")[:, :k]
    chosen_p = np.take_along_axis(p, choices, axis=1)
    gates = chosen_p / chosen_p.sum(axis=1, keepdims=True)

    # Capacity: every token's first choice, in token order, then every second choice, and so on.
    load = np.zeros(n_experts, dtype=np.int64)
    kept = np.zeros((n_tokens, k), dtype=bool)
    for r in range(k):
        for n in range(n_tokens):
            e = choices[n, r]
            if load[e] < capacity:
                load[e] += 1
                kept[n, r] = True

    y = np.zeros((n_tokens, w_out.shape[2]))
    for n in range(n_tokens):
        for r in range(k):
            if kept[n, r]:
                e = choices[n, r]
                hidden = np.maximum(x[n] @ w_in[e], 0.0)
                y[n] += gates[n, r] * (hidden @ w_out[e])

    # Balance loss from every routed choice, dropped or not.
    f = np.bincount(choices.ravel(), minlength=n_experts) / (n_tokens * k)
    P = p.mean(axis=0)
    aux_loss = float(n_experts * np.sum(f * P))
    n_dropped = int(np.sum(~kept))
    return y, aux_loss, n_dropped
