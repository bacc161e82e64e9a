"""Loading an exercise folder tells the author exactly what is wrong, and where."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grader.exercise import ExerciseError, load_exercise, load_exercises
from tests.conftest import ADDER_CHECKS, ADDER_TOML, EXERCISES_DIR, KV_SLUG


def test_the_kv_exercise_loads_with_its_metadata() -> None:
    exercise = load_exercise(EXERCISES_DIR / KV_SLUG)
    assert exercise.config.title == "Decoding with a KV Cache"
    assert exercise.config.section == "Efficient Inference & Compression"
    assert exercise.config.difficulty == "medium"
    assert exercise.config.tags == ["inference", "attention"]
    assert [f.signature for f in exercise.config.functions] == [
        "attend_step(x_t, cache, p)",
        "kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value)",
    ]
    assert len(exercise.checks) >= 10
    assert len(exercise.config.mutants) >= 12
    assert 'class="math-inline"' in exercise.statement_html


def test_a_small_exercise_loads(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(make_exercise())
    assert [c.id for c in exercise.checks] == ["small_numbers", "huge_numbers"]
    assert exercise.checks[0].public and not exercise.checks[1].public
    assert exercise.hint_text("plus") == "Use the + operator."


def problems_of(path: Path) -> list[str]:
    with pytest.raises(ExerciseError) as raised:
        load_exercise(path)
    return raised.value.problems


def test_missing_files_are_each_named(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise()
    (folder / "checks.py").unlink()
    (folder / "starter.py").unlink()
    assert problems_of(folder) == ["starter.py: file is missing", "checks.py: file is missing"]


def test_a_bad_field_names_its_path_in_the_toml(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise()
    toml = (folder / "exercise.toml").read_text()
    (folder / "exercise.toml").write_text(toml.replace('difficulty = "easy"', 'difficulty = "trivial"'))
    [problem] = problems_of(folder)
    assert problem.startswith("exercise.toml: difficulty:")
    assert "'easy', 'medium' or 'hard'" in problem


def test_a_toml_syntax_error_gives_its_line(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise()
    (folder / "exercise.toml").write_text('title = "x"\nsection = \n')
    [problem] = problems_of(folder)
    assert "exercise.toml" in problem and "line 2" in problem


def test_unknown_keys_are_refused(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise()
    with (folder / "exercise.toml").open("a") as toml:
        toml.write("\n[limits2]\nx = 1\n")
    assert any("limits2" in p and "Extra inputs" in p for p in problems_of(folder))


def test_syntax_errors_in_reference_and_checks_are_reported(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise(files={"reference.py": "def add(a, b)\n    return a + b\n", "checks.py": "import nope_x\n"})
    problems = problems_of(folder)
    assert "reference.py, line 1: expected ':'" in problems
    assert any(p.startswith("checks.py: importing it raised ModuleNotFoundError") for p in problems)


def test_checks_without_any_check_are_refused(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise(files={"checks.py": "def not_a_check(student):\n    pass\n"})
    assert problems_of(folder) == ["checks.py: defines no check (decorate functions with @check)"]


def test_mutants_must_be_described_and_point_at_real_hints_and_checks(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise(files={"mutants/minus.py": "def add(a, b):\n    return a - b\n",
                                  "mutants/times.py": "def add(a, b):\n    return a * b\n"})  # fmt: skip
    with (folder / "exercise.toml").open("a") as toml:
        toml.write('\n[mutants.minus]\nmistake = "subtracts"\nhint = "nope"\ncaught_by = ["no_such_check"]\n')
    assert sorted(problems_of(folder)) == [
        "exercise.toml: mutants.minus.caught_by: no check named 'no_such_check'",
        "exercise.toml: mutants.minus.hint: 'nope' is not in [hints]",
        "mutants/times.py: not described in exercise.toml (add a [mutants.times] table)",
    ]


def test_an_unbalanced_dollar_in_the_statement_is_reported(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise(files={"statement.md": "Intro.\n\nIt costs $5 to run.\n"})
    assert problems_of(folder) == ["statement.md: line 3: unmatched '$' (write \\$ for a literal dollar sign)"]


def test_load_exercises_finds_every_folder_in_order(make_exercise: Callable[..., Path]) -> None:
    make_exercise("second")
    folder = make_exercise("first")
    toml = (folder / "exercise.toml").read_text()
    (folder / "exercise.toml").write_text("order = -1\n" + toml)
    assert list(load_exercises(folder.parent)) == ["first", "second"]


def test_an_exercise_is_the_version_of_its_folder_it_was_read_from(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise()
    exercise = load_exercise(folder)
    (folder / "reference.py").write_text("def add(a, b):\n    return a - b\n")  # edited while being served
    assert exercise.reference == "def add(a, b):\n    return a + b\n"
    # What wrong answers are told apart against is the reference read with the checks, not the file now.
    assert exercise.reference_code.fresh_module().add(2, 3) == 5
    assert load_exercise(folder).reference_code.fresh_module().add(2, 3) == -1


def test_answer_forms_are_collected_and_must_name_a_function(make_exercise: Callable[..., Path]) -> None:
    form = "\n\n@compared_as('add')\ndef as_text(answer):\n    return str(answer)\n"
    checks = ADDER_CHECKS.replace("from grader.checks import check\n", "from grader.checks import check, compared_as\n")
    exercise = load_exercise(make_exercise(files={"checks.py": checks + form}))
    assert exercise.answer_forms["add"](5) == "5"
    wrong = checks + form.replace("'add'", "'subtract'")
    with pytest.raises(ExerciseError, match="@compared_as names 'subtract', which \\[\\[functions\\]\\] does not list"):
        load_exercise(make_exercise(slug="other", files={"checks.py": wrong}))


def test_an_unnamed_mistake_is_no_candidate_for_naming(make_exercise: Callable[..., Path]) -> None:
    toml = ADDER_TOML.format(time_seconds=5) + (
        '\n[mutants.minus]\nmistake = "Subtracts."\nhint = "plus"\nunnamed = "for the test"\n'
        '\n[mutants.times]\nmistake = "Multiplies."\nhint = "plus"\n'
    )
    files = {
        "exercise.toml": toml,
        "mutants/minus.py": "def add(a, b):\n    return a - b\n",
        "mutants/times.py": "def add(a, b):\n    return a * b\n",
    }
    exercise = load_exercise(make_exercise(files=files))
    assert set(exercise.mutant_sources) == {"minus", "times"}
    assert [m.name for m in exercise.known_mistakes] == ["times"]


def test_a_tag_is_lowercase_words_joined_by_hyphens(make_exercise: Callable[..., Path]) -> None:
    toml = ADDER_TOML.format(time_seconds=5).replace('tags = ["arithmetic"]', 'tags = ["linear algebra"]')
    with pytest.raises(ExerciseError, match=r"tags\.0: String should match pattern"):
        load_exercise(make_exercise(files={"exercise.toml": toml}))
