import numpy as np

SIGN = np.uint32(0x80000000)


def ordered_keys(x):
    bits = x.view(np.uint32)
    # A negative float flips every bit (a larger magnitude becomes a smaller key);
    # any other float sets its sign bit, which puts it above every negative one.
    return np.where(bits >= SIGN, ~bits, bits | SIGN)


def radix_select(x, k, radix_bits):
    keys = ordered_keys(x)
    n_digits = 2**radix_bits
    candidates = np.arange(len(keys))  # the positions of the keys still in the running
    passes = []
    for p in range(32 // radix_bits):
        shift = 32 - radix_bits * (p + 1)
        digits = (keys[candidates] >> shift) & (n_digits - 1)
        counts = np.bincount(digits, minlength=n_digits)
        # From the largest digit down, skip whole buckets of larger keys until the k-th one is inside.
        for digit in range(n_digits - 1, -1, -1):
            if k <= counts[digit]:
                break
            k -= counts[digit]
        candidates = candidates[digits == digit]
        passes.append((digit, len(candidates)))
    # Every candidate left has the same key, so the same float: -0.0 keeps its sign.
    return float(x[candidates[0]]), passes
