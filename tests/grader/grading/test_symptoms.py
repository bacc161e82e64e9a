"""Symptom diagnoses: each symptom named on a realistic wrong answer, nothing said on random or ambiguous ones."""

from __future__ import annotations

import string
from typing import Any

import numpy as np
import pytest

from grader.grading.symptoms import (
    KINDS,
    LABELS,
    SENTENCES,
    across_calls,
    diagnose,
    error_in_words,
    is_empty_case,
    shown_apart,
    sizes_of,
)

RNG = np.random.default_rng(19)
KV_NAMES = ["n_layers", "n_kv_heads", "head_dim", "n_tokens", "bytes_per_value"]
KV_ARGS = (32, 8, 128, 4096, 2)
KV_SIZES = sizes_of(KV_ARGS, KV_NAMES)
KV_BYTES = 2 * 32 * 8 * 128 * 4096 * 2


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    weights = np.exp(scores - scores.max(axis=axis, keepdims=True))
    return weights / weights.sum(axis=axis, keepdims=True)


def log_softmax(z: np.ndarray) -> np.ndarray:
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def rope(x: np.ndarray, positions: np.ndarray, sign: int = 1, base: float = 10000.0) -> np.ndarray:
    d = x.shape[1]
    angles = sign * np.outer(positions, base ** (-np.arange(0, d, 2) / d))
    even, odd = x[:, 0::2], x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = even * np.cos(angles) - odd * np.sin(angles)
    out[:, 1::2] = even * np.sin(angles) + odd * np.cos(angles)
    return out


