"""What the simulated learners submit: honest, wrong and hostile solutions, in a fixed mix."""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.exercise import load_exercise

REPO = Path(__file__).resolve().parent.parent
SLUG = "kv-cache-decoding"
EXERCISE = REPO / "exercises" / SLUG
HOSTILE_DIR = REPO / "tests" / "redteam" / "submissions"

FAILS = frozenset({"fail", "error"})
PASSES = frozenset({"pass"})
#: Hostile solutions from the red-team suite (resource attacks, crashes, escapes) and the verdicts
#: they must get: the escapes are correct solutions whose attacks must fail quietly.
HOSTILE = {
    "fork_bomb": FAILS,
    "fork_bomb_persistent": FAILS,
    "thread_bomb": FAILS,
    "infinite_loop_in_call": FAILS,
    "sleep_forever": FAILS,
    "numpy_memory_bomb": FAILS,
    "stdout_flood": FAILS,
    "segfault_ctypes": FAILS,
    "raises_exception": FAILS,
    "double_fork_daemon": frozenset({"fail"}),
    "write_outside_scratch": PASSES,
    "kill_others": PASSES,
}
#: The hostile solutions during whose grading the page-latency probe's samples are reported apart.
FORK_BOMBS = frozenset({"fork_bomb", "fork_bomb_persistent"})


@dataclass(frozen=True)
class Solution:
    kind: str  # "honest", "wrong" or "hostile"
    name: str
    code: str
    expected: frozenset[str]  # the verdicts it may get

    def acceptable(self, status: str) -> bool:
        return status in self.expected


def solutions(host_pid: int) -> dict[str, list[Solution]]:
    """Every solution, by kind: the reference; the starter and the mutants; red-team files.

    ``host_pid`` is a process outside the sandbox that ``kill_others`` tries to kill.
    """

    def read(path: Path) -> str:
        return path.read_text(encoding="utf-8").replace("__HOST_PID__", str(host_pid))

    honest = [Solution("honest", "reference", read(EXERCISE / "reference.py"), PASSES)]
    wrong = [Solution("wrong", "starter", read(EXERCISE / "starter.py"), frozenset({"fail"}))]
    mutants = load_exercise(EXERCISE).mutant_sources  # whole files, or diffs applied to reference.py
    wrong += [
        Solution("wrong", f"mutant:{name}", source.replace("__HOST_PID__", str(host_pid)), frozenset({"fail"}))
        for name, source in sorted(mutants.items())
    ]
    hostile = [
        Solution("hostile", name, read(HOSTILE_DIR / f"{name}.py"), expected) for name, expected in HOSTILE.items()
    ]
    return {"honest": honest, "wrong": wrong, "hostile": hostile}


def mix(count: int, host_pid: int, *, seed: int = 7, honest: float = 0.5, wrong: float = 0.3) -> list[Solution]:
    """``count`` solutions: half honest, 30 % wrong, the rest hostile, shuffled with a fixed seed."""
    pool = solutions(host_pid)
    n_honest = round(count * honest)
    n_wrong = round(count * wrong)
    n_hostile = count - n_honest - n_wrong
    chosen = [pool["honest"][0]] * n_honest
    chosen += [pool["wrong"][index % len(pool["wrong"])] for index in range(n_wrong)]
    chosen += [pool["hostile"][index % len(pool["hostile"])] for index in range(n_hostile)]
    random.Random(seed).shuffle(chosen)  # noqa: S311  (a reproducible order, not a secret)
    return chosen


def exercise_copy(destination: Path, time_seconds: int) -> Path:
    """A copy of the exercise folder with a shorter time limit, so timeouts bound the run's length."""
    folder = destination / SLUG
    shutil.copytree(EXERCISE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "exercise.toml"
    text = toml.read_text(encoding="utf-8")
    assert "time_seconds = 10" in text, "the exercise's time limit moved; update loadtest.workload"
    toml.write_text(text.replace("time_seconds = 10", f"time_seconds = {time_seconds}"), encoding="utf-8")
    return destination
