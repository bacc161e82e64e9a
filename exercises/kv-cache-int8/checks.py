"""Hidden checks for "An Int8 KV Cache".

Expected values are computed here by other routes than a solution's: the quantization element by
element in plain Python (``max(abs(x) ...)`` and the built-in ``round``, which rounds half to
even), attention with the scale factored out of each dot product and a log-space softmax
(``logaddexp``). Exact ties use powers of two as scales, so that floating point decides them;
random rows are kept at least 1e-6 away from any tie. A wrong answer is named by the grader, by
comparing it with the mutants.
"""

from __future__ import annotations

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_integer, expect_sequence, fail

# --------------------------------------------------------------------------- independent reference


def expected_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q, scale) of each row by the statement's rule."""
    q, scales = [], []
    for row in x.tolist():
        largest = max(abs(v) for v in row)
        s = largest / 127 if largest != 0 else 1.0
        scales.append([s])
        q.append([min(127, max(-127, round(v / s))) for v in row])
    return np.array(q, dtype=np.int8).reshape(x.shape), np.array(scales, dtype=np.float64).reshape(-1, 1)


def expected_attend(
    q_vec: np.ndarray, k_q: np.ndarray, k_scale: np.ndarray, v_q: np.ndarray, v_scale: np.ndarray
) -> np.ndarray:
    """Integer-valued dot products first, the key scales after; softmax in log space."""
    scores = (k_q.astype(np.float64) @ q_vec) * k_scale[:, 0] / np.sqrt(len(q_vec))
    weights = np.exp(scores - np.logaddexp.reduce(scores))
    return (weights * v_scale[:, 0]) @ v_q.astype(np.float64)


def away_from_ties(x: np.ndarray) -> np.ndarray:
    """x, with any number whose x / s lies within 1e-6 of a tie moved off it (random data: rarely any)."""
    x = x.copy()
    while True:
        _, scale = expected_rows(x)
        r = np.abs(x / scale)
        near = np.abs(r - np.floor(r) - 0.5) < 1e-6
        if not near.any():
            return x
        x[near] *= 1.0 + 1e-4


def random_rows(rng: np.random.Generator, t: int, d: int) -> np.ndarray:
    """Tokens whose keys or values differ in size by orders of magnitude, as in real caches."""
    return away_from_ties(rng.normal(size=(t, d)) * 10.0 ** rng.uniform(-3, 2, size=(t, 1)))


def random_cache(rng: np.random.Generator, t: int, d: int) -> tuple[np.ndarray, ...]:
    """(k_q, k_scale, v_q, v_scale) made by the checker, keys and values with different scales."""
    k_q = rng.integers(-127, 128, size=(t, d)).astype(np.int8)
    v_q = rng.integers(-127, 128, size=(t, d)).astype(np.int8)
    k_scale = 10.0 ** rng.uniform(-3, -1, size=(t, 1))
    v_scale = 10.0 ** rng.uniform(-2, 0, size=(t, 1))
    return k_q, k_scale, v_q, v_scale


# --------------------------------------------------------------------------- comparing answers


def quantize_and_compare(student: Student, cases: list[tuple[np.ndarray, str]]) -> None:
    """quantize_rows on every case in one crossing."""
    results = student.quantize_rows.each([(x,) for x, _ in cases])
    for (x, label), result in zip(cases, results, strict=True):
        q, scale = expect_sequence(result, 2, what=f"quantize_rows's return value ({label})", hint="form")
        want_q, want_scale = expected_rows(x)
        expect_array(scale, want_scale, what=f"scale ({label})", dtype=np.float64, rtol=1e-9, atol=0, hint="form")
        expect_array(q, want_q, what=f"q ({label})", dtype=np.int8, exact=True, hint="form")


def attend_and_compare(student: Student, cases: list[tuple[tuple[np.ndarray, ...], str]]) -> None:
    """int8_cache_attend on every case in one crossing."""
    results = student.int8_cache_attend.each([args for args, _ in cases])
    for (args, label), got in zip(cases, results, strict=True):
        want = expected_attend(*args)
        expect_array(got, want, what=f"out ({label})", dtype=np.float64, rtol=1e-7, atol=1e-12, hint="form")


