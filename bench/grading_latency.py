"""Grading latency and throughput of the KV exercise, side by side with its baselines, in one run.

    (a) floor   the checks in this process, calling the reference directly (no sandbox at all)
    (b) cold    mlkata's grader with a fresh sandbox per grade (bubblewrap + Python + numpy)
    (c) warm    mlkata's grader forking each run from a pre-started sandboxed runner
    (d) peer    what most graders do: the same checks as a pytest file, run in a fresh sandbox

Run with ``make bench``. Numbers are wall-clock on this machine; ratios are to (a).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# As the mlkata executable does (app/entry.py): no BLAS threads competing with the sandboxed runs.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from grader.checks import CheckFailed  # noqa: E402
from grader.exercise import Exercise, load_exercise  # noqa: E402
from grader.grading import engine as grading  # noqa: E402
from grader.grading.engine import grade  # noqa: E402
from grader.grading.session import SolutionSession  # noqa: E402
from grader.results.records import Status  # noqa: E402

SLUG = "kv-cache-decoding"


# --------------------------------------------------------------------------- (a) the floor


class _DirectFunction:
    def __init__(self, function: Callable[..., Any]) -> None:
        self._function = function

    def __call__(self, *args: Any) -> Any:
        return self._function(*args)

    def each(self, calls: Any) -> list[Any]:
        return [self._function(*args) for args in calls]

    def chain(self, calls: Any, *, feed: tuple[int, int]) -> list[Any]:
        argument, part = feed
        results: list[Any] = []
        for args in calls:
            args = list(args)
            if results:
                args[argument] = results[-1][part]
            results.append(self._function(*args))
        return results


class _DirectStudent:
    """The solution module itself, called in this process: what grading costs with no boundary."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> _DirectFunction:
        return _DirectFunction(getattr(self._module, name))


def floor_grade(exercise: Exercise, module: Any) -> bool:
    student = _DirectStudent(module)
    passed = True
    for check in exercise.checks:
        try:
            check.function(student)  # a stand-in Student: the module called directly
        except CheckFailed:
            passed = False
    return passed


# --------------------------------------------------------------------------- (d) the peer


PEER_TEST = """
import importlib.util, pytest
spec = importlib.util.spec_from_file_location("checks", "/tmp/peer/checks.py")
checks = importlib.util.module_from_spec(spec); spec.loader.exec_module(checks)
import solution

class Direct:
    def __init__(self, f): self.f = f
    def __call__(self, *a): return self.f(*a)
    def each(self, calls): return [self.f(*a) for a in calls]
    def chain(self, calls, feed):
        out = []
        for a in calls:
            a = list(a)
            if out: a[feed[0]] = out[-1][feed[1]]
            out.append(self.f(*a))
        return out

class Student:
    def __getattr__(self, name): return Direct(getattr(solution, name))

CHECKS = [v for v in vars(checks).values() if hasattr(v, "__mlkata_check__")]

@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
def test_check(check):
    check(Student())
"""


def peer_command(workdir: Path) -> list[str]:
    """pytest in a fresh bubblewrap sandbox per run: no network, read-only host, its own /tmp."""
    return [
        shutil.which("bwrap") or "bwrap",
        "--unshare-all", "--die-with-parent", "--new-session",
        "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
        "--ro-bind", str(workdir), "/tmp/peer", "--chdir", "/tmp/peer",
        "--setenv", "PYTHONPATH", f"/tmp/peer:{ROOT}", "--setenv", "OPENBLAS_NUM_THREADS", "1",
        sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_peer.py",
    ]  # fmt: skip


def peer_grade(workdir: Path) -> bool:
    completed = subprocess.run(peer_command(workdir), capture_output=True, text=True, check=False, timeout=120)
    return completed.returncode == 0


# --------------------------------------------------------------------------- measuring


