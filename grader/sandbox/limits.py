"""Resource limits for one grading run, with the defaults used when an exercise sets none."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Limits(BaseModel):
    """What one submission may use. Set per exercise in the ``[limits]`` table of ``exercise.toml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    time_seconds: float = Field(
        10.0,
        gt=0,
        le=300,
        description="CPU time for a run: every process of the solution, in every check. After a timeout, the checks "
        "that do not call the function that ran out of time run in a new run with as much again (a second ends it).",
    )
    wall_clock_factor: float = Field(
        5.0, ge=1, le=20, description="The wall-clock limit, as a multiple of time_seconds: a backstop for waiting."
    )
    memory_mb: int = Field(512, ge=64, le=16384, description="Address space of each sandboxed process.")
    processes: int = Field(16, ge=1, le=1024, description="Processes and threads the solution may run at once.")
    output_kb: int = Field(64, ge=1, le=10240, description="Captured stdout and stderr, together.")
    scratch_mb: int = Field(16, ge=1, le=1024, description="Size of each writable tmpfs (/tmp, /dev/shm).")
    reply_mb: int = Field(32, ge=1, le=1024, description="Largest value a solution may return from one call.")
    source_kb: int = Field(64, ge=1, le=1024, description="Largest solution.py accepted.")
    checks_cpu_seconds: float = Field(
        10.0, gt=0, le=300, description="CPU time the grader itself may spend on the run's checks."
    )

    @property
    def wall_seconds(self) -> float:
        """The run's wall-clock limit: what ends a run that uses no CPU and never finishes (a sleep, a blocked read).

        Several times the CPU limit, so that a correct solution still finishes on a busy host, where
        each second of its CPU time takes several seconds of wall-clock time.
        """
        return self.time_seconds * self.wall_clock_factor

    @property
    def cpu_seconds(self) -> int:
        """Each sandboxed process's CPU time limit (``RLIMIT_CPU``): one second more than the whole run's.

        The trusted side ends the run when its processes together have used ``time_seconds``; this
        rlimit is only a second line, for a process that keeps computing while the grader is not
        looking (between two calls), and stays clear of that first one.
        """
        return int(self.time_seconds + 0.999) + 1
