def lora_forward(x, w, a, b, alpha):
    return x @ w.T + alpha * ((x @ a.T) @ b.T)


def lora_merge(w, a, b, alpha):
    return w + alpha * (b @ a)
