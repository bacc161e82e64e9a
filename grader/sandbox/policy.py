"""The jail policy as data: what a run may use and see, derived from an exercise's limits in one place.

Both paths read it: the cold path turns it into ``prlimit`` and bubblewrap arguments, the warm
path sends it to the zygote, which applies it in each run; the run's cgroup takes its ceilings.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.sandbox.limits import Limits

#: The runner package on the host, and where a run sees it (as ``runner`` in JAIL_LIB) and numpy (read-only).
RUNNER_DIR = Path(__file__).resolve().parents[2] / "runner"
JAIL_LIB = "/opt/mlkata/lib"
JAIL_RUNNER = f"{JAIL_LIB}/runner"
JAIL_SITE = "/opt/mlkata/site"
#: Where a zygote sees the host's /proc (read-only). The kernel lets a user namespace mount a new
#: proc only while some proc mount is fully visible, and bubblewrap's own ``--proc`` has sub-mounts
#: over /proc/sys and others, which would be locked. Each run covers this path.
HOST_PROC = "/opt/mlkata/hostproc"
#: The largest request the trusted side sends (the checks' arguments); the runner refuses more.
MAX_REQUEST_BYTES = 256 << 20
#: Nothing of the server's environment (database URLs, secret keys) reaches a run: only this.
ENVIRONMENT = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1"}
OPEN_FILES = 64

# Tasks of the sandbox itself beside the solution's, where each count is kept. RLIMIT_NPROC counts
# the run's uid: on the cold path the runner itself; on the warm path the run's launcher, init and
# runner (all of the run's uid, in the run's user namespace). The run's cgroup holds bubblewrap and
# its init too on the cold path (the warm path's init and runner fit within the same allowance).
COLD_RUN_TASKS = 1
WARM_RUN_TASKS = 3
CGROUP_TASKS = 4
#: Room in the cgroup on top of the solution's own memory for the runner, bwrap, page tables and pipe buffers.
HEADROOM_MB = 64

#: A zygote's own limits: a long-lived parent of every run it forks (each run sets its own).
ZYGOTE_PROCESSES = 4096
ZYGOTE_OPEN_FILES = 256


@dataclass(frozen=True)
class RunPolicy:
    """The rlimits and sizes of one run (bytes and seconds), for either path."""

    memory_bytes: int
    cpu_seconds: int
    processes: int
    file_bytes: int
    scratch_bytes: int
    open_files: int = OPEN_FILES

    @classmethod
    def of(cls, limits: Limits) -> RunPolicy:
        scratch = limits.scratch_mb << 20
        return cls(
            memory_bytes=limits.memory_mb << 20,
            cpu_seconds=limits.cpu_seconds,
            processes=limits.processes,
            file_bytes=scratch,  # no file larger than the tmpfs it is written to
            scratch_bytes=scratch,
        )

    def nproc(self, *, warm: bool) -> int:
        """RLIMIT_NPROC for the run's uid: the solution's processes and the sandbox's own."""
        return self.processes + (WARM_RUN_TASKS if warm else COLD_RUN_TASKS)

    def prlimit_arguments(self) -> list[str]:
        """The cold path's limits as ``prlimit`` options: set before bwrap starts, they hold for everything inside.

        (A ``preexec_fn`` would do the same but is unsafe in a threaded server.)
        """
        cpu = self.cpu_seconds
        return [
            f"--as={self.memory_bytes}",
            f"--cpu={cpu}:{cpu + 1}",
            f"--nproc={self.nproc(warm=False)}",
            f"--fsize={self.file_bytes}",
            "--core=0",
            f"--nofile={self.open_files}",
        ]

    def zygote_message(self) -> dict[str, int]:
        """The warm path's limits, as the zygote applies them in the run (``runner/jail/limits.py``)."""
        return {
            "memory": self.memory_bytes,
            "cpu": self.cpu_seconds,
            "nproc": self.nproc(warm=True),
            "fsize": self.file_bytes,
            "nofile": self.open_files,
            "scratch": self.scratch_bytes,
        }


def memory_limit_mb(limits: Limits) -> int:
    """The whole run's memory: one process's worth, its two scratch tmpfs (charged to the run), headroom.

    A single process therefore meets its own ``RLIMIT_AS`` (a clean ``MemoryError``) before the
    cgroup; only a tree of processes can reach the cgroup's ceiling.
    """
    return limits.memory_mb + 2 * limits.scratch_mb + HEADROOM_MB


def pids_limit(limits: Limits) -> int:
    """The whole run's tasks: the solution's processes and threads, and the sandbox's own."""
    return limits.processes + CGROUP_TASKS
