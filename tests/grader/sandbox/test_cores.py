"""Pinning a run and its grading thread to a free CPU while the process is not busy."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from grader.sandbox.cores import CoreAssignment


def _in_a_thread(work: Callable[[], object]) -> None:
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()


def test_runs_get_a_cpu_each_until_there_are_more_runs_than_cpus() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    assignment = CoreAssignment(set(cpus))
    seen: dict[str, object] = {}

    def work() -> None:
        before = os.sched_getaffinity(0)
        runs = [assignment.pin_current_thread() for _ in cpus]
        seen["last_pinned"] = os.sched_getaffinity(0)
        one_too_many = assignment.pin_current_thread()
        seen["counts"] = assignment.runs_per_cpu()
        seen["cpus"] = [run.cpu for run in runs]
        seen["extra"] = one_too_many.cpu
        for run in (one_too_many, *reversed(runs)):
            assignment.release(run)
        seen["after"], seen["before"] = os.sched_getaffinity(0), before

    _in_a_thread(work)
    assert sorted(seen["cpus"]) == cpus, "one run per CPU"  # type: ignore[call-overload]
    assert seen["last_pinned"] == {seen["cpus"][-1]}  # type: ignore[index]
    assert seen["extra"] is None, "a run beyond one per CPU is left to the scheduler"
    assert seen["counts"] == dict.fromkeys(cpus, 1)
    assert seen["after"] == seen["before"]
    assert assignment.runs_per_cpu() == dict.fromkeys(cpus, 0)


def test_a_release_from_another_thread_counts_the_run_but_leaves_that_threads_affinity() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    assignment = CoreAssignment(set(cpus))
    pinned = []
    _in_a_thread(lambda: pinned.append(assignment.pin_current_thread()))
    assert pinned[0].cpu in cpus
    before = os.sched_getaffinity(0)
    assignment.release(pinned[0])
    assert os.sched_getaffinity(0) == before
    assert assignment.runs_per_cpu() == dict.fromkeys(cpus, 0)
    again = assignment.pin_current_thread()  # the count went back down: pinned again
    assignment.release(again)
    assert again.cpu is not None and os.sched_getaffinity(0) == before
