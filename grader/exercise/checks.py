"""Checks as an exercise defines them: the ``@check`` marker, and collecting the marked functions.

Checks run in the order they are defined. They are collected from the module by the marker the
decorator leaves on each function, so importing ``checks.py`` registers nothing globally. What a
check does when it runs (the proxy it calls, the ``expect_*`` helpers) is the grading engine's;
authors import all of it from :mod:`grader.checks`.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

#: What the grader calls: the check with its generator, if it takes one, already bound.
#: (Its argument is the grading engine's ``Student`` proxy, which the model need not know.)
CheckFunction = Callable[[Any], None]
F = TypeVar("F", bound=Callable[..., None])
G = TypeVar("G", bound=Callable[[Any], Any])
_MARKER = "__mlkata_check__"
_FORM_MARKER = "__mlkata_answer_form__"
#: An answer as naming a mistake compares it: see :func:`compared_as`.
AnswerForm = Callable[[Any], Any]


@dataclass(frozen=True)
class Check:
    """A check as collected from ``checks.py``."""

    id: str
    title: str
    public: bool
    points: float
    hint: str | None
    function: CheckFunction
    #: Whether the check takes a second parameter, the seeded generator ``rng``.
    takes_rng: bool = False


def check(title: str, *, public: bool = False, points: float = 1, hint: str | None = None) -> Callable[[F], F]:
    """Mark a function as a check.

    ``hint`` names an entry of the exercise's ``[hints]`` table: the default for every failure
    inside the check that does not name its own. When a wrong answer matches one of the
    exercise's known mistakes (its mutants), that mistake's hint is shown instead.
    """

    def mark(function: F) -> F:
        setattr(function, _MARKER, (title, public, points, hint))
        return function

    return mark


def compared_as(function: str) -> Callable[[G], G]:
    """Mark a function of ``checks.py`` as what naming a mistake compares of ``function``'s answers.

    For answers unique only up to a choice the checks do not judge (the signs of singular vectors, a
    basis of a null space): the checks compare a product, say, and naming a mistake must compare the
    same, since the parts the checks leave free differ from one machine's linear algebra to another's.
    The marked function takes one answer and returns its form (plain data); an answer it cannot take
    is compared as it is.
    """

    def mark(form: G) -> G:
        setattr(form, _FORM_MARKER, function)
        return form

    return mark


def collect_answer_forms(module: types.ModuleType) -> dict[str, AnswerForm]:
    """The forms marked with :func:`compared_as` in ``module``, by the function whose answers they take."""
    return {
        marker: value
        for value in vars(module).values()
        if callable(value) and isinstance(marker := getattr(value, _FORM_MARKER, None), str)
    }


def check_rng(slug: str, check_id: str) -> np.random.Generator:
    """The generator a check that takes ``rng`` receives: seeded from the exercise's slug and the check's id.

    A new one for every run of the check, so every run (and every replay of a failure) draws the
    same numbers, whatever ran before; other checks and other exercises draw others.
    """
    digest = hashlib.sha256(f"{slug}/{check_id}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def collect_checks(module: types.ModuleType, *, slug: str = "") -> list[Check]:
    """The checks defined in ``module``, in definition order, each callable with the student alone.

    ``slug`` (the exercise's) seeds the generator of the checks that take ``rng``.
    """
    found: list[Check] = []
    for name, value in vars(module).items():
        marker = getattr(value, _MARKER, None)
        if marker is None or not callable(value):
            continue
        title, public, points, hint = marker
        takes_rng = _positional_parameters(value) >= 2
        function = _calling(value, slug, name, takes_rng)
        found.append(
            Check(id=name, title=title, public=public, points=points, hint=hint, function=function, takes_rng=takes_rng)
        )
    return found


def _positional_parameters(function: Callable[..., Any]) -> int:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def _calling(function: Callable[..., None], slug: str, check_id: str, takes_rng: bool) -> CheckFunction:
    """``function`` as the grader calls it: with its generator, if it takes one, bound."""
    if not takes_rng:
        return function

    @functools.wraps(function)
    def run(student: Any) -> None:
        function(student, check_rng(slug, check_id))

    return run
