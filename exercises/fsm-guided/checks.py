"""Hidden checks for "Guided Decoding with an Automaton".

Expected masks come from a second implementation written here: a state is live when a
depth-first search from it, over the automaton's transitions, meets an accepting state, and a
token is walked character by character with explicit lookups. Expected decodes pick, at each step,
the first allowed id in the order of (−logit, id) (a sort, not an argmax over a masked row). The
statement's example was worked out by hand. A wrong answer is named by the grader, by comparing it
with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, fail, values_shown

Dfa = dict[int, dict[str, int]]

EXAMPLE_DFA: Dfa = {0: {"a": 1, "x": 3}, 1: {"b": 2, "c": 2}, 2: {"d": 2}, 3: {"y": 3}}
EXAMPLE_VOCAB = ["<eos>", "a", "b", "c", "d", "ab", "abd", "x", "ad", "", "bdd"]

# --------------------------------------------------------------------------- independent reference


def reaches_accepting(dfa: Dfa, accepting: list[int], state: int) -> bool:
    seen, stack = {state}, [state]
    while stack:
        s = stack.pop()
        if s in accepting:
            return True
        for nxt in dfa.get(s, {}).values():
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def expected_mask(dfa: Dfa, accepting: list[int], state: int, vocab: list[str], eos_id: int) -> np.ndarray:
    out = []
    for t, text in enumerate(vocab):
        if t == eos_id:
            out.append(state in accepting)
            continue
        s: int | None = state
        for ch in text:
            if s is None or s not in dfa or ch not in dfa[s]:
                s = None
                break
            s = dfa[s][ch]
        out.append(bool(text) and s is not None and reaches_accepting(dfa, accepting, s))
    return np.array(out, dtype=bool)


def expected_decode(dfa: Dfa, accepting: list[int], start: int, vocab: list[str], eos_id: int, logits: np.ndarray):
    state, out = start, []
    for row in logits:
        allowed = expected_mask(dfa, accepting, state, vocab, eos_id)
        t = min((i for i in range(len(vocab)) if allowed[i]), key=lambda i: (-row[i], i))
        out.append(t)
        if t == eos_id:
            break
        for ch in vocab[t]:
            state = dfa[state][ch]
    return out


def random_automaton(rng: np.random.Generator, n_states: int, alphabet: str) -> tuple[Dfa, list[int], int]:
    """A random automaton with dead ends and missing states, its accepting states and a live start."""
    while True:
        dfa: Dfa = {}
        for s in range(n_states):
            if rng.random() < 0.15:
                continue  # a state with no transitions at all, absent from the dict
            edges = {ch: int(rng.integers(0, n_states)) for ch in alphabet if rng.random() < 0.5}
            dfa[s] = edges
        accepting = sorted({int(a) for a in rng.integers(0, n_states, size=int(rng.integers(1, 3)))})
        live = [s for s in range(n_states) if reaches_accepting(dfa, accepting, s)]
        if len(live) < n_states:  # keep automata that have a dead end
            return dfa, accepting, int(rng.choice(live))


def random_vocab(rng: np.random.Generator, alphabet: str, size: int, eos_id: int) -> list[str]:
    """Every character alone (so every live state allows a token), then random strings, "" included."""
    words = [*alphabet, ""]
    while len(words) < size - 1:
        words.append("".join(rng.choice(list(alphabet), size=int(rng.integers(2, 5)))))
    order = [int(i) for i in rng.permutation(len(words))]
    vocab = [words[i] for i in order]
    vocab.insert(eos_id, "</s>")
    return vocab


# --------------------------------------------------------------------------- comparing answers


def counted(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def expect_mask(got: Any, want: np.ndarray, what: str) -> None:
    if not isinstance(got, np.ndarray) or got.dtype != bool or got.shape != want.shape:
        fail(f"{what} should be a numpy bool array of shape {want.shape}, got {describe(got)}", hint="form")
    if np.array_equal(got, want):
        return
    wrong = np.flatnonzero(got != want)
    t = int(wrong[0])
    kind = "allows" if got[t] else "masks"
    message = f"{what} differs: first at token id {t}, which it {kind}; {len(wrong)} of {len(want)} tokens differ"
    # A value that differs: the grader names the mistake from the answers, no hint is guessed here.
    fail(message, hint=None, expected=want, got=got)


def expect_ids(got: Any, want: list[int], what: str) -> None:
    ints = isinstance(got, list) and all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in got)
    if not ints:
        fail(f"{what} should be a list of ints, got {describe(got)}", hint="form")
    values = [int(t) for t in got]
    if values == want:
        return
    if values_shown():
        message = f"{what}: expected {want}, got {values}"
    elif len(values) != len(want):
        were = "was" if len(want) == 1 else "were"
        message = f"{what} has {counted(len(values), 'token', 'tokens')} where {len(want)} {were} expected"
    else:
        wrong = [i for i, (g, w) in enumerate(zip(values, want, strict=True)) if g != w]
        where = f"first at step {wrong[0]}; {len(wrong)} of {len(want)} differ"
        message = f"{what} differs from the expected tokens: {where}"
    # A value that differs: the grader names the mistake from the answers, no hint is guessed here.
    fail(message, hint=None, expected=want, got=got)


def compare_masks(student: Student, cases: list[tuple[Dfa, list[int], int, list[str], int]], label: str) -> None:
    for n, (args, got) in enumerate(zip(cases, student.allowed_tokens.each(cases), strict=True), start=1):
        expect_mask(got, expected_mask(*args), f"the mask ({label}, case {n} of {len(cases)})")


def compare_decodes(student: Student, cases: list[tuple], label: str) -> None:
    for n, (args, got) in enumerate(zip(cases, student.guided_greedy.each(cases), strict=True), start=1):
        expect_ids(got, expected_decode(*args), f"the tokens ({label}, case {n} of {len(cases)})")


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    masks = student.allowed_tokens.each([(EXAMPLE_DFA, [2], s, EXAMPLE_VOCAB, 0) for s in range(4)])
    allowed = {0: [1, 5, 6], 1: [2, 3, 10], 2: [0, 4], 3: []}  # worked out by hand
    for s, got in zip(range(4), masks, strict=True):
        want = np.zeros(11, dtype=bool)
        want[allowed[s]] = True
        expect_mask(got, want, f"the mask in state {s}")
    logits = np.zeros((3, 11))
    logits[0] = [0, 1, 5, 0, 0, 2, 2, 9, 3, 9, 0]
    logits[1, 4], logits[1, 0] = 2, 1
    logits[2, 0] = 3
    expect_ids(student.guided_greedy(EXAMPLE_DFA, [2], 0, EXAMPLE_VOCAB, 0, logits), [5, 4, 0],
               "the tokens decoded from state 0")  # fmt: skip
    got = student.guided_greedy(EXAMPLE_DFA, [2], 1, EXAMPLE_VOCAB, 0, -np.ones((3, 11)))
    expect_ids(got, [2, 0], "the tokens decoded from state 1 with every logit -1")


@check("allowed_tokens returns a bool array and guided_greedy a list of ints", public=True, hint="form")
def return_form(student: Student) -> None:
    dfa, vocab = {0: {"a": 0}}, ["a", "<eos>", "b"]
    expect_mask(student.allowed_tokens(dfa, [0], 0, vocab, 1), np.array([True, True, False]), "the mask")
    expect_ids(student.guided_greedy(dfa, [0], 0, vocab, 1, np.zeros((0, 3))), [], "the tokens for no rows")
    expect_ids(student.guided_greedy(dfa, [0], 0, vocab, 1, np.array([[1.0, 0.0, 5.0]])), [0], "the tokens")


@check("Every character of a token is walked", hint="whole-token")
def whole_token(student: Student) -> None:
    dfa = {0: {"a": 1}, 1: {"b": 2}, 2: {"c": 3}, 3: {}}
    vocab = ["a", "ab", "abc", "ac", "abd", "b", "bc", "c", "<eos>", "abcc", "aa"]
    compare_masks(student, [(dfa, [3], s, vocab, 8) for s in range(4)], "multi-character tokens")


@check("EOS is allowed in accepting states only", hint="eos")
def eos_rule(student: Student) -> None:
    dfa = {0: {"a": 1}, 1: {"a": 0, "b": 2}, 2: {"a": 1}}
    vocab = ["b", "a", "ab", "<|end|>", "ba"]
    cases = [(dfa, [1, 2], s, vocab, 3) for s in range(3)] + [(dfa, [0], s, vocab, 3) for s in range(3)]
    compare_masks(student, cases, "accepting and other states")


@check("Tokens that lead into a dead end are masked", hint="live")
def dead_ends(student: Student) -> None:
    # 0 → 1 → 2 (accepting); 0 → 3 → 4 → 5 with no way back: 3, 4 and 5 are dead ends; 6 is not in dfa.
    dfa = {0: {"a": 1, "b": 3}, 1: {"a": 2, "b": 6}, 2: {}, 3: {"a": 4}, 4: {"a": 5, "b": 3}, 5: {"b": 5}}
    vocab = ["<eos>", "a", "b", "aa", "ab", "ba", "baa", "bab", "abb"]
    cases = [(dfa, [2], s, vocab, 0) for s in range(7)]
    # The only path from state 1 to the accepting state 9 runs through every state of the
    # automaton (1 → 2 → 3 → 9), and "b" leads from 3 back to 1.
    loop = {1: {"a": 2}, 2: {"a": 3}, 3: {"a": 9, "b": 1}}
    cases += [(loop, [9], s, ["a", "b", "ba", "<eos>", "bb", "ab"], 3) for s in (1, 2, 3, 9)]
    compare_masks(student, cases, "dead ends")


@check("The empty token is never allowed", hint="empty-token")
def empty_token(student: Student) -> None:
    dfa = {0: {"a": 1}, 1: {"a": 1}}
    cases = [(dfa, [1], s, ["", "a", "<eos>", "aa"], 2) for s in (0, 1)]
    cases.append((dfa, [1], 1, ["a", "<eos>", ""], 1))
    compare_masks(student, cases, "an empty token")


@check("Masks of random automata")
def random_masks(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for _ in range(25):
        alphabet = "abcde"[: int(rng.integers(2, 6))]
        n = int(rng.integers(2, 9))
        dfa, accepting, _ = random_automaton(rng, n, alphabet)
        eos_id = int(rng.integers(0, 10))
        vocab = random_vocab(rng, alphabet, 40, eos_id)
        for state in rng.choice(n + 1, size=3, replace=False):  # state n is in no automaton
            cases.append((dfa, accepting, int(state), vocab, eos_id))
    compare_masks(student, cases, "random automaton")


@check("Disallowed tokens never win, even against negative logits", hint="masking")
def negative_logits(student: Student) -> None:
    logits = -np.arange(1.0, 34.0).reshape(3, 11)
    cases = [
        (EXAMPLE_DFA, [2], 0, EXAMPLE_VOCAB, 0, logits),
        (EXAMPLE_DFA, [2], 1, EXAMPLE_VOCAB, 0, logits[:, ::-1]),
        (EXAMPLE_DFA, [2], 0, EXAMPLE_VOCAB, 0, np.full((4, 11), -50.0) + np.linspace(0, 1, 11)),
    ]
    compare_decodes(student, cases, "negative logits")


@check("Ties go to the lowest id", hint="ties")
def ties(student: Student) -> None:
    vocab = ["<eos>", "a", "b", "ab", "ba", "a", "bb"]
    dfa = {0: {"a": 1, "b": 1}, 1: {"a": 0, "b": 0}}
    cases = [
        (dfa, [0], 0, vocab, 0, np.ones((5, 7))),
        (dfa, [0, 1], 0, vocab, 0, np.array([[0.0, 2, 2, 2, 2, 2, 0], [3, 3, 3, 0, 0, 3, 0]])),
        (dfa, [1], 1, vocab, 0, np.array([[1.0, 0, 0, 1, 1, 0, 1], [0, 4, 4, 4, 4, 4, 4]])),
    ]
    compare_decodes(student, cases, "equal logits")


@check("Decoding stops after EOS", hint="stop")
def stops_after_eos(student: Student) -> None:
    dfa = {0: {"a": 0}}
    vocab = ["a", "<eos>", "aa"]
    cases = [
        (dfa, [0], 0, vocab, 1, np.array([[0.0, 1.0, 0.0], [5.0, 0.0, 0.0], [5.0, 0.0, 0.0]])),
        (EXAMPLE_DFA, [2], 0, EXAMPLE_VOCAB, 0, np.tile(np.linspace(0, 1, 11)[::-1], (6, 1))),
    ]
    compare_decodes(student, cases, "EOS before the last row")


@check("The state moves through the whole token", hint="advance")
def advances_whole_token(student: Student) -> None:
    dfa = {0: {"a": 1}, 1: {"b": 2}, 2: {"c": 0, "d": 3}, 3: {}}
    vocab = ["abc", "a", "b", "c", "d", "<eos>", "ab", "bcab"]
    rows = np.zeros((4, 8))
    rows[0, 0], rows[1, 6], rows[2, 3], rows[2, 4], rows[3, 5] = 9, 9, 1, 2, 3  # "abc", "ab", then "d" over "c", EOS
    cases = [(dfa, [3], 0, vocab, 5, rows), (dfa, [3], 1, vocab, 5, np.tile(np.arange(8.0), (5, 1)))]
    compare_decodes(student, cases, "multi-character tokens")


@check("Greedy decoding on random automata")
def random_decodes(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for _ in range(30):
        alphabet = "abcd"[: int(rng.integers(2, 5))]
        dfa, accepting, start = random_automaton(rng, int(rng.integers(2, 8)), alphabet)
        eos_id = int(rng.integers(0, 5))
        vocab = random_vocab(rng, alphabet, 25, eos_id)
        steps = int(rng.integers(0, 12))
        if rng.random() < 0.3:
            logits = rng.integers(-3, 3, size=(steps, len(vocab))).astype(np.float64)  # many ties
        else:
            logits = rng.normal(size=(steps, len(vocab))) - 2.0 * (rng.random() < 0.5)
        cases.append((dfa, accepting, start, vocab, eos_id, logits))
    compare_decodes(student, cases, "random automaton")


@check("The arguments are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    vocab = ["<eos>", "a", "b", "ab"]
    dfa = {0: {"a": 1, "b": 2}, 1: {"b": 0}, 2: {"b": 2}}
    logits = np.array([[0.0, 1.0, 3.0, 2.0], [0.0, 1.0, 3.0, 2.0], [5.0, 1.0, 3.0, 2.0]])
    # One logits array for two calls in one crossing: from state 0 with accepting [0] "b" leads
    # into the dead end 2 and is masked; with accepting [2] it is the best token. A first call that
    # writes its mask into the logits changes the second answer.
    first, second = student.guided_greedy.each([(dfa, [0], 0, vocab, 0, logits), (dfa, [2], 0, vocab, 0, logits)])
    expect_ids(first, expected_decode(dfa, [0], 0, vocab, 0, logits), "the tokens of the first call")
    want = expected_decode(dfa, [2], 0, vocab, 0, logits)
    expect_ids(second, want, "the tokens of the second call on the same logits")
    masks = student.allowed_tokens.each([(dfa, [0], 0, vocab, 0), (dfa, [0], 0, vocab, 0)])
    for n, got in enumerate(masks, start=1):
        expect_mask(got, expected_mask(dfa, [0], 0, vocab, 0), f"the mask, call {n} of 2 on the same arguments")
