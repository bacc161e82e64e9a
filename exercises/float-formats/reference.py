import numpy as np


def to_bf16(x):
    bits = x.view(np.uint32)
    # Adding 0x7FFF carries into the kept bits when the dropped half is more than one half of a
    # step; adding the last kept bit as well makes an exact half carry only from an odd code (ties
    # to even). A carry out of the mantissa raises the exponent; past the largest finite value it
    # gives the pattern of infinity.
    last_kept = (bits >> 16) & 1
    rounded = (bits + 0x7FFF + last_kept) & 0xFFFF0000
    return rounded.view(np.float32)


def to_fp8_e4m3(x):
    # Saturate first: every magnitude above 448, infinity included, becomes 448.
    a = np.abs(x.astype(np.float64)).clip(max=448.0)
    # a = f · 2^exponent with 0.5 <= f < 1, so a lies in the binade [2^(exponent-1), 2^exponent).
    _, exponent = np.frexp(a)
    # Three mantissa bits: 8 steps per binade. Below 2^-6 the subnormals keep the step of the
    # binade above them, 2^-9.
    step = np.exp2((exponent - 1).clip(min=-6) - 3)
    # np.round rounds halves to even, and a / step is a whole number exactly at a code.
    return (np.sign(x) * np.round(a / step) * step).astype(np.float32)
