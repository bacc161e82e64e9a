def lora_forward(x, w, a, b, alpha):
    scale = a.shape[0] / alpha
    return x @ w.T + scale * ((x @ a.T) @ b.T)


def lora_merge(w, a, b, alpha):
    scale = a.shape[0] / alpha
    return w + scale * (b @ a)
