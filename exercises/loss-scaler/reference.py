import numpy as np


def amp_sgd(params, grads, lr, init_scale, growth_factor, backoff_factor, growth_interval):
    params = np.array(params, dtype=np.float64)  # a copy: the caller's array stays as given
    scale = float(init_scale)
    good = 0  # good steps since the scale last changed
    scales, skipped = [], []
    for t, grad in enumerate(grads):
        scales.append(scale)
        with np.errstate(over="ignore", invalid="ignore"):  # the cast overflows on purpose
            g16 = (grad * scale).astype(np.float16)  # scale in float64, then round to fp16
        if not np.isfinite(g16).all():
            # Overflow: skip the update, back off and start counting again.
            skipped.append(t)
            scale = scale * backoff_factor
            good = 0
            continue
        params -= lr * (g16.astype(np.float64) / scale)  # unscale, then plain SGD
        good += 1
        if good == growth_interval:
            scale = scale * growth_factor
            good = 0
    return params, scales, skipped
