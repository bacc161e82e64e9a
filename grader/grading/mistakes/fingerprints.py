"""Misconception fingerprints: which known mistake a wrong answer's output matches.

When a check fails on a solution's answer (or an exception), the calls the check made are
replayed, with the same inputs, on the reference solution and on each of the exercise's mutants,
the known-wrong solutions its author wrote down. The calls where the solution's answer is not
the reference's are the evidence; a mutant whose answers are the solution's on every one of them
(same kinds, shapes and dtypes, values within the dtype's precision, the same exception at the
same call) names the mistake. Where the solution is right, a mutant may differ: a student who
makes one mistake but handles an edge case well still makes that mistake.

The reference and the mutants are exercise files, trusted like the checks, so they run here, in
the grading thread, each from a fresh module (one that keeps state between calls starts clean,
as the solution's run did when the check began) and on copies of the inputs (one that changes
its arguments changes only its own copies).

Each replay costs the check's calls once more, in this process: nothing on a pass, a few
milliseconds on a failure (``make bench`` measures it).
"""

from __future__ import annotations

import math
import types
from collections.abc import Mapping
from typing import Any

import numpy as np

from grader.exercise import AnswerForm, KnownMistake
from grader.grading.mistakes.replay import Answer, OutOfTime, batches, raised_signature, replay_batch
from grader.grading.proxy import Call
from grader.grading.tolerances import ALIKE_ATOL, ALIKE_RTOL, EPS_UNITS


def matching(
    mistakes: list[KnownMistake],
    reference: KnownMistake,
    calls: list[Call],
    before: list[Call] | None = None,
    forms: Mapping[str, AnswerForm] | None = None,
) -> list[str]:
    """The names of the known mistakes whose answers are the solution's wherever it is wrong.

    The reference and the mutants still in the running are replayed side by side, a batch at a
    time; a mutant drops out at its first call that disagrees with a wrong answer of the solution,
    and the replay ends when none is left. ``before``: the calls the solution's run made before
    this check's, which a mutant that keeps state replays first (its answers to them are not judged).
    ``forms``: what is compared of a function's answers, where the checks compare less than all of it
    (the exercise's ``@compared_as``).
    """
    try:
        return _matching(mistakes, reference, calls, before, forms or {})
    except OutOfTime:
        return []  # not known, so nothing named: the run names a mistake only when it explains every failing check


def _matching(
    mistakes: list[KnownMistake],
    reference: KnownMistake,
    calls: list[Call],
    before: list[Call] | None,
    forms: Mapping[str, AnswerForm],
) -> list[str]:
    reference_module = load(reference)
    if reference_module is None:
        return []
    candidates = {m.name: module for m in mistakes if (module := load(m, before)) is not None}
    contradicted: dict[str, int] = {}  # by candidate, the calls the solution has right and it has not
    wrong_somewhere = False
    with np.errstate(all="ignore"):  # mutants overflow and divide by zero on purpose
        for batch in batches(calls):
            if not candidates:
                break
            solution = [(call.value, raised_signature(call.raised, call.raised_message)) for call in batch]
            reference_answers = replay_batch(reference_module, batch) or []
            right = [
                alike(s, r, form=forms.get(call.function))
                for s, r, call in zip(solution, reference_answers, batch, strict=False)
            ]
            right += [False] * (len(batch) - len(right))
            wrong_somewhere = wrong_somewhere or not all(right)
            for name, module in list(candidates.items()):
                disagreeing = _explains_batch(module, batch, solution, right, forms)
                if disagreeing is None:
                    del candidates[name]
                else:
                    contradicted[name] = contradicted.get(name, 0) + disagreeing
            if any(raised is not None for _, raised in solution):
                break  # the solution's run stopped there
    if not wrong_somewhere:
        return []
    # Among those that explain every wrong answer, one that also gives the right answers the solution gave is
    # its mistake rather than a broader one (ties called memory-bound, not every label swapped).
    named = [m.name for m in mistakes if m.name in candidates]
    return sorted(named, key=lambda name: contradicted.get(name, 0))


def load(code: KnownMistake, before: list[Call] | None = None) -> types.ModuleType | None:
    """A fresh module of ``code``; one that keeps state is brought to where the solution's run was."""
    try:
        module = code.fresh_module()
    except Exception:  # noqa: BLE001  (a mutant that does not even load explains nothing)
        return None
    if code.keeps_state and before:
        with np.errstate(all="ignore"):
            for batch in batches(before):
                replay_batch(module, batch)
    return module


def alike(solution: Answer, other: Answer, unjudged: set[int] | None = None, form: AnswerForm | None = None) -> bool:
    """Whether two answers are alike: the same exception, or values alike (in ``form``, when given)."""
    if solution[1] is not None or other[1] is not None:
        return solution[1] == other[1]
    if form is not None:
        shown = _in_form(form, solution[0]), _in_form(form, other[0])
        if shown[0] is not _UNFORMED and shown[1] is not _UNFORMED:
            return same_answer(*shown)
    return same_answer(solution[0], other[0], unjudged)


