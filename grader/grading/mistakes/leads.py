"""Which known mistake a failed run is told it makes: one the evidence supports, or none.

Each failing check's calls were replayed on the exercise's known mistakes (its mutants,
:mod:`grader.grading.mistakes.fingerprints`); a mutant that reproduces the solution's answers wherever they are
wrong *matches* the check. One match can be a coincidence (one check of eight, an exception of
the same kind), so a mistake is named only when it explains every check that failed on its
answers. A check the solution passes and the mutant would fail is no contradiction: a student
can make a mistake and still handle an edge case the mutant gets wrong. Without such a mistake
the run names none, and each check says its own symptom.
"""

from __future__ import annotations

import re

from grader.exercise import Exercise, KnownMistake
from grader.grading.symptoms import SENTENCES
from grader.results import CheckResult, Mistake, Reason

#: Failures about the answers, which a known mistake can explain (not limits, crashes or refusals).
ABOUT_THE_ANSWERS = frozenset({Reason.WRONG_ANSWER, Reason.RAISED})


def name_mistakes(
    exercise: Exercise, tests: list[CheckResult], matches: dict[str, list[str]], mistakes: list[KnownMistake]
) -> Mistake | None:
    """The mistake that explains every check failing on its answers, if one does; it is recorded on those checks.

    ``matches`` maps a failing check's id to the mistakes (of ``mistakes``: the known ones first,
    then the derived ones) that reproduced its answers, in that order; the first that explains
    them all leads.
    """
    answered = [t.id for t in tests if t.reason in ABOUT_THE_ANSWERS]
    if not answered:
        return None
    first = matches.get(answered[0], [])
    lead = next((name for name in first if all(name in matches.get(c, ()) for c in answered[1:])), None)
    if lead is None:
        return None
    spec = next(m for m in mistakes if m.name == lead)
    for test in tests:
        if test.id in answered:
            test.mistake_id = lead
            _drop_symptom(test)
        if test.hint_id is not None and test.hint_id == spec.hint:
            # The lead's hint is given once, for the whole run, not again under each check.
            test.hint, test.hint_id, test.hint_levels = None, None, 0
    return Mistake(
        id=lead, mistake=spec.mistake, hint=exercise.hint_text(spec.hint), checks=answered, hint_id=spec.hint,
        hint_levels=len(exercise.hint_levels(spec.hint)),
    )  # fmt: skip


def _drop_symptom(test: CheckResult) -> None:
    """A check's symptom is a relationship its values show, or a guess from the size of the error; the named
    mistake reproduces the answers themselves, so the student is told it instead: an "off-by-one?" or "float32
    round-off?" beside a mistake that is neither would mislead. The symptom's kind stays on the result, for the
    instructor's count of what wrong answers showed."""
    if test.symptom is None or test.symptom not in SENTENCES or test.message is None:
        return
    sentence = re.escape(SENTENCES[test.symptom])
    pattern = re.compile("\n" + re.sub(r"\\\{\w+\\\}", "[^\\n]+?", sentence))
    test.message = pattern.sub("", test.message, count=1)
