import numpy as np


def fp16_blocked_sum(x, block):
    total = np.float32(0.0)
    for start in range(0, len(x), block):
        partial = np.float16(0.0)
        for value in x[start : start + block]:
            partial = np.float16(partial + value)
        total = np.float32(total + np.float32(partial))
    return float(total)


def fp16_kahan_sum(x):
    s = np.float16(0.0)
    c = np.float16(0.0)
    for value in x:
        y = np.float16(value - c)
        t = np.float16(s + y)
        c = np.float16(np.float16(t - s) - y)
        s = t
    return float(s)
