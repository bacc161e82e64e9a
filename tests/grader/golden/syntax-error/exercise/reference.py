def scale(v, k):
    return v * k
