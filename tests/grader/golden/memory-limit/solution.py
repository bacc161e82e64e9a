def add(a, b):
    return len([None] * a) + b
