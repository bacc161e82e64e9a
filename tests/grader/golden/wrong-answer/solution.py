def scale(v, k):
    return v * int(k)
