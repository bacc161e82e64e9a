"""`mlkata regrade` with the embedded queue: after a check changes, the runs are graded again by workers,
the old verdicts stay beside the new ones, the output says what changed, and the dashboard follows."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from account_support import create_course, join, join_url, make_account, run_to_the_end, sign_in, sign_up
from api_support import RunningServer, read_events, submit
from sqlalchemy import select
from typer.testing import CliRunner

from app.cli import app
from app.courses.runs import load_runs
from app.db import make_engine, make_sessionmaker, upgrade
from app.models import Learner, Progress, Role, Submission, User
from app.settings import Settings
from grader.exercise.versions import folder_version

RIGHT = "def add(a, b):\n    return a + b\n"
FLOATS = "def add(a, b):\n    return int(float(a) + float(b))\n"  # wrong past 2**53: fails the huge-number check
ABS = "def add(a, b):\n    return abs(a) + abs(b)\n"  # wrong for negatives, which the first checks never try
#: The edited checks: the huge-number check goes, a negative-number check comes.
CHECKS_V2 = textwrap.dedent("""\
    from grader.checks import check, expect_integer


    @check("Adds small numbers", public=True, hint="plus")
    def small_numbers(student):
        expect_integer(student.add(2, 3), 5, what="add(2, 3)")


    @check("Adds negative numbers")
    def negative_numbers(student):
        expect_integer(student.add(-2, 3), 1, what="add(-2, 3)")
""")


def point_the_cli_at(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """``mlkata regrade`` in this process uses the server's data, exercises and database."""
    monkeypatch.setenv("MLKATA_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MLKATA_EXERCISES_DIR", str(settings.exercises_dir))
    if settings.database_url:
        monkeypatch.setenv("MLKATA_DATABASE_URL", settings.database_url)
    monkeypatch.delenv("MLKATA_REDIS_URL", raising=False)


