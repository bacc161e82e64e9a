"""A year of a learner's activity as a calendar: a column per week (Monday first), a cell per day shaded by how
much the learner ran that day, and their streaks of active days.

Days are UTC days, as the courses' due dates are (and as GitHub's contribution calendar counts):
the same run falls on the same day for the learner, their instructor and the gradebook.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, timedelta

#: The fewest runs and tries a day needs to reach shade 1, 2, 3 and 4 (0: none that day).
LEVELS = (1, 3, 6, 10)
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataclass(frozen=True)
class Day:
    """One day: the graded runs and the tries sent on it."""

    date: date
    runs: int = 0
    tries: int = 0

    @property
    def total(self) -> int:
        return self.runs + self.tries

    @property
    def level(self) -> int:
        return sum(1 for least in LEVELS if self.total >= least)

    @property
    def label(self) -> str:
        """What the day's cell says to a screen reader and on hover."""
        when = f"{WEEKDAYS[self.date.weekday()]} {self.date.day} {self.date:%b %Y}"
        parts = [_count(self.runs, "run"), _count(self.tries, "try", "tries")]
        said = ", ".join(part for part in parts if part)
        return f"{when}: {said or 'no activity'}"


def _count(n: int, one: str, many: str = "") -> str:
    return "" if n == 0 else f"{n} {one if n == 1 else many or one + 's'}"


@dataclass(frozen=True)
class Calendar:
    """Whole weeks up to the one holding ``today``; the days after today are None."""

    weeks: list[list[Day | None]]
    today: date

    @property
    def days(self) -> Iterator[Day]:
        return (day for week in self.weeks for day in week if day is not None)

    def rows(self) -> list[tuple[str, list[Day | None]]]:
        """The table's rows: each weekday's name with that day of every week."""
        return [(name, [week[n] for week in self.weeks]) for n, name in enumerate(WEEKDAYS)]

    def months(self) -> list[tuple[str, int]]:
        """The header: each month's name over the weeks starting in it ("" where it has one week, too narrow)."""
        spans: list[tuple[str, int]] = []
        for week in self.weeks:
            first = next(day for day in week if day is not None)
            name = f"{first.date:%b}"
            if spans and spans[-1][0] == name:
                spans[-1] = (name, spans[-1][1] + 1)
            else:
                spans.append((name, 1))
        return [(name if weeks > 1 else "", weeks) for name, weeks in spans]

    @property
    def active_days(self) -> int:
        return sum(1 for day in self.days if day.total)

    @property
    def current_streak(self) -> int:
        """Active days in a row up to today, or up to yesterday while today has nothing yet."""
        active = {day.date for day in self.days if day.total}
        start = self.today if self.today in active else self.today - timedelta(days=1)
        streak = 0
        while start - timedelta(days=streak) in active:
            streak += 1
        return streak

    @property
    def longest_streak(self) -> int:
        longest = current = 0
        for day in self.days:
            current = current + 1 if day.total else 0
            longest = max(longest, current)
        return longest


def calendar(counts: Mapping[date, tuple[int, int]], today: date, weeks: int = 53) -> Calendar:
    """The ``weeks`` weeks up to today's, from ``counts``: each day's (graded runs, tries)."""
    first = first_day(today, weeks)
    columns: list[list[Day | None]] = []
    for week in range(weeks):
        days = (first + timedelta(days=7 * week + n) for n in range(7))
        columns.append([None if d > today else Day(d, *counts.get(d, (0, 0))) for d in days])
    return Calendar(columns, today)


def first_day(today: date, weeks: int = 53) -> date:
    """The first day a calendar of ``weeks`` weeks up to today's shows: what to count runs from."""
    return today - timedelta(days=today.weekday(), weeks=weeks - 1)
