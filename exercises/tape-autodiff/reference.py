import math

import numpy as np


def tape_grad(tape, inputs):
    n = len(inputs)
    values = list(inputs)
    for op, a, b in tape:
        x = values[a]
        if op == "add":
            values.append(x + values[b])
        elif op == "sub":
            values.append(x - values[b])
        elif op == "mul":
            values.append(x * values[b])
        elif op == "div":
            values.append(x / values[b])
        elif op == "exp":
            values.append(math.exp(x))
        elif op == "log":
            values.append(math.log(x))
        elif op == "tanh":
            values.append(math.tanh(x))
        else:
            values.append(max(x, 0.0))

    grads = [0.0] * len(values)
    grads[-1] = 1.0
    for j in reversed(range(len(tape))):
        op, a, b = tape[j]
        g = grads[n + j]
        out = values[n + j]
        if op == "add":
            grads[a] += g
            grads[b] += g
        elif op == "sub":
            grads[a] += g
            grads[b] -= g
        elif op == "mul":
            grads[a] += g * values[b]
            grads[b] += g * values[a]
        elif op == "div":
            grads[a] += g / values[b]
            grads[b] -= g * out / values[b]
        elif op == "exp":
            grads[a] += g * out
        elif op == "log":
            grads[a] += g / values[a]
        elif op == "tanh":
            grads[a] += g * (1.0 - out * out)
        elif values[a] > 0.0:
            grads[a] += g
    return values[-1], np.array(grads[:n])
