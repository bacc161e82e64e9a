"""docs/exercises.md: every key of exercise.toml and every limit documented, and the run's ceilings as computed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from grader.exercise import ExerciseConfig, FunctionSpec, MutantSpec
from grader.sandbox import Limits
from grader.sandbox.policy import HEADROOM_MB, memory_limit_mb, pids_limit

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "exercises.md"

#: Each model of exercise.toml, and the heading of the table that documents its keys.
TABLES: dict[str, type[BaseModel]] = {
    "### Top-level keys": ExerciseConfig,
    "### `[[functions]]`": FunctionSpec,
    "### `[mutants.<name>]`": MutantSpec,
    "## Limits": Limits,
}
MODEL_FIELDS = [(heading, name) for heading, model in TABLES.items() for name in model.model_fields]


def tables() -> dict[str, dict[str, list[str]]]:
    """Rows of the tables under each heading whose first cell is a `key`: heading -> key -> cells."""
    found: dict[str, dict[str, list[str]]] = {}
    heading = ""
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            heading = line.strip()
        elif line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            found.setdefault(heading, {})[cells[0].strip("`")] = cells[1:]
    return found


def number(value: Any) -> str:
    """A bound or default as the docs write it: 10.0 -> 10, 0.5 -> 0.5."""
    return str(int(value)) if float(value).is_integer() else str(value)


def bounds(name: str) -> str:
    """The "Allowed" cell a limit must have, from its field's constraints."""
    found = {
        key: getattr(item, key)
        for item in Limits.model_fields[name].metadata
        for key in ("gt", "ge", "le")
        if getattr(item, key, None) is not None
    }
    if "gt" in found:
        return f"more than {number(found['gt'])}, at most {number(found['le'])}"
    return f"{number(found['ge'])} to {number(found['le'])}"


@pytest.mark.parametrize(("heading", "model"), TABLES.items())
def test_each_table_documents_exactly_its_models_keys(heading: str, model: type[BaseModel]) -> None:
    assert set(tables().get(heading, {})) == set(model.model_fields)


@pytest.mark.parametrize(("heading", "name"), MODEL_FIELDS)
def test_every_key_is_documented_with_whether_it_is_required(heading: str, name: str) -> None:
    row = tables().get(heading, {}).get(name)
    assert row is not None, f"`{name}` has no row under {heading!r} in docs/exercises.md"
    if TABLES[heading] is Limits:
        return  # limits have defaults and bounds instead (below)
    field = TABLES[heading].model_fields[name]
    default = row[1]
    assert default.startswith("required") == field.is_required()
    if field.default_factory is list:
        assert default == "`[]`"
    elif not field.is_required() and field.default_factory is None:
        assert default == ('`""`' if field.default == "" else f"`{field.default}`")


@pytest.mark.parametrize("name", sorted(Limits.model_fields))
def test_every_limit_is_documented_with_its_default_and_bounds(name: str) -> None:
    row = tables()["## Limits"].get(name)
    assert row is not None, f"the limit `{name}` is missing from docs/exercises.md"
    default, allowed, meaning = row
    assert default == f"`{number(Limits.model_fields[name].default)}`"
    assert allowed == bounds(name)
    assert len(meaning) > 20


def test_the_memory_ceiling_formula_is_the_one_the_cgroup_gets() -> None:
    text = DOCS.read_text(encoding="utf-8")
    [headroom] = re.findall(r"= memory_mb \+ 2 × scratch_mb \+ (\d+) MB", text)
    assert int(headroom) == HEADROOM_MB
    unusual = Limits(memory_mb=1000, scratch_mb=100)
    assert memory_limit_mb(unusual) == 1000 + 2 * 100 + int(headroom)
    examples = re.findall(r"(\d+) \+ 2 × (\d+) \+ (\d+) = (\d+) MB", text)
    defaults = Limits()
    assert (str(defaults.memory_mb), str(defaults.scratch_mb)) in {(m, s) for m, s, _, _ in examples}
    for memory, scratch, added, total in examples:
        limits = Limits(memory_mb=int(memory), scratch_mb=int(scratch))
        assert (int(added), int(total)) == (HEADROOM_MB, memory_limit_mb(limits))
    # A run's error message quotes the default ceiling.
    assert f"used more than {memory_limit_mb(defaults)} MB" in text


def test_the_process_ceiling_formula_is_the_one_the_cgroup_gets() -> None:
    text = DOCS.read_text(encoding="utf-8")
    [extra] = re.findall(r"= processes \+ (\d+)\n", text)
    assert pids_limit(Limits(processes=100)) == 100 + int(extra)
    examples = re.findall(r"(\d+) \+ (\d+) = (\d+) tasks", text)
    assert examples
    for processes, added, total in examples:
        assert int(added) == int(extra)
        assert int(total) == pids_limit(Limits(processes=int(processes)))
    assert str(Limits().processes) in {p for p, _, _ in examples}


def test_the_readme_links_the_guide() -> None:
    assert "(docs/exercises.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
