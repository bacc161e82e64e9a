"""An exercise as the grader and the web app read it: one version of its folder, read once.

An exercise is a folder ``exercises/<slug>/``::

    exercise.toml     title, section, difficulty, tags, functions, limits, hints, mutants, mutation
    statement.md      Markdown with $…$ and $$…$$ math
    starter.py        what the student starts from
    reference.py      a correct solution
    checks.py         the hidden checks (trusted code, see grader.checks)
    mutants/*.diff    known-wrong solutions, each described in exercise.toml: a unified diff against
    mutants/*.py      reference.py (see grader.exercise.patches), or a whole solution

:mod:`grader.exercise.loading` reads it into an :class:`Exercise`: the texts a verdict depends on
(reference, starter, mutants) are kept as read, so a folder edited while the app serves it cannot
make one verdict mix two versions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from grader.exercise.checks import AnswerForm, Check
from grader.exercise.config import DIFFICULTIES, ExerciseConfig
from grader.exercise.hints import hint_levels
from grader.exercise.mistakes import KnownMistake
from grader.exercise.mutants import mutant_file, patched_file
from grader.exercise.roadmap import Section
from grader.exercise.statement import render_statement
from grader.sandbox import Limits


class ExerciseError(Exception):
    """An exercise folder is not valid; ``problems`` lists each thing to fix, with its file."""

    def __init__(self, slug: str, problems: list[str]) -> None:
        super().__init__(f"exercise {slug!r} is not valid:\n" + "\n".join(f"  - {p}" for p in problems))
        self.slug = slug
        self.problems = problems


@dataclass(frozen=True)
class Exercise:
    slug: str
    path: Path
    config: ExerciseConfig
    statement_markdown: str
    starter: str
    #: ``reference.py`` as it was read with the rest of the folder: what every verdict of this version compares with.
    reference: str
    checks: tuple[Check, ...]
    #: Its section of the roadmap, placed by ``sections.toml``.
    section: Section
    #: Each mutant's whole ``solution.py``: its ``.py`` file, or ``reference.py`` with its ``.diff`` applied.
    mutant_sources: Mapping[str, str] = field(default_factory=dict)
    #: What naming a mistake compares of a function's answers, where the checks compare less than all of it.
    answer_forms: Mapping[str, AnswerForm] = field(default_factory=dict)
    #: The content hash of the folder (grader.exercise.versions): which version of the exercise a verdict comes from.
    version: str = ""

    @property
    def limits(self) -> Limits:
        return self.config.limits

    @property
    def reference_path(self) -> Path:
        return self.path / "reference.py"

    @property
    def function_names(self) -> list[str]:
        return [f.name for f in self.config.functions]

    @cached_property
    def parameters(self) -> dict[str, list[str]]:
        """Each function's parameter names, in order."""
        return {f.name: list(f.params) for f in self.config.functions}

    @cached_property
    def statement_html(self) -> str:
        return render_statement(self.statement_markdown)

    def mutant_file(self, name: str) -> Path:
        """The mutant's own file in the folder: ``mutants/<name>.py``, or ``mutants/<name>.diff``."""
        return mutant_file(self.path, name)

    def mutant_paths(self) -> dict[str, Path]:
        """A file holding each mutant's whole ``solution.py``: its ``.py``, or its diff applied."""
        paths = {}
        for name in self.config.mutants:
            own = self.mutant_file(name)
            paths[name] = patched_file(self.slug, name, self.mutant_sources[name]) if own.suffix == ".diff" else own
        return paths

    def hint_text(self, hint_id: str | None) -> str | None:
        """The first level of a hint: what a failed run shows."""
        levels = self.hint_levels(hint_id)
        return levels[0][1] if levels else None

    def hint_levels(self, hint_id: str | None) -> list[tuple[str, str]]:
        """Every level of a hint, as (kind, text); none for an unknown id."""
        hint = self.config.hints.get(hint_id) if hint_id else None
        return hint_levels(hint) if hint is not None else []

    @property
    def try_example(self) -> str:
        """What "Try it" starts with: the exercise's ``try_it``, else a call of each function to fill in."""
        if self.config.try_it.strip():
            return self.config.try_it.strip("\n") + "\n"
        calls = [f"# {f.signature}" + (f" -> {f.returns}" if f.returns else "") for f in self.config.functions]
        return "# Call your functions on inputs of your own; each line's value is shown.\n" + "\n".join(calls) + "\n"

    @cached_property
    def reference_code(self) -> KnownMistake:
        """The reference solution, compiled once, against which wrong answers are told apart."""
        return KnownMistake.from_source("reference", "", "", self.reference, str(self.reference_path))

    @cached_property
    def known_mistakes(self) -> list[KnownMistake]:
        """The mutants, compiled once, for naming a wrong answer's mistake (see grader.grading.mistakes)."""
        mistakes = []
        for name, spec in self.config.mutants.items():
            if spec.unnamed:
                continue  # its answers would name it on one machine and not on another
            own = self.mutant_file(name)
            source = self.mutant_sources.get(name)
            if source is None and own.suffix == ".py" and own.is_file():  # an Exercise made without its sources
                source = own.read_text(encoding="utf-8")
            if source is not None:
                mistakes.append(KnownMistake.from_source(name, spec.mistake, spec.hint, source, str(own)))
        return mistakes


@dataclass(frozen=True)
class BrokenExercise:
    """An exercise folder that does not load: its problems, and what the roadmap can still say of it."""

    slug: str
    path: Path
    error: ExerciseError
    title: str
    section: Section
    order: int = 0
    #: Its ``difficulty`` when the file says one it may ("" otherwise).
    difficulty: str = ""

    @property
    def problems(self) -> list[str]:
        return self.error.problems


def roadmap_key(exercise: Exercise | BrokenExercise) -> tuple[int, int, int, str]:
    """Where an exercise sits on the roadmap: by its section's place, then easy to hard, then its ``order``,
    then its title. One that does not load and names no difficulty comes after its section's hard ones."""
    if isinstance(exercise, BrokenExercise):
        return exercise.section.rank, _difficulty_rank(exercise.difficulty), exercise.order, exercise.title
    c = exercise.config
    return exercise.section.rank, _difficulty_rank(c.difficulty), c.order, c.title


def _difficulty_rank(difficulty: str) -> int:
    return DIFFICULTIES.index(difficulty) if difficulty in DIFFICULTIES else len(DIFFICULTIES)
