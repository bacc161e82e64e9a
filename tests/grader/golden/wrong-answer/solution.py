def scale(v, k):
    return v * round(k)
