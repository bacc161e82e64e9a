"""Reading an exercise folder: every problem an author can make reported with its file, or an :class:`Exercise`."""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import inspect
import re
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from grader.exercise.checks import AnswerForm, Check, collect_answer_forms, collect_checks
from grader.exercise.config import DIFFICULTIES, ExerciseConfig
from grader.exercise.model import BrokenExercise, Exercise, ExerciseError, roadmap_key
from grader.exercise.mutants import check_compiles, load_mutants
from grader.exercise.roadmap import Section, section_of
from grader.exercise.statement import StatementError, render_statement
from grader.exercise.versions import folder_version

SLUG_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
REQUIRED_FILES = ("exercise.toml", "statement.md", "starter.py", "reference.py", "checks.py")
#: The exercises shipped beside the code (an editable install, the image): the default of every exercises folder.
DEFAULT_EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


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
    reference = (path / "reference.py").read_text(encoding="utf-8")
    check_compiles(starter, "starter.py", problems)
    check_compiles(reference, "reference.py", problems)
    checks, forms = _load_checks(path / "checks.py", slug, problems)
    section = section_of(path, config.section, problems) if config is not None else Section("")
    sources = load_mutants(path, reference, problems) if mutants else {}
    if config is not None and not mutants:
        config = config.model_copy(update={"mutants": {}})
    if config is not None:
        _cross_check(path, config, checks, problems, mutants=mutants)
        functions = {f.name for f in config.functions}
        problems += [f"checks.py: @compared_as names {name!r}, which [[functions]] does not list"
                     for name in forms if name not in functions]  # fmt: skip
    if problems or config is None:
        raise ExerciseError(slug, problems)
    return Exercise(
        slug=slug, path=path, config=config, statement_markdown=statement, starter=starter, reference=reference,
        checks=tuple(checks), answer_forms=forms, section=section,
        mutant_sources=sources, version=folder_version(path),
    )  # fmt: skip


def load_exercises(root: Path) -> dict[str, Exercise]:
    """Every exercise under ``root``, ordered by each one's ``order``, then title."""
    exercises = [load_exercise(p) for p in exercise_folders(root)]
    exercises.sort(key=roadmap_key)
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
    ordered = sorted(loaded.values(), key=roadmap_key)
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
    title, section, order, difficulty = (data.get(k) for k in ("title", "section", "order", "difficulty"))
    named = section if isinstance(section, str) and section.strip() else "Exercises that do not load"
    return BrokenExercise(
        slug=folder.name, path=folder.resolve(), error=error,
        title=title if isinstance(title, str) and title.strip() else folder.name,
        section=section_of(folder, named, []),
        order=order if isinstance(order, int) and not isinstance(order, bool) else 0,
        difficulty=difficulty if difficulty in DIFFICULTIES else "",
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


def _load_checks(path: Path, slug: str, problems: list[str]) -> tuple[list[Check], dict[str, AnswerForm]]:
    module_name = f"mlkata_checks_{slug.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # noqa: BLE001  (any error in an author's file is reported, not raised)
        problems.append(f"checks.py: importing it raised {type(exc).__name__}: {exc}")
        return [], {}
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
    return checks, collect_answer_forms(module)


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
