"""The ``mlkata`` command: `mlkata worker` refuses to start without Redis; sub-commands load only what they use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import ELSEWHERE, ELSEWHERE_LAST, app, load_command


def test_the_worker_needs_a_redis_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MLKATA_REDIS_URL", raising=False)
    monkeypatch.delenv("MLKATA_SETTINGS_FILE", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    result = CliRunner().invoke(app, ["worker", "--concurrency", "1"])
    assert result.exit_code == 2
    assert "needs a Redis URL (MLKATA_REDIS_URL)" in result.output


@pytest.mark.parametrize("name", [*ELSEWHERE, *ELSEWHERE_LAST])
def test_mlkata_help_lists_each_deferred_command_by_the_first_paragraph_of_its_help(name: str) -> None:
    listed = {**ELSEWHERE, **ELSEWHERE_LAST}[name][2]
    command = load_command(name)
    assert command.name == name
    assert listed == " ".join((command.help or "").split("\n\n")[0].split())


def _loaded_after(code: str) -> list[str]:
    probe = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(run.stdout.splitlines()[-1])


def test_mlkata_help_imports_no_command_defined_elsewhere() -> None:
    loaded = _loaded_after(
        "from app.cli import app\nfrom typer.testing import CliRunner\n"
        "assert CliRunner().invoke(app, ['--help']).exit_code == 0"
    )
    modules = {module for module, _, _ in [*ELSEWHERE.values(), *ELSEWHERE_LAST.values()]}
    assert not [m for m in loaded if m in modules or m.startswith(("grader.", "fastapi", "sqlalchemy", "numpy"))]


def test_mlkata_grade_loads_neither_the_server_nor_mutation_analysis() -> None:
    loaded = _loaded_after("from app.cli import load_command\nload_command('grade')")
    assert "grader.grading.engine" in loaded
    heavy = (
        "app.main",
        "app.db",
        "fastapi",
        "sqlalchemy",
        "grader.authoring.mutation",
        "libcst",
        "grader.authoring.scaffold",
    )
    assert not [m for m in loaded if m.startswith(heavy)]
