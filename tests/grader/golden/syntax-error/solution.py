import numpy as np


def scale(v, k):
    factors = np.full(v.shape, k)
    return np.multiply(v factors)
