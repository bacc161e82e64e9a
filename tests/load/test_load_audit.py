"""The load run's audit of signed-in learners, on made-up runs: each failure it must catch makes the run fail.

A learner's runs must be stored as its own, each of its devices must show its ✓, its history and
each of its runs, and no device may be shown a run of another learner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from app.settings import Settings
from loadtest.accounts import Learner, Seen, plan
from loadtest.audit import Audit, check_learners, table
from loadtest.learners import Outcome
from loadtest.stack import LIFTED_LIMITS
from loadtest.workload import PASSES, Solution

REFERENCE = Solution("honest", "reference", "", PASSES)


def foreign(*submission_ids: str, status: int = 404) -> dict[str, int]:
    paths = [f"/api/submissions/{sid}{tail}" for sid in submission_ids for tail in ("", "/events")]
    return {f"GET {path}": status for path in paths}


@dataclass
class World:
    """Two learners after a run: 0 anonymous on one device; 1 signed in, with a second device from its second run."""

    learners: list[Learner]
    outcomes: list[Outcome]
    rows: dict[str, dict[str, Any]]
    users: dict[str, str] = field(default_factory=lambda: {"ada@load.example": "account-1"})
    solved: set[str] = field(default_factory=lambda: {"anon-0", "account-1"})

    def audit(self) -> Audit:
        result = Audit()
        check_learners(result, self.learners, self.outcomes, self.rows, self.users, self.solved)
        return result

    def seen(self, number: int, device: int, moment: str) -> Seen:
        return next(s for s in self.learners[number].seen if (s.device, s.moment) == (device, moment))


@pytest.fixture
def world() -> World:
    runs = [  # (id, learner, device, status, stored under)
        ("a1", 0, 0, "fail", "anon-0"),
        ("a2", 0, 0, "pass", "anon-0"),
        ("s1", 1, 0, "pass", "account-1"),
        ("s2", 1, 1, "fail", "account-1"),
        ("s3", 1, 0, "fail", "account-1"),
    ]
    outcomes = [
        Outcome(index, REFERENCE, learner, device=device, submission_id=sid, done_at=1.0, status=status)
        for index, (sid, learner, device, status, _) in enumerate(runs)
    ]
    rows = {sid: {"status": status, "learner_id": owner} for sid, _, _, status, owner in runs}
    anonymous = Learner(0, seen=[Seen(0, "after the run", solved=True, history=["a2", "a1"], foreign=foreign("s1"))])
    signed = Learner(
        1, email="ada@load.example", second_device=True, signup_seconds=0.2, signin_seconds=0.3,
        seen=[
            Seen(1, "at sign-in", solved=True, history=["s1"], known_final={"s1": "pass"}),
            Seen(0, "after the run", solved=True, history=["s3", "s2", "s1"], reads={"s2": "fail"},
                 foreign=foreign("a1")),
            Seen(1, "after the run", solved=True, history=["s3", "s2", "s1"], reads={"s1": "pass", "s3": "fail"},
                 foreign=foreign("a1")),
        ],
    )  # fmt: skip
    return World([anonymous, signed], outcomes, rows)


def test_learners_who_see_their_own_work_on_every_device_and_nothing_else_pass(world: World) -> None:
    result = world.audit()
    assert (result.account_failures, result.unseen, result.leaks, result.misfiled) == ([], [], [], [])
    assert (result.learners, result.signed_in, result.second_devices) == (2, 1, 1)
    assert (result.signup_seconds, result.signin_seconds) == ([0.2], [0.3])
    assert (result.second_device_runs, result.cross_reads, result.foreign_reads) == (1, 3, 6)
    assert result.ok


def test_a_second_device_without_the_learners_check_mark_fails_the_audit(world: World) -> None:
    world.seen(1, 1, "after the run").solved = False
    result = world.audit()
    assert result.unseen == ["learner 1 (ada@load.example), device 2 after the run: no ✓ for kv-cache-decoding, "
                             "though a run of it passed"]  # fmt: skip
    assert not result.ok


def test_a_second_device_that_signs_in_without_the_check_mark_already_earned_fails_the_audit(world: World) -> None:
    world.seen(1, 1, "at sign-in").solved = False
    assert [u.split(": ", 1)[1] for u in world.audit().unseen] == ["no ✓ for kv-cache-decoding, though a run of "
                                                                    "it had passed"]  # fmt: skip


def test_a_run_missing_from_the_second_devices_history_fails_the_audit(world: World) -> None:
    world.seen(1, 1, "after the run").history = ["s3", "s1"]
    assert world.audit().unseen == [
        "learner 1 (ada@load.example), device 2 after the run: its history lacks 1 of its runs, e.g. s2"
    ]


def test_a_finished_run_missing_from_the_history_at_sign_in_fails_the_audit(world: World) -> None:
    world.seen(1, 1, "at sign-in").history = []
    assert "its history lacks 1 of its runs, e.g. s1" in world.audit().unseen[0]


def test_an_own_run_the_other_device_cannot_read_fails_the_audit(world: World) -> None:
    world.seen(1, 1, "after the run").reads["s1"] = "http 404"
    assert world.audit().unseen == [
        "learner 1 (ada@load.example), device 2 after the run: its run s1 reads as http 404, not pass"
    ]


def test_a_check_mark_without_a_passing_run_fails_the_audit(world: World) -> None:
    world.rows["a2"]["status"] = "fail"
    world.solved.discard("anon-0")
    assert world.audit().unseen == [
        "learner 0, device 1 after the run: a ✓ for kv-cache-decoding, though none of its runs passed"
    ]


def test_a_pass_without_a_stored_solved_mark_fails_the_audit(world: World) -> None:
    world.solved.discard("account-1")
    assert world.audit().unseen == ["learner 1 (ada@load.example): a run passed but no solved mark is stored"]


def test_another_learners_run_that_is_not_refused_is_a_leak(world: World) -> None:
    world.seen(0, 0, "after the run").foreign = foreign("s1", status=200)
    result = world.audit()
    assert result.leaks == [
        "learner 0, device 1 after the run: GET /api/submissions/s1 (another learner's run) answered 200, not 404",
        "learner 0, device 1 after the run: GET /api/submissions/s1/events (another learner's run) answered 200, "
        "not 404",
    ]
    assert not result.ok
    assert table("LOAD RUN", result, []).endswith("RESULT: FAILED")


def test_another_learners_run_in_a_history_is_a_leak(world: World) -> None:
    world.seen(1, 0, "after the run").history = ["s3", "s2", "s1", "a1"]
    assert world.audit().leaks == [
        "learner 1 (ada@load.example), device 1 after the run: its history lists 1 runs not its own, e.g. a1"
    ]


def test_a_signed_in_learners_run_stored_under_its_cookie_is_misfiled(world: World) -> None:
    world.rows["s3"]["learner_id"] = "cookie-of-device-1"
    result = world.audit()
    assert result.misfiled == ["learner 1 (ada@load.example): s3 stored under another learner"]
    assert not result.ok


def test_an_anonymous_learners_runs_under_two_learners_are_misfiled(world: World) -> None:
    world.rows["a1"]["learner_id"] = "someone-else"
    assert world.audit().misfiled == ["learner 0: its runs are stored under 2 learners"]


def test_a_second_device_never_read_back_fails_the_audit(world: World) -> None:
    world.learners[1].seen = [s for s in world.learners[1].seen if (s.device, s.moment) != (1, "after the run")]
    assert world.audit().unseen == ["learner 1 (ada@load.example), device 2: nothing read back after the run"]


def test_a_device_whose_reads_failed_fails_the_audit(world: World) -> None:
    failed = "AccountFailure: GET /api/exercises answered 500"
    world.seen(0, 0, "after the run").error, world.seen(0, 0, "after the run").history = failed, None
    assert world.audit().unseen == [f"learner 0, device 1 after the run: {failed}"]


def test_a_sign_up_that_failed_fails_the_audit_and_the_learner_counts_as_anonymous(world: World) -> None:
    learner = world.learners[1]
    learner.error, learner.signup_seconds, learner.signin_seconds = "sign-up: POST /signup answered 429", None, None
    learner.seen = [s for s in learner.seen if s.device == 0]
    result = world.audit()
    assert result.account_failures == ["learner 1 (ada@load.example): sign-up: POST /signup answered 429"]
    assert (result.signed_in, result.second_devices) == (0, 0)
    assert not result.ok


def test_the_report_gives_the_signed_in_learners_and_the_sign_up_and_sign_in_latencies(world: World) -> None:
    report = table("LOAD RUN", world.audit(), [])
    lines = {line.rsplit("  ", 1)[0].strip(): line.rsplit("  ", 1)[1] for line in report.splitlines() if "  " in line}
    assert lines["learners signed in / with a second device"] == "1 of 2 / 1"
    assert lines["sign-up (POST /signup) p50 / p95 (n)"] == "200 ms / 200 ms (1)"
    assert lines["second-device sign-in (POST /signin) p50 / p95 (n)"] == "300 ms / 300 ms (1)"
    assert lines["runs sent from a second device / read from the other"] == "1 / 3"
    assert lines["other learners' runs shown (of reads tried)"] == "0 (of 6)"
    assert report.endswith("RESULT: OK — none lost, none duplicated, all final, each learner's own and no one else's")


@pytest.mark.parametrize(
    ("concurrency", "share", "second", "signed", "seconds"),
    [(50, 0.5, 0.5, 25, 12), (10, 0.5, 0.5, 5, 2), (10, 0.01, 0.01, 1, 1), (10, 0.0, 0.5, 0, 0), (4, 1.0, 0.0, 4, 0)],
)
def test_plan_signs_in_the_share_asked_and_at_least_one_when_asked_any(
    concurrency: int, share: float, second: float, signed: int, seconds: int
) -> None:
    learners = plan(concurrency, share, second, seed=7)
    assert [learner.number for learner in learners] == list(range(concurrency))
    assert sum(learner.signed_in for learner in learners) == signed
    assert sum(learner.second_device for learner in learners) == seconds
    assert all(learner.signed_in for learner in learners if learner.second_device)
    emails = [learner.email for learner in learners if learner.email]
    assert len(set(emails)) == len(emails)
    assert [learner.email for learner in plan(concurrency, share, second, seed=7)] == [
        learner.email for learner in learners
    ]


def test_the_limits_the_load_run_lifts_are_settings_the_server_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A misspelt name would be ignored, leaving e.g. 20 sign-ups per address: the full run has 25."""
    for name, value in LIFTED_LIMITS.items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)
    for name, value in LIFTED_LIMITS.items():
        field_name = name.removeprefix("MLKATA_").lower()
        assert field_name in Settings.model_fields, name
        assert getattr(settings, field_name) == int(value) >= 1000
    # The load run lifts the limits of one address and of one learner; the per-account sign-in limit stays.
    assert "MLKATA_LOGIN_ATTEMPTS" not in LIFTED_LIMITS