WORKED_K = np.array([[1.27, -0.383], [0.0, 0.0], [-0.5, 2.54]])
WORKED_V = np.array([[0.254, 0.1], [-1.27, 0.5], [0.0, 0.0]])


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    quantize_and_compare(student, [(WORKED_K, "the worked example's keys"), (WORKED_V, "the worked example's values")])
    k_q = np.array([[127, -38], [0, 0], [-25, 127]], dtype=np.int8)
    v_q = np.array([[127, 50], [-127, 50], [0, 0]], dtype=np.int8)
    cache = (np.array([1.0, 0.5]), k_q, np.array([[0.01], [1.0], [0.02]]), v_q, np.array([[0.002], [0.01], [1.0]]))
    attend_and_compare(student, [(cache, "the worked example")])


@check("The statement's cache sizes", public=True, hint="bytes-formula")
def cache_bytes_examples(student: Student) -> None:
    cases = [((32, 32, 128, 4096, 2), 1_090_519_040, "G = 32"), ((32, 8, 128, 4096, 2), 272_629_760, "G = 8")]
    results = student.int8_cache_bytes.each([args for args, *_ in cases])
    for (_, want, heads), got in zip(cases, results, strict=True):
        expect_integer(got, want, what=f"int8_cache_bytes, the statement's example with {heads}", hint="integers")


@check("Shapes and dtypes: q int8 (t, d), scale float64 (t, 1), out float64 (d,)", hint="form")
def output_forms(student: Student) -> None:
    rng = np.random.default_rng(1)
    q, scale = expect_sequence(student.quantize_rows(rng.normal(size=(5, 3))), 2, what="quantize_rows's return value")
    if not isinstance(q, np.ndarray) or q.shape != (5, 3) or q.dtype != np.int8:
        fail(f"q of a (5, 3) x should be an int8 array of shape (5, 3), got {describe(q)}")
    if not isinstance(scale, np.ndarray) or scale.shape != (5, 1) or scale.dtype != np.float64:
        fail(f"scale of a (5, 3) x should be a float64 array of shape (5, 1), got {describe(scale)}")
    out = student.int8_cache_attend(rng.normal(size=3), *random_cache(rng, 5, 3))
    if not isinstance(out, np.ndarray) or out.shape != (3,) or out.dtype != np.float64:
        fail(f"out for a cache of 5 tokens and d = 3 should be a float64 array of shape (3,), got {describe(out)}")


@check("quantize_rows on random caches of many shapes")
def quantize_random(student: Student) -> None:
    rng = np.random.default_rng(2)
    shapes = ((1, 1), (1, 8), (6, 1), (5, 4), (17, 16), (64, 32), (3, 100))
    quantize_and_compare(student, [(random_rows(rng, t, d), f"x of shape ({t}, {d})") for t, d in shapes])


@check("quantize_rows rounds exact ties half to even, on both sides of zero", hint="rounding")
def quantize_ties(student: Student) -> None:
    halves = np.array([0.5, 1.5, 2.5, 3.5, 10.5, 125.5, 126.5])
    rows = []
    for s, sign in ((0.25, 1.0), (2.0**-12, -1.0), (8.0, -1.0), (1.0, 1.0)):
        rows.append(np.concatenate([[sign * 127 * s], halves * s, -halves * s]))
    quantize_and_compare(student, [(np.array(rows), "ties, four rows with scales that are powers of two")])


@check("Rows of zeros get the scale 1, and an empty cache quantizes to empty arrays", hint="zero-scale")
def zero_and_empty(student: Student) -> None:
    rng = np.random.default_rng(3)
    some_zero = random_rows(rng, 6, 4)
    some_zero[[0, 3]] = 0.0
    cases = [
        (some_zero, "rows 1 and 4 all zero"),
        (np.zeros((3, 5)), "every row zero"),
        (np.zeros((0, 4)), "an empty cache, shape (0, 4)"),
    ]
    quantize_and_compare(student, cases)