@pytest.fixture
def class_of_three(
    make_settings: Callable[..., Settings],
    start_server: Callable[..., RunningServer],
    make_exercise: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[RunningServer, str, Path]:
    folder = make_exercise("adder")
    server = start_server(make_settings(), reload_exercises=True, reload_seconds=0.2)
    settings = server.settings
    point_the_cli_at(settings, monkeypatch)
    make_account(settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor:
        sign_in(instructor, "prof@example.org")
        course_id = create_course(instructor, "Arithmetic", ["adder"])
        link = join_url(instructor, course_id)
    for email, code in [("right@example.org", RIGHT), ("floats@example.org", FLOATS), ("abs@example.org", ABS)]:
        with server.client() as student:
            sign_up(student, email)
            join(student, link)
            run_to_the_end(student, code, "adder")
    return server, course_id, folder


def regrade(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["regrade", *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def test_a_regrade_after_editing_a_check_changes_exactly_the_verdicts_it_should(
    class_of_three: tuple[RunningServer, str, Path],
) -> None:
    server, course_id, folder = class_of_three
    old_version = folder_version(folder)
    (folder / "checks.py").write_text(CHECKS_V2)
    new_version = folder_version(folder)
    assert new_version != old_version

    code, output = regrade("adder", "--course", course_id, "--latest", "--workers", "2")
    assert code == 0, output
    assert f"adder: 3 runs regraded against version {new_version}" in output
    assert re.search(rf"floats@example.org  run \w+: fail 1 pts \(version {old_version}\) → pass 2 pts "
                     rf"\(version {new_version}\); now passing: huge_numbers", output)  # fmt: skip
    assert re.search(r"abs@example.org  run \w+: pass 2 pts .*→ fail 1 pts .*now failing: negative_numbers", output)
    assert "right@example.org" not in output.split("\n", 1)[1].split("changed")[0]
    assert "2 changed (1 fail → pass, 1 pass → fail), 1 unchanged" in output
    assert "solved now: floats@example.org" in output and "no longer solved: abs@example.org" in output

    rows = _submissions(server.settings)
    originals = [r for r in rows if r.regrade_of is None]
    copies = [r for r in rows if r.regrade_of is not None]
    assert len(originals) == 3 and len(copies) == 3
    # The originals keep their verdicts and the version they were graded against.
    assert sorted(r.status for r in originals) == ["fail", "pass", "pass"]
    assert {r.exercise_version for r in originals} == {old_version}
    assert {r.exercise_version for r in copies} == {new_version} and len({r.regrade_batch for r in copies}) == 1
    assert all(r.worker_id and r.worker_id.startswith("regrade:") for r in copies)  # graded by the queue's workers
    assert _solved(server.settings) == {"right@example.org", "floats@example.org"}

    with server.client() as instructor:
        sign_in(instructor, "prof@example.org")
        dashboard = instructor.get(f"/courses/{course_id}/dashboard").text
        assert _state(dashboard, "floats@example.org") == "solved" and _state(dashboard, "abs@example.org") == "tried"
        page = instructor.get(f"/courses/{course_id}/exercises/adder").text
        assert f'<tr data-version="{new_version}">' in page and "(current)" in page
        student = re.search(r'href="(/courses/[^"]+/students/[^"#]+)">abs@example.org', dashboard).group(1)
        runs = instructor.get(student).text
        assert '<td class="status-fail">fail</td>' in runs
        assert f'<span class="status-pass">pass</span> on <span class="version">{old_version}</span>' in runs


def test_regrading_all_takes_every_run_and_latest_one_per_learner(
    class_of_three: tuple[RunningServer, str, Path],
) -> None:
    server, course_id, _ = class_of_three
    with server.client() as again:
        sign_in(again, "right@example.org")
        run_to_the_end(again, FLOATS, "adder")  # a fourth run, the right student's latest
        # A Try it afterwards is no run: nothing graded it, so nothing is regraded, and it is nobody's latest.
        tried = again.post("/api/exercises/adder/tries", json={"code": RIGHT, "inputs": "add(2, 3)\n"})
        assert read_events(again, tried.json()["events_url"])[-1]["data"]["result"]["kind"] == "try"
    code, output = regrade("adder", "--all", "--workers", "1")
    assert code == 0 and "adder: 4 runs regraded" in output and "0 changed, 4 unchanged" in output
    code, output = regrade("adder", "--latest", "--course", course_id, "--workers", "1")
    assert code == 0 and "adder: 3 runs regraded" in output


def test_a_regrade_uses_none_of_the_learners_run_allowance(
    make_settings: Callable[..., Settings],
    start_server: Callable[..., RunningServer],
    make_exercise: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_exercise("adder")
    server = start_server(make_settings(rate_limit=2, rate_limit_window=600))
    point_the_cli_at(server.settings, monkeypatch)
    with server.client() as student:
        sign_up(student, "solo@example.org")
        run_to_the_end(student, RIGHT, "adder")
        for _ in range(2):
            assert regrade("adder", "--all", "--workers", "1")[0] == 0
        # One run of their own in the window, two copies made by the operator: one more run is still allowed.
        assert submit(student, RIGHT, "adder").status_code == 202
        assert submit(student, RIGHT, "adder").status_code == 429


def test_a_run_stopped_while_queued_is_never_regraded_into_a_pass(
    make_settings: Callable[..., Settings],
    start_server: Callable[..., RunningServer],
    make_exercise: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_exercise("adder")
    server = start_server(make_settings(workers=0))  # only queues: the run is still waiting when it is stopped
    point_the_cli_at(server.settings, monkeypatch)
    with server.client() as student:
        sign_up(student, "stopper@example.org")
        accepted = submit(student, RIGHT, "adder").json()
        stopped = student.post(accepted["stop_url"]).json()
        assert (stopped["status"], stopped["reason"]) == ("error", "stopped")
    for which in ("--latest", "--all"):
        code, output = regrade("adder", which, "--workers", "1")
        assert code == 0 and "adder: 0 runs regraded" in output, output
        assert "solved now" not in output
    assert _solved(server.settings) == set()
    assert [(r.status, r.result["reason"]) for r in _submissions(server.settings)] == [("error", "stopped")]


def test_a_regrade_made_before_of_a_stopped_run_does_not_make_it_pass(make_settings: Callable[..., Settings]) -> None:
    engine = make_engine(make_settings().resolved_database_url())
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as session:
        session.add(Learner(id="l1"))
        session.flush()
        stopped = {"status": "error", "reason": "stopped", "points": 0, "max_points": 2}
        session.add(Submission(id="s1", learner_id="l1", exercise="adder", code=RIGHT, status="error", result=stopped))
        session.flush()
        passing = {"status": "pass", "reason": "passed", "points": 2, "max_points": 2}
        session.add(
            Submission(id="s2", learner_id="l1", exercise="adder", code=RIGHT, status="pass", regrade_of="s1",
                       result=passing)
        )  # fmt: skip
    [run] = load_runs(sessions, ["l1"], ["adder"])
    engine.dispose()
    assert run.regrade is not None and run.current is run.original and not run.passed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("adder",), "say which runs to regrade: --all (every finished run) or --latest"),
        (("adder", "--all", "--latest"), "say which runs to regrade"),
        (("nothing-here", "--all"), "There is no exercise 'nothing-here' that loads"),
        (("adder", "--all", "--course", "no-such-course"), "There is no course 'no-such-course'"),
        (("adder", "--all", "--workers", "0"), "with the embedded queue this process grades"),
    ],
)
def test_bad_input_exits_2_with_what_is_wrong(
    class_of_three: tuple[RunningServer, str, Path], args: tuple[str, ...], message: str
) -> None:
    code, output = regrade(*args)
    assert code == 2 and message in output


def _state(dashboard: str, email: str) -> str:
    row = re.search(rf'<tr data-student="{re.escape(email)}">(.*?)</tr>', dashboard, re.S)
    assert row
    return re.search(r'data-state="(\w+)"', row.group(1)).group(1)


def _submissions(settings: Settings) -> list[Submission]:
    engine = make_engine(settings.resolved_database_url())
    with make_sessionmaker(engine)() as session:
        rows = list(session.scalars(select(Submission).where(Submission.exercise == "adder")))
    engine.dispose()
    return rows


def _solved(settings: Settings) -> set[str]:
    engine = make_engine(settings.resolved_database_url())
    with make_sessionmaker(engine)() as session:
        emails = session.scalars(
            select(User.email)
            .join(Progress, Progress.learner_id == User.learner_id)
            .where(Progress.exercise == "adder")
        ).all()
    engine.dispose()
    return set(emails)
