"""A warm run: forked from a pre-started, sandboxed zygote instead of a fresh Python.

A cold run pays ~100 ms of Python and numpy start-up. Here the run's zygote (``runner/jail/``)
gets four new pipes over its control socket (``SCM_RIGHTS``) and forks a launcher that makes fresh
user, mount, pid, net, IPC, UTS and cgroup namespaces, and in them an init (pid 1) and the runner
itself, which takes its own rlimits, drops every capability, installs the seccomp filter and
serves requests exactly like a cold runner. The grader gets a pidfd for that init: killing it kills
the run's whole pid namespace. The init reports how the runner ended (wait status and CPU time),
so verdicts are the same as on the cold path.

Longer than 300 lines: the grader's half of one protocol with the zygote (start, hand over the
pipes, watch, kill, read how it ended), which must be read as a whole to be trusted.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import logging
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from grader.sandbox import cgroups, cores, seccomp
from grader.sandbox.channel import CapturedOutput, Channel, message_pipe
from grader.sandbox.clock import RunClock
from grader.sandbox.cputime import RunCpu
from grader.sandbox.endings import Ending, RunnerDied, SandboxUnavailable, ended
from grader.sandbox.limits import Limits
from grader.sandbox.policy import MAX_REQUEST_BYTES, RunPolicy
from grader.sandbox.spares import NoIdleZygote
from grader.sandbox.zygote import Message, Zygote, ZygoteLost

log = logging.getLogger(__name__)
_pinning_refused = threading.Event()  # no CAP_SYS_NICE: pin nothing from then on
_SETUP_TIMEOUT = 10.0
_END_TIMEOUT = 2.0


class Lender(Protocol):
    """Where a warm run borrows its zygote and hands its tidying up (the pool)."""

    def acquire(self) -> Zygote: ...

    def try_acquire(self) -> Zygote | None: ...

    def release(self, zygote: Zygote, *, healthy: bool) -> None: ...

    def tidy_up(self, work: Callable[[], None]) -> None: ...


class WarmRun:
    """A runner forked from a zygote; starting, killing and learning how it ended go through the zygote."""

    def __init__(self, limits: Limits, *, pool: Lender, wait_for_zygote: bool = True) -> None:
        self.limits = limits
        self._pool = pool
        self._ended: Message | None = None
        self._zygote_done = False
        self._pidfd = -1
        self.runner_pid = 0
        self._pipes: list[int] = []
        self.cgroup: cgroups.RunCgroup | None = None
        self._pinned: cores.PinnedThread | None = None
        self.channel: Channel | None = None
        self._cpu: RunCpu | None = None
        for attempt in range(2):
            zygote = pool.acquire() if wait_for_zygote else pool.try_acquire()
            if zygote is None:
                raise NoIdleZygote
            self.zygote = zygote
            try:
                self._start(limits)
                break
            except ZygoteLost as exc:
                # A zygote that died while idle is replaced once; a second failure is real.
                pool.release(zygote, healthy=False)
                self._close_pipes()
                if attempt:
                    raise SandboxUnavailable(f"the zygote failed to start a run: {exc}") from None
            except BaseException:
                pool.release(zygote, healthy=False)
                self._close_pipes()
                raise
        try:
            self._enter_cgroup(limits)
            request_w, reply_r, stdout_r, stderr_r = self._pipes
            self._pipes = []
            self.channel = Channel(
                self, request_w=request_w, reply_r=reply_r, stdout_r=stdout_r, stderr_r=stderr_r,
                output_kb=limits.output_kb, reply_mb=limits.reply_mb,
            )  # fmt: skip
            self.channel.await_ready()
            self._cpu = RunCpu(self.cgroup, self.pid)  # counted from here, as on the cold path
        except BaseException:
            self.close()
            raise

    def _start(self, limits: Limits) -> None:
        request_r, request_w = message_pipe()
        reply_r, reply_w = message_pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        self._pipes = [request_w, reply_r, stdout_r, stderr_r]
        message = {
            "limits": RunPolicy.of(limits).zygote_message(),
            "max_request": MAX_REQUEST_BYTES,
            "seccomp": base64.b64encode(seccomp.filter_bpf()).decode(),
        }
        try:
            self.zygote.send(message, [request_r, reply_w, stdout_w, stderr_w])
        finally:
            for fd in (request_r, reply_w, stdout_w, stderr_w):
                os.close(fd)
        deadline = time.monotonic() + _SETUP_TIMEOUT
        ready = False
        while self._pidfd < 0 or not ready:
            message, fds, sender = self.zygote.receive_from(deadline)
            if message.get("started") and len(fds) == 1:
                self._pidfd = fds[0]
                continue
            for fd in fds:
                os.close(fd)
            if message.get("ready"):
                ready = True
                self.runner_pid = sender  # only the runner sends "ready" once the zygote is up
            elif "error" in message:
                raise ZygoteLost(f"setting up the run failed: {message['error']}")
            else:
                self._note(message)
                if self._zygote_done or self._ended is not None:
                    raise ZygoteLost(f"the run ended while starting: {message}")

    # --------------------------------------------------------------------------- talking to the run

    @property
    def output(self) -> CapturedOutput:
        assert self.channel is not None
        return self.channel.output

    def exchange(self, frame: bytes, clock: RunClock) -> bytearray:
        assert self.channel is not None
        return self.channel.exchange(frame, clock)

    def cpu_seconds(self) -> float:
        """CPU time of the run's whole process tree since it was ready."""
        return self._cpu() if self._cpu is not None else 0.0

    def interrupt(self) -> None:
        """From any thread: the exchange in progress (or the next) kills the run and says it was stopped."""
        if self.channel is not None:
            self.channel.interrupt()

    def drain_output(self, seconds: float = 0.05) -> None:
        if self.channel is not None:
            self.channel.drain_output(seconds)

    def attach(self) -> None:
        """Pin the calling thread, which will talk to this run, and the run to one CPU (see cores.py)."""
        if _pinning_refused.is_set():
            return
        self._pinned = cores.default_assignment().pin_current_thread()
        cpu = self._pinned.cpu
        if cpu is None:
            return  # a busy process: the scheduler places this run
        try:
            for pid in (self.pid, self.runner_pid):
                os.sched_setaffinity(pid, {cpu})
        except OSError as exc:
            # A pinned thread with an unpinned run would be worse than neither: undo.
            self._unpin()
            if exc.errno == errno.EPERM and not _pinning_refused.is_set():
                # Moving a process of another uid takes CAP_SYS_NICE, which a container may lack.
                _pinning_refused.set()
                log.warning("runs are not pinned to the grading thread's CPU (%s); grading works, only slower", exc)

    # --------------------------------------------------------------------------- as a spare

    def pristine(self) -> bool:
        """Still waiting for its first request: nothing ended, nothing written, its zygote alive, and
        made under the cgroups the host has now (tests look at the host's cgroups again)."""
        if self._ended is not None or self._pidfd < 0 or not self.zygote.alive() or self.channel is None:
            return False
        if self.channel.reply_waiting() or _readable(self._pidfd) or _readable(self.zygote.fileno()):
            return False
        host = cgroups.status()
        return (self.cgroup.host if self.cgroup is not None else None) is (
            host if isinstance(host, cgroups.Host) else None
        )

    def process_ids(self) -> set[int]:
        """The host pids of the run's launcher, init and runner."""
        init = self.pid
        return {_parent_of(init), init, self.runner_pid}

    def cgroup_dirs(self) -> list[Path]:
        return list(self.cgroup.dirs.values()) if self.cgroup is not None else []

    # --------------------------------------------------------------------------- its end

    @property
    def pid(self) -> int:
        """The run's init, as the host sees it (killing it ends the run's pid namespace)."""
        with open(f"/proc/self/fdinfo/{self._pidfd}") as handle:
            for line in handle:
                if line.startswith("Pid:"):
                    return int(line.split()[1])
        raise ProcessLookupError("the run has no pid")

    def _enter_cgroup(self, limits: Limits) -> None:
        """Move the run's init and runner into a new cgroup of their own, before any student code runs.

        Airtight because both are still our code: the init only forked the runner and now waits, and the
        runner forks nothing before its first request, which is sent after this. Everything the solution
        forks later inherits the cgroup. Root on the host may move a process of another pid and user
        namespace: it is named by its host pid, which the pidfd (init) and the kernel-stamped sender
        credentials of the runner's "ready" message (runner) give.
        """
        self.cgroup = cgroups.create_run(limits)
        if self.cgroup is None:
            return  # fallback (no usable hierarchy), already logged and shown by mlkata doctor
        init = self.pid
        if not self.runner_pid or _parent_of(self.runner_pid) != init:
            raise SandboxUnavailable(f"cannot tell the run's runner process (sender pid {self.runner_pid})")
        try:
            self.cgroup.add(init)
            self.cgroup.add(self.runner_pid)
        except cgroups.CgroupError as exc:
            raise SandboxUnavailable(str(exc)) from None

    def _note(self, message: Message) -> None:
        """Keep what a control message says about how the run, or its zygote, finished."""
        if message.get("ended") or (message.get("init_ended") and self._ended is None):
            self._ended = message
        if message.get("done"):
            self._zygote_done = True

    def _await(self, done: bool, seconds: float) -> bool:
        """Read control messages until the run has ended (and, if ``done``, the zygote is idle)."""
        deadline = time.monotonic() + seconds
        while self._ended is None or (done and not self._zygote_done):
            if self._zygote_done and self._ended is None:
                return False
            try:
                message, fds = self.zygote.receive(deadline)
            except ZygoteLost:
                return False
            for fd in fds:
                os.close(fd)
            self._note(message)
        return True

    def ending(self) -> RunnerDied:
        """The reply pipe closed: how the runner ended, from its wait status, CPU time and cgroup."""
        if not self._await(done=False, seconds=_END_TIMEOUT):
            return RunnerDied(Ending.MALFORMED_REPLY, detail="the reply channel was closed")
        status = (self._ended or {}).get("status")
        if not isinstance(status, int):
            return RunnerDied(Ending.MALFORMED_REPLY, detail="the run ended without a status")
        cpu = (self._ended or {}).get("cpu")
        cpu_seconds = float(cpu) if isinstance(cpu, int | float) else 0.0
        if self._cpu is not None:
            self._cpu.ended_with(cpu_seconds)  # the runner's and its waited-for children's (the init reports it)
        if os.WIFEXITED(status):
            return ended(exit_code=os.WEXITSTATUS(status), signum=None, cpu_seconds=cpu_seconds, limits=self.limits,
                         oom=None)  # fmt: skip
        oom = self.cgroup.oom_killed() if self.cgroup is not None else None
        return ended(exit_code=None, signum=os.WTERMSIG(status), cpu_seconds=cpu_seconds, limits=self.limits, oom=oom)

    def kill(self) -> None:
        """Kill the run's init, and so every process in the run's pid namespace; wait for it."""
        if self._pidfd >= 0 and self._ended is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            self._await(done=False, seconds=_END_TIMEOUT)
        if self.cgroup is not None:
            self.cgroup.kill()  # a second mechanism, whatever the pid namespace kill left

    def close_soon(self) -> None:
        """Kill the run now; wait for its end and tidy up (zygote, cgroup) in the background.

        The SIGKILL to the run's init ends every process of the run at once, so nothing of the
        solution runs on; confirming that and removing the cgroup is bookkeeping the submission's
        result need not wait for.
        """
        if self._pidfd >= 0 and self._ended is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        self._unpin()  # on this thread: it gives the grading thread its affinity back
        self._pool.tidy_up(self.close)

    def close(self) -> None:
        if self._pidfd >= 0:
            self.kill()
            healthy = self._await(done=True, seconds=_END_TIMEOUT)
            os.close(self._pidfd)
            self._pidfd = -1
            self._pool.release(self.zygote, healthy=healthy)
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        self._close_pipes()
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        self._unpin()

    def _unpin(self) -> None:
        if self._pinned is not None:
            cores.default_assignment().release(self._pinned)
            self._pinned = None

    def _close_pipes(self) -> None:
        for fd in self._pipes:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._pipes = []


def _readable(fd: int) -> bool:
    readable, _, _ = select.select([fd], [], [], 0)
    return bool(readable)


def _parent_of(pid: int) -> int:
    """A process's parent pid, from the grader's /proc (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("PPid:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
