import numpy as np  # noqa: F401  (you will need it)


def to_bf16(x):
    """Round every value of x to the nearest bfloat16 (ties to even; overflow to ±inf).

    x: a float32 array of any shape. Returns a float32 array of the same shape, each value a
    bfloat16 (a float32 whose low 16 bits are zero). x is left unchanged.
    """
    raise NotImplementedError


def to_fp8_e4m3(x):
    """Round every value of x to the nearest FP8 E4M3 value (ties to even; saturating at ±448).

    x: a float32 array of any shape. Returns a float32 array of the same shape. x is left unchanged.
    """
    raise NotImplementedError