@check("The scale comes from the largest magnitude, even when it is negative", hint="absmax")
def negative_extremes(student: Student) -> None:
    rng = np.random.default_rng(4)
    x = np.abs(rng.normal(size=(4, 6))) + 0.1
    x[0, 2] = -4.0  # the largest magnitude is negative
    x[1] = -x[1]  # an all-negative row
    x[2, 5] = -0.5 * x[2].max()
    quantize_and_compare(student, [(away_from_ties(x), "rows with negative extremes")])


@check("int8_cache_attend on random caches, keys and values with their own scales", hint="dequantize")
def attend_random(student: Student) -> None:
    rng = np.random.default_rng(5)
    cases = []
    for t, d in ((1, 4), (3, 2), (10, 8), (7, 1), (50, 16), (9, 64), (128, 32)):
        q_vec = rng.normal(size=d) * 3.0
        cases.append(((q_vec, *random_cache(rng, t, d)), f"t={t}, d={d}"))
    attend_and_compare(student, cases)


@check("A single cached token: the output is its dequantized value", hint="dequantize")
def attend_one_token(student: Student) -> None:
    rng = np.random.default_rng(6)
    cases = [((rng.normal(size=d), *random_cache(rng, 1, d)), f"one token, d={d}") for d in (1, 5, 12)]
    attend_and_compare(student, cases)


@check("Large queries do not overflow the softmax", hint="stable-softmax")
def attend_large(student: Student) -> None:
    rng = np.random.default_rng(7)
    cases = []
    for t, d in ((6, 4), (20, 8)):
        k_q, _, v_q, v_scale = random_cache(rng, t, d)
        k_scale = np.full((t, 1), 0.5)  # keys of size ~60, queries of size ~500: scores in the thousands
        cases.append(((rng.normal(size=d) * 500.0, k_q, k_scale, v_q, v_scale), f"large scores, t={t}, d={d}"))
    attend_and_compare(student, cases)


@check("Quantize, then attend: the whole round trip", hint="dequantize")
def round_trip(student: Student) -> None:
    rng = np.random.default_rng(8)
    t, d = 12, 8
    K, V = random_rows(rng, t, d), random_rows(rng, t, d)
    (k_q, k_scale), (v_q, v_scale) = expected_rows(K), expected_rows(V)
    quantize_and_compare(student, [(K, f"keys of {t} tokens"), (V, f"values of {t} tokens")])
    attend_and_compare(student, [((rng.normal(size=d), k_q, k_scale, v_q, v_scale), "a quantized cache")])


@check("Arguments are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    rng = np.random.default_rng(9)
    x = random_rows(rng, 5, 6)
    # The same array for every call of a batch: a call that changes it changes the next call's answer.
    quantize_and_compare(student, [(x, "first call on x"), (x, "second call on the same x"), (x[1:], "its last rows")])
    q_vec = rng.normal(size=6)
    cache = random_cache(rng, 5, 6)
    attend_and_compare(student, [((q_vec, *cache), f"call {n} of 3 on one cache") for n in (1, 2, 3)])


@check("int8_cache_bytes is exact for other sizes, small and huge", hint="integers")
def cache_bytes_exact(student: Student) -> None:
    named = [
        ((1, 1, 1, 1, 1), "the smallest cache"),
        ((80, 8, 128, 32768, 4), "a large model's cache"),
        ((61, 3, 96, 10**6 + 7, 2), "odd sizes"),
        ((126, 8, 128, 10**13 + 1, 2), "more bytes than float64 can count exactly"),  # beyond 2**53, within int64
    ]
    cases = [args for args, _ in named]
    for n, ((args, name), got) in enumerate(zip(named, student.int8_cache_bytes.each(cases), strict=True), start=1):
        n_layers, n_kv_heads, head_dim, n_tokens, scale_bytes = args
        want = n_tokens * (head_dim + scale_bytes) * n_kv_heads * n_layers * 2
        expect_integer(got, want, what=f"int8_cache_bytes, case {n} of {len(named)} ({name})", hint="integers")
