"""``sections.toml`` places each section on the roadmap; a section it does not list is the exercise's problem."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grader.exercise import ExerciseError, load_each_exercise, load_exercise, roadmap_key
from grader.exercise.roadmap import section_slug

REPO = Path(__file__).resolve().parents[3]

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


def test_within_a_section_exercises_go_easy_to_hard_then_by_their_order(make_exercise: Callable[..., Path]) -> None:
    for slug, difficulty, order in (("first-but-hard", "hard", 1), ("medium", "medium", 5), ("late-easy", "easy", 9),
                                    ("early-easy", "easy", 2)):  # fmt: skip
        folder = with_section(make_exercise, slug, "Warm-ups", order)
        toml = folder / "exercise.toml"
        toml.write_text(toml.read_text().replace('difficulty = "easy"', f'difficulty = "{difficulty}"'))
    broken = make_exercise("broken", files={"starter.py": "def add(a, b:\n"})
    toml = broken / "exercise.toml"
    toml.write_text("order = 0\n" + toml.read_text().replace('difficulty = "easy"', 'difficulty = "medium"'))
    loaded, not_loaded = load_each_exercise(broken.parent)
    assert list(loaded) == ["early-easy", "late-easy", "medium", "first-but-hard"]
    # One that does not load keeps its place by the difficulty it names.
    keys = sorted([*loaded.values(), not_loaded["broken"]], key=roadmap_key)
    assert [getattr(e, "slug", None) for e in keys] == ["early-easy", "late-easy", "broken", "medium", "first-but-hard"]


def test_every_section_of_the_curriculum_goes_easy_to_hard() -> None:
    loaded, broken = load_each_exercise(REPO / "exercises")
    assert not broken and len(loaded) >= 69
    ranks = {"easy": 0, "medium": 1, "hard": 2}
    by_section: dict[str, list[int]] = {}
    for exercise in loaded.values():  # in roadmap order
        by_section.setdefault(exercise.section.title, []).append(ranks[exercise.config.difficulty])
    assert len(by_section) == 5
    assert all(difficulties == sorted(difficulties) for difficulties in by_section.values()), by_section
    first = next(iter(e for e in loaded.values() if e.section.title == "Efficient Inference & Compression"))
    assert first.config.difficulty == "easy"  # its order says 10 for a medium one; easy ones come first


def test_a_section_has_a_slug_made_of_its_title_and_two_alike_are_refused(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise()
    (folder.parent / "sections.toml").write_text(
        "[[section]]\ntitle = 'Warm-ups'\nsummary = 's'\n[[section]]\ntitle = 'Training at Scale: Memory & Parallelism'"
        "\nsummary = 't'\n"
    )
    assert load_exercise(folder).section.slug == "warm-ups"
    assert section_slug("Training at Scale: Memory & Parallelism") == "training-at-scale-memory-parallelism"
    (folder.parent / "sections.toml").write_text(
        "[[section]]\ntitle = 'Warm-ups'\nsummary = 's'\n[[section]]\ntitle = 'Warm ups!'\nsummary = 't'\n"
    )
    with pytest.raises(ExerciseError) as raised:
        load_exercise(folder)
    assert raised.value.problems == [
        "sections.toml: the sections 'Warm-ups' and 'Warm ups!' would share the address /sections/warm-ups: "
        "tell them apart by a letter or a digit"
    ]
