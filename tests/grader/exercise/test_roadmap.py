"""``sections.toml`` places each section on the roadmap; a section it does not list is the exercise's problem."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grader.exercise import ExerciseError, load_each_exercise, load_exercise, roadmap_key

SECTIONS = """\
[[section]]
title = "Second"
summary = "Comes first all the same."

[[section]]
title = "Warm-ups"
summary = "The adder lives here."
"""


def with_section(make_exercise: Callable[..., Path], slug: str, section: str, order: int) -> Path:
    folder = make_exercise(slug)
    toml = folder / "exercise.toml"
    text = toml.read_text()
    assert 'section = "Warm-ups"' in text and "order" not in text
    toml.write_text(f"order = {order}\n" + text.replace('section = "Warm-ups"', f'section = "{section}"'))
    return folder


def test_the_sections_file_orders_sections_before_their_exercises_orders(make_exercise: Callable[..., Path]) -> None:
    early = with_section(make_exercise, "early", "Warm-ups", 1)
    late = with_section(make_exercise, "late", "Second", 99)
    (early.parent / "sections.toml").write_text(SECTIONS)
    loaded, broken = load_each_exercise(early.parent)
    assert not broken and list(loaded) == ["late", "early"]
    assert loaded["late"].section.summary == "Comes first all the same." and loaded["early"].section.rank == 1
    assert roadmap_key(loaded["late"]) < roadmap_key(loaded["early"])
    assert load_exercise(late).section.title == "Second"


def test_without_a_sections_file_every_section_ranks_alike(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(with_section(make_exercise, "alone", "Anything", 5))
    assert (exercise.section.title, exercise.section.rank, exercise.section.summary) == ("Anything", 0, "")


def test_a_section_the_roadmap_does_not_list_is_a_problem_of_its_exercise(make_exercise: Callable[..., Path]) -> None:
    folder = with_section(make_exercise, "typo", "Basic", 1)
    (folder.parent / "sections.toml").write_text(SECTIONS)
    with pytest.raises(ExerciseError) as raised:
        load_exercise(folder)
    assert raised.value.problems == [
        "exercise.toml: section 'Basic' is not a section of the roadmap (sections.toml lists 'Second', 'Warm-ups')"
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[[section]]\ntitle = 'A'\n", "sections.toml: section.0.summary: Field required"),
        ("[[section]]\ntitle = 'A'\nsummary = 's'\n[[section]]\ntitle = 'A'\nsummary = 't'\n", "listed twice"),
        ("[[section]\n", "sections.toml: "),
    ],
)
def test_a_sections_file_that_cannot_be_read_is_reported(
    make_exercise: Callable[..., Path], text: str, said: str
) -> None:
    folder = make_exercise()
    (folder.parent / "sections.toml").write_text(text)
    with pytest.raises(ExerciseError) as raised:
        load_exercise(folder)
    assert any(said in problem for problem in raised.value.problems), raised.value.problems
