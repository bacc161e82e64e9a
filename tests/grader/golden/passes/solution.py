import numpy as np


def scale(v, k):
    return np.multiply(v, k)
