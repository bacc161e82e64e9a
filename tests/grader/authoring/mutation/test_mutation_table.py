"""The ``[mutation]`` table of exercise.toml: validated on load, and documented key by key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grader.exercise import Exercise, ExerciseError, MutationSpec, load_exercise
from tests.conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs" / "exercises.md"
HEADING = "### `[mutation]`"


def with_table(make_exercise: Callable[..., Path], table: str) -> Path:
    folder = make_exercise()
    with (folder / "exercise.toml").open("a", encoding="utf-8") as toml:
        toml.write(table)
    return folder


def test_a_table_loads_its_minimum_and_accepted_equivalents(make_exercise: Callable[..., Path]) -> None:
    table = '\n[mutation]\nminimum = 0.85\n\n[mutation.equivalent]\n"number@L2: 0 -> -1" = "x is a vector"\n'
    spec = load_exercise(with_table(make_exercise, table)).config.mutation
    assert spec == MutationSpec(minimum=0.85, equivalent={"number@L2: 0 -> -1": "x is a vector"})


def test_without_a_table_no_minimum_is_set(make_exercise: Callable[..., Path]) -> None:
    assert load_exercise(make_exercise()).config.mutation == MutationSpec(minimum=0.0, equivalent={})


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ("[mutation]\nminimum = 1.5\n", "exercise.toml: mutation.minimum: Input should be less than or equal to 1"),
        ("[mutation]\nminimum = -0.1\n", "exercise.toml: mutation.minimum: Input should be greater than or equal to 0"),
        ('[mutation.equivalent]\n"number@L2: 0 -> 1" = ""\n', "String should have at least 1 character"),
        ("[mutation]\nscore = 0.9\n", "exercise.toml: mutation.score: Extra inputs are not permitted"),
    ],
)
def test_a_wrong_table_is_refused_naming_the_field(
    make_exercise: Callable[..., Path], table: str, problem: str
) -> None:
    with pytest.raises(ExerciseError) as refused:
        load_exercise(with_table(make_exercise, "\n" + table))
    assert any(problem in line for line in refused.value.problems), refused.value.problems


def documented_rows() -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    heading = ""
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            heading = line.strip()
        elif heading == HEADING and line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_the_guide_documents_every_key_of_the_table_with_its_default() -> None:
    rows = documented_rows()
    assert set(rows) == set(MutationSpec.model_fields)
    assert rows["minimum"][1] == "`0`"
    assert rows["equivalent"][1] == "no survivor accepted"


def test_the_kv_exercise_requires_a_score_of_0_9(kv_exercise: Exercise) -> None:
    assert kv_exercise.config.mutation.minimum == 0.9
    assert all(len(reason) > 30 for reason in kv_exercise.config.mutation.equivalent.values())
