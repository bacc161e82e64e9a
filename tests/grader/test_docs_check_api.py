"""docs/exercises.md gives every public function of the check API (grader.checks) with its exact signature."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import grader.checks

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "exercises.md"


def guide() -> str:
    """The guide's text with its line breaks as spaces (a signature may wrap)."""
    return " ".join(GUIDE.read_text(encoding="utf-8").split())


def public_functions() -> dict[str, object]:
    return {
        name: value
        for name, value in vars(grader.checks).items()
        if not name.startswith("_") and inspect.isfunction(value) and name in grader.checks.__all__
    }


def written(name: str, function: object) -> str:
    """The signature as the guide writes it: the code's, without annotations."""
    signature = inspect.signature(function)  # type: ignore[arg-type]
    bare = signature.replace(
        parameters=[p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()],
        return_annotation=inspect.Signature.empty,
    )
    return f"{name}{bare}"


def test_every_public_function_is_exported() -> None:
    defined = {
        name
        for name, value in vars(grader.checks).items()
        if inspect.isfunction(value) and value.__module__ == "grader.checks" and not name.startswith("_")
    }
    assert defined <= set(grader.checks.__all__)
    assert {"check", "fail", "expect_array", "expect_float", "expect_tuple", "check_rng"} <= set(public_functions())


@pytest.mark.parametrize("name", sorted(public_functions()))
def test_the_guide_gives_each_functions_exact_signature(name: str) -> None:
    signature = written(name, public_functions()[name])
    text = guide()
    found = f"`{signature}`" in text or f"`@{signature}`" in text
    assert found, f"docs/exercises.md should give `{signature}`"


def test_the_guide_names_no_function_signature_the_api_does_not_have() -> None:
    text = guide()
    shown = set(re.findall(r"`@?((?:expect_\w+|fail|check|check_rng|collect_checks|describe)\([^`]*\))`", text))
    actual = {written(name, function) for name, function in public_functions().items()}
    stale = sorted(s for s in shown if "…" not in s and s not in actual)
    assert not stale, f"docs/exercises.md shows signatures the API does not have: {stale}"
