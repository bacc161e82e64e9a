import numpy as np


def pack_int4(q):
    # Byte j of a row holds column 2j in its low four bits and column 2j + 1 in its high four bits.
    return q[:, 0::2] | (q[:, 1::2] << 4)


def w4a16_gemv(x, packed, scales, zeros, group):
    n_rows, n_bytes = packed.shape
    q = np.empty((n_rows, 2 * n_bytes))
    q[:, 0::2] = packed & 0x0F
    q[:, 1::2] = packed >> 4
    # Column k belongs to group k // group: each group's scale and zero cover `group` neighbouring columns.
    columns_group = np.arange(2 * n_bytes) // group
    w = (q - zeros[:, columns_group]) * scales[:, columns_group]
    return w @ x.astype(np.float64)
