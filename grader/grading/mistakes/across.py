"""What a failing check's calls say together, when the one value it compared shows no symptom.

The reference is replayed on all the check's calls (:mod:`grader.grading.mistakes.replay`), so every answer the
solution gave can be set beside the one it should have given, not only the value the check
compared before it failed. Three things can then be said, each only when it explains every call:

* the answers are those of a correct function that changes the arguments it was given (an
  in-place update, which later calls sharing those objects see);
* across the wrong calls, one relationship explains every value (ratios truncated, a factor):
  stronger evidence than the single comparison;
* the pattern of right and wrong calls: in a sequence, right on the first step only; in any
  check, wrong exactly where an input is empty.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from functools import partial
from itertools import combinations
from typing import Any

import numpy as np

from grader.exercise import KnownMistake
from grader.grading.mistakes.fingerprints import alike, load, same_answer
from grader.grading.mistakes.replay import Answer, OutOfTime, batches, replay_batch
from grader.grading.proxy import Call
from grader.grading.symptoms import Symptom, across_calls, diagnose, is_empty_case, say


def symptom_across(reference: KnownMistake, calls: list[Call]) -> Symptom | None:
    """The symptom a failing check's calls show together, or None (also when the diagnosis's allowance runs out)."""
    try:
        return _symptom_across(reference, calls[:_MOST_CALLS])
    except OutOfTime:
        return None


#: The calls looked at together: the first of a check, enough for every pattern, at a bounded cost.
_MOST_CALLS = 256


def _symptom_across(reference: KnownMistake, calls: list[Call]) -> Symptom | None:
    expected = _replayed(reference, calls)
    answered = calls[: len(expected)]
    if len(answered) < 2:
        return None
    rights = [alike((call.value, None), answer) for call, answer in zip(answered, expected, strict=True)]
    if all(rights):
        return None
    if _changes_its_arguments(reference, answered):
        return say("in-place")
    wrong = [
        (answer[0], call.value) for call, answer, right in zip(answered, expected, rights, strict=True) if not right
    ]
    found = _across_values(wrong)
    if found is not None:
        return found
    found = across_calls(rights, empty=[is_empty_case(c.args) for c in answered])
    sequence = any(call.fed is not None for call in answered)
    if found is None or (not sequence and found.kind != "wrong-when-empty"):
        return None  # order means something only in a sequence, each call fed the previous answer
    return found


def _replayed(
    reference: KnownMistake, calls: list[Call], after: Callable[[list[Any], Any], Any] | None = None
) -> list[Answer]:
    """The reference's answer to each call the solution answered (up to the first that raised)."""
    module = load(reference)
    if module is None:
        return []
    answers: list[Answer] = []
    with np.errstate(all="ignore"):
        for batch in batches(calls):
            replayed = replay_batch(module, batch, after=after) or []
            for call, answer in zip(batch, replayed, strict=False):
                if call.raised is not None or answer[1] is not None:
                    return answers
                answers.append(answer)
    return answers


#: Ways a function can change its arguments: which kinds of argument it writes into (a dict, a list,
#: an array), and whether it writes into the arrays a dict holds rather than into the dict itself.
_STYLES = [
    (frozenset(kinds), deep)
    for size in (1, 2, 3)
    for kinds in combinations(("dict", "list", "array"), size)
    for deep in (False, True)
    if not deep or "dict" in kinds
]


def _changes_its_arguments(reference: KnownMistake, calls: list[Call]) -> bool:
    """Whether the reference, made to write its answers into its arguments, gives every answer the solution gave.

    Only a check that passes one object to several calls of a batch can show it; then each way of
    writing is tried (a handful of replays of the reference).
    """
    if not _shares_arguments(calls):
        return False
    module = load(reference)
    if module is None:
        return False
    return any(_emulates(module, calls, partial(_written_back, kinds=kinds, deep=deep)) for kinds, deep in _STYLES)


