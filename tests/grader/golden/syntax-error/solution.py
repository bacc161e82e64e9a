import numpy as np


def attend_step(x_t, cache, p):
    q = x_t @ p["Wq"]
    return q, {"k": cache["k"] cache["v"]}
