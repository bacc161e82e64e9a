def scale(v, k):
    return [x * k for x in v.items()]
