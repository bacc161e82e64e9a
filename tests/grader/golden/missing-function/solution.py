def shift(v, c):
    return v + c
