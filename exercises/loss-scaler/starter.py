import numpy as np  # noqa: F401


def amp_sgd(params, grads, lr, init_scale, growth_factor, backoff_factor, growth_interval):
    """Simulate fp16 training with a dynamic loss scale (GradScaler's rule) and plain SGD.

    params: a float64 array; grads: a list of T float64 arrays shaped like params (the true
    gradient of each step; may hold inf or nan). Each step: record the scale S, round
    (grads[t] * S) to float16, skip the step and back off on inf/nan, else update with the
    unscaled gradient and grow S after growth_interval good steps in a row.
    Returns (params_out, scales, skipped): a new float64 array, a list of T floats and an
    ascending list of ints. Leave params and grads unchanged.
    """
    raise NotImplementedError("scale, cast to float16, check for inf/nan, then skip or update")
