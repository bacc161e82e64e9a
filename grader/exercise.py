"""Exercise folders: loading, validating and describing them.

An exercise is a folder ``exercises/<slug>/``::

    exercise.toml     title, section, difficulty, tags, functions, limits, hints, mutants, mutation
    statement.md      Markdown with $…$ and $$…$$ math
    starter.py        what the student starts from
    reference.py      a correct solution
    checks.py         the hidden checks (trusted code, see grader.checks)
    mutants/*.py      known-wrong solutions, each described in exercise.toml

Loading checks everything an author can get wrong and reports every problem with its file.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grader.checks import Check, collect_checks
from grader.fingerprints import KnownMistake
from grader.limits import Limits
from grader.statement import StatementError, render_statement

SLUG_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
REQUIRED_FILES = ("exercise.toml", "statement.md", "starter.py", "reference.py", "checks.py")


class ExerciseError(Exception):
    """An exercise folder is not valid; ``problems`` lists each thing to fix, with its file."""

    def __init__(self, slug: str, problems: list[str]) -> None:
        super().__init__(f"exercise {slug!r} is not valid:\n" + "\n".join(f"  - {p}" for p in problems))
        self.slug = slug
        self.problems = problems


class FunctionSpec(BaseModel):
    """A function the student implements."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    params: list[str]
    returns: str = ""

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


class MutantSpec(BaseModel):
    """A known-wrong solution: the mistake it makes and the hint a student making it must get."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mistake: str = Field(min_length=1)
    hint: str = Field(min_length=1, description="An id from the [hints] table.")
    caught_by: list[str] = Field(default_factory=list, description="Checks that must fail for it.")


class MutationSpec(BaseModel):
    """How strong the checks must be: the score ``mlkata check --mutation`` requires, and its accepted survivors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    minimum: float = Field(default=0.0, ge=0, le=1, description="The lowest mutation score that passes.")
    equivalent: dict[Annotated[str, Field(min_length=1)], Annotated[str, Field(min_length=1)]] = Field(
        default_factory=dict, description="Mutant ids accepted as equivalent to the reference, each with why."
    )


class ExerciseConfig(BaseModel):
    """The contents of ``exercise.toml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=1)
    section: str = Field(min_length=1)
    difficulty: Literal["easy", "medium", "hard"]
    tags: list[str] = Field(default_factory=list)
    order: int = 0
    summary: str = ""
    functions: list[FunctionSpec] = Field(min_length=1)
    limits: Limits = Field(default_factory=Limits)
    hints: dict[str, str] = Field(default_factory=dict)
    mutants: dict[str, MutantSpec] = Field(default_factory=dict)
    mutation: MutationSpec = Field(default_factory=MutationSpec)


@dataclass(frozen=True)
class Exercise:
    slug: str
    path: Path
    config: ExerciseConfig
    statement_markdown: str
    starter: str
    checks: tuple[Check, ...]

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
    def statement_html(self) -> str:
        return render_statement(self.statement_markdown)

    def mutant_paths(self) -> dict[str, Path]:
        return {name: self.path / "mutants" / f"{name}.py" for name in self.config.mutants}

    def hint_text(self, hint_id: str | None) -> str | None:
        return self.config.hints.get(hint_id) if hint_id else None

    @cached_property
    def reference_code(self) -> KnownMistake:
        """The reference solution, compiled once, against which wrong answers are told apart."""
        return KnownMistake.compile("reference", "", "", self.reference_path)

    @cached_property
    def known_mistakes(self) -> list[KnownMistake]:
        """The mutants, compiled once, for naming a wrong answer's mistake (see grader.fingerprints)."""
        return [
            KnownMistake.compile(name, spec.mistake, spec.hint, self.mutant_paths()[name])
            for name, spec in self.config.mutants.items()
            if self.mutant_paths()[name].is_file()
        ]


def load_exercise(path: Path) -> Exercise:
    """Load and validate one exercise folder; raise :class:`ExerciseError` listing every problem."""
    path = path.resolve()
    slug = path.name
    problems: list[str] = []
    if not SLUG_PATTERN.match(slug):
        problems.append(f"{slug}: folder name must be lowercase words joined by '-'")
    missing = [name for name in REQUIRED_FILES if not (path / name).is_file()]
    problems += [f"{name}: file is missing" for name in missing]
    if missing:
        raise ExerciseError(slug, problems)

    config = _load_config(path / "exercise.toml", problems)
    statement = (path / "statement.md").read_text(encoding="utf-8")
    try:
        render_statement(statement)
    except StatementError as exc:
        problems.append(f"statement.md: {exc}")
    starter = (path / "starter.py").read_text(encoding="utf-8")
    for name in ("starter.py", "reference.py"):
        _check_compiles(path / name, name, problems)
    checks = _load_checks(path / "checks.py", slug, problems)
    if config is not None:
        _cross_check(path, config, checks, problems)
    if problems or config is None:
        raise ExerciseError(slug, problems)
    return Exercise(
        slug=slug, path=path, config=config, statement_markdown=statement, starter=starter, checks=tuple(checks)
    )


def load_exercises(root: Path) -> dict[str, Exercise]:
    """Every exercise under ``root``, ordered by each one's ``order``, then title."""
    exercises = [load_exercise(p) for p in sorted(root.iterdir()) if (p / "exercise.toml").is_file()]
    exercises.sort(key=lambda e: (e.config.order, e.config.title))
    return {e.slug: e for e in exercises}


def _load_config(path: Path, problems: list[str]) -> ExerciseConfig | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        problems.append(f"exercise.toml: {exc}")
        return None
    try:
        return ExerciseConfig.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"])
            problems.append(f"exercise.toml: {where}: {error['msg']}")
        return None


def _check_compiles(path: Path, name: str, problems: list[str]) -> None:
    try:
        compile(path.read_text(encoding="utf-8"), name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        problems.append(f"{name}, line {exc.lineno}: {exc.msg}")


def _load_checks(path: Path, slug: str, problems: list[str]) -> list[Check]:
    module_name = f"mlkata_checks_{slug.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001  (any error in an author's file is reported, not raised)
        problems.append(f"checks.py: importing it raised {type(exc).__name__}: {exc}")
        return []
    checks = collect_checks(module)
    if not checks:
        problems.append("checks.py: defines no check (decorate functions with @check)")
    return checks


def _cross_check(path: Path, config: ExerciseConfig, checks: list[Check], problems: list[str]) -> None:
    ids = {c.id for c in checks}
    for c in checks:
        if c.hint is not None and c.hint not in config.hints:
            problems.append(f"checks.py: check {c.id} names hint {c.hint!r}, which [hints] does not define")
    mutant_files = {p.stem for p in (path / "mutants").glob("*.py")} if (path / "mutants").is_dir() else set()
    for name in sorted(mutant_files - set(config.mutants)):
        problems.append(f"mutants/{name}.py: not described in exercise.toml (add a [mutants.{name}] table)")
    for name, mutant in config.mutants.items():
        if name not in mutant_files:
            problems.append(f"exercise.toml: mutants.{name}: file mutants/{name}.py is missing")
        if mutant.hint not in config.hints:
            problems.append(f"exercise.toml: mutants.{name}.hint: {mutant.hint!r} is not in [hints]")
        for check_id in mutant.caught_by:
            if check_id not in ids:
                problems.append(f"exercise.toml: mutants.{name}.caught_by: no check named {check_id!r}")