def _emulates(module: types.ModuleType, calls: list[Call], after: Callable[[list[Any], Any], Any]) -> bool:
    """Whether the reference, writing back as ``after`` does, gives every answer the solution gave.

    Each answer is compared as soon as it is made (but for the argument objects it holds, which
    later calls may still change), so a way of writing that does not fit is dropped at once.
    """
    with np.errstate(all="ignore"):
        for batch in batches(calls):

            def early(n: int, answer: Answer, held: set[int], batch: list[Call] = batch) -> bool:
                return batch[n].raised is None and same_answer(batch[n].value, answer[0], held)

            answers = replay_batch(module, batch, early=early, after=after)
            if answers is None or len(answers) < len(batch):
                return False
            if not all(same_answer(call.value, answer[0]) for call, answer in zip(batch, answers, strict=True)):
                return False
    return True


def _shares_arguments(calls: list[Call]) -> bool:
    """Whether some object (a dict, a list, an array) is an argument of two calls of one batch."""
    for batch in batches(calls):
        seen: set[int] = set()
        for call in batch:
            ids = {id(arg) for arg in _containers(call.args)}
            if ids & seen:
                return True
            seen |= ids
    return False


def _containers(args: Any) -> list[Any]:
    found = []
    for arg in args:
        if type(arg) in (dict, list, np.ndarray):
            found.append(arg)
            if type(arg) is dict:
                found += [v for v in arg.values() if type(v) in (list, np.ndarray)]
    return found


def _written_back(args: list[Any], value: Any, *, kinds: frozenset[str], deep: bool) -> Any:
    """``value`` as a function that updates its arguments in place returns it.

    Each part of the answer that is a new version of an argument of one of ``kinds`` (a dict with
    the same keys, a list, an array of its shape and dtype) is written into that argument and
    returned as it; with ``deep``, a dict's arrays are written into the arrays the argument holds
    instead. Parts and arguments of one kind are paired in order; a kind whose counts differ is
    left alone.
    """
    parts = list(value) if type(value) is tuple else [value]
    groups: dict[tuple[Any, ...], tuple[list[int], list[Any]]] = {}
    for index, part in enumerate(parts):
        key = _kind(part)
        if key is not None and key[0] in kinds:
            groups.setdefault(key, ([], []))[0].append(index)
    seen: set[int] = set()
    for arg in args:
        key = _kind(arg)
        if key in groups and id(arg) not in seen:
            seen.add(id(arg))
            groups[key][1].append(arg)
    for indexes, targets in groups.values():
        if len(indexes) != len(targets):
            continue
        for index, target in zip(indexes, targets, strict=True):
            if deep and type(target) is dict:
                parts[index] = _written_into_arrays(target, parts[index])
            else:
                _write(target, parts[index])
                parts[index] = target
    return tuple(parts) if type(value) is tuple else parts[0]


def _written_into_arrays(target: dict[Any, Any], part: dict[Any, Any]) -> dict[Any, Any]:
    """A new dict whose arrays are the target's own, overwritten (``acc *= …`` on the state it was given)."""
    result = dict(part)
    for key, new in part.items():
        old = target.get(key)
        if type(old) is np.ndarray and type(new) is np.ndarray and old.shape == new.shape and old.dtype == new.dtype:
            old[...] = new
            result[key] = old
    return result


def _kind(value: Any) -> tuple[Any, ...] | None:
    if type(value) is dict:
        return ("dict", frozenset(value))
    if type(value) is list:
        return ("list",)
    if type(value) is np.ndarray:
        return ("array", value.dtype.str, value.shape)
    return None


def _write(target: Any, part: Any) -> None:
    if part is target:
        return
    if isinstance(target, dict):
        new = dict(part)
        target.clear()
        target.update(new)
    elif isinstance(target, list):
        target[:] = list(part)
    else:
        target[...] = part


def _across_values(wrong: list[tuple[Any, Any]]) -> Symptom | None:
    """One relationship for every wrong call's values, stacked (two calls at least, numbers of one shape each)."""
    if len(wrong) < 2:
        return None
    expected, got = [], []
    for want, have in wrong:
        if not (_numeric(want) and _numeric(have)) or np.shape(want) != np.shape(have):
            return None
        expected.append(np.ravel(np.asarray(want, dtype=np.float64)))
        got.append(np.ravel(np.asarray(have, dtype=np.float64)))
    return diagnose(np.concatenate(expected), np.concatenate(got))


def _numeric(value: Any) -> bool:
    """A number, or an array of numbers, that float64 holds exactly enough to compare (ints past 2^53 do not)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, int):
        return abs(value) <= 2**53
    if isinstance(value, (float, np.integer, np.floating)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "iuf" and value.size > 0
