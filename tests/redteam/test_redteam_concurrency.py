"""Eight grades at a time, hostile and honest mixed: the honest ones still pass, the hostile are contained."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from redteam_harness import (
    Secrets,
    assert_no_canary_files,
    assert_no_sandbox_process_survives,
    fill_placeholders,
    read_submission,
)

from grader.exercise import Exercise
from grader.grading.engine import grade
from grader.results.records import GradeResult, Reason, Status

pytestmark = pytest.mark.redteam

HOSTILE = {
    "fork_bomb_persistent": Reason.TIMEOUT,
    "numpy_memory_bomb": Reason.MEMORY_LIMIT,
    "infinite_loop_in_call": Reason.TIMEOUT,
    "stdout_flood": Reason.OUTPUT_LIMIT,
}


def test_hostile_and_honest_submissions_graded_eight_at_a_time(
    fast_exercise: Exercise, kv_exercise: Exercise, host_secrets: Secrets
) -> None:
    reference = kv_exercise.reference_path.read_text()
    jobs: list[tuple[str, Exercise, bytes | str]] = []
    for name in HOSTILE:
        jobs.append((name, fast_exercise, fill_placeholders(read_submission(name), fast_exercise, host_secrets)))
        # Honest runs use the real exercise's limits: on two cores they share the CPU with fork bombs.
        jobs.append((f"honest-{name}", kv_exercise, reference))

    def run(job: tuple[str, Exercise, bytes | str]) -> tuple[str, GradeResult, float]:
        name, exercise, source = job
        began = time.monotonic()
        result = grade(exercise, source)
        return name, result, time.monotonic() - began

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(run, jobs))

    for name, result, seconds in outcomes:
        if name.startswith("honest-"):
            assert result.status is Status.PASS, (name, [(t.id, t.message) for t in result.failing()])
            assert result.points == result.max_points
            assert seconds < kv_exercise.limits.wall_seconds  # the grading as a whole, fork bombs beside it
        else:
            assert result.status is not Status.PASS, name
            assert result.reason is HOSTILE[name], (name, result.reason, result.message)
            # A timeout gives the other function's checks a fresh run with time limits of its own: two at most,
            # each ended by 2 s of CPU time or 4 s of wall clock; and starting and killing them, eight at a time.
            runs = 2 if HOSTILE[name] is Reason.TIMEOUT else 1
            assert seconds < runs * fast_exercise.limits.wall_seconds + 10, (name, seconds)
        assert host_secrets.token not in result.model_dump_json()
    assert_no_sandbox_process_survives()
    assert_no_canary_files(fast_exercise)
