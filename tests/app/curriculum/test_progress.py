"""Where a learner stands on each exercise, and which one to open next."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.curriculum.progress import Attempts, LearnerProgress, Status, Why, first_unsolved_after, next_up

ORDER = ["a", "b", "c", "d"]
T0 = datetime(2026, 11, 1, 12, tzinfo=UTC)


def at(hours: int) -> datetime:
    return T0 + timedelta(hours=hours)


def progress(solved: dict[str, int], runs: dict[str, tuple[int, int]]) -> LearnerProgress:
    """Solved exercises by the hour they were solved; runs by (how many, the hour of the last)."""
    return LearnerProgress(
        solved={slug: at(hour) for slug, hour in solved.items()},
        attempts={slug: Attempts(n, at(hour)) for slug, (n, hour) in runs.items()},
    )


def test_an_exercise_is_solved_attempted_or_not_started() -> None:
    mine = progress({"a": 2}, {"a": (3, 2), "b": (1, 5)})
    assert [mine.status(slug) for slug in ORDER] == ["solved", "attempted", "not-started", "not-started"]
    assert [mine.runs(slug) for slug in ORDER] == [3, 1, 0, 0]
    assert (mine.count("solved", ORDER), mine.count(Status.ATTEMPTED, ORDER), mine.count("not-started", ORDER)) == (
        1, 1, 2,
    )  # fmt: skip
    assert Status.NOT_STARTED.label == "not started"


def test_with_nothing_run_the_first_exercise_is_where_to_start() -> None:
    up = next_up(ORDER, progress({}, {}))
    assert up is not None and (up.slug, up.why) == ("a", Why.START)


def test_the_last_exercise_run_while_unsolved_is_picked_up_again() -> None:
    up = next_up(ORDER, progress({"a": 1}, {"a": (1, 1), "c": (2, 4), "b": (1, 3)}))
    assert up is not None and (up.slug, up.why) == ("c", Why.CONTINUE)


def test_after_a_solve_comes_the_first_unsolved_exercise_after_it_then_those_skipped() -> None:
    up = next_up(ORDER, progress({"b": 3}, {"b": (2, 3), "a": (1, 1)}))
    assert up is not None and (up.slug, up.why) == ("c", Why.NEXT)  # "a" was run and left, but "b" was solved after it
    up = next_up(ORDER, progress({"b": 3, "c": 4, "d": 5}, {"d": (1, 5)}))
    assert up is not None and (up.slug, up.why) == ("a", Why.NEXT)  # wraps round to the one skipped
    # Solved long ago, run again since: what counts is the one solved last.
    up = next_up(ORDER, progress({"a": 1, "c": 2}, {"a": (2, 9), "c": (1, 2)}))
    assert up is not None and (up.slug, up.why) == ("d", Why.NEXT)


def test_nothing_is_next_once_everything_is_solved() -> None:
    assert next_up(ORDER, progress(dict.fromkeys(ORDER, 1), {})) is None


def test_first_unsolved_after_wraps_round_and_knows_a_slug_it_does_not_hold() -> None:
    assert first_unsolved_after(ORDER, "c", {"d"}) == "a"
    assert first_unsolved_after(ORDER, "gone", {"a"}) == "b"
    assert first_unsolved_after(ORDER, "a", {"b", "c", "d"}) is None
