def scale(v, k):
    return v * k


def shift(v, c):
    return v + c
