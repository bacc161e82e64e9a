import numpy as np  # noqa: F401  (you will need it)


def pack_int4(q):
    """Pack two 4-bit values per byte.

    q: uint8 array of shape (N, K), values 0 … 15, K even.
    Returns a uint8 array of shape (N, K // 2) whose byte j of row n holds q[n, 2j] in its low
    four bits and q[n, 2j + 1] in its high four bits. q is left unchanged.
    """
    raise NotImplementedError("put the even column in the low nibble, the odd one in the high nibble")


def w4a16_gemv(x, packed, scales, zeros, group):
    """y = W x for a 4-bit weight matrix W stored packed, with a scale and a zero point per group.

    x: float16 (K,). packed: uint8 (N, K // 2), as pack_int4 returns it.
    scales: float16 (N, K // group). zeros: uint8 (N, K // group), values 0 … 15.
    Column k of row n dequantises to (q[n, k] - zeros[n, k // group]) * scales[n, k // group].
    Returns y, float64 of shape (N,), computed in float64. No input is changed.
    """
    raise NotImplementedError
