def add(a, b):
    for step in range(a):
        print(f"step {step}: adding 1 to {b}")
        b += 1
    return b
