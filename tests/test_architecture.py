"""The layout shows the architecture, and these rules keep it so.

* No module grows past 400 lines, nor past 300 without saying why in its docstring ("Longer than …").
* No module imports another package's private names (``_name``), or reaches them as ``module._name``.
* A package whose ``__init__`` declares ``__all__`` is a room with one door: code outside it imports
  the door (``grader.sandbox``, ``app.queue``, …), never the modules behind it.
* Imports run one way along the flow, room by room (``LAYERS``, lowest first): ``runner`` (inside
  the jail, importing nothing of the trusted side) → ``grader.sandbox`` → ``grader.results`` →
  ``grader.exercise`` → ``grader.grading`` → ``grader.checks`` → ``grader.authoring`` → ``app``'s
  rooms, from its tables up to the processes. Imports only for the type checker do not count.
* ``docs/architecture.md`` names every module, and only modules that exist.
* The web app and the worker never import the authoring tools (the command line, mutation analysis, scaffolding).

One test per rule: each walks every module and lists all that break it. Files are read and parsed
once (``_source``, ``_imports`` are cached), so a rule costs one walk; a new rule is a new test.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PRODUCT = ("app", "grader", "runner")
MAX_LINES = 400
#: Past this, a module says in its docstring why it is one module ("Longer than 300 lines: …").
LONG_LINES = 300
#: What authors use (``mlkata check``, ``mlkata new``) and the web app and the worker do not.
AUTHORING_TOOLS = ("grader.authoring", "libcst", "typer", "rich")
#: The rooms, lowest first: a module may import its own room and those below it. The longest prefix
#: names a module's room; the mlkata sub-commands sit with the processes that load them.
LAYERS = (
    ("runner",),
    ("grader.sandbox",),
    ("grader.results",),
    ("grader.exercise",),
    ("grader.grading",),
    ("grader.checks", "grader"),
    ("grader.authoring",),
    ("app.models", "app.db", "app.settings", "app.learners", "app"),
    ("app.web", "app.monitoring"),
    ("app.events",),
    ("app.queue",),
    ("app.grading",),
    ("app.services",),
    ("app.curriculum",),
    ("app.accounts",),
    ("app.api", "app.courses"),
    ("app.main", "app.worker", "app.cli", "app.entry", "app.accounts.cli", "app.courses.regrade_cli"),
)
#: Upward imports with a reason. Naming a mistake derives the reference's mutants (with mutation
#: analysis's operators) when a grading process first needs them, on its background thread.
UPWARD = {("grader.grading.mistakes.derived", "grader.authoring.mutation")}


def _modules() -> Iterator[tuple[str, Path]]:
    for top in PRODUCT:
        for path in sorted((REPO / top).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(REPO).with_suffix("").parts
            yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


MODULES = dict(_modules())
_NAMES = {path: module for module, path in MODULES.items()}


def _package(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


@cache
def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@cache
def _imports(path: Path) -> tuple[tuple[str, list[str], int], ...]:
    """(imported module, names taken from it, line) for each import, relative ones resolved."""
    tree = ast.parse(_source(path))
    module = _NAMES[path]
    package = _package(module, path)
    found: list[tuple[str, list[str], int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            found.append((base, [alias.name for alias in node.names], node.lineno))
    return tuple(found)


def _top(name: str) -> str:
    return name.split(".")[0]


def test_no_module_grows_past_the_limit() -> None:
    found = {}
    for module, path in MODULES.items():
        lines = len(_source(path).splitlines())
        if lines > MAX_LINES:
            found[module] = lines
    assert not found, f"modules past {MAX_LINES} lines (split them by concept): {found}"


def test_a_long_module_says_why() -> None:
    found = {}
    for module, path in MODULES.items():
        lines = len(_source(path).splitlines())
        if lines > LONG_LINES and "Longer than" not in (ast.get_docstring(ast.parse(_source(path))) or ""):
            found[module] = lines
    assert not found, f"modules past {LONG_LINES} lines whose docstring does not say why (or split them): {found}"


def _private_names_taken(module: str, path: Path) -> list[str]:
    package = _package(module, path)
    found = []
    for imported, names, line in _imports(path):
        if _top(imported) not in PRODUCT:
            continue
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        private_module = any(part.startswith("_") and part != "__init__" for part in imported.split("."))
        importing_from = (
            imported
            if imported in MODULES and MODULES[imported].name == "__init__.py"
            else (imported.rpartition(".")[0])
        )
        if (private or private_module) and importing_from != package:
            found.append(f"line {line}: from {imported} import {', '.join(private) or '…'}")
    source = _source(path)
    aliases = {alias for imported, names, _ in _imports(path) if _top(imported) in PRODUCT for alias in names}
    for alias in sorted(aliases):
        if re.search(rf"\b{re.escape(alias)}\._[a-z]\w*", source) and f"{package}.{alias}" not in MODULES:
            found.append(f"{alias}._… (a private name of another package)")
    return found


def test_no_module_takes_another_packages_private_names() -> None:
    found = {module: taken for module, path in MODULES.items() if (taken := _private_names_taken(module, path))}
    assert not found, f"modules that reach into private names: {found}"


def _doors() -> dict[str, set[str]]:
    """Each package whose ``__init__`` declares ``__all__``: the names its door lets out."""
    doors = {}
    for module, path in MODULES.items():
        if path.name != "__init__.py":
            continue
        for node in ast.parse(_source(path)).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                doors[module] = {ast.literal_eval(element) for element in node.value.elts}  # type: ignore[attr-defined]
    return doors


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_outside_a_room_only_its_door_is_used() -> None:
    doors = _doors()
    assert {"grader.sandbox", "grader.results", "grader.exercise", "grader.grading", "app.queue"} <= set(doors)
    found: dict[str, list[str]] = {}
    for module, path in MODULES.items():
        for imported, names, line in _imports(path):
            for door, exported in doors.items():
                if _inside(module, door) or not _inside(imported, door):
                    continue
                if imported != door:
                    found.setdefault(module, []).append(f"line {line}: {imported} (use {door})")
                elif unknown := [n for n in names if n not in exported]:
                    found.setdefault(module, []).append(f"line {line}: {door} does not let out {unknown}")
    assert not found, f"modules that go behind a door: {found}"


def _layer(module: str) -> int:
    best, layer = "", -1
    for index, room in enumerate(LAYERS):
        for prefix in room:
            if _inside(module, prefix) and len(prefix) > len(best):
                best, layer = prefix, index
    assert layer >= 0, f"{module} is in no room of LAYERS"
    return layer


@cache
def _runtime_imports(path: Path) -> tuple[tuple[str, int], ...]:
    """The imports that run: those under ``if TYPE_CHECKING:`` only inform the type checker."""
    tree = ast.parse(_source(path))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    lines = {
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) in typing_only
    }
    return tuple((imported, line) for imported, _, line in _imports(path) if line not in lines)


def test_imports_run_one_way_along_the_flow() -> None:
    found = {}
    for module, path in MODULES.items():
        own = _layer(module)
        upward = [
            f"line {line}: {imported}"
            for imported, line in _runtime_imports(path)
            if _top(imported) in PRODUCT
            and _layer(imported) > own
            and not any(_inside(module, low) and _inside(imported, high) for low, high in UPWARD)
        ]
        if upward:
            found[module] = upward
    assert not found, f"modules that import against the flow: {found}"


def test_every_rule_sees_every_module() -> None:
    # The rules walk MODULES: were it empty or partial, every rule would pass.
    assert {module.split(".")[0] for module in MODULES} == set(PRODUCT)
    assert len(MODULES) > 100


def test_the_architecture_guide_names_only_modules_that_exist() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:app|grader|runner|static/src)/[\w/]+(?:\.py|\.js)?)`", text))
    assert len(named) > 25
    missing = sorted(name for name in named if not (REPO / name).exists())
    assert not missing, f"docs/architecture.md names what does not exist: {missing}"


def test_the_architecture_guide_names_every_module() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    unnamed = sorted(
        str(path.relative_to(REPO))
        for path in MODULES.values()
        if path.name != "__init__.py" and str(path.relative_to(REPO)) not in text
    )
    assert not unnamed, f"docs/architecture.md does not say where these live: {unnamed}"


def test_the_web_app_and_the_worker_never_import_the_authoring_tools() -> None:
    """Checked in a fresh interpreter, so what any module imports, directly or through a library, counts.

    Deriving mistakes (grader.grading.mistakes.derived) imports the mutant derivation when a grading process first
    needs it, on its background thread: that is grading, done after start-up, not an import.
    """
    probe = (
        "import json, sys\n"
        "import app.main, app.worker\n"
        f"tools = {AUTHORING_TOOLS!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if any(m == t or m.startswith(t + '.') for t in tools))))"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    loaded = json.loads(run.stdout)
    assert not loaded, f"importing the web app and the worker loads authoring tools: {loaded}"
