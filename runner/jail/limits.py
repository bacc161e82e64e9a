"""The run's rlimits, as the grader's policy sends them (``RunPolicy.zygote_message``), set in the runner itself."""

from __future__ import annotations

import resource


def apply(limits: dict[str, int]) -> None:
    """Set memory, CPU time, processes, file size and open files, and forbid core dumps."""
    cpu = int(limits["cpu"])
    for which, soft, hard in (
        (resource.RLIMIT_AS, limits["memory"], limits["memory"]),
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        # Counted per uid within this run's own user namespace: another run's processes do not count.
        (resource.RLIMIT_NPROC, limits["nproc"], limits["nproc"]),
        (resource.RLIMIT_FSIZE, limits["fsize"], limits["fsize"]),
        (resource.RLIMIT_NOFILE, limits["nofile"], limits["nofile"]),
        (resource.RLIMIT_CORE, 0, 0),
    ):
        resource.setrlimit(which, (int(soft), int(hard)))
