# Malformed: a syntax error on line 4.

def attend_step(x_t, cache, p):
    return (x_t,
