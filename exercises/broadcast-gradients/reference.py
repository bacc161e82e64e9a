def unbroadcast(grad, shape):
    lead = grad.ndim - len(shape)
    summed = grad.sum(axis=tuple(range(lead)))
    stretched = tuple(d for d, n in enumerate(shape) if n == 1)
    return summed.sum(axis=stretched, keepdims=True)


def matmul_vjp(a, b, g):
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if b.ndim == 1:
        g = g[..., None]
    if a.ndim == 1:
        g = g[..., None, :]
    da = unbroadcast(g @ b2.mT, a2.shape)
    db = unbroadcast(a2.mT @ g, b2.shape)
    return da.reshape(a.shape), db.reshape(b.shape)