_UNFORMED = object()


def _in_form(form: AnswerForm, answer: Any) -> Any:
    """The answer in its form, or ``_UNFORMED`` when the form cannot take it (a wrong shape): then compared as it is."""
    try:
        with np.errstate(all="ignore"):
            return form(answer)
    except Exception:  # noqa: BLE001  (the author's form, given a wrong answer of any kind)
        return _UNFORMED


def _explains_batch(
    module: types.ModuleType,
    batch: list[Call],
    solution: list[Answer],
    right: list[bool],
    forms: Mapping[str, AnswerForm],
) -> int | None:
    """None unless the mutant's answers are the solution's at every call of the batch where it is wrong;
    else at how many calls the solution is right and the mutant is not.

    An answer is compared as soon as it is made, apart from the objects of the batch's arguments it
    holds (a later call could still change those: the whole answer is compared once the batch has
    run, as the runner sends it), so most mutants are out after a call or two. An answer compared in
    a form waits for the end of the batch too.
    """

    def early(n: int, answer: Answer, held: set[int]) -> bool:
        return right[n] or batch[n].function in forms or alike(solution[n], answer, held)

    answers = replay_batch(module, batch, early)
    if answers is None or len(answers) < len(batch):
        return None
    same = [alike(solution[n], answer, form=forms.get(batch[n].function)) for n, answer in enumerate(answers)]
    if not all(right[n] or same[n] for n in range(len(batch))):
        return None
    return sum(right[n] and not same[n] for n in range(len(batch)))


def same_answer(solution: Any, mutant: Any, unjudged: set[int] | None = None) -> bool:
    """Whether two answers are alike: the same structure, kinds, shapes and dtypes, and close values.

    Parts of ``mutant`` whose ids are in ``unjudged`` (or views of them) count as alike.
    """
    if unjudged and (id(mutant) in unjudged or id(getattr(mutant, "base", None)) in unjudged):
        return True
    if isinstance(mutant, np.ndarray) or isinstance(solution, np.ndarray):
        return _same_array(np.asarray(solution), np.asarray(mutant)) if _array_like(solution, mutant) else False
    if isinstance(mutant, np.generic):
        mutant = mutant.item()
    if isinstance(solution, np.generic):
        solution = solution.item()
    if isinstance(mutant, (list, tuple)):
        return (
            type(solution) in (list, tuple)
            and len(solution) == len(mutant)
            and all(same_answer(a, b, unjudged) for a, b in zip(solution, mutant, strict=True))
        )
    if isinstance(mutant, dict):
        return (
            isinstance(solution, dict)
            and solution.keys() == mutant.keys()
            and all(same_answer(solution[k], mutant[k], unjudged) for k in mutant)
        )
    if isinstance(mutant, bool) or isinstance(solution, bool):
        return solution is mutant
    if isinstance(mutant, int) and isinstance(solution, int):
        return solution == mutant
    if isinstance(mutant, float) and isinstance(solution, float):
        atol = ALIKE_ATOL * max(1.0, abs(mutant)) if math.isfinite(mutant) else 0.0
        return bool(np.isclose(solution, mutant, rtol=ALIKE_RTOL, atol=atol, equal_nan=True))
    return type(solution) is type(mutant) and solution == mutant


def _array_like(solution: Any, mutant: Any) -> bool:
    return isinstance(solution, np.ndarray) and isinstance(mutant, np.ndarray)


def _same_array(solution: np.ndarray, mutant: np.ndarray) -> bool:
    if solution.shape != mutant.shape or solution.dtype != mutant.dtype:
        return False
    if solution.dtype.kind not in "fc" or np.array_equal(solution, mutant):
        return bool(np.array_equal(solution, mutant))
    eps = _TOLERANCES.get(solution.dtype)
    if eps is None:
        eps = _TOLERANCES[solution.dtype] = float(np.finfo(solution.dtype).eps) * EPS_UNITS
    finite = np.abs(mutant[np.isfinite(mutant)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    rtol, atol = max(ALIKE_RTOL, eps), max(ALIKE_ATOL * scale, eps)
    # np.isclose's inf and nan handling, written out: it is the cost of replaying, called per answer.
    with np.errstate(invalid="ignore"):  # inf − inf: nan, which is not close, as it should not be
        close = np.abs(solution - mutant) <= atol + rtol * np.abs(mutant)
    # An infinite mutant's tolerance is infinite too: only the same infinity matches it, as in np.isclose.
    close &= np.isfinite(mutant)
    return bool((close | (solution == mutant) | (np.isnan(solution) & np.isnan(mutant))).all())


_TOLERANCES: dict[np.dtype[Any], float] = {}
