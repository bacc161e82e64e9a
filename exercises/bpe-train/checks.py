"""Hidden checks for "Training a Byte-Pair Tokenizer".

Expected vocabularies and merges come from a second trainer written here: it cuts the special
tokens out by scanning the text position by position (the longest one that starts there wins),
keeps every occurrence of every pre-token as its own list (no frequency table), recounts the pairs
occurrence by occurrence, and picks a merge by sorting the pairs on (count, pair). A few cases are
also worked out by hand. A wrong answer is named by the grader, by comparing it with the
exercise's mutants on the same calls.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_sequence, fail, values_shown

# The ASCII version of GPT-2's pre-tokenisation pattern, as the statement gives it.
PAT = r"""'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+"""

Vocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]


# --------------------------------------------------------------------------- independent trainer


def cut_special_tokens(text: str, special_tokens: list[str]) -> list[str]:
    """The pieces between special tokens, by a left-to-right scan: the longest token starting at a place wins."""
    pieces, start, i = [], 0, 0
    while i < len(text):
        here = [token for token in special_tokens if text.startswith(token, i)]
        if here:
            pieces.append(text[start:i])
            i += max(len(token) for token in here)
            start = i
        else:
            i += 1
    pieces.append(text[start:])
    return pieces


def expected_bpe(text: str, vocab_size: int, special_tokens: list[str]) -> tuple[Vocab, Merges]:
    words = [
        [bytes([b]) for b in word.encode("utf-8")]
        for piece in cut_special_tokens(text, special_tokens)
        for word in re.findall(PAT, piece)
    ]
    vocab = {i: bytes([i]) for i in range(256)}
    for j, token in enumerate(special_tokens):
        vocab[256 + j] = token.encode("utf-8")
    merges: Merges = []
    while len(vocab) < vocab_size:
        counts: dict[tuple[bytes, bytes], int] = {}
        for word in words:
            for i in range(len(word) - 1):
                counts[word[i], word[i + 1]] = counts.get((word[i], word[i + 1]), 0) + 1
        if not counts:
            break
        left, right = sorted(counts, key=lambda p: (counts[p], p))[-1]
        merges.append((left, right))
        vocab[len(vocab)] = left + right
        for word in words:
            i = 0
            while i < len(word) - 1:
                if word[i] == left and word[i + 1] == right:
                    word[i : i + 2] = [left + right]
                i += 1
    return vocab, merges


def random_text(rng: np.random.Generator, n_words: int, alphabet: str = "abcde", unicode: bool = False) -> str:
    """Words of a few letters from a small alphabet (many repeats, many ties), with spaces, digits and punctuation."""
    extra = ["é", "ß", "中", "文", "🙂", "ñ"] if unicode else []
    parts = []
    for _ in range(n_words):
        size = int(rng.integers(1, 7))
        letters = list(alphabet) + extra
        word = "".join(letters[int(k)] for k in rng.integers(0, len(letters), size=size))
        kind = rng.random()
        if kind < 0.06:
            word = str(int(rng.integers(0, 2000)))
        elif kind < 0.10:
            word += "'s"
        elif kind < 0.14:
            word += "!!"
        sep = " " if rng.random() < 0.85 else ["\n", "  ", ". ", ",\n\n", "\t"][int(rng.integers(0, 5))]
        parts.append(word + sep)
    return "".join(parts)


# --------------------------------------------------------------------------- comparing answers


def expect_form(result: Any, what: str) -> tuple[Any, Any]:
    """(vocab, merges): a dict {int: bytes} and a list of (bytes, bytes) tuples."""
    vocab, merges = expect_sequence(result, 2, what=f"the return value ({what})", hint="form")
    if not isinstance(vocab, dict):
        fail(f"vocab ({what}) should be a dict {{id: bytes}}, got {describe(vocab)}", hint="form")
    for key, value in vocab.items():
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
            fail(f"vocab ({what}) should have int keys (the token ids), got {describe(key)}", hint="form")
        if type(value) is not bytes:
            fail(f"vocab ({what}) should map each id to a bytes object, got {describe(value)}", hint="form")
    if not isinstance(merges, list):
        fail(f"merges ({what}) should be a list, got {describe(merges)}", hint="form")
    for n, pair in enumerate(merges, start=1):
        if type(pair) is not tuple:
            fail(f"merge {n} ({what}) should be a tuple (bytes, bytes), got {describe(pair)}: a list of lists is "
                 "not accepted", hint="form")  # fmt: skip
        if len(pair) != 2 or any(type(part) is not bytes for part in pair):
            fail(f"merge {n} ({what}) should be a tuple of two bytes objects, got a tuple of "
                 f"{', '.join(describe(part) for part in pair) or 'nothing'}", hint="form")  # fmt: skip
    return vocab, merges


