"""A year of activity as weeks of days: where each day falls, its shade, the months over it, the streaks."""

from __future__ import annotations

from datetime import date, timedelta

from app.curriculum.calendar import Day, calendar, first_day

TODAY = date(2026, 12, 2)  # a Wednesday


def test_the_calendar_is_whole_weeks_monday_first_up_to_today() -> None:
    year = calendar({}, TODAY)
    assert len(year.weeks) == 53 and all(len(week) == 7 for week in year.weeks)
    first = year.weeks[0][0]
    assert first is not None and first.date == first_day(TODAY) == date(2025, 12, 1) and first.date.weekday() == 0
    last_week = year.weeks[-1]
    assert [day.date if day else None for day in last_week] == [
        date(2026, 11, 30), date(2026, 12, 1), TODAY, None, None, None, None,
    ]  # fmt: skip
    assert sum(1 for _ in year.days) == 7 * 52 + 3
    rows = year.rows()
    assert [name for name, _ in rows] == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert all(len(days) == 53 for _, days in rows) and rows[2][1][-1] == Day(TODAY)


def test_each_day_counts_its_runs_and_tries_and_is_shaded_by_their_sum() -> None:
    counts = {TODAY: (2, 1), TODAY - timedelta(days=1): (0, 1), TODAY - timedelta(days=7): (9, 4)}
    year = calendar(counts, TODAY)
    days = {day.date: day for day in year.days}
    assert (days[TODAY].runs, days[TODAY].tries, days[TODAY].level) == (2, 1, 2)
    assert days[TODAY - timedelta(days=1)].level == 1 and days[TODAY - timedelta(days=7)].level == 4
    assert days[TODAY - timedelta(days=2)].level == 0
    assert [Day(TODAY, n).level for n in (0, 1, 2, 3, 5, 6, 9, 10, 50)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert days[TODAY].label == "Wed 2 Dec 2026: 2 runs, 1 try"
    assert Day(TODAY, 1, 3).label == "Wed 2 Dec 2026: 1 run, 3 tries"
    assert days[TODAY - timedelta(days=2)].label == "Mon 30 Nov 2026: no activity"
    assert year.active_days == 3


def test_the_months_head_the_weeks_that_start_in_them() -> None:
    months = calendar({}, TODAY).months()
    assert sum(weeks for _, weeks in months) == 53
    assert months[0] == ("Dec", 5) and months[-1] == ("Nov", 5)  # the weeks from Mon 1 Dec 2025, and from 2 Nov
    assert [name for name, _ in months][1:4] == ["Jan", "Feb", "Mar"]
    # A month with one week of its own leaves no room for its name.
    assert ("", 1) in calendar({}, date(2026, 12, 31)).months()


def test_a_streak_runs_up_to_today_or_yesterday_and_the_longest_is_kept() -> None:
    def active(*days_ago: int) -> dict[date, tuple[int, int]]:
        return {TODAY - timedelta(days=n): (1, 0) for n in days_ago}

    assert calendar(active(0, 1, 2), TODAY).current_streak == 3
    assert calendar(active(1, 2), TODAY).current_streak == 2  # today is not over yet
    assert calendar(active(2, 3), TODAY).current_streak == 0
    year = calendar(active(0, 10, 11, 12, 13, 30), TODAY)
    assert (year.current_streak, year.longest_streak) == (1, 4)
    assert calendar({}, TODAY).longest_streak == 0