def _golden() -> list[Any]:
    """(kind, expected, got, sizes, words the sentence must hold), each a realistic wrong answer."""
    scores, values = RNG.normal(size=(6, 6)) * 2, RNG.normal(size=(6, 4))
    causal = np.where(np.tril(np.ones((6, 6), dtype=bool)), scores, -np.inf)
    queries, keys = RNG.normal(size=(6, 4)), RNG.normal(size=(6, 4))
    x, positions = RNG.normal(size=(5, 8)), np.arange(5) + 3
    p_target = softmax(RNG.normal(size=(5, 7)))
    q, cached = RNG.normal(size=64), RNG.normal(size=(10, 64))
    heads = RNG.normal(size=(3, 5, 4))  # (heads, tokens, head size)
    hidden, pred, target = RNG.normal(size=(4, 6)) * 3, RNG.normal(size=8), RNG.normal(size=8)
    signal, token_probs = RNG.normal(size=16), RNG.uniform(0.02, 0.2, size=(3, 80))
    big = np.array([300.0, 250.0, 280.0])  # activations whose squares pass float16's largest, 65504
    naive = np.array([1000.0, 990.0, 980.0])  # scores exp() overflows on without the max subtracted
    lengths, pages = np.array([1000, 37, 129, 64, 513]), np.array([63, 3, 9, 4, 33])
    gib_per_layer, bias = np.linspace(0.3, 7.7, 6), 0.7
    with np.errstate(all="ignore"):
        overflowed = np.sqrt(np.sum(big.astype(np.float16) ** 2, keepdims=True))
        naive_softmax = np.exp(naive) / np.exp(naive).sum()
    cases = [
        ("overflow", np.linalg.norm(big, keepdims=True), overflowed, {}, ["inf"]),
        ("nan", softmax(naive), naive_softmax, {}, ["nan"]),
        ("underflow", token_probs.prod(axis=1), token_probs.astype(np.float32).prod(axis=1).astype(np.float64), {},
         ["underflow"]),
        ("precision-float32", softmax(scores) @ values, softmax(scores.astype(np.float32)).astype(np.float64) @ values,
         {}, ["float32"]),
        ("precision-float32", softmax(scores), softmax(scores.astype(np.float32)), {}, ["float32"]),
        ("precision-float16", softmax(scores) @ values, softmax(scores.astype(np.float16)) @ values.astype(np.float16),
         {}, ["float16"]),
        ("precision-float16", softmax(scores), softmax(scores.astype(np.float16)).astype(np.float64), {}, ["float16"]),
        ("integer-overflow", 2 * (1 << 40) * 4096 * 1024, int(np.prod(np.array([2, 1 << 40, 4096, 1024]))), {},
         ["int64"]),
        ("integer-via-float", 2 * 3 * 5 * 7 * (2**50 + 1), int(2.0 * 3 * 5 * 7 * (2**50 + 1)), {}, ["float"]),
        ("off-by-one", -(-1000 // 16), 1000 // 16, {}, ["one less"]),
        ("off-by-one", np.arange(6), np.arange(1, 7), {}, ["one more"]),
        ("sign", 2 * (pred - target) / 8, 2 * (target - pred) / 8, {}, ["opposite sign"]),
        ("factor", KV_BYTES, KV_BYTES // 2, KV_SIZES, ["÷ 2"]),
        ("factor", KV_BYTES, KV_BYTES // 32, KV_SIZES, ["÷ n_layers"]),
        ("factor", cached @ q / 8, cached @ q / 64, sizes_of([q, cached]), ["÷ √64"]),
        ("factor", hidden.mean(axis=0), hidden.sum(axis=0), sizes_of([hidden]), ["× 4"]),
        ("constant-factor", hidden / (np.abs(hidden).max() / 127), hidden / (np.abs(hidden).max() / 128), {},
         ["constant factor"]),
        ("absolute", cached[:, :3] @ q[:3], np.abs(cached[:, :3] @ q[:3]), {}, ["absolute value"]),
        ("sign-part", x[:, :2], x[:, :2] * [1, -1], {}, ["opposite sign"]),
        ("offset", hidden[0] + bias, hidden[0] + 2 * bias, {}, ["plus a constant"]),
        ("conjugate", np.fft.fft(signal), np.conj(np.fft.fft(signal)), {}, ["conjugate"]),
        ("transpose", queries @ keys.T, keys @ queries.T, {}, ["rows and columns"]),
        ("transpose", np.stack([scores, scores**2]), np.stack([scores.T, (scores**2).T]), {}, ["axes 1 and 2"]),
        ("shift", p_target[:-1], p_target[1:], {}, ["shifted by one row", "the next one"]),
        ("shift", np.cumsum(signal), np.concatenate([[0.0], np.cumsum(signal)[:-1]]), {}, ["the previous one"]),
        ("reversed", np.sort(p_target[0])[::-1], np.sort(p_target[0]), {}, ["reverse order"]),
        ("permutation", np.concatenate(list(heads), axis=1), np.concatenate(list(heads[[1, 0, 2]]), axis=1), {},
         ["within each row"]),
        ("permutation", heads.transpose(1, 0, 2).reshape(5, 12), heads.reshape(5, 12), {}, ["another order:"]),
        ("rotation", rope(x, positions), rope(x, positions, sign=-1), {}, ["rotation", "sine"]),
        ("wrong-axis-normalisation", softmax(scores), softmax(scores, axis=0), {}, ["its columns sum to 1"]),
        ("wrong-axis-normalisation", softmax(causal), softmax(causal, axis=0), {}, ["its columns sum to 1"]),
        ("wrong-axis-normalisation", softmax(np.stack([scores, scores / 2])),
         softmax(np.stack([scores, scores / 2]), axis=1), {}, ["along axis 1 where it should along axis 2"]),
        ("unnormalised", softmax(scores), np.exp(scores - scores.max(axis=-1, keepdims=True)), {}, ["dividing"]),
        ("factor-per-slice", hidden / np.sqrt((hidden**2).mean(axis=-1, keepdims=True)), hidden, {}, ["per-row"]),
        ("unnormalised-log", log_softmax(scores), scores - scores.max(axis=-1, keepdims=True), {}, ["log-sum-exp"]),
        ("offset-per-slice", hidden - hidden.mean(axis=-1, keepdims=True), hidden - hidden.max(axis=-1, keepdims=True),
         {}, ["per-row"]),
        ("truncation", lengths / pages, (lengths // pages).astype(np.float64), {}, ["fractional part dropped"]),
        ("rounding", gib_per_layer, np.round(gib_per_layer), {}, ["whole numbers"]),
    ]  # fmt: skip
    return [pytest.param(e, g, s, kind, words, id=f"{kind}-{n}") for n, (kind, e, g, s, words) in enumerate(cases)]


GOLDEN = _golden()
U, V, W = RNG.normal(size=7), RNG.normal(size=5), RNG.normal(size=5)


@pytest.mark.parametrize(("expected", "got", "sizes", "kind", "words"), GOLDEN)
def test_a_realistic_mistake_is_named(
    expected: Any, got: Any, sizes: dict[str, float], kind: str, words: list[str]
) -> None:
    found = diagnose(expected, got, sizes=sizes)
    assert found is not None, f"nothing said; expected {kind}"
    assert found.kind == kind, found.sentence
    for word in words:
        assert word in found.sentence


CALL_PATTERNS = [
    ("first-only", [True, False, False, False], (), ["Right on the first call"]),
    ("wrong-first-only", [False, True, True], (), ["first call only"]),
    ("wrong-last-only", [True, True, True, False], (), ["last call only"]),
    ("right-until", [True, True, True, False, False], (), ["first 3 calls", "from the 4th on"]),
    ("wrong-when-empty", [False, True, True], [True, False, False], ["empty input"]),
    ("wrong-when-empty", [True, False], [False, True], ["empty input"]),
]


@pytest.mark.parametrize(("kind", "rights", "empty", "words"), CALL_PATTERNS, ids=[c[0] for c in CALL_PATTERNS])
def test_a_pattern_of_right_and_wrong_calls_is_named(
    kind: str, rights: list[bool], empty: list[bool], words: list[str]
) -> None:
    found = across_calls(rights, empty=empty)
    assert found is not None and found.kind == kind
    for word in words:
        assert word in found.sentence


@pytest.mark.parametrize(
    "rights",
    [[True, True, True], [False, False, False], [True, False], [False, True], [True, False, True, False],
     [False, False, True, True], [True, False, False, True]],
)  # fmt: skip
def test_calls_without_a_pattern_say_nothing(rights: list[bool]) -> None:
    assert across_calls(rights) is None


def test_empty_inputs_are_named_only_when_they_are_exactly_the_wrong_calls() -> None:
    # The first call is both the empty one and the first: emptiness is the more specific reading.
    assert across_calls([False, True, True], empty=[True, False, False]).kind == "wrong-when-empty"
    assert across_calls([False, False, True], empty=[True, False, False]) is None
    assert across_calls([False, True, True], empty=[True, True, False]).kind == "wrong-first-only"


def test_every_kind_has_a_golden_case() -> None:
    named = {param.values[3] for param in GOLDEN} | {kind for kind, *_ in CALL_PATTERNS}
    across = {"in-place"}  # found by replaying the reference: tests/grader/grading/test_across.py
    assert named | across == set(KINDS)


def test_every_kind_has_words_for_instructors() -> None:
    assert set(LABELS) == set(KINDS)


def test_sentences_are_filled_with_relationships_only() -> None:
    """No sentence has a field for a value: only the factor, axes, units, a dtype, a count of calls."""
    relationships = {"op", "axes", "unit", "units", "which", "along", "within", "pairs", "axis", "got_axis",
                     "plainly", "dtype", "more_less", "count", "next"}  # fmt: skip
    fields = {field for text in SENTENCES.values() for _, field, _, _ in string.Formatter().parse(text) if field}
    assert fields <= relationships


def test_a_factor_named_after_a_parameter_does_not_show_its_value() -> None:
    found = diagnose(KV_BYTES, KV_BYTES // 8, sizes=KV_SIZES)  # 8 is n_kv_heads, and n_layers ÷ 4
    assert found is not None
    assert "n_kv_heads" in found.sentence
    assert not any(ch.isdigit() for ch in found.sentence.split(":")[0])


def test_several_equal_factors_are_all_named_and_too_many_none() -> None:
    two = diagnose(KV_BYTES, KV_BYTES // 2, sizes={"n_layers": 32, "bytes_per_value": 2})
    assert two is not None and "÷ 2:" in two.sentence  # the constant 2 is shown; the parameter equal to it is not
    both = diagnose(3 * 5 * 7 * 11 * 13, 5 * 7 * 11 * 13, sizes={"n_heads": 3, "n_groups": 3})
    assert both is not None and "÷ n_heads or ÷ n_groups" in both.sentence
    # 64 = 2·n_layers = √n_tokens = n_kv_heads² = n_layers·bytes_per_value: the data cannot say which.
    assert diagnose(KV_BYTES, KV_BYTES // 64, sizes=KV_SIZES) is None


def test_unnamed_integer_arguments_are_left_out_of_the_sizes() -> None:
    cache = {"k": np.zeros((3, 16)), "v": np.zeros((3, 16))}
    assert sizes_of([cache, 7, True, 2.5], ["cache", "window"]) == {"3": 3.0, "16": 16.0, "window": 7.0}
    assert sizes_of([7, 9]) == {}


def test_an_empty_input_is_found_nested() -> None:
    assert is_empty_case([np.ones(3), {"k": np.zeros((0, 4))}])
    assert is_empty_case([[], 3])
    assert not is_empty_case([np.ones(3), {"k": np.zeros((2, 4))}, "abc", 0])


def _random_wrong(shape: tuple[int, ...], how: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    base = rng.normal(size=shape)
    expected = [base, softmax(base) if shape else np.abs(base), np.round(base * 3)][how % 3]
    got = [rng.normal(size=shape), expected + rng.normal(size=shape) * 0.05, np.round(rng.normal(size=shape) * 3)]
    return expected, np.asarray(got[how // 3], dtype=np.float64)


@pytest.mark.parametrize("seed", range(4))
def test_random_wrong_values_are_not_given_a_symptom(seed: int) -> None:
    rng = np.random.default_rng(seed)
    said = []
    for _ in range(150):
        shape = tuple(int(n) for n in rng.integers(1, 7, size=rng.integers(0, 4)))
        expected, got = _random_wrong(shape, int(rng.integers(0, 9)), rng)
        found = diagnose(expected, got, sizes={"n": 4, "d": 16})
        # Whole numbers that all differ by one the same way are off by one, however they came.
        if found is not None and found.kind != "off-by-one":
            said.append((found.kind, expected, got))
    assert not said


@pytest.mark.parametrize(
    ("expected", "got"),
    [
        (np.zeros((3, 3)), np.ones((3, 3))),  # every expected value 0: nothing is relative to it
        (softmax(np.arange(6.0)), np.zeros(6)),  # what an unwritten function returns
        (np.array([0.0, 0.0, 1.0, 0.0]), np.array([0.0, 1.0, 0.0, 0.0])),  # a one-hot moved: two round values
        (np.full((4, 4), 0.25), np.full((4, 4), 0.5)),  # uniform weights: a factor and an offset alike
        (np.array([[0.0, 1.5], [-1.5, 0.0]]), np.array([[0.0, -1.5], [1.5, 0.0]])),  # antisymmetric: sign or .T
        (np.full((3, 4), 0.7), np.array([[0.7] * 4, [0.7] * 4, [0.9] * 4])),  # equal rows: no shift to see
        (np.outer(U, V), np.outer(U, W)),  # rank 1 (A = σu, B = v): any other B is a factor per column
        (np.tile([0.0, 2, 2, 4, -2, -4], (4, 1)), np.tile([1.0, 2, 3, 4, -3, -4], (4, 1))),  # equal rows, halves
        (np.array([3, 5, 2]), np.array([3, 5, 1])),  # token ids: one off another by chance
        (2, 1),  # half of 2, or one less: a hidden kv_cache_bytes(1, 1, 1, 1, 1) without its 2
        (3, 6),  # small numbers are multiples of each other by chance
        (7, 7),  # equal
        (np.ones(3), np.ones(4)),  # shapes differ: not for a diagnosis
        (np.array([1.0, np.nan]), np.array([1.0, 2.0])),  # the expected value is nan
    ],
    ids=["zeros", "starter", "one-hot", "uniform", "antisymmetric", "equal-rows", "rank-1", "equal-rows-rounded",
         "token-ids", "two-for-one", "small-ints", "equal", "shapes", "nan-expected"],
)  # fmt: skip
def test_ambiguous_or_empty_evidence_says_nothing(expected: Any, got: Any) -> None:
    assert diagnose(expected, got) is None


def test_the_layer_norm_epsilon_is_not_taken_for_round_off() -> None:
    hidden = np.random.default_rng(1).normal(size=(8, 16))
    centred, variance = hidden - hidden.mean(axis=-1, keepdims=True), hidden.var(axis=-1, keepdims=True)
    assert diagnose(centred / np.sqrt(variance + 1e-5), centred / (np.sqrt(variance) + 1e-5)) is None


def test_a_rotary_embedding_in_the_other_layout_is_not_called_a_rotation() -> None:
    x = np.random.default_rng(2).normal(size=(5, 8))
    angles = np.outer(np.arange(5), 10000.0 ** (-np.arange(0, 8, 2) / 8))
    first, second = x[:, :4], x[:, 4:]
    halves = np.concatenate([first * np.cos(angles) - second * np.sin(angles),
                             first * np.sin(angles) + second * np.cos(angles)], axis=1)  # fmt: skip
    assert diagnose(rope(x, np.arange(5)), halves) is None


# --------------------------------------------------------------------------- numbers in messages


@pytest.mark.parametrize(
    ("expected", "got", "texts"),
    [
        (0.14387703, 0.1438772, ("0.143877", "0.1438772")),  # the float32 softmax
        (0.5, 0.75, ("0.5", "0.75")),
        (1.0, 1.0 + 2**-52, ("1", "1.0000000000000002")),
        (-0.0, 0.0, ("-0", "0")),
        (0.1, 0.1, ("0.1", "0.1")),
        (float("nan"), 1.0, ("nan", "1")),
        (4294967296, 134217728, ("4,294,967,296", "134,217,728")),
        (2**70, 2**70 + 1, ("1,180,591,620,717,411,303,424", "1,180,591,620,717,411,303,425")),
        (1.5, np.float32(1.5000001), ("1.5", "1.5000001")),
    ],
)
def test_numbers_are_shown_with_the_digits_where_they_differ(expected: Any, got: Any, texts: tuple[str, str]) -> None:
    assert shown_apart(expected, got) == texts


@pytest.mark.parametrize(
    ("expected", "got", "words"),
    [
        (0.14387703, 0.1438772, "the 7th significant digit, the size of float32 round-off"),
        (1.0, float(np.float32(1.0 + 2**-20)), "the 8th significant digit, the size of float32 round-off"),
        (0.3, 0.3003, "the 4th significant digit, the size of float16 round-off"),
        (250.0, 250.25, "the 4th significant digit, the size of float16 round-off"),
        (0.3, 0.3 + 1e-11, None),  # far below float32 round-off: float64 in another order
        (0.3, 0.3 * (1 + 2e-5), None),  # between the bands: neither dtype
        (0.3, 0.33, None),  # a real difference
        (0.0, 1e-7, None),  # relative to 0 means nothing
        (1.0, float("inf"), None),
    ],
)
def test_a_round_off_sized_error_is_said_in_words(expected: float, got: float, words: str | None) -> None:
    said = error_in_words(expected, got)
    if words is None:
        assert said is None
    else:
        assert said is not None and words in said and said.endswith("?")


def test_a_named_parameter_is_said_before_a_size_equal_to_its_power_and_below_one_the_other_way_round() -> None:
    # A loss missing T² with T = 2 on a batch of 4 rows: T², not the batch size.
    expected = np.array([0.3, 0.5, 1.2])
    halved = diagnose(expected, expected / 4, sizes={"4": 4, "3": 3, "temperature": 2.0})
    assert halved is not None and "÷ temperature²" in halved.sentence and "÷ 4" not in halved.sentence
    # With T = 0.25, missing T² multiplies by 16: that is ÷ T², not × (2·8) of a size of 8.
    grown = diagnose(expected, expected * 16, sizes={"5": 5, "8": 8, "temperature": 0.25})
    assert grown is not None and "÷ temperature²" in grown.sentence


def test_integers_too_large_for_a_float_are_judged_without_an_error() -> None:
    assert diagnose(3, 10**400) is None
    assert diagnose(10**400 + 1, 10**400) is not None  # off by one, exactly