def expect_training(result: Any, want: tuple[Vocab, Merges], what: str) -> None:
    """The form, then the merges in order, then the vocabulary, each compared exactly."""
    vocab, merges = expect_form(result, what)
    want_vocab, want_merges = want
    shown = values_shown()
    if merges != want_merges:
        common = min(len(merges), len(want_merges))
        first = next((i for i in range(common) if merges[i] != want_merges[i]), None)
        if first is not None:
            detail = f"expected {want_merges[first]!r}, got {merges[first]!r}" if shown else "it is another pair"
            message = f"merges ({what}) differ from the expected ones: first at merge {first + 1} ({detail})"
        elif len(merges) < len(want_merges):
            right = f"the first {common} are right" if common else "none was made"
            message = f"merges ({what}) stop too early: {right}, but more were expected"
        elif common:
            message = f"merges ({what}) go on too long: the first {common} are right, but then training should stop"
        else:
            message = f"merges ({what}) should be empty, but training made some"
        # A value that differs: the grader names the mistake from the answers, no hint is guessed here.
        fail(message, hint=None, expected=want_merges, got=merges)
    if vocab != want_vocab:
        if len(vocab) != len(want_vocab):
            message = f"vocab ({what}) has {'more' if len(vocab) > len(want_vocab) else 'fewer'} entries than expected"
            if shown:
                message += f" ({len(vocab)} instead of {len(want_vocab)})"
        else:
            wrong = sorted(i for i in want_vocab if vocab.get(i) != want_vocab[i])
            if not wrong:
                message = f"vocab ({what}) has ids other than the expected ones"
            elif wrong[0] < 256:
                message = f"vocab ({what}) does not map a single-byte id to its own byte"
            elif shown:
                message = f"vocab ({what}) differs from the expected one: first at id {wrong[0]}"
            else:
                message = f"vocab ({what}) gives some id other bytes than expected (merges and special tokens)"
        fail(message, hint=None, expected=want_vocab, got=vocab)


def train_and_compare(student: Student, cases: list[tuple[str, int, list[str], str]]) -> None:
    """Every case in one crossing; each compared with the independent trainer."""
    results = student.train_bpe.each([(text, size, list(special)) for text, size, special, _ in cases])
    for (text, size, special, what), result in zip(cases, results, strict=True):
        expect_training(result, expected_bpe(text, size, special), what)


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2, hint="ties")
def worked_example(student: Student) -> None:
    base = {i: bytes([i]) for i in range(256)}
    cases = [
        ("aaa aa", 258, [], "the first example", [(b"a", b"a"), (b"aa", b"a")]),
        ("ab ba", 258, [], "the second example", [(b"b", b"a"), (b"a", b"b")]),
        ("ab<|eot|>ab", 300, ["<|eot|>"], "the example with a special token", [(b"a", b"b")]),
    ]
    results = student.train_bpe.each([(text, size, special) for text, size, special, *_ in cases])
    for (_, _, special, what, merges), result in zip(cases, results, strict=True):
        vocab = dict(base)
        for token in special:
            vocab[len(vocab)] = token.encode("utf-8")
        for left, right in merges:
            vocab[len(vocab)] = left + right
        expect_training(result, (vocab, merges), what)


@check("vocab is a dict {int: bytes}, merges a list of (bytes, bytes) tuples", public=True, hint="form")
def result_form(student: Student) -> None:
    text, special = "low lower lowest", ["<|endoftext|>"]
    expect_training(student.train_bpe(text, 262, special), expected_bpe(text, 262, special), "a short text")


@check("Pairs are weighted by how often their pre-token occurs", hint="frequency")
def frequency_weighting(student: Student) -> None:
    train_and_compare(
        student,
        [
            ("zy ab ab", 259, [], "a repeated word against a single one"),
            ("yx yx yx cab cab qz", 264, [], "three words of different frequencies"),
            ("hug pug pun bun hug hug pug", 266, [], "words sharing letters"),
        ],
    )


@check("Every occurrence of a pair inside a pre-token counts", hint="occurrences")
def every_occurrence(student: Student) -> None:
    train_and_compare(
        student,
        [
            ("abab xy xy", 259, [], "a pair twice in one word"),
            ("aaaa aaaaa bc bc bc", 262, [], "runs of one letter"),
            ("aaaaaaaa", 262, [], "one long run"),
        ],
    )


@check("Merges apply left to right, without overlapping", hint="left-to-right")
def merge_order(student: Student) -> None:
    train_and_compare(
        student,
        [
            ("aaa", 258, [], "an odd run of three"),
            ("aaaaa aaa", 261, [], "odd runs"),
            ("baaab caaac", 262, [], "a run between other letters"),
        ],
    )


