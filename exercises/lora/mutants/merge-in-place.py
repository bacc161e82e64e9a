def lora_forward(x, w, a, b, alpha):
    scale = alpha / a.shape[0]
    return x @ w.T + scale * ((x @ a.T) @ b.T)


def lora_merge(w, a, b, alpha):
    w += (alpha / a.shape[0]) * (b @ a)
    return w
