"""What learners may see of an exercise: never its checks' code, reference solution or mutants.

Of an exercise that does not load they see its title and why it does not (the loading problems,
each with its file and field), so that its author, trying it on the page, reads them too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, Field

from grader.exercise import BrokenExercise, Exercise


class FunctionInfo(BaseModel):
    name: str
    params: list[str]
    returns: str
    signature: str


class LimitsInfo(BaseModel):
    time_seconds: float = Field(description="Wall-clock time for the whole run.")
    memory_mb: int
    output_kb: int
    source_kb: int


class CheckInfo(BaseModel):
    title: str
    public: bool = Field(description="Public checks show their inputs, expected and actual values.")
    points: float


class ExerciseSummary(BaseModel):
    slug: str
    title: str
    section: str
    difficulty: str
    tags: list[str]
    order: int
    summary: str
    solved: bool = Field(description="Whether the learner making the request has solved it.")
    url: str
    api_url: str


class ExerciseDetail(ExerciseSummary):
    statement_html: str = Field(description="HTML; math left as TeX in .math-inline / .math-display elements.")
    starter: str
    functions: list[FunctionInfo]
    limits: LimitsInfo
    checks: list[CheckInfo]
    submissions_url: str


def summary(exercise: Exercise, solved: bool) -> ExerciseSummary:
    c = exercise.config
    return ExerciseSummary(
        slug=exercise.slug, title=c.title, section=c.section, difficulty=c.difficulty, tags=list(c.tags),
        order=c.order, summary=c.summary, solved=solved, url=f"/exercises/{exercise.slug}",
        api_url=f"/api/exercises/{exercise.slug}",
    )  # fmt: skip


def detail(exercise: Exercise, solved: bool) -> ExerciseDetail:
    limits = exercise.limits
    return ExerciseDetail(
        **summary(exercise, solved).model_dump(),
        statement_html=exercise.statement_html,
        starter=exercise.starter,
        functions=[
            FunctionInfo(name=f.name, params=list(f.params), returns=f.returns, signature=f.signature)
            for f in exercise.config.functions
        ],
        limits=LimitsInfo(
            time_seconds=limits.time_seconds,
            memory_mb=limits.memory_mb,
            output_kb=limits.output_kb,
            source_kb=limits.source_kb,
        ),
        checks=[CheckInfo(title=c.title, public=c.public, points=c.points) for c in exercise.checks],
        submissions_url=f"/api/exercises/{exercise.slug}/submissions",
    )


def sections(exercises: list[Exercise]) -> list[tuple[str, list[Exercise]]]:
    """Exercises grouped by section, sections in the order of their first exercise."""
    grouped: dict[str, list[Exercise]] = {}
    for exercise in exercises:
        grouped.setdefault(exercise.config.section, []).append(exercise)
    return list(grouped.items())


@dataclass(frozen=True)
class RoadmapEntry:
    """One exercise on the roadmap: one that loads, or one that does not (with its problems)."""

    slug: str
    title: str
    summary: str
    difficulty: str
    tags: list[str]
    order: int
    problems: list[str]

    @classmethod
    def of(cls, exercise: Exercise | BrokenExercise) -> RoadmapEntry:
        if isinstance(exercise, BrokenExercise):
            return cls(exercise.slug, exercise.title, "", "", [], exercise.order, list(exercise.problems))
        c = exercise.config
        return cls(exercise.slug, c.title, c.summary, c.difficulty, list(c.tags), c.order, [])


def in_order(exercises: Iterable[Exercise]) -> list[Exercise]:
    """Exercises in roadmap order: by ``order``, then title (whatever order a reload left them in)."""
    return sorted(exercises, key=lambda e: (e.config.order, e.config.title))


def roadmap(
    exercises: Iterable[Exercise], broken: Iterable[BrokenExercise] = ()
) -> list[tuple[str, list[RoadmapEntry]]]:
    """The roadmap's sections, each with its exercises, the ones that do not load among them."""
    every: list[tuple[tuple[int, str], str, RoadmapEntry]] = [
        ((e.config.order, e.config.title), e.config.section, RoadmapEntry.of(e)) for e in exercises
    ]
    every += [((b.order, b.title), b.section, RoadmapEntry.of(b)) for b in broken]
    grouped: dict[str, list[RoadmapEntry]] = {}
    for _, section, entry in sorted(every, key=lambda item: item[0]):
        grouped.setdefault(section, []).append(entry)
    return list(grouped.items())


def loading_error(exercise: BrokenExercise, max_chars: int = 4000) -> str:
    """What a learner reads of an exercise that does not load: that it cannot be graded, and why."""
    problems = "; ".join(exercise.problems)
    if len(problems) > max_chars:
        problems = problems[:max_chars] + "…"
    return f"The exercise “{exercise.slug}” does not load, so it cannot be graded until it is fixed: {problems}"
