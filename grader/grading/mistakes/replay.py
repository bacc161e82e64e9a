"""Replaying a check's calls on trusted code (the reference, a mutant) as the sandbox ran them on the solution.

Each batch's calls get copies of their arguments, with the objects they share shared as in the
sandbox (views of one array stay views of one copy), a chain's fed argument is the previous
answer's part, and an exception is an answer too: its type and the shape of its message.
"""

from __future__ import annotations

import copy
import re
import types
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any

import numpy as np

from grader.grading.budget import CheckBudget
from grader.grading.proxy import Call
from runner import protocol


class OutOfTime(BaseException):
    """The diagnosis's CPU allowance is spent: replaying stops, and nothing is concluded from it.

    Not an ``Exception``: the trusted code replayed (a derived mutant's ``except Exception``) must not
    swallow it.
    """


_ALLOWANCE: ContextVar[CheckBudget | None] = ContextVar("mlkata_replay_allowance", default=None)


class allowance:  # noqa: N801  (used as a ``with`` statement)
    """Replays inside may use ``seconds`` of this thread's CPU time in all; past it they raise :class:`OutOfTime`.

    Naming a mistake replays trusted code on a check's inputs once per known mistake, which a check
    of thousands of calls makes costly: the diagnosis has its own allowance, outside the checks'
    budget, so that it can neither fail a run nor hold a worker. It is checked between calls, and a
    watchdog (:mod:`grader.grading.budget`'s) interrupts a call that runs past it: a change derived
    from a reference's ``while`` loop can loop forever. The caller catches :class:`OutOfTime` around
    the ``with``, which raises it on the way out when the allowance ran out inside.
    """

    def __init__(self, seconds: float) -> None:
        self._budget = CheckBudget(max(seconds, 0.0), raises=OutOfTime)
        self._watching = self._budget.watching()
        self._token: Token[CheckBudget | None] | None = None

    def __enter__(self) -> None:
        self._token = _ALLOWANCE.set(self._budget)
        self._watching.__enter__()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, traceback: Any) -> None:
        try:
            self._watching.__exit__(kind, value, traceback)
        finally:
            if self._token is not None:
                _ALLOWANCE.reset(self._token)


def _check_allowance() -> None:
    budget = _ALLOWANCE.get()
    if budget is not None:
        budget.check()


Answer = tuple[Any, str | None]  # a value, or the exception raised instead (its type and message's shape)


def raised_signature(kind: str | None, message: str) -> str | None:
    """An exception as fingerprints compare it: the type and the message's shape (numbers and spaces aside).

    A type alone says little (any ValueError would match any other); the message of the same mistake
    made on the same inputs reads the same, give or take the numbers in it.
    """
    if kind is None:
        return None
    return f"{kind}: {' '.join(_NUMBER.sub('#', message[:_MESSAGE_CHARS]).split())}"


_NUMBER = re.compile(r"[-+]?\d[\d.,_eE+-]*")
_MESSAGE_CHARS = 500


def batches(calls: list[Call]) -> list[list[Call]]:
    batches: dict[int, list[Call]] = {}
    for call in calls:
        batches.setdefault(call.batch, []).append(call)
    return list(batches.values())


def replay_batch(
    module: types.ModuleType,
    batch: list[Call],
    early: Callable[[int, Answer, set[int]], bool] | None = None,
    after: Callable[[list[Any], Any], Any] | None = None,
) -> list[Answer] | None:
    """Each call's answer (or the exception, the last) on copies of the batch's arguments.

    ``early`` is asked of each answer as it is made, with the ids of the argument copies (which
    it must not judge yet); None as soon as it says no. ``after`` is given each call's arguments
    and answer and returns the answer to keep (it may change the arguments, as a solution would).
    """
    copies: dict[int, Any] = {}
    held: set[int] = set()
    answers: list[Answer] = []
    for call in batch:
        _check_allowance()
        function = getattr(module, call.function, None)
        if not callable(function):
            return answers
        args = [copy_plain(arg, copies, held) for arg in call.args]  # one memo: the batch's calls share objects
        if call.fed is not None and answers:
            argument, part = call.fed
            args[argument] = protocol.fed_part(answers[-1][0], part)
        try:
            value = function(*args)
            answer: Answer = (after(args, value) if after is not None else value, None)
        except Exception as exc:  # noqa: BLE001  (what the mutant raises is its answer)
            answer = (None, raised_signature(type(exc).__name__, exception_text(exc)))
        if early is not None and not early(len(answers), answer, held):
            return None
        answers.append(answer)
        if answer[1] is not None:
            return answers
    # Compared once the whole batch has run, as the runner sends a batch's answers: a mutant that
    # returns the cache it was given shows every call's change in every answer.
    return answers


def exception_text(exc: Exception) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001  (a trusted file, but its exception's text is not worth a crash)
        return ""


def copy_plain(value: Any, memo: dict[int, Any], held: set[int]) -> Any:
    """A copy of plain data (what the wire carries), each object copied once per memo.

    Faster than ``copy.deepcopy`` for the arrays, dicts, lists and tuples checks pass, which is
    most of what replaying costs.
    """
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    found = memo.get(id(value))
    if found is not None:
        return found
    if kind is np.ndarray:
        copied: Any = _copy_array(value, memo, held)
    elif kind is dict:
        copied = {}
        memo[id(value)] = copied
        held.add(id(copied))
        for key, item in value.items():
            copied[key] = copy_plain(item, memo, held)
        return copied
    elif kind is list:
        copied = []
        memo[id(value)] = copied
        held.add(id(copied))
        copied.extend(copy_plain(item, memo, held) for item in value)
        return copied
    elif kind is tuple:
        copied = tuple(copy_plain(item, memo, held) for item in value)
    else:
        copied = copy.deepcopy(value, memo)
    memo[id(value)] = copied
    held.add(id(copied))
    return copied


_IMMUTABLE = frozenset([type(None), bool, int, float, complex, str, bytes])


def _copy_array(array: np.ndarray, memo: dict[int, Any], held: set[int]) -> np.ndarray:
    """A copy of ``array``; views of one C-contiguous array are views of one copy, as in the sandbox."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is array or not root.flags.c_contiguous or not array.flags.c_contiguous:
        return array.copy()  # as the wire sends it: only C-contiguous views of a C-contiguous root share
    root_copy = memo.get(id(root))
    if root_copy is None:
        root_copy = memo[id(root)] = root.copy()  # the root lives on as the views' base: its id stays its own
        held.add(id(root_copy))
    offset = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(array.shape, array.dtype, buffer=root_copy, offset=offset, strides=array.strides)
