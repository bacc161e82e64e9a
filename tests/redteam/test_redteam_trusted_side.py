"""Attacks on the trusted side: forged evidence, and replies built to be expensive for the grader.

The sandbox bounds what a solution may use; these bound what it can make the *grader* do. Each
test names the attack and what must hold: no known-wrong solution passes whatever the runner
reports about itself, and no reply costs the grader much CPU, memory or result size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from redteam_harness import REPO, GradeHostile, Secrets, grade_hostile, read_submission

from grader.exercise import Exercise, load_exercises
from grader.results.caps import MESSAGE_CHARS, RESULT_BYTES
from grader.results.records import Reason, Status
from runner import wire

pytestmark = pytest.mark.redteam

EXERCISES = load_exercises(REPO / "exercises")
# The forgery adds a snapshot of the arguments to each reply. On a single call that is a malformed
# reply (tests/grader/grading/test_session.py); only where a check reads what a batch of calls did to their
# arguments (the in-place mistakes, ``mutates-*``) could it still matter, so those are the cases here.
IN_PLACE = [
    (slug, name)
    for slug, exercise in EXERCISES.items()
    for name in exercise.mutant_paths()
    if name.startswith("mutates-")
]


def test_every_exercise_with_an_argument_to_update_has_an_in_place_mutant() -> None:
    # The cases below are chosen by name: a renamed mutant would silently drop out of them.
    assert len(IN_PLACE) >= 8, IN_PLACE


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
@pytest.mark.parametrize(("slug", "mutant"), IN_PLACE, ids=[f"{s}:{m}" for s, m in IN_PLACE])
def test_a_runner_patched_from_inside_cannot_turn_a_known_wrong_solution_into_a_pass(
    host_secrets: Secrets, slug: str, mutant: str, warm: bool
) -> None:
    exercise = EXERCISES[slug]
    wrong = exercise.mutant_paths()[mutant].read_bytes()
    source = wrong + b"\n\n" + read_submission("forge_arguments_after_call")
    graded = grade_hostile("forge_arguments_after_call", exercise, host_secrets, source=source, warm=warm)
    assert "._call" in (graded.result.output or ""), "the forgery found no runner to patch"
    assert graded.result.status is not Status.PASS, graded.explain()
    # The checks that catch it without the forgery still catch it, on the evidence of outputs alone.
    caught_by = exercise.config.mutants[mutant].caught_by
    assert caught_by, f"{slug}: say which checks catch {mutant} (caught_by in exercise.toml)"
    catching = [t for t in graded.result.tests if t.id in caught_by]
    assert len(catching) == len(caught_by), graded.explain()
    for check in catching:
        assert (check.status, check.reason) == (Status.FAIL, Reason.WRONG_ANSWER), graded.explain()


def test_a_reply_of_many_references_to_one_array_costs_the_grader_almost_nothing(hostile: GradeHostile) -> None:
    began = time.thread_time()  # grading runs in this thread: its CPU time is the grader's own
    graded = hostile("many_references_to_one_array")
    grader_cpu = time.thread_time() - began
    first = graded.result.tests[0]
    assert first.reason is Reason.WRONG_ANSWER and first.details is not None, graded.explain()
    shown = first.details["got"]
    assert len(shown) <= 600 and "more]" in shown, shown
    assert grader_cpu < 2.0, f"the grader spent {grader_cpu:.1f} s of CPU on one submission"  # was 41-93 s


@pytest.mark.parametrize("keys", [80_000, 200_000])
def test_a_dict_with_very_many_keys_makes_a_small_result(hostile: GradeHostile, keys: int) -> None:
    graded = hostile("dict_with_many_keys", extra={"__KEYS__": str(keys)})
    result = graded.result
    assert result.status is Status.FAIL, graded.explain()
    assert len(result.model_dump_json()) <= RESULT_BYTES
    assert all(len(t.message or "") <= MESSAGE_CHARS + 100 for t in result.tests)
    messages = [t.message or "" for t in result.failing()]
    if keys == 80_000:
        # The checks of the cache's keys are hidden: they give the count, never the solution's keys.
        assert any("got 80,000 other keys" in message for message in messages), graded.explain()
        assert not any("key0" in message for message in messages), graded.explain()
    else:  # the structure alone is over what the grader decodes
        assert result.failing()[0].reason is Reason.UNSUPPORTED_VALUE, graded.explain()
        assert "message structure of" in messages[0]


def _grade_in_child(solution: Path, exercise: Exercise) -> tuple[dict[str, object], int]:
    """``mlkata grade --json`` in a child process: its result and its peak memory (KiB)."""
    command = [sys.executable, "-c", "from app.entry import main; main()", "grade", str(solution), "-e",
               exercise.slug, "--exercises", str(exercise.path.parent), "--json"]  # fmt: skip
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO)
    assert child.stdout is not None
    with child.stdout:
        out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, for its rusage
    return json.loads(out), usage.ru_maxrss


def test_a_reply_whose_array_table_views_one_buffer_a_million_times_is_refused_cheaply(
    fast_exercise: Exercise, tmp_path: Path
) -> None:
    honest = tmp_path / "honest.py"
    honest.write_bytes((REPO / "exercises" / "kv-cache-decoding" / "reference.py").read_bytes())
    bomb = tmp_path / "bomb.py"
    bomb.write_bytes(read_submission("array_table_amplifier"))
    _, honest_kib = _grade_in_child(honest, fast_exercise)
    result, bomb_kib = _grade_in_child(bomb, fast_exercise)
    first = result["tests"][0]  # type: ignore[index]
    assert first["reason"] == Reason.UNSUPPORTED_VALUE.value, first
    assert f"exceeds the limit of {wire.MAX_REPLY_HEADER_BYTES:,}" in first["message"]
    grown_mib = (bomb_kib - honest_kib) / 1024
    assert grown_mib < 64, f"the grader grew by {grown_mib:.0f} MiB more than for an honest grade"  # was ~700 MiB


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_a_runner_broken_from_inside_ends_as_the_solutions_exit(hostile: GradeHostile, warm: bool) -> None:
    graded = hostile("break_the_runner_loop", warm=warm)
    first = graded.result.tests[0]
    assert (first.status, first.reason) == (Status.FAIL, Reason.EXITED), graded.explain()
    assert "exit code 1" in (first.message or "")
    assert "RuntimeError: the runner was rewritten" in (first.output or "")
