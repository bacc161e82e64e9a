"""The grader's own CPU budget: spent in a check's code or at a crossing, it stops the check."""

from __future__ import annotations

import time

import pytest

from grader.grading.budget import BudgetExceeded, CheckBudget


def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def _forever() -> None:
    while True:
        pass


def _forever_catching_exceptions() -> bool:
    try:
        _forever()
    except Exception:  # what a check might write
        return True
    return False


def test_a_busy_loop_in_a_check_is_interrupted_once_the_budget_is_spent() -> None:
    budget = CheckBudget(0.2)
    with pytest.raises(BudgetExceeded), budget.watching():
        _forever()
    assert 0.2 <= budget.used() < 1.0


def test_a_crossing_is_never_interrupted_but_checks_the_budget_when_it_returns() -> None:
    budget = CheckBudget(0.1)
    watching, crossing = budget.watching(), budget.crossing()
    watching.__enter__()
    crossing.__enter__()
    _spin(0.4)  # the grader's own bookkeeping with the sandbox: not interrupted
    with pytest.raises(BudgetExceeded):
        crossing.__exit__(None, None, None)
    watching.__exit__(BudgetExceeded, None, None)


def test_a_check_within_its_budget_runs_to_the_end() -> None:
    budget = CheckBudget(5.0)
    with budget.watching():
        _spin(0.05)
        with budget.crossing():
            _spin(0.05)
    assert budget.used() < 5.0


def test_a_check_cannot_swallow_the_budget_signal() -> None:
    budget = CheckBudget(0.1)
    with pytest.raises(BudgetExceeded), budget.watching():
        _forever_catching_exceptions()
