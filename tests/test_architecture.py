"""The layout shows the architecture, and these rules keep it so.

* No module grows past 400 lines.
* No module imports another package's private names (``_name``), or reaches them as ``module._name``.
* Outside the sandbox package, code uses only its door (``grader.sandbox``), never its modules.
* Imports run one way along the flow: ``app`` → ``grader`` → ``grader.sandbox`` → ``runner``;
  ``runner`` (which runs inside the jail) imports nothing of the trusted side.
* ``docs/architecture.md`` names only modules that exist.
* The web app and the worker never import the authoring tools (the command line, mutation analysis, scaffolding).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PRODUCT = ("app", "grader", "runner")
MAX_LINES = 400
#: What authors use (``mlkata check``, ``mlkata new``) and the web app and the worker do not.
AUTHORING_TOOLS = ("grader.cli", "grader.mutation", "grader.scaffold", "grader.verify", "libcst", "typer", "rich")


def _modules() -> Iterator[tuple[str, Path]]:
    for top in PRODUCT:
        for path in sorted((REPO / top).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(REPO).with_suffix("").parts
            yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


MODULES = dict(_modules())


def _package(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imports(path: Path) -> Iterator[tuple[str, list[str], int]]:
    """(imported module, names taken from it, line) for each import, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = next(m for m, p in MODULES.items() if p == path)
    package = _package(module, path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            yield base, [alias.name for alias in node.names], node.lineno


def _top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_grows_past_the_limit(module: str) -> None:
    lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module} has {lines} lines: split it by concept"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_takes_another_packages_private_names(module: str) -> None:
    path = MODULES[module]
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
    source = path.read_text(encoding="utf-8")
    aliases = {alias for imported, names, _ in _imports(path) if _top(imported) in PRODUCT for alias in names}
    for alias in sorted(aliases):
        if re.search(rf"\b{re.escape(alias)}\._[a-z]\w*", source) and f"{package}.{alias}" not in MODULES:
            found.append(f"{alias}._… (a private name of another package)")
    assert not found, f"{module} reaches into private names: {found}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith("grader.sandbox")))
def test_outside_the_sandbox_only_its_door_is_used(module: str) -> None:
    inside = [
        f"line {line}: {imported}"
        for imported, _, line in _imports(MODULES[module])
        if imported.startswith("grader.sandbox.")
    ]
    assert not inside, f"{module} uses the sandbox's modules instead of grader.sandbox: {inside}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_one_way_along_the_flow(module: str) -> None:
    layer = {"app": 3, "grader": 2, "grader.sandbox": 1, "runner": 0}
    own = 1 if module.startswith("grader.sandbox") else layer[_top(module)]
    upward = []
    for imported, _, line in _imports(MODULES[module]):
        if _top(imported) not in PRODUCT:
            continue
        target = 1 if imported.startswith("grader.sandbox") else layer[_top(imported)]
        # The sandbox reads an exercise's limits (plain data), nothing else of the grader.
        if own == 1 and imported == "grader.limits":
            continue
        if target > own:
            upward.append(f"line {line}: {imported}")
    assert not upward, f"{module} imports against the flow: {upward}"


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

    Deriving mistakes (grader.derived) imports the mutant derivation when a grading process first
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
