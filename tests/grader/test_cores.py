"""Pinning a run and its grading thread to the least busy CPU."""

from __future__ import annotations

import os
import threading

from grader.cores import CoreAssignment


def _in_a_thread(work: object) -> None:
    thread = threading.Thread(target=work)  # type: ignore[arg-type]
    thread.start()
    thread.join()


def test_each_run_goes_to_the_cpu_with_the_fewest_runs_and_the_thread_gets_its_affinity_back() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    assignment = CoreAssignment(set(cpus))
    seen: dict[str, object] = {}

    def work() -> None:
        before = os.sched_getaffinity(0)
        first = assignment.pin_current_thread()
        seen["pinned"] = os.sched_getaffinity(0)
        second = assignment.pin_current_thread()
        seen["counts"] = assignment.runs_per_cpu()
        assignment.release(second)
        assignment.release(first)
        seen["after"], seen["before"] = os.sched_getaffinity(0), before
        seen["cpus"] = (first.cpu, second.cpu)

    _in_a_thread(work)
    first_cpu, second_cpu = seen["cpus"]  # type: ignore[misc]
    assert seen["pinned"] == {first_cpu}
    if len(cpus) > 1:
        assert second_cpu != first_cpu, "the second run avoids the CPU the first is on"
        assert seen["counts"] == {cpu: int(cpu in (first_cpu, second_cpu)) for cpu in cpus}
    assert seen["after"] == seen["before"]
    assert assignment.runs_per_cpu() == dict.fromkeys(cpus, 0)


def test_a_release_from_another_thread_counts_the_run_but_leaves_that_threads_affinity() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    assignment = CoreAssignment(set(cpus))
    pinned = []
    _in_a_thread(lambda: pinned.append(assignment.pin_current_thread()))
    before = os.sched_getaffinity(0)
    assignment.release(pinned[0])
    assert os.sched_getaffinity(0) == before
    assert assignment.runs_per_cpu() == dict.fromkeys(cpus, 0)
