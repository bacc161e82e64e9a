"""Exercise folders: loading, validating and describing them.

An exercise is a folder ``exercises/<slug>/``::

    exercise.toml     title, section, difficulty, tags, functions, limits, hints, mutants, mutation
    statement.md      Markdown with $…$ and $$…$$ math
    starter.py        what the student starts from
    reference.py      a correct solution
    checks.py         the hidden checks (trusted code, see grader.checks)
    mutants/*.py      known-wrong solutions, each described in exercise.toml: a whole solution,
    mutants/*.diff    or a unified diff against reference.py (see grader.exercise.patches)

Loading checks everything an author can get wrong and reports every problem with its file.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import inspect
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grader.exercise.checks import Check, collect_checks
from grader.exercise.hints import Hint, hint_levels
from grader.exercise.mistakes import KnownMistake
from grader.exercise.mutants import load_mutants, mutant_file, patched_file
from grader.exercise.statement import StatementError, render_statement
from grader.exercise.versions import folder_version
from grader.sandbox import Limits

SLUG_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
REQUIRED_FILES = ("exercise.toml", "statement.md", "starter.py", "reference.py", "checks.py")
#: The exercises shipped beside the code (an editable install, the image): the default of every exercises folder.
DEFAULT_EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


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
    hints: dict[str, Hint] = Field(default_factory=dict)
    mutants: dict[str, MutantSpec] = Field(default_factory=dict)
    mutation: MutationSpec = Field(default_factory=MutationSpec)
    #: Whether a learner who solved the exercise may read reference.py.
    show_reference_after_solving: bool = False
    #: What the "Try it" panel starts with: Python that calls the student's functions (the worked example).
    try_it: str = ""


@dataclass(frozen=True)
class Exercise:
    slug: str
    path: Path
    config: ExerciseConfig
    statement_markdown: str
    starter: str
    checks: tuple[Check, ...]
    #: Each mutant's whole ``solution.py``: its ``.py`` file, or ``reference.py`` with its ``.diff`` applied.
    mutant_sources: Mapping[str, str] = field(default_factory=dict)
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
        return KnownMistake.compile("reference", "", "", self.reference_path)

    @cached_property
    def known_mistakes(self) -> list[KnownMistake]:
        """The mutants, compiled once, for naming a wrong answer's mistake (see grader.grading.mistakes)."""
        mistakes = []
        for name, spec in self.config.mutants.items():
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
    section: str
    order: int = 0

    @property
    def problems(self) -> list[str]:
        return self.error.problems


def load_exercise(path: Path, *, mutants: bool = True) -> Exercise:
    """Load and validate one exercise folder; raise :class:`ExerciseError` listing every problem.

    ``mutants=False`` leaves the mutants out (files and tables, unread), for working on the
    statement, reference and checks before the mutants exist (``mlkata check --reference-only``).
    """
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
    sources = load_mutants(path, problems) if mutants else {}
    if config is not None and not mutants:
        config = config.model_copy(update={"mutants": {}})
    if config is not None:
        _cross_check(path, config, checks, problems, mutants=mutants)
    if problems or config is None:
        raise ExerciseError(slug, problems)
    return Exercise(
        slug=slug, path=path, config=config, statement_markdown=statement, starter=starter, checks=tuple(checks),
        mutant_sources=sources, version=folder_version(path),
    )  # fmt: skip


def load_exercises(root: Path) -> dict[str, Exercise]:
    """Every exercise under ``root``, ordered by each one's ``order``, then title."""
    exercises = [load_exercise(p) for p in exercise_folders(root)]
    exercises.sort(key=lambda e: (e.config.order, e.config.title))
    return {e.slug: e for e in exercises}


