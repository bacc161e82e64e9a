import numpy as np


def strided_gather(buf, shape, strides, offset):
    address = np.array(offset)
    for d, size in enumerate(shape):
        address = np.add.outer(address, np.arange(size) * strides[d])
    return buf[address]


def view_strides(shape, strides, new_shape):
    old = [(n, strides[d]) for d, n in enumerate(shape) if n != 1]
    new = [(d, n) for d, n in enumerate(new_shape) if n != 1]
    result = [0] * len(new_shape)
    i = j = 0
    while i < len(old):
        i_end, j_end = i + 1, j + 1
        old_size, new_size = old[i][0], new[j][1]
        while old_size != new_size:
            if old_size < new_size:
                old_size *= old[i_end][0]
                i_end += 1
            else:
                new_size *= new[j_end][1]
                j_end += 1
        for k in range(i, i_end - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        step = old[i_end - 1][1]
        for d, n in reversed(new[j:j_end]):
            result[d] = step
            step *= n
        i, j = i_end, j_end
    return tuple(result)