def machine_cpu_seconds() -> float:
    """CPU time used by every process on the machine so far (from /proc/stat): what a grade really costs."""
    with open("/proc/stat") as stat:
        ticks = [int(n) for n in stat.readline().split()[1:9]]
    busy = sum(ticks) - ticks[3] - ticks[4]  # all but idle and iowait
    return busy / os.sysconf("SC_CLK_TCK")


def timed(run: Callable[[], bool], repeats: int) -> tuple[list[float], float]:
    """Wall-clock seconds of each run, and the machine's CPU seconds per run."""
    times = []
    cpu_began = machine_cpu_seconds()
    for _ in range(repeats):
        began = time.perf_counter()
        ok = run()
        times.append(time.perf_counter() - began)
        if not ok:
            raise SystemExit("a reference grade did not pass: the benchmark would measure the wrong thing")
    return times, (machine_cpu_seconds() - cpu_began) / max(repeats, 1)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def throughput(run: Callable[[], bool], concurrency: int, total: int) -> float:
    began = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(lambda _: run(), range(total)))
    assert all(results)
    return total / (time.perf_counter() - began)


def _timed_reference(exercise: Exercise, reference: str, times: list[float]) -> Callable[[], bool]:
    def run() -> bool:
        began = time.perf_counter()
        ok = grade(exercise, reference).status is Status.PASS
        times.append(time.perf_counter() - began)
        return ok

    return run


def crossings_per_grade(exercise: Exercise, source: str) -> int:
    """Requests sent to the runner in one grade (the load included)."""
    sent = 0
    original = SolutionSession._exchange

    def counting(self: SolutionSession, request: dict[str, Any]) -> dict[str, Any]:
        nonlocal sent
        sent += 1
        return original(self, request)

    SolutionSession._exchange = counting  # type: ignore[method-assign]  # counted for this grade only
    try:
        grade(exercise, source)
    finally:
        SolutionSession._exchange = original  # type: ignore[method-assign]  # as it was
    return sent


