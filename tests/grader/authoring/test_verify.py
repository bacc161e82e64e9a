"""mlkata check's proof that the try example ("Try it"'s start) runs on the reference, as "Try it" runs it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grader.authoring.verify import Finding, verify_exercise
from grader.exercise import load_exercise
from tests.conftest import ADDER_TOML

RIGHT = "def add(a, b):\n    return a + b\n"
OWN = "try_it runs on the reference and shows a value"
GENERATED = "try example runs on the reference"


def with_try_it(make_exercise: Callable[..., Path], try_it: str, time_seconds: float = 5) -> Path:
    """The adder exercise whose exercise.toml has this ``try_it``."""
    toml = ADDER_TOML.format(time_seconds=time_seconds)
    toml = toml.replace("[[functions]]", f'try_it = """\n{try_it}"""\n\n[[functions]]', 1)
    return make_exercise(time_seconds=time_seconds, files={"exercise.toml": toml})


def try_finding(findings: list[Finding]) -> Finding:
    [finding] = [f for f in findings if f.name in (OWN, GENERATED)]
    return finding


def test_a_try_it_that_runs_and_shows_values_holds(make_exercise: Callable[..., Path]) -> None:
    findings = verify_exercise(load_exercise(with_try_it(make_exercise, "x = add(2, 3)\nadd(x, 10**30)\n")))
    assert [f.name for f in findings if not f.ok] == []
    finding = try_finding(findings)
    assert finding.name == OWN and finding.message == "shows 2 value(s)"
    assert [f.name for f in findings].index(OWN) == 2  # right after the reference's grade


@pytest.mark.parametrize("jailed", [True, False])
def test_a_try_it_that_raises_fails_with_its_line_statement_and_error(
    make_exercise: Callable[..., Path], jailed: bool
) -> None:
    exercise = load_exercise(with_try_it(make_exercise, "x = add(2, 3)\nadd(x, None)\nadd(1, 1)\n"))
    findings = verify_exercise(exercise, jailed=jailed)
    assert [f.name for f in findings if not f.ok] == [OWN]  # the reference itself still passes
    finding = try_finding(findings)
    assert finding.exercise == "adder"
    where, said, *traceback = finding.message.splitlines()
    assert where == "try_it, line 2: add(x, None)"
    assert said.startswith("Line 2 of try_it raised TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'")
    assert "return a + b" in "\n".join(traceback)


def test_a_try_it_that_shows_nothing_fails(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(with_try_it(make_exercise, "print(add(2, 3))\n"))
    finding = try_finding(verify_exercise(exercise))
    assert not finding.ok
    assert finding.message == "try_it shows no value: end it with expressions worth seeing (outputs, shapes)"


def test_a_try_it_that_does_not_parse_fails_with_its_line(make_exercise: Callable[..., Path]) -> None:
    finding = try_finding(verify_exercise(load_exercise(with_try_it(make_exercise, "add(2, 3)\nadd(1,\n"))))
    assert not finding.ok
    assert finding.message.startswith("try_it, line 2: add(1,\nSyntaxError in try_it, line 2: '(' was never closed")


def test_a_try_it_that_runs_out_of_time_names_the_statement(make_exercise: Callable[..., Path]) -> None:
    folder = with_try_it(make_exercise, "add(2, 3)\nwhile True:\n    pass\n", time_seconds=1)
    finding = try_finding(verify_exercise(load_exercise(folder), reference_only=True))
    assert not finding.ok
    assert finding.message.startswith("try_it, line 2: while True:\n    pass\n")
    assert "1 s" in finding.message  # the exercise's time limit, in the words a learner reads


def test_without_try_it_the_generated_example_runs_and_need_show_nothing(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(make_exercise())
    assert exercise.try_example.startswith("# ")  # comments only: nothing to show
    findings = verify_exercise(exercise, reference_only=True)
    assert [(f.name, f.ok) for f in findings] == [
        ("statement renders", True), ("reference solution passes every check", True), (GENERATED, True),
    ]  # fmt: skip
    assert try_finding(findings).message == "shows 0 value(s)"


def test_the_generated_example_fails_when_the_reference_cannot_be_tried(make_exercise: Callable[..., Path]) -> None:
    # A reference that raises at import fails every check too; the try example says why in its own words.
    folder = make_exercise(files={"reference.py": "raise RuntimeError('no')\n" + RIGHT})
    finding = try_finding(verify_exercise(load_exercise(folder), reference_only=True))
    assert not finding.ok and "RuntimeError: no" in finding.message