def exercise_folders(root: Path) -> list[Path]:
    """The folders under ``root`` that hold an ``exercise.toml``, by name (hidden ones left out)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if not p.name.startswith(".") and (p / "exercise.toml").is_file())


def load_each_exercise(root: Path) -> tuple[dict[str, Exercise], dict[str, BrokenExercise]]:
    """Every exercise under ``root`` that loads (in roadmap order), and every one that does not, with why."""
    loaded: dict[str, Exercise] = {}
    broken: dict[str, BrokenExercise] = {}
    for folder in exercise_folders(root):
        outcome = load_or_explain(folder)
        if isinstance(outcome, Exercise):
            loaded[outcome.slug] = outcome
        else:
            broken[outcome.slug] = outcome
    ordered = sorted(loaded.values(), key=lambda e: (e.config.order, e.config.title))
    return {e.slug: e for e in ordered}, broken


def load_or_explain(folder: Path, *, mutants: bool = True) -> Exercise | BrokenExercise:
    """The exercise in ``folder``, or, if it does not load, why not (never raising for the folder's contents)."""
    try:
        return load_exercise(folder, mutants=mutants)
    except ExerciseError as exc:
        error = exc
    except (Exception, SystemExit) as exc:  # noqa: BLE001  (an unreadable file: reported like any problem)
        error = ExerciseError(folder.name, [f"loading it raised {type(exc).__name__}: {exc}"])
    data: dict[str, Any] = {}
    with contextlib.suppress(OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        data = tomllib.loads((folder / "exercise.toml").read_text(encoding="utf-8"))
    title, section, order = data.get("title"), data.get("section"), data.get("order")
    return BrokenExercise(
        slug=folder.name, path=folder.resolve(), error=error,
        title=title if isinstance(title, str) and title.strip() else folder.name,
        section=section if isinstance(section, str) and section.strip() else "Exercises that do not load",
        order=order if isinstance(order, int) and not isinstance(order, bool) else 0,
    )  # fmt: skip


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
    except (Exception, SystemExit) as exc:  # noqa: BLE001  (any error in an author's file is reported, not raised)
        problems.append(f"checks.py: importing it raised {type(exc).__name__}: {exc}")
        return []
    checks = collect_checks(module, slug=slug)
    if not checks:
        problems.append("checks.py: defines no check (decorate functions with @check)")
    for c in checks:
        original = inspect.unwrap(c.function)
        try:
            inspect.signature(original).bind(*(None,) * (2 if c.takes_rng else 1))
        except TypeError:
            problems.append(
                f"checks.py: check {c.id}{inspect.signature(original)} must take (student) or (student, rng)"
            )
        except ValueError:
            pass  # no signature to read (a builtin): let it run
    return checks


def _cross_check(
    path: Path, config: ExerciseConfig, checks: list[Check], problems: list[str], *, mutants: bool
) -> None:
    ids = {c.id for c in checks}
    reported = _unknown_hint_literals(path / "checks.py", config.hints, problems)
    for c in checks:
        if c.hint is not None and c.hint not in config.hints and c.hint not in reported:
            problems.append(f"checks.py: check {c.id} names hint {c.hint!r}, which [hints] does not define")
    if not mutants:
        return
    files = sorted((path / "mutants").glob("*.py")) + sorted((path / "mutants").glob("*.diff"))
    mutant_files = {p.stem: p.name for p in files} if (path / "mutants").is_dir() else {}
    for name in sorted(set(mutant_files) - set(config.mutants)):
        problems.append(f"mutants/{mutant_files[name]}: not described in exercise.toml (add a [mutants.{name}] table)")
    for name, mutant in config.mutants.items():
        if name not in mutant_files:
            problems.append(
                f"exercise.toml: mutants.{name}: file mutants/{name}.py (or mutants/{name}.diff) is missing"
            )
        if mutant.hint not in config.hints:
            problems.append(f"exercise.toml: mutants.{name}.hint: {mutant.hint!r} is not in [hints]")
        for check_id in mutant.caught_by:
            if check_id not in ids:
                problems.append(f"exercise.toml: mutants.{name}.caught_by: no check named {check_id!r}")


def _unknown_hint_literals(path: Path, hints: Mapping[str, object], problems: list[str]) -> set[str]:
    """Report, with its line, each literal hint id in ``checks.py`` that ``[hints]`` does not define; return them.

    Every ``hint="…"`` passed in a call (``@check``, ``fail``, ``expect_*``, a helper of the file's
    own) and every parameter ``hint`` defaulting to a string: each would name a hint at run time.
    """
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, ValueError):
        return set()  # importing it reports the error
    found: set[tuple[int, str]] = set()
    for node in ast.walk(tree):
        values: list[ast.expr | None] = []
        if isinstance(node, ast.Call):
            values = [keyword.value for keyword in node.keywords if keyword.arg == "hint"]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            positional = [*a.posonlyargs, *a.args][len(a.posonlyargs) + len(a.args) - len(a.defaults) :]
            pairs = [*zip(positional, a.defaults, strict=True), *zip(a.kwonlyargs, a.kw_defaults, strict=True)]
            values = [default for arg, default in pairs if arg.arg == "hint"]
        for value in values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value not in hints:
                found.add((value.lineno, value.value))
    known = f"(known: {', '.join(sorted(hints))})" if hints else "([hints] is empty)"
    for line, hint in sorted(found):
        problems.append(f"checks.py, line {line}: hint {hint!r} is not in [hints] {known}")
    return {hint for _, hint in found}
