"""How often a correct solution fails when the machine is busy: the KV reference graded beside busy processes.

Starts ``--hogs`` busy Python loops (each in a session of its own, at the same priority as the
grader), then grades the KV-cache exercise's reference ``--grades`` times, ``--concurrency`` at a
time, warm, with the exercise's CPU limit set to ``--limit`` seconds. Every grade should pass:
prints the verdicts' counts, the load average and the grades' wall-clock durations.

    .venv/bin/python bench/verdicts_under_load.py --hogs 12 --grades 60 --concurrency 4 --limit 3

It loads the machine on purpose for as long as it runs, so it is not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from grader.exercise import Exercise, load_exercise  # noqa: E402
from grader.grading.engine import grade  # noqa: E402
from grader.results.records import GradeResult  # noqa: E402

EXERCISE = ROOT / "exercises" / "kv-cache-decoding"


def with_limit(destination: Path, seconds: float) -> Exercise:
    folder = destination / EXERCISE.name
    shutil.copytree(EXERCISE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "exercise.toml"
    text = toml.read_text(encoding="utf-8")
    assert "time_seconds = 10" in text, "the exercise's time limit moved; update bench/verdicts_under_load.py"
    toml.write_text(text.replace("time_seconds = 10", f"time_seconds = {seconds:g}"), encoding="utf-8")
    return load_exercise(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hogs", type=int, default=3 * (os.cpu_count() or 1), help="busy processes beside the grader")
    parser.add_argument("--grades", type=int, default=60)
    parser.add_argument("--concurrency", type=int, default=4, help="gradings at a time")
    parser.add_argument("--limit", type=float, default=3.0, help="the exercise's time_seconds")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mlkata-bench-") as folder:
        exercise = with_limit(Path(folder), args.limit)
        reference = exercise.reference_path.read_text(encoding="utf-8")
        grade(exercise, reference)  # the warm pool up first, as on a server that has been running
        hogs = [
            subprocess.Popen([sys.executable, "-I", "-c", "while True: pass"], start_new_session=True)
            for _ in range(args.hogs)
        ]
        try:
            time.sleep(2)  # the busy loops under way
            with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
                results: list[GradeResult] = list(pool.map(lambda _: grade(exercise, reference), range(args.grades)))
            load = os.getloadavg()[0]
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()

    reasons = collections.Counter(result.reason.value for result in results)
    seconds = sorted(result.duration_ms / 1000 for result in results)
    print(f"{args.grades} grades of the KV reference, {args.concurrency} at a time, beside {args.hogs} busy processes")
    print(f"time limit {args.limit:g} s; load average {load:.1f} on {os.cpu_count()} CPUs")
    print(f"verdicts: {dict(reasons)}")
    print(f"each grade: median {statistics.median(seconds):.2f} s, slowest {seconds[-1]:.2f} s (wall clock)")
    for result in results:
        if result.status.value != "pass":
            print(f"  {result.reason.value}: {result.message}")


if __name__ == "__main__":
    main()