def fingerprint_cost(exercise: Exercise, source: str, repeats: int) -> tuple[float, int, float]:
    """Seconds spent naming mistakes per failing grade, failing checks per grade, and the grade's own seconds."""
    spent = 0.0
    original = grading.matching

    def timing(*args: Any) -> list[str]:
        nonlocal spent
        began = time.perf_counter()
        try:
            return original(*args)
        finally:
            spent += time.perf_counter() - began

    grading.matching = timing  # type: ignore[assignment]  # timed for this measure only
    failing, total = 0, 0.0
    try:
        for _ in range(repeats):
            began = time.perf_counter()
            result = grade(exercise, source)
            total += time.perf_counter() - began
            failing += len(result.failing())
    finally:
        grading.matching = original
    return spent / repeats, failing // repeats, total / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--peer-repeats", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=8, help="rounds the repeats are interleaved in")
    args = parser.parse_args()

    exercise = load_exercise(ROOT / "exercises" / SLUG)
    reference = exercise.reference_path.read_text()
    spec = importlib.util.spec_from_file_location("reference_solution", exercise.reference_path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    variants: dict[str, Callable[[], bool]] = {
        "(a) floor: checks in-process, no sandbox": lambda: floor_grade(exercise, module),
        "(b) cold: fresh sandbox per grade": lambda: grade(exercise, reference, warm=False).status is Status.PASS,
        "(c) warm: forked from a pre-started sandbox": lambda: grade(exercise, reference).status is Status.PASS,
    }
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "solution.py").write_text(reference)
        shutil.copy(exercise.path / "checks.py", workdir / "checks.py")
        (workdir / "test_peer.py").write_text(textwrap.dedent(PEER_TEST))
        variants["(d) peer: pytest in a fresh sandbox per grade"] = lambda: peer_grade(workdir)

        cpu_began = time.process_time()
        floor_runs = 20
        for _ in range(floor_runs):
            floor_grade(exercise, module)
        cpu_per_floor_grade = (time.process_time() - cpu_began) / floor_runs

        for run in variants.values():
            run()  # warm-up: imports, caches
        # Round robin: a virtual machine's speed drifts by tens of percent within a minute, and
        # interleaving spreads each slow spell over every variant instead of one of them.
        samples: dict[str, list[float]] = {name: [] for name in variants}
        cpu_seconds = dict.fromkeys(variants, 0.0)
        for round_ in range(args.rounds):
            for name, run in variants.items():
                total = args.peer_repeats if name.startswith("(d)") else args.repeats
                times, cpu = timed(run, total // args.rounds + (round_ < total % args.rounds))
                samples[name] += times
                cpu_seconds[name] += cpu * len(times)
        rows = [
            (name, statistics.median(times), percentile(times, 0.95), cpu_seconds[name] / len(times))
            for name, times in samples.items()
        ]
        floor_p50, floor_cpu = rows[0][1], rows[0][3]

        print(f"\nGrading latency, KV exercise reference ({len(exercise.checks)} checks), one grade at a time")
        print(f"{'variant':<48} {'p50 ms':>9} {'p95 ms':>9} {'p50 / floor':>12} {'CPU ms':>8} {'CPU / floor':>12}")
        for name, p50, p95, cpu in rows:
            print(f"{name:<48} {p50 * 1000:>9.1f} {p95 * 1000:>9.1f} {p50 / floor_p50:>11.1f}x "
                  f"{cpu * 1000:>8.1f} {cpu / floor_cpu:>11.1f}x")  # fmt: skip
        print("(CPU: all processes on the machine per grade, the sandbox's and the background's included)")
        mid = {name[:3]: p for name, p, _, _ in rows}
        print(f"\nwarm is {mid['(d)'] / mid['(c)']:.1f}x faster than the pytest-per-run peer, "
              f"cold {mid['(d)'] / mid['(b)']:.1f}x; warm p50 is {mid['(c)'] / mid['(a)']:.1f}x the floor")  # fmt: skip

        ideal = 2 / cpu_per_floor_grade
        print(f"\nThroughput (grades per second); ideal on 2 cores from the floor's CPU time "
              f"({cpu_per_floor_grade * 1000:.1f} ms/grade): {ideal:.0f}/s")  # fmt: skip
        for concurrency in (1, 2, 4, 8):
            for name in ("(b) cold: fresh sandbox per grade", "(c) warm: forked from a pre-started sandbox"):
                rate = throughput(variants[name], concurrency, max(16, 4 * concurrency))
                print(f"  {name[:8]} concurrency {concurrency}: {rate:6.1f}/s  ({rate / ideal:.0%} of ideal)")

        wrong = exercise.mutant_sources["no-scaling"]
        crossings = crossings_per_grade(exercise, reference)
        print(f"\nCrossings of the sandbox boundary per grade of the reference: {crossings} (the load included)")
        named, checks, whole = fingerprint_cost(exercise, wrong, 10)
        print(f"Naming the mistake of a wrong solution (no-scaling, {checks} failing checks): "
              f"{named * 1000:.1f} ms per grade of {whole * 1000:.1f} ms ({named / max(checks, 1) * 1000:.2f} ms "
              "per failing check); nothing on a pass")  # fmt: skip

        print("\nBad submissions beside good ones (warm path, concurrency 4)")
        looping = (
            "def attend_step(x_t, cache, p):\n    while True:\n        pass\n\ndef kv_cache_bytes(*a):\n    return 0\n"
        )
        for label, bad in (("alone", None), ("with a wrong solution", wrong), ("with an endless loop", looping)):
            good_times: list[float] = []
            good = _timed_reference(exercise, reference, good_times)
            with ThreadPoolExecutor(4) as pool:
                bad_futures = [pool.submit(grade, exercise, bad) for _ in range(2)] if bad else []
                goods = [pool.submit(good) for _ in range(12)]
                assert all(f.result() for f in goods)
                for future in bad_futures:
                    assert future.result().status is not Status.PASS
            print(f"  reference p50 {statistics.median(good_times) * 1000:7.1f} ms  {label}")


if __name__ == "__main__":
    main()
