"""Mistakes beyond the known ones: the mutants mutation analysis derives from the reference, each given a hint.

An exercise lists a dozen known mistakes; students make many more. Mutation analysis already
derives dozens of small changes to the reference (an operator, a constant, an axis, a deleted
statement: :mod:`grader.authoring.mutation.mutants`). Each becomes a fingerprint too, given the hint of the
known mistakes that change the same line of the reference, so a student whose answers are those
of such a change is told something the exercise's author wrote, not a mechanical description —
and nothing of the reference itself, which stays hidden until the exercise is solved. A change on
a line no known mistake touches, or on one whose known mistakes have different hints, gets no
hint and is left out.

Deriving costs a parse of the reference and a tree rewrite per mutant (about 45 s of CPU for all 69
exercises): a process does it once per exercise version, in the background when it starts grading, and
reads the mutants from the authoring cache when any process derived them before (``mlkata check`` does),
which leaves compiling them (about 3 s for all).
"""

from __future__ import annotations

import difflib
import logging
import threading
from collections import Counter

from grader.exercise import Exercise, KnownMistake

log = logging.getLogger(__name__)

#: The prefix of a derived mistake's id: ``derived/<hint id>/<n>`` (its mutant's own id shows the reference).
PREFIX = "derived/"

_cache: dict[tuple[str, str], list[KnownMistake]] = {}
_locks: dict[tuple[str, str], threading.Lock] = {}
_locks_lock = threading.Lock()


def derived_mistakes(exercise: Exercise) -> list[KnownMistake]:
    """The derived mutants of the exercise's reference that a hint covers, as fingerprints (cached per version)."""
    key = (exercise.slug, exercise.version)
    with _locks_lock:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:  # one derivation per exercise version; other exercises' runs do not wait for it
        found = _cache.get(key)
        if found is None:
            found = _cache[key] = _derive(exercise)
        return found


def prepare_in_background(exercises: list[Exercise]) -> threading.Thread:
    """Derive every exercise's mistakes on a background thread, so no student's first failed run waits for it."""

    def derive_all() -> None:
        for exercise in exercises:
            try:
                derived_mistakes(exercise)
            except Exception:
                log.exception("deriving the mistakes of %s failed", exercise.slug)

    thread = threading.Thread(target=derive_all, name="derive-mistakes", daemon=True)
    thread.start()
    return thread


def is_derived(name: str) -> bool:
    return name.startswith(PREFIX)


def hint_of(name: str) -> str:
    """The hint id a derived mistake's id carries."""
    return name[len(PREFIX) :].rsplit("/", 1)[0]


def _derive(exercise: Exercise) -> list[KnownMistake]:
    # Imported here: the mutation package grades through grader.grading.engine, which uses this module, and
    # a process that only reads results (the web pages) need not load libcst at all.
    from grader.authoring.mutation import MutationError, derived_mutants

    reference = exercise.reference
    try:
        mutants = derived_mutants(reference).mutants
    except MutationError:
        return []
    hints = _hints_by_line(exercise, reference)
    accepted = set(exercise.config.mutation.equivalent)
    known = set(exercise.mutant_sources.values())
    mistakes: list[KnownMistake] = []
    counts: Counter[str] = Counter()
    for mutant in mutants:
        hint = hints.get(mutant.line)
        if hint is None or mutant.id in accepted or mutant.source in known or _makes_a_power(mutant.id):
            continue
        counts[hint] += 1
        name = f"{PREFIX}{hint}/{counts[hint]}"
        mistakes.append(KnownMistake.from_source(name, _MISTAKE, hint, mutant.source, f"{exercise.slug}/{name}"))
    return mistakes


_MISTAKE = "one small change to a correct solution, in what the hint below is about."


def _makes_a_power(mutant_id: str) -> bool:
    """Whether the change raises to a power (``n * t`` → ``n ** t``). Replayed here, in the grader's own process,
    on a large input (a check's 10¹⁵ tokens) one such call takes minutes and gigabytes in one C operation, which
    the diagnosis's allowance cannot interrupt: it stops Python code only between bytecodes."""
    before, _, after = mutant_id.partition(": ")[2].partition(" -> ")
    return after.count("**") > before.count("**")


def _hints_by_line(exercise: Exercise, reference: str) -> dict[int, str]:
    """For each line of the reference that known mistakes change, the hint most of them give (none on a tie).

    Only mistakes that change a few lines say which lines a hint is about: one written as a
    rewrite of the whole function says nothing about any of them.
    """
    seen: dict[int, Counter[str]] = {}
    lines = reference.splitlines()
    for name, source in exercise.mutant_sources.items():
        changed = _changed_lines(lines, source.splitlines())
        if not changed or len(changed) > _LOCAL_LINES:
            continue
        for line in changed:
            seen.setdefault(line, Counter())[exercise.config.mutants[name].hint] += 1
    hints: dict[int, str] = {}
    for line, counter in seen.items():
        ranked = counter.most_common(2)
        if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
            hints[line] = ranked[0][0]
    return hints


#: A known mistake that changes more lines of the reference than this is a rewrite, not a local change.
_LOCAL_LINES = 3


def _changed_lines(reference: list[str], mutant: list[str]) -> set[int]:
    """The reference's line numbers (1-based) that ``mutant`` replaces or deletes."""
    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(a=reference, b=mutant, autojunk=False)
    for tag, start, end, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            changed.update(range(start + 1, end + 1))
    return changed
