def lora_forward(x, w, a, b, alpha):
    r = a.shape[1]
    return x @ w.T + (alpha / r) * ((x @ a.T) @ b.T)


def lora_merge(w, a, b, alpha):
    r = a.shape[1]
    return w + (alpha / r) * (b @ a)
