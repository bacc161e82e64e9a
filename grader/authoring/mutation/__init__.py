"""Mutation analysis of an exercise's checks: mutants derived from ``reference.py``, graded, and scored.

``mutants`` derives them (with the operators of ``operators``: ``expressions``, ``arrays`` and
``statements``, on libcst trees through ``syntax``; cached by ``derivations``), ``analysis`` grades
them through the sandbox (each up to its first failing check, in the order ``killers`` learned) and
scores the checks, ``report`` prints it all for ``mlkata check --mutation``.

The names below are loaded when first used: a grading process that derives mutants to name
mistakes (``grader.grading.mistakes.derived``) needs ``mutants`` alone, not the analysis, its report and rich.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grader.authoring.mutation.analysis import Analysis, Outcome, analyse, default_workers
    from grader.authoring.mutation.derivations import derived_mutants
    from grader.authoring.mutation.killers import Killers
    from grader.authoring.mutation.mutants import Derived, Mutant, MutationError, derive_mutants
    from grader.authoring.mutation.operators import OPERATORS
    from grader.authoring.mutation.report import analyse_and_report, finding, print_analysis

#: Each public name and the module of this package that defines it.
_HOME = {
    "Analysis": "analysis",
    "Outcome": "analysis",
    "analyse": "analysis",
    "default_workers": "analysis",
    "derived_mutants": "derivations",
    "Killers": "killers",
    "Derived": "mutants",
    "Mutant": "mutants",
    "MutationError": "mutants",
    "derive_mutants": "mutants",
    "OPERATORS": "operators",
    "analyse_and_report": "report",
    "finding": "report",
    "print_analysis": "report",
}

__all__ = [
    "OPERATORS",
    "Analysis",
    "Derived",
    "Killers",
    "Mutant",
    "MutationError",
    "Outcome",
    "analyse",
    "analyse_and_report",
    "default_workers",
    "derive_mutants",
    "derived_mutants",
    "finding",
    "print_analysis",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
