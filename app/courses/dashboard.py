"""What the instructor's view shows: the students × exercises matrix and each exercise's analytics."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from app.courses.courses import CourseInfo, Student
from app.courses.runs import Run
from grader.exercise import Exercise
from grader.grading import LABELS, hint_of, is_derived


@dataclass(frozen=True)
class Cell:
    """One student on one exercise."""

    attempts: int = 0
    solved: bool = False
    solved_at: datetime | None = None  # when the earliest credited run that passes now counts from
    late: bool = False  # solved, and no passing run counts from before the due date
    best_points: float = 0.0
    max_points: float = 0.0
    last_activity: datetime | None = None

    @property
    def tried(self) -> bool:
        return self.attempts > 0


def cell(runs: list[Run], due: datetime | None) -> Cell:
    """A student's runs on one exercise (oldest first) summed up; "late" judged by when each run counts."""
    if not runs:
        return Cell()
    # The pass credited first, not the one made first: a run moved into the account counts from the move.
    first_pass = min((run for run in runs if run.passed), key=lambda run: run.credited_at, default=None)
    finished = [run.current for run in runs if run.current.finished]
    best = max(finished, key=lambda v: v.points, default=None)
    return Cell(
        attempts=len(runs),
        solved=first_pass is not None,
        solved_at=first_pass.credited_at if first_pass else None,
        late=first_pass is not None and due is not None and first_pass.credited_at > due,
        best_points=best.points if best else 0.0,
        max_points=max((v.max_points for v in finished), default=0.0),
        last_activity=runs[-1].created_at,
    )


@dataclass(frozen=True)
class Matrix:
    students: list[Student]
    slugs: list[str]
    cells: dict[tuple[str, str], Cell]  # (user id, slug) → cell

    def at(self, student: Student, slug: str) -> Cell:
        return self.cells.get((student.user_id, slug), Cell())

    def last_activity(self, student: Student) -> datetime | None:
        moments = [
            c.last_activity for (user, _), c in self.cells.items() if user == student.user_id and c.last_activity
        ]
        return max(moments, default=None)

    def solve_rate(self, slug: str) -> float:
        if not self.students:
            return 0.0
        return sum(1 for s in self.students if self.at(s, slug).solved) / len(self.students)

    def solved_count(self, student: Student) -> int:
        return sum(1 for slug in self.slugs if self.at(student, slug).solved)


def matrix(course: CourseInfo, students: list[Student], runs: Iterable[Run]) -> Matrix:
    by_learner = {s.learner_id: s for s in students}
    grouped: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for run in runs:
        student = by_learner.get(run.learner_id)
        if student is not None:
            grouped[(student.user_id, run.exercise)].append(run)
    cells = {key: cell(group, course.due(key[1])) for key, group in grouped.items()}
    return Matrix(students, course.slugs, cells)


@dataclass
class CheckStats:
    id: str
    title: str
    runs: int = 0
    failed: int = 0
    students: set[str] = field(default_factory=set)  # user ids of students it failed for

    @property
    def failure_rate(self) -> float:
        return self.failed / self.runs if self.runs else 0.0


@dataclass
class MistakeStats:
    id: str
    text: str
    runs: int = 0
    students: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class ExerciseStats:
    students: int
    solvers: int
    runs: int
    median_attempts: float | None
    median_time_to_solve: timedelta | None
    checks: list[CheckStats]
    mistakes: list[MistakeStats]  # most students first
    versions: list[tuple[str, int]]  # (version or "unknown", finished runs graded against it), newest use first

    @property
    def solve_rate(self) -> float:
        return self.solvers / self.students if self.students else 0.0


def exercise_stats(exercise: Exercise, students: list[Student], runs: Iterable[Run]) -> ExerciseStats:
    """Solve rate, attempts and time to solve, each check's failure rate and each named mistake, over the class.

    Check failures count runs (each finished run that reached the check); mistakes count students.
    """
    by_learner = {s.learner_id: s for s in students}
    per_student: dict[str, list[Run]] = defaultdict(list)
    checks = {c.id: CheckStats(c.id, c.title) for c in exercise.checks}
    mistakes: dict[str, MistakeStats] = {}
    versions: Counter[str] = Counter()
    total = 0
    for run in runs:
        student = by_learner.get(run.learner_id)
        if student is None or run.exercise != exercise.slug:
            continue
        total += 1
        per_student[student.user_id].append(run)
        verdict = run.current
        if not verdict.finished:
            continue
        versions[verdict.version or "unknown"] += 1
        result = verdict.result or {}
        for test in result.get("tests") or []:
            stats = checks.setdefault(str(test.get("id")), CheckStats(str(test.get("id")), str(test.get("name"))))
            stats.runs += 1
            if test.get("status") != "pass":
                stats.failed += 1
                stats.students.add(student.user_id)
        for mistake_id, text in diagnoses(result):
            known = exercise.config.mutants.get(mistake_id)
            mistake = mistakes.setdefault(mistake_id, MistakeStats(mistake_id, known.mistake if known else text))
            mistake.runs += 1
            mistake.students.add(student.user_id)
    attempts, times = [], []
    for group in per_student.values():
        first = next((n for n, run in enumerate(group) if run.passed), None)
        if first is not None:
            attempts.append(first + 1)
            times.append(group[first].created_at - group[0].created_at)
    return ExerciseStats(
        students=len(students),
        solvers=len(attempts),
        runs=total,
        median_attempts=statistics.median(attempts) if attempts else None,
        median_time_to_solve=_median_time(times),
        checks=list(checks.values()),
        mistakes=sorted(mistakes.values(), key=lambda m: (-len(m.students), -m.runs, m.id)),
        versions=versions.most_common(),
    )


def diagnoses(result: dict) -> list[tuple[str, str]]:
    """What one result told its student, once each, as (id, words for instructors).

    The run's lead mistake and any other a failing check matched; a mistake derived from the
    reference, by the hint it gave (``derived/<hint>``); and each failing check's symptom
    (``symptom/<kind>``).
    """
    found: dict[str, str] = {}
    lead = result.get("mistake")
    names = (
        [(str(lead["id"]), str(lead.get("mistake") or lead["id"]))] if isinstance(lead, dict) and lead.get("id") else []
    )
    failing = [t for t in result.get("tests") or [] if isinstance(t, dict) and t.get("status") != "pass"]
    names += [(str(t["mistake_id"]), str(t["mistake_id"])) for t in failing if t.get("mistake_id")]
    for name, text in names:
        if is_derived(name):
            hint = hint_of(name)
            found.setdefault(f"derived/{hint}", f"a small change in what the hint “{hint}” is about")
        else:
            found.setdefault(name, text)
    for test in failing:
        kind = test.get("symptom")
        if isinstance(kind, str) and kind in LABELS:
            found.setdefault(f"symptom/{kind}", f"symptom: {LABELS[kind]}")
    return list(found.items())


def _median_time(times: list[timedelta]) -> timedelta | None:
    if not times:
        return None
    return timedelta(seconds=statistics.median(t.total_seconds() for t in times))


def duration(value: timedelta | None) -> str:
    """A short human duration: 45 s, 12 min, 3.5 h, 2 days."""
    if value is None:
        return "–"
    seconds = value.total_seconds()
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
