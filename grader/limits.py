"""Resource limits for one grading run, with the defaults used when an exercise sets none."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Limits(BaseModel):
    """What one submission may use. Set per exercise in the ``[limits]`` table of ``exercise.toml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    time_seconds: float = Field(10.0, gt=0, le=300, description="Wall-clock time for the whole run.")
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
    def cpu_seconds(self) -> int:
        """Each sandboxed process's CPU time limit: one second more than the wall-clock limit.

        A single busy thread therefore always meets the wall clock first (a clear "time limit"
        verdict, never a race between the two); only a solution burning several CPUs at once, or
        a stalled grader, meets the CPU limit.
        """
        return int(self.time_seconds + 0.999) + 1
