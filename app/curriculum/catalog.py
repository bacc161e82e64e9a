"""What learners may see of an exercise: never its checks' code, reference solution or mutants.

Of an exercise that does not load they see its title and why it does not (the loading problems,
each with its file and field), so that its author, trying it on the page, reads them too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterable
from dataclasses import dataclass

from pydantic import BaseModel, Field

from app.curriculum.progress import first_unsolved_after
from grader.exercise import DIFFICULTIES, BrokenExercise, Exercise, roadmap_key


class FunctionInfo(BaseModel):
    name: str
    params: list[str]
    returns: str
    signature: str


class LimitsInfo(BaseModel):
    time_seconds: float = Field(
        description="CPU time for a run, every process of the solution together; after a timeout, the checks that do "
        "not call the function that ran out of time run in a new run with as much again."
    )
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
    section_url: str = Field(description="The section's page: its description and its exercises.")
    difficulty: str
    tags: list[str]
    order: int
    summary: str
    solved: bool = Field(description="Whether the learner making the request has solved it.")
    url: str
    api_url: str


class NextExercise(BaseModel):
    slug: str
    title: str
    difficulty: str
    url: str


class ExerciseDetail(ExerciseSummary):
    statement_html: str = Field(description="HTML; math left as TeX in .math-inline / .math-display elements.")
    starter: str
    functions: list[FunctionInfo]
    limits: LimitsInfo
    checks: list[CheckInfo]
    submissions_url: str
    position: int = Field(description="Where the exercise stands in its section, counting from 1.")
    section_size: int = Field(description="How many exercises its section has.")
    next: NextExercise | None = Field(
        description="Where to go once it is solved: the first exercise after it that you have not solved, "
        "else the first before it; null when it is the last you have not solved."
    )


def summary(exercise: Exercise, solved: bool) -> ExerciseSummary:
    c = exercise.config
    return ExerciseSummary(
        slug=exercise.slug, title=c.title, section=c.section, section_url=section_url(exercise.section.slug),
        difficulty=c.difficulty, tags=list(c.tags),
        order=c.order, summary=c.summary, solved=solved, url=f"/exercises/{exercise.slug}",
        api_url=f"/api/exercises/{exercise.slug}",
    )  # fmt: skip


def detail(exercise: Exercise, solved: Container[str], every: Iterable[Exercise]) -> ExerciseDetail:
    """All a learner may see of ``exercise``, placed among ``every`` exercise (for its position and what is next)."""
    limits = exercise.limits
    ordered = in_order(every)
    section = [e.slug for e in ordered if e.config.section == exercise.config.section]
    after = next_exercise(ordered, exercise.slug, solved)
    return ExerciseDetail(
        **summary(exercise, exercise.slug in solved).model_dump(),
        position=section.index(exercise.slug) + 1 if exercise.slug in section else 1,
        section_size=max(len(section), 1),
        next=None
        if after is None
        else NextExercise(
            slug=after.slug,
            title=after.config.title,
            difficulty=after.config.difficulty,
            url=f"/exercises/{after.slug}",
        ),
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
    #: The names of the functions it asks for (what the roadmap's search also looks in).
    functions: list[str]

    @classmethod
    def of(cls, exercise: Exercise | BrokenExercise) -> RoadmapEntry:
        if isinstance(exercise, BrokenExercise):
            return cls(exercise.slug, exercise.title, "", exercise.difficulty, [], exercise.order,
                       list(exercise.problems), [])  # fmt: skip
        c = exercise.config
        return cls(exercise.slug, c.title, c.summary, c.difficulty, list(c.tags), c.order, [], exercise.function_names)


def in_order(exercises: Iterable[Exercise]) -> list[Exercise]:
    """Exercises in roadmap order: by ``order``, then title (whatever order a reload left them in)."""
    return sorted(exercises, key=roadmap_key)


def next_exercise(exercises: Iterable[Exercise], slug: str, solved: Container[str]) -> Exercise | None:
    """What to open after solving ``slug``: the first unsolved exercise after it in roadmap order,
    else the first unsolved one before it (the learner skipped it), else None."""
    by_slug = {e.slug: e for e in exercises}
    after = first_unsolved_after([e.slug for e in in_order(by_slug.values())], slug, solved)
    return None if after is None else by_slug[after]


def section_url(slug: str) -> str:
    return f"/sections/{slug}"


@dataclass(frozen=True)
class RoadmapSection:
    """One section of the roadmap: its exercises in order, with what the page shows about them."""

    title: str
    entries: list[RoadmapEntry]
    #: What the section is about, from ``sections.toml`` (empty without one).
    summary: str = ""
    #: Its name in its page's address.
    slug: str = ""

    @property
    def url(self) -> str:
        return section_url(self.slug)

    @property
    def slugs(self) -> list[str]:
        """Its exercises that load, in order."""
        return [e.slug for e in self.entries if not e.problems]

    def position(self, slug: str) -> int:
        """Where ``slug`` stands in the section, counting from 1."""
        return next(n for n, entry in enumerate(self.entries, start=1) if entry.slug == slug)

    def difficulty_counts(self) -> list[tuple[str, int]]:
        """How many exercises of each difficulty, easy to hard (others after, in the order met)."""
        counts: dict[str, int] = dict.fromkeys(DIFFICULTIES, 0)
        for entry in self.entries:
            if entry.difficulty:
                counts[entry.difficulty] = counts.get(entry.difficulty, 0) + 1
        return [(name, n) for name, n in counts.items() if n]

    def solved_by_difficulty(self, solved: Container[str]) -> dict[str, tuple[int, int]]:
        """For each difficulty, easy to hard: how many of its exercises that load are solved, of how many."""
        tally = {name: (0, 0) for name in DIFFICULTIES}
        for entry in self.entries:
            if not entry.problems:
                done, total = tally.get(entry.difficulty, (0, 0))
                tally[entry.difficulty] = (done + (entry.slug in solved), total + 1)
        return tally


def tag_counts(sections: Iterable[RoadmapSection]) -> list[tuple[str, int]]:
    """Every tag of the roadmap's exercises with how many carry it, alphabetically."""
    counts = Counter(tag for section in sections for entry in section.entries for tag in entry.tags)
    return sorted(counts.items(), key=lambda item: (item[0].casefold(), item[0]))


def roadmap(exercises: Iterable[Exercise], broken: Iterable[BrokenExercise] = ()) -> list[RoadmapSection]:
    """The roadmap's sections, each with its exercises, the ones that do not load among them."""
    grouped: dict[str, RoadmapSection] = {}
    every: list[Exercise | BrokenExercise] = [*exercises, *broken]
    for item in sorted(every, key=roadmap_key):
        section = item.section
        if section.title not in grouped:
            grouped[section.title] = RoadmapSection(section.title, [], section.summary, section.slug)
        grouped[section.title].entries.append(RoadmapEntry.of(item))
    return list(grouped.values())


def loading_error(exercise: BrokenExercise, max_chars: int = 4000) -> str:
    """What a learner reads of an exercise that does not load: that it cannot be graded, and why."""
    problems = "; ".join(exercise.problems)
    if len(problems) > max_chars:
        problems = problems[:max_chars] + "…"
    return f"The exercise “{exercise.slug}” does not load, so it cannot be graded until it is fixed: {problems}"
