"""Which exercises were verified as sound, for ``mlkata check --changed``: an author's loop re-verifies only what
changed since.

A record is kept per exercise and kind of verification (``full``, ``mutation``, ``reference-only``, each with or
without the sandbox), keyed by a hash of everything a verification reads: the exercise's folder, the grader's and
the runner's code, and the versions of Python and of the libraries the checks use. A change to any of them makes
a new key, which has no record: the exercise is verified again. Plain ``mlkata check`` (CI) never reads records.
"""

from __future__ import annotations

import functools
import sys
from importlib import metadata
from pathlib import Path

from grader.authoring import user_cache
from grader.exercise import Exercise

KIND = "verified"
CODE = (Path(__file__).resolve().parents[1], Path(__file__).resolve().parents[2] / "runner")
#: Libraries whose behaviour a check's verdict depends on.
LIBRARIES = ("numpy", "libcst")


@functools.cache
def code_hash() -> str:
    """The grader's and the runner's code, and the versions of Python and the libraries (once per process)."""
    versions = [sys.version, *(f"{name} {metadata.version(name)}" for name in LIBRARIES)]
    return user_cache.files_hash(CODE, *versions)


def key(exercise: Exercise, mode: str) -> str:
    """The record's key for ``exercise`` verified in ``mode``: changes whenever anything it reads does."""
    return user_cache.files_hash([exercise.path], code_hash(), mode)


def holds(exercise: Exercise, mode: str) -> bool:
    """Whether ``exercise`` was verified as sound in ``mode``, and nothing it depends on changed since."""
    record = user_cache.load(KIND, exercise.slug)
    return isinstance(record, dict) and record.get(mode) == key(exercise, mode)


def record(exercise: Exercise, modes: list[str]) -> None:
    """Remember that ``exercise`` is sound in each of ``modes`` (as it is now)."""
    found = user_cache.load(KIND, exercise.slug)
    document = found if isinstance(found, dict) else {}
    user_cache.store(KIND, exercise.slug, {**document, **{mode: key(exercise, mode) for mode in modes}})


def modes(*, mutation: bool, reference_only: bool, trusted: bool) -> list[str]:
    """The kinds of verification one run of ``mlkata check`` with these options makes: the one asked for first,
    then those it includes (a verification with ``--mutation`` also verifies everything a plain one does)."""
    kinds = ["reference-only"] if reference_only else ["mutation", "full", "reference-only"]
    kinds = kinds if mutation or reference_only else kinds[1:]
    return [f"{kind}, trusted" if trusted else kind for kind in kinds]
