"""Mutation analysis of an exercise's checks: mutants derived from ``reference.py``, graded, and scored.

``mutants`` derives them (with the operators of ``operators``: ``expressions``, ``arrays`` and
``statements``, on libcst trees through ``syntax``; cached by ``derivations``), ``analysis`` grades
them through the sandbox (each up to its first failing check, in the order ``killers`` learned) and
scores the checks, ``report`` prints it all for ``mlkata check --mutation``.
"""

from grader.mutation.analysis import Analysis, Outcome, analyse, default_workers
from grader.mutation.derivations import derived_mutants
from grader.mutation.killers import Killers
from grader.mutation.mutants import Derived, Mutant, MutationError, derive_mutants
from grader.mutation.operators import OPERATORS
from grader.mutation.report import analyse_and_report, finding, print_analysis

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
