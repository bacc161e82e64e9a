"""A cold run: a fresh bubblewrap sandbox and Python for one solution (or, ``jailed=False``, no sandbox).

The host never reads or writes a path the sandbox can write: values come back over a pipe and the
tmpfs vanishes with the run. Stopping a run kills bubblewrap, whose pid-1 init dies with it, and
the kernel then kills every process left in the pid namespace, daemons included.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time

from grader.sandbox import cgroups, seccomp
from grader.sandbox.bwrap import jail_command, runner_program
from grader.sandbox.channel import CapturedOutput, Channel, message_pipe
from grader.sandbox.clock import RunClock
from grader.sandbox.cputime import RunCpu
from grader.sandbox.endings import Ending, RunnerDied, ended
from grader.sandbox.limits import Limits
from grader.sandbox.policy import ENVIRONMENT, MAX_REQUEST_BYTES, RUNNER_DIR, RunPolicy
from grader.sandbox.uids import UidSlot, acquire_uid_slot


class ColdRun:
    """One runner process, jailed or not, and the channel to it."""

    def __init__(self, limits: Limits, *, jailed: bool) -> None:
        self.limits = limits
        policy = RunPolicy.of(limits)
        self._slot: UidSlot | None = None
        self._cpu: RunCpu | None = None
        request_r, request_w = message_pipe()
        reply_r, reply_w = message_pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        runner_args = [str(request_r), str(reply_w), str(MAX_REQUEST_BYTES)]
        inherited = [request_r, reply_w]
        self.cgroup: cgroups.RunCgroup | None = None
        try:
            if jailed:
                self._slot = acquire_uid_slot() if os.geteuid() == 0 else None
                seccomp_fd = seccomp.filter_fd()
                inherited.append(seccomp_fd)
                command = jail_command(runner_program(runner_args, seccomp_fd), policy.scratch_bytes, self._slot)
            else:
                command = [sys.executable, "-I", "-B", "-u", str(RUNNER_DIR / "main.py"), *runner_args]
            command = [shutil.which("prlimit") or "prlimit", *policy.prlimit_arguments(), "--", *command]
            # The whole tree's cgroup, joined by a shell shim before prlimit and bwrap exec: nothing forks outside it.
            self.cgroup = cgroups.create_run(limits) if jailed else None
            if self.cgroup is not None:
                command = [*self.cgroup.join_command(), *command]
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=stdout_w,
                stderr=stderr_w,
                pass_fds=inherited,
                start_new_session=True,
                env={k: v for k, v in ENVIRONMENT.items() if k != "HOME"},
            )
        except BaseException:
            for fd in (request_w, reply_r, stdout_r, stderr_r):
                os.close(fd)
            self._release()
            raise
        finally:
            for fd in (*inherited, stdout_w, stderr_w):
                os.close(fd)
        self.channel = Channel(
            self, request_w=request_w, reply_r=reply_r, stdout_r=stdout_r, stderr_r=stderr_r,
            output_kb=limits.output_kb, reply_mb=limits.reply_mb,
        )  # fmt: skip
        try:
            self.channel.await_ready()
            # Counted from here: starting Python and numpy in the sandbox is not the solution's time.
            self._cpu = RunCpu(self.cgroup, self._process.pid)
        except BaseException:
            self.close()
            raise

    @property
    def pid(self) -> int:
        return self._process.pid

    def cpu_seconds(self) -> float:
        """CPU time of the run's whole process tree since it was ready."""
        return self._cpu() if self._cpu is not None else 0.0

    @property
    def output(self) -> CapturedOutput:
        return self.channel.output

    def exchange(self, frame: bytes, clock: RunClock) -> bytearray:
        return self.channel.exchange(frame, clock)

    def interrupt(self) -> None:
        """From any thread: the exchange in progress (or the next) kills the run and says it was stopped."""
        if self.channel is not None:
            self.channel.interrupt()

    def drain_output(self, seconds: float = 0.05) -> None:
        self.channel.drain_output(seconds)

    def ending(self) -> RunnerDied:
        """The reply pipe closed: the runner is gone or closed it. How it ended."""
        deadline = time.monotonic() + 2
        cpu_seconds = 0.0
        while self._process.poll() is None and time.monotonic() < deadline:
            try:
                pid, status, usage = os.wait4(self._process.pid, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                self._process.returncode = os.waitstatus_to_exitcode(status)
                # The whole tree's: wait4 adds the children this process waited for, as they did theirs.
                cpu_seconds = usage.ru_utime + usage.ru_stime
                if self._cpu is not None:
                    self._cpu.ended_with(cpu_seconds)
                break
            time.sleep(0.005)
        code = self._process.poll()
        if code is None:
            return RunnerDied(Ending.MALFORMED_REPLY, detail="the reply channel was closed")
        # bwrap reports a child killed by signal N as exit status 128 + N.
        signum = -code if code < 0 else code - 128 if code > 128 else 0
        oom = self.cgroup.oom_killed() if self.cgroup is not None and signum else None
        return ended(exit_code=code, signum=signum, cpu_seconds=cpu_seconds, limits=self.limits, oom=oom)

    def kill(self) -> None:
        """Kill the whole sandbox (bwrap, its init and so every process in its pid namespace)."""
        if self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
        if self.cgroup is not None:
            self.cgroup.kill()  # a second mechanism: every task of the run's cgroup, whatever its namespace

    def close_soon(self) -> None:
        """Close without making the caller wait for the tidying up (a cold run has nothing to hand back)."""
        self.close()

    def close(self) -> None:
        self.kill()
        self.channel.close()
        self._release()

    def _release(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self._slot is not None:
            self._slot.release()
            self._slot = None
