"""Warm grading latency of every exercise's reference, beside its in-process floor, in one run.

For each exercise: the checks in this process calling the reference directly (the floor: no
sandbox at all), then mlkata's warm path (each run forked from a pre-started sandbox), their p50s
and ratio, and the crossings of the sandbox boundary one grade makes. Run with ``make bench``.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading_latency import ROOT, crossings_per_grade, floor_grade, percentile, timed

from grader.exercise import Exercise, load_exercises
from grader.grading.engine import grade
from grader.results.records import Status


def reference_module(exercise: Exercise) -> object:
    spec = importlib.util.spec_from_file_location(f"reference_{exercise.slug}", exercise.reference_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("slugs", nargs="*", help="exercises to measure (default: all)")
    args = parser.parse_args()

    exercises = load_exercises(ROOT / "exercises")
    ordered = sorted(exercises.values(), key=lambda e: (e.config.order, e.config.title))
    if args.slugs:
        ordered = [e for e in ordered if e.slug in args.slugs]
    print(f"\nWarm grading of each exercise's reference, {args.repeats} grades each, one at a time")
    print(f"{'exercise':<24} {'checks':>6} {'floor p50 ms':>13} {'warm p50 ms':>12} {'warm p95 ms':>12} "
          f"{'warm / floor':>13} {'crossings':>10}")  # fmt: skip
    for exercise in ordered:
        source = exercise.reference_path.read_text(encoding="utf-8")
        module = reference_module(exercise)

        def warm(exercise: Exercise = exercise, source: str = source) -> bool:
            return grade(exercise, source).status is Status.PASS

        def floor(exercise: Exercise = exercise, module: object = module) -> bool:
            return floor_grade(exercise, module)

        warm()  # warm-up: the zygote, imports, caches
        floor_times: list[float] = []
        warm_times: list[float] = []
        for _ in range(args.repeats):  # interleaved: the machine's speed drifts
            floor_times += timed(floor, 1)[0]
            warm_times += timed(warm, 1)[0]
        floor_p50, warm_p50 = statistics.median(floor_times), statistics.median(warm_times)
        print(f"{exercise.slug:<24} {len(exercise.checks):>6} {floor_p50 * 1000:>13.1f} {warm_p50 * 1000:>12.1f} "
              f"{percentile(warm_times, 0.95) * 1000:>12.1f} {warm_p50 / floor_p50:>12.1f}x "
              f"{crossings_per_grade(exercise, source):>10}")  # fmt: skip


if __name__ == "__main__":
    main()
