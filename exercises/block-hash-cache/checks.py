"""Hidden checks for "Prefix Caching with Chained Block Hashes".

Expected hashes come from a second hasher written here: one SHA-256 object per block fed in three
updates, with struct.pack for the extra key and a little-endian uint32 numpy array for the tokens.
Expected hits use no hash at all: a block of a request is cached when an earlier request with the
same extra key had exactly the same tokens up to the end of that block, which is what the chained
hashes stand for. The statement's examples were worked out by hand. A wrong answer is named by the
grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import hashlib
import re
import struct
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, fail, values_shown

HEX = re.compile(r"[0-9a-f]{64}")

# --------------------------------------------------------------------------- independent reference


def expected_hashes(tokens: list[int], block_size: int, extra_key: int) -> list[str]:
    ids = np.asarray([int(t) for t in tokens], dtype=np.uint64)
    parent = b"\x00" * 32
    out = []
    for start in range(0, len(ids) - block_size + 1, block_size):
        h = hashlib.sha256()
        h.update(parent)
        h.update(struct.pack("<q", int(extra_key)))
        h.update(ids[start : start + block_size].astype("<u4").tobytes())
        parent = h.digest()
        out.append(h.hexdigest())
    return out


def expected_hits(reqs: list[list[int]], block_size: int, extra_keys: list[int]) -> list[int]:
    seen: set[tuple[int, tuple[int, ...]]] = set()  # (extra key, the tokens up to the end of a full block)
    hits = []
    for tokens, key in zip(reqs, extra_keys, strict=True):
        ids = tuple(int(t) for t in tokens)
        ends = range(block_size, len(ids) + 1, block_size)
        c = 0
        while c < len(ends) and (int(key), ids[: ends[c]]) in seen:
            c += 1
        hits.append(min(c * block_size, (len(ids) - 1) // block_size * block_size))
        seen.update((int(key), ids[:end]) for end in ends)
    return hits


def shared_prefix_stream(rng: np.random.Generator, n: int, B: int, vocab: int, keys: list[int]) -> list[list[int]]:
    """Requests that mostly extend, cut or branch from earlier ones."""
    reqs: list[list[int]] = []
    for _ in range(n):
        if reqs and rng.random() < 0.8:
            base = reqs[int(rng.integers(0, len(reqs)))]
            cut = int(rng.integers(0, len(base) + 1))
            tail = [int(t) for t in rng.integers(0, vocab, size=int(rng.integers(0, 3 * B)))]
            tokens = base[:cut] + tail
        else:
            tokens = [int(t) for t in rng.integers(0, vocab, size=int(rng.integers(1, 5 * B)))]
        reqs.append(tokens or [int(rng.integers(0, vocab))])
    return reqs


# --------------------------------------------------------------------------- comparing answers


def counted(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def expect_hashes(got: Any, want: list[str], what: str) -> None:
    """A list of 64-character lowercase hex strings equal to ``want``."""
    if not isinstance(got, list):
        fail(f"{what} should be a list of hex strings, got {describe(got)}", hint="form")
    for i, h in enumerate(got):
        if not isinstance(h, str) or not HEX.fullmatch(h):
            kind = "a str that is not 64 lowercase hex characters" if isinstance(h, str) else describe(h)
            fail(f"{what}: hash {i} should be the 64 lowercase hex characters of hexdigest(), got {kind}",
                 hint="sha256")  # fmt: skip
    if got == want:
        return
    if values_shown():
        message = f"{what}: expected {want}, got {got}"
    elif len(got) != len(want):
        were = "was" if len(want) == 1 else "were"
        message = f"{what} holds {counted(len(got), 'hash', 'hashes')} where {len(want)} {were} expected"
    else:
        wrong = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
        where = f"first at block {wrong[0]}; {len(wrong)} of {len(want)} differ"
        message = f"{what} differs from the expected hashes: {where}"
    # A value that differs: the grader names the mistake from the answers, no hint is guessed here.
    fail(message, hint=None, expected=want, got=got)


def expect_hits(got: Any, want: list[int], what: str) -> None:
    """A list of ints (Python or numpy) equal to ``want``."""
    ints = isinstance(got, list) and all(isinstance(h, (int, np.integer)) and not isinstance(h, bool) for h in got)
    if not ints:
        fail(f"{what} should be a list of ints, got {describe(got)}", hint="form")
    values = [int(h) for h in got]
    if values == want:
        return
    if values_shown():
        message = f"{what}: expected {want}, got {values}"
    elif len(values) != len(want):
        were = "was" if len(want) == 1 else "were"
        message = (
            f"{what} has {counted(len(values), 'entry', 'entries')} where {len(want)} {were} expected (one per request)"
        )
    else:
        wrong = [i for i, (g, w) in enumerate(zip(values, want, strict=True)) if g != w]
        where = f"first at request {wrong[0]}; {len(wrong)} of {len(want)} differ"
        message = f"{what} differs from the expected hits: {where}"
    fail(message, hint=None, expected=want, got=got)


def compare_hashes(student: Student, cases: list[tuple[list[int], int, int]], label: str) -> None:
    for n, (args, got) in enumerate(zip(cases, student.block_hashes.each(cases), strict=True), start=1):
        expect_hashes(got, expected_hashes(*args), f"the hashes ({label}, case {n} of {len(cases)})")


def compare_hits(student: Student, cases: list[tuple[list[list[int]], int, list[int]]], label: str) -> None:
    for n, (args, got) in enumerate(zip(cases, student.prefix_hits.each(cases), strict=True), start=1):
        expect_hits(got, expected_hits(*args), f"the hits ({label}, stream {n} of {len(cases)})")


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    got = student.block_hashes([1, 2, 3, 4, 5], 2, 0)
    expect_hashes(got, expected_hashes([1, 2, 3, 4, 5], 2, 0), "the hashes of [1, 2, 3, 4, 5] in blocks of 2")
    if got[0] != "b29dec44cd6a6405e408fd7533c69175db73a0682e2f0096821a88c9ef778537":  # worked out by hand too
        fail("the first hash is not the statement's", hint="sha256")
    reqs = [[1, 2, 3, 4, 5], [1, 2, 3, 4, 6], [1, 2, 3, 4], [3, 4, 1, 2, 7], [1, 2, 3, 4, 5]]
    expect_hits(student.prefix_hits(reqs, 2, [0, 0, 0, 0, 7]), [0, 4, 2, 0, 0], "the hits of the five requests")
    expect_hits(student.prefix_hits([[9], [9], [9, 9, 9]], 1, [0, 0, 0]), [0, 0, 1], "the hits with blocks of 1")


@check("Both functions return lists, empty ones included", public=True, hint="form")
def return_form(student: Student) -> None:
    expect_hashes(student.block_hashes([], 4, 0), [], "the hashes of no tokens")
    expect_hashes(student.block_hashes([5, 6, 7], 4, 0), [], "the hashes of a partial block alone")
    expect_hashes(student.block_hashes([5, 6, 7, 8], 4, -1), expected_hashes([5, 6, 7, 8], 4, -1),
                  "the hashes of one block with extra key -1")  # fmt: skip
    expect_hits(student.prefix_hits([], 4, []), [], "the hits of no requests")
    expect_hits(student.prefix_hits([[1, 2], [1, 2, 3]], 2, [0, 0]), [0, 2], "the hits of two requests")


@check("Each hash is chained to the block before it", hint="chained")
def chained(student: Student, rng: np.random.Generator) -> None:
    cases = [([7, 7, 7, 7, 7, 7], 2, 0), ([1, 2, 3, 4, 1, 2], 2, 3), ([5, 6, 7, 8, 5, 6, 7, 8, 5], 4, 0)]
    for _ in range(8):
        block = [int(t) for t in rng.integers(0, 1000, size=3)]
        cases.append((block * int(rng.integers(2, 5)), 3, int(rng.integers(-5, 5))))
    compare_hashes(student, cases, "repeated blocks")


@check("Only full blocks are hashed", hint="full-blocks")
def full_blocks_only(student: Student, rng: np.random.Generator) -> None:
    cases = [([1, 2, 3], 2, 0), ([4], 3, 0), ([4, 5, 6, 7, 8], 4, 9), ([9] * 7, 8, 1), ([2, 3, 4, 5, 6, 7], 5, 2)]
    for _ in range(10):
        B = int(rng.integers(2, 9))
        L = int(rng.integers(0, 5)) * B + int(rng.integers(1, B))  # never a multiple of B
        cases.append(([int(t) for t in rng.integers(0, 2**20, size=L)], B, int(rng.integers(0, 100))))
    compare_hashes(student, cases, "a partial last block")


@check("Tokens are 4 bytes, little-endian, unsigned", hint="token-bytes")
def token_bytes(student: Student, rng: np.random.Generator) -> None:
    cases = [([2**32 - 1, 0, 2**31, 1], 2, 0), ([256, 65536, 2**24], 1, 0), ([3, 2**31 + 5, 17, 2**32 - 2], 4, 5)]
    for _ in range(8):
        B = int(rng.integers(1, 6))
        tokens = [int(t) for t in rng.integers(0, 2**32, size=int(rng.integers(B, 4 * B + 1)), dtype=np.uint64)]
        cases.append((tokens, B, int(rng.integers(-(2**40), 2**40))))
    compare_hashes(student, cases, "large token ids")


@check("The extra key is 8 bytes, little-endian, two's complement", hint="key-bytes")
def key_bytes(student: Student) -> None:
    tokens = [10, 20, 30, 40]
    keys = [0, 1, -1, 2**63 - 1, -(2**63), 2**32, -(2**32) - 7, 2**40 + 3, 123456789]
    compare_hashes(student, [(tokens, 2, key) for key in keys], "extra keys across the int64 range")


@check("Hashes of many random prompts")
def random_hashes(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for _ in range(60):
        B = int(rng.integers(1, 17))
        tokens = [int(t) for t in rng.integers(0, 50_000, size=int(rng.integers(0, 6 * B)))]
        cases.append((tokens, B, int(rng.integers(-(2**63), 2**63 - 1, dtype=np.int64))))
    compare_hashes(student, cases, "random prompt")


@check("A hit never covers a request's last token", hint="last-token")
def last_token(student: Student) -> None:
    cases = [
        ([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4, 5]], 2, [0, 0, 0]),  # fully cached: 2 tokens, then 4
        ([[5, 6, 7], [5, 6, 7], [5, 6, 7, 8]], 3, [1, 1, 1]),  # one block, fully cached: 0, then 3
        ([[4, 4, 4, 4, 4, 4], [4, 4, 4, 4, 4, 4, 4], [4, 4, 4, 4, 4, 4]], 2, [0, 0, 0]),
        ([[8], [8], [8, 8]], 1, [2, 2, 2]),
    ]
    compare_hits(student, cases, "fully cached prompts")


@check("Only the leading cached blocks count", hint="leading")
def leading_blocks(student: Student) -> None:
    cases = [
        ([[1, 2, 3, 4, 5, 6, 0], [1, 2, 9, 9, 5, 6, 0]], 2, [0, 0]),  # block 1 misses; block 2 is new anyway
        ([[1, 1, 2, 2, 3, 3, 4], [1, 1, 2, 2, 3, 3, 4, 4], [1, 1, 7, 7, 3, 3, 4, 4, 5]], 2, [0, 0, 0]),
        ([[6, 6, 6, 6], [7, 7], [7, 7, 6, 6, 6, 6, 1]], 2, [0, 0, 0]),
    ]
    compare_hits(student, cases, "a miss before cached content")


@check("The cache is read before the request's own blocks are added", hint="order")
def lookup_then_insert(student: Student) -> None:
    cases = [
        ([[1, 2, 3, 4, 5]], 2, [0]),
        ([[3, 3, 3, 3, 3, 3, 3]], 1, [0]),
        ([[1, 2, 3], [4, 5, 6], [1, 2, 3, 4]], 3, [0, 0, 0]),
    ]
    compare_hits(student, cases, "first requests")


@check("Requests with other extra keys share nothing", hint="extra-key")
def extra_keys_isolate(student: Student) -> None:
    cases = [
        ([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6]], 2, [0, 1, 1, 0]),
        ([[9, 8, 7, 6, 5], [9, 8, 7, 6, 5], [9, 8, 7, 6, 5]], 4, [-1, 2**63 - 1, -1]),
        ([[5, 5, 5], [5, 5, 5], [5, 5, 5]], 1, [3, 3, -3]),
    ]
    compare_hits(student, cases, "several extra keys")


@check("Hits for streams of requests that share prefixes")
def random_streams(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for _ in range(25):
        B = int(rng.integers(1, 6))
        n = int(rng.integers(1, 25))
        keys = [int(k) for k in rng.choice([0, 0, 0, 1, -2], size=n)]
        cases.append((shared_prefix_stream(rng, n, B, int(rng.integers(2, 6)), keys), B, keys))
    compare_hits(student, cases, "random stream")


@check("Token ids and keys given as numpy integers")
def numpy_integers(student: Student, rng: np.random.Generator) -> None:
    tokens = [int(t) for t in rng.integers(0, 2**32, size=9, dtype=np.uint64)]
    as_numpy = [np.uint32(t) for t in tokens]
    got = student.block_hashes(as_numpy, 4, np.int64(-5))
    expect_hashes(got, expected_hashes(tokens, 4, -5), "the hashes of numpy integer tokens")
    reqs = [tokens, tokens[:6], [*tokens, 1]]
    keys = [np.int64(2), np.int64(2), np.int64(2)]
    got = student.prefix_hits([[np.uint32(t) for t in r] for r in reqs], 2, keys)
    expect_hits(got, expected_hits(reqs, 2, [2, 2, 2]), "the hits of numpy integer tokens")


@check("The lists passed in are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    reqs = [[1, 2, 3, 4, 5], [1, 2, 3, 4, 6], [1, 2, 3, 4]]
    keys = [0, 0, 0]
    tokens = [1, 2, 3, 4, 5]
    # The same lists for two calls in one crossing: a call that changes them changes the second answer.
    first, second = student.block_hashes.each([(tokens, 2, 0), (tokens, 2, 0)])
    for got, which in ((first, "first"), (second, "second")):
        expect_hashes(got, expected_hashes(tokens, 2, 0), f"the hashes, {which} call on one list")
    first, second = student.prefix_hits.each([(reqs, 2, keys), (reqs, 2, keys)])
    for got, which in ((first, "first"), (second, "second")):
        expect_hits(got, [0, 4, 2], f"the hits, {which} call on the same requests")