@check("Ties go to the lexicographically greatest pair of bytes", hint="ties")
def tie_breaking(student: Student) -> None:
    train_and_compare(
        student,
        [
            ("xa ya za", 259, [], "pairs that differ in their first token"),
            ("ab ac ad", 259, [], "pairs that differ in their second token"),
            ("abcd bcd cd ba", 264, [], "merged tokens tied with single bytes"),
            ("zzx zzx abcabc abcabc", 266, [], "a merged token before a higher byte"),
            ("ab ab c abc abc d", 268, [], "pairs whose bytes concatenate alike"),
        ],
    )
    # Worked out by hand: after (a, a), the pairs (aa, x), (" ", aa), (" ", z) and (z, y) are all seen twice.
    # b"z" is the greatest first token, although the merged b"aa" gets an id above every single byte;
    # then (aa, x) beats (" ", aa) and (" ", zy).
    text = "aax aax aa zy zy"
    merges = [(b"a", b"a"), (b"z", b"y"), (b"aa", b"x")]
    vocab = {i: bytes([i]) for i in range(256)} | {256 + j: left + right for j, (left, right) in enumerate(merges)}
    expect_training(student.train_bpe(text, 259, []), (vocab, merges), "a merged token tied with a greater byte")


@check("Pre-tokenisation: no merge crosses a pre-token's boundary", hint="pretokenise")
def pretokenisation(student: Student) -> None:
    train_and_compare(
        student,
        [
            ("a b a b a b", 258, [], "single letters between spaces"),
            ("it's what we'll do, isn't it? we've 42 and 420!!", 275, [], "contractions, digits and punctuation"),
            ("line one\n\nline two  \n   spaced   out\t\ttabs", 272, [], "runs of whitespace and newlines"),
            ("abc123def 456!?$ 7", 270, [], "letters, digits and symbols glued together"),
        ],
    )


@check("Unicode text is trained on its UTF-8 bytes", hint="bytes")
def unicode_text(student: Student) -> None:
    train_and_compare(
        student,
        [
            ("café café naïve", 262, [], "accented Latin letters"),
            ("中文 中文 中国 日本語", 264, [], "Chinese and Japanese characters (three bytes each)"),
            ("🙂🙂 🙂 héllo 🙂!", 266, [], "emoji (four bytes each)"),
        ],
    )


@check("Special tokens: ids 256, 257, … in list order, the longest wins, never merged into", hint="special")
def special_tokens(student: Student) -> None:
    eot, pad = "<|endoftext|>", "<|pad|>"
    train_and_compare(
        student,
        [
            ("ab<|endoftext|>ab<|pad|>ba", 270, [eot, pad], "two special tokens"),
            ("xx<|pad|>xx", 280, [pad, eot], "special tokens listed in another order"),
            ("<|pad|><|pad|>ab<|endoftext|>", 262, [eot, pad], "special tokens at the edges and side by side"),
            ("ab<a><a><b>ab <a><b>ab", 266, ["<a>", "<a><b>"], "a special token inside a longer one"),
            ("<s>xyz<s>xy <s>xyz", 270, ["<s>", "<s>x"], "a special token that starts a longer one"),
            ("x|y x|y [a+b]x|y [a+b]", 266, ["[a+b]", "|"], "special tokens with regex metacharacters"),
            ("pad pad <|pad|> <|pad|>", 266, [pad], "a special token's text elsewhere in the text"),
        ],
    )


@check("Training stops when no pair is left", hint="stop")
def stops_early(student: Student) -> None:
    train_and_compare(
        student,
        [
            ("a b c", 300, [], "no pre-token with two bytes"),
            ("", 300, [], "an empty text"),
            ("abab", 400, [], "one word merged whole"),
            ("<|s|>ab<|s|>", 300, ["<|s|>"], "special tokens and one short word"),
        ],
    )


@check("The vocabulary reaches exactly vocab_size", hint="vocab-size")
def exact_size(student: Student) -> None:
    train_and_compare(
        student,
        [
            ("hello hello world", 256, [], "no merge at all"),
            ("hello hello world", 257, ["<|a|>"], "one special token and no merge"),
            ("hello hello world <|a|><|b|>", 261, ["<|a|>", "<|b|>", "<|c|>"], "three special tokens"),
        ],
    )


@check("A larger text, hundreds of merges", hint="frequency")
def larger_text(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (random_text(rng, 600), 556, [], "a text of short words"),
        (
            random_text(rng, 300, alphabet="abcdefgh", unicode=True),
            700,
            [],
            "Unicode words, trained until no pair is left",
        ),
        (
            random_text(rng, 100) + "<|endoftext|>" + random_text(rng, 100) + "<|pad|><|endoftext|>",
            450,
            ["<|pad|>", "<|endoftext|>"],
            "documents joined by special tokens",
        ),
    ]
    train_and_compare(student, cases)


@check("The list of special tokens is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    special = ["<|a|>", "<|bb|>", "<|ccc|>"]
    text = "ab<|a|>ab<|ccc|>b"
    # One list for both calls of one batch: a first call that reorders it changes what the second sees.
    results = student.train_bpe.each([(text, 262, special), (text, 262, special)])
    want = expected_bpe(text, 262, special)
    for n, result in enumerate(results, start=1):
        expect_training(result, want, f"call {n} of 2 on one list of special tokens")
