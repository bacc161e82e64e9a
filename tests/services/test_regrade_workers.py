"""`mlkata regrade` with Redis: the new verdicts come from `mlkata worker` processes, not from the command."""

from __future__ import annotations

import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cluster import MLKATA, Cluster, stream_events

pytestmark = [pytest.mark.services, pytest.mark.timeout(240)]

RIGHT = "def add(a, b):\n    return a + b\n"
FLOATS = "def add(a, b):\n    return int(float(a) + float(b))\n"
CHECKS_V2 = textwrap.dedent("""\
    from grader.checks import check, expect_integer


    @check("Adds small numbers", public=True, hint="plus")
    def small_numbers(student):
        expect_integer(student.add(2, 3), 5, what="add(2, 3)")
""")


def test_regrade_goes_through_redis_to_the_worker_processes(
    tmp_path: Path, postgres_url: str, make_exercise: Callable[..., Path], require_service: Any
) -> None:
    import shutil

    if shutil.which("redis-server") is None:
        require_service("redis-server (to start a private Redis)", "not installed")
    cluster = Cluster(tmp_path, postgres_url, time_seconds=5)
    folder = make_exercise("adder")  # beside the cluster's exercises, before its processes load them
    try:
        cluster.start(workers=2)
        for code in (RIGHT, FLOATS):
            with cluster.client() as learner:
                accepted = learner.post("/api/exercises/adder/submissions", json={"code": code}).json()
                stream_events(learner, accepted["events_url"])
        (folder / "checks.py").write_text(CHECKS_V2)
        for worker in cluster.workers:  # the workers load exercises at start: restarted, they grade the new one
            worker.stop()
            worker.start()
        regrade = subprocess.run(
            [MLKATA, "regrade", "adder", "--all", "--timeout", "120"], env=cluster.env, capture_output=True,
            text=True, timeout=180, check=False,
        )  # fmt: skip
        assert regrade.returncode == 0, regrade.stdout + regrade.stderr
        assert "adder: 2 runs regraded" in regrade.stdout
        # The right run still passes, with the points of the one check left.
        assert "2 changed (1 fail → pass, 1 pass, other points), 0 unchanged" in regrade.stdout
        copies = cluster.rows("SELECT worker_id, status FROM submissions WHERE regrade_of IS NOT NULL")
        assert sorted(status for _, status in copies) == ["pass", "pass"]
        assert all(worker_id.startswith("worker:") for worker_id, _ in copies), copies
    finally:
        cluster.stop()
        print(cluster.logs())
