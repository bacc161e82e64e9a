"""The warm path: runs forked from a pre-started, sandboxed zygote instead of a fresh Python.

A cold run pays ~100 ms of Python and numpy start-up. Here a :class:`ZygotePool` keeps a few
zygotes (``runner/zygote.py``) alive, each in today's bubblewrap jail under its own uid slot, with
numpy already imported. Per submission, :class:`WarmRunnerProcess` hands a zygote four new pipes
over a control socket (``SCM_RIGHTS``); the zygote forks a launcher that makes fresh user, mount,
pid, net, IPC, UTS and cgroup namespaces, and in them an init (pid 1) and the runner itself, which
takes its own rlimits, drops every capability, installs the seccomp filter and serves requests
exactly like a cold runner. The grader gets a pidfd for that init: killing it kills the run's whole
pid namespace. The init reports how the runner ended (wait status and CPU time), so verdicts
are the same as on the cold path.

A zygote serves one run at a time (so each concurrent run still has a uid of its own), is
replaced when it dies, and never runs student code itself.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import logging
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from grader import cgroups, cores, sandbox, seccomp_policy
from grader.limits import Limits
from grader.sandbox import (
    CapturedOutput,
    Ending,
    RunnerDied,
    RunnerProcess,
    SandboxUnavailable,
    require_sandbox,
)
from grader.sandbox_uids import UidSlot, acquire_uid_slot

log = logging.getLogger(__name__)
_pinning_refused = threading.Event()  # no CAP_SYS_NICE: pin nothing from then on

#: Where the zygote sees the host's /proc (read-only). The kernel lets a user namespace mount a new
#: proc only while some proc mount is fully visible, and bubblewrap's own ``--proc`` has
#: sub-mounts over /proc/sys and others, which would be locked. Each run covers this path.
HOST_PROC = "/opt/mlkata/hostproc"
POOL_SIZE = 8
SPARE_RUNS = 1
_ZYGOTE_NPROC = 4096
_START_TIMEOUT = 15.0
_SETUP_TIMEOUT = 10.0
_END_TIMEOUT = 2.0
_MAX_MESSAGE = 1 << 16
_UCRED = struct.Struct("iII")  # struct ucred: pid, uid, gid


class ZygoteLost(RuntimeError):
    """The zygote died, or stopped answering; it must be replaced."""


class NoIdleZygote(RuntimeError):
    """Every zygote is busy and the pool is full (a spare run is then not started)."""


class Zygote:
    """One sandboxed zygote process and the control socket to it."""

    def __init__(self) -> None:
        if os.geteuid() != 0:
            raise SandboxUnavailable("the warm path needs root (a uid slot per zygote)")
        self.slot: UidSlot = acquire_uid_slot()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # Every message then carries its sender's pid, translated by the kernel into our pid namespace:
        # that is how the grader learns the host pid of a run's runner, to move it into the run's cgroup.
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self._socket = ours
        try:
            command = _zygote_command(self.slot, theirs.fileno())
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
                env=sandbox._runner_environment(),
            )
        except BaseException:
            ours.close()
            self.slot.release()
            raise
        finally:
            theirs.close()
        try:
            message, _ = self.receive(time.monotonic() + _START_TIMEOUT)
        except ZygoteLost:
            self.stop()
            raise SandboxUnavailable("the zygote did not start") from None
        if not message.get("ready"):
            self.stop()
            raise SandboxUnavailable(f"the zygote did not start: {message}")

    @property
    def pid(self) -> int:
        return self._process.pid

    def alive(self) -> bool:
        return self._process.poll() is None

    def fileno(self) -> int:
        return self._socket.fileno()

    def send(self, message: dict[str, object], fds: list[int]) -> None:
        try:
            socket.send_fds(self._socket, [json.dumps(message).encode()], fds)
        except OSError as exc:
            raise ZygoteLost(str(exc)) from None

    def receive(self, deadline: float) -> tuple[dict[str, object], list[int]]:
        """The next message from the zygote or a run it forked, with any descriptors it carries."""
        message, fds, _sender = self.receive_from(deadline)
        return message, fds

    def receive_from(self, deadline: float) -> tuple[dict[str, object], list[int], int]:
        """:meth:`receive`, and the sender's pid as the grader sees it (0 if the kernel gave none)."""
        remaining = deadline - time.monotonic()
        ready, _, _ = select.select([self._socket], [], [], max(remaining, 0.0))
        if not ready:
            raise ZygoteLost("no message in time")
        try:
            data, ancillary, _flags, _addr = self._socket.recvmsg(
                _MAX_MESSAGE, socket.CMSG_SPACE(4 * 4) + socket.CMSG_SPACE(_UCRED.size)
            )
        except OSError as exc:
            raise ZygoteLost(str(exc)) from None
        fds: list[int] = []
        sender = 0
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += list(struct.unpack(f"{len(payload) // 4}i", payload[: len(payload) // 4 * 4]))
            elif level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(payload) >= _UCRED.size:
                sender = _UCRED.unpack(payload[: _UCRED.size])[0]
        if not data:
            for fd in fds:
                os.close(fd)
            raise ZygoteLost("the zygote closed its control socket")
        try:
            message = json.loads(data)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            for fd in fds:
                os.close(fd)
            raise ZygoteLost("malformed control message")
        return message, fds, sender

    def stop(self) -> None:
        """Kill the zygote's sandbox (and every run still in it), and free its uid."""
        if self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
        self._socket.close()
        self.slot.release()


class ZygotePool:
    """Up to ``size`` zygotes, each lent to one run at a time; safe to use from many threads."""

    def __init__(self, size: int = POOL_SIZE, spares: int = SPARE_RUNS) -> None:
        self.size = size
        self._idle: list[Zygote] = []
        self._count = 0  # idle, lent out, or starting
        self._waiting = 0  # submissions blocked in acquire(): spares must not take zygotes from them
        self._closed = False
        self._changed = threading.Condition()
        self.spares = SpareRuns(self, spares)
        self._tidying = _Background("mlkata-close-runs")

    def try_acquire(self) -> Zygote | None:
        """An idle zygote, or a new one if the pool has room; ``None`` rather than waiting."""
        with self._changed:
            if self._closed or self._waiting:
                return None
            zygote = self._idle_zygote_locked()
            if zygote is not None:
                return zygote
            if self._count >= self.size:
                return None
            self._count += 1
        return self._new_zygote()

    def acquire(self) -> Zygote:
        """A live, idle zygote; start one if fewer than ``size`` exist, else wait for one."""
        with self._changed:
            while True:
                if self._closed:
                    raise SandboxUnavailable("the zygote pool is closed")
                zygote = self._idle_zygote_locked()
                if zygote is not None:
                    return zygote
                if self._count < self.size:
                    self._count += 1
                    break
                self._waiting += 1
                try:
                    self._changed.wait()
                finally:
                    self._waiting -= 1
        return self._new_zygote()

    def _idle_zygote_locked(self) -> Zygote | None:
        """An idle zygote that is still alive (dead ones are dropped); the caller holds the lock."""
        while self._idle:
            zygote = self._idle.pop()
            if zygote.alive():
                return zygote
            self._count -= 1
            zygote.stop()
        return None

    def _new_zygote(self) -> Zygote:
        """Start a zygote in a slot already counted; give the slot back if it fails."""
        try:
            return Zygote()
        except BaseException:
            with self._changed:
                self._count -= 1
                self._changed.notify()
            raise

    def release(self, zygote: Zygote, *, healthy: bool) -> None:
        """Take a zygote back; a broken one is stopped and will be replaced on demand."""
        with self._changed:
            keep = healthy and not self._closed and zygote.alive()
            if keep:
                self._idle.append(zygote)
            else:
                self._count -= 1
            self._changed.notify()
        if not keep:
            zygote.stop()

    def tidy_up(self, work: Callable[[], None]) -> None:
        """Run ``work`` (a killed run's tidying up) on a background thread."""
        self._tidying.submit(work)

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until killed runs are tidied up and no spare is being started."""
        return self._tidying.settle(timeout) and self.spares.settle(timeout)

    def close(self) -> None:
        self.spares.close()
        self._tidying.settle(_END_TIMEOUT * 4)
        with self._changed:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
            self._changed.notify_all()
        for zygote in idle:
            zygote.stop()


class SpareRuns:
    """Runs started before any submission needs them, so a grade does not wait for one to start.

    Starting a run (fork, namespaces, mounts, cgroup, seccomp) costs about as much as the checks of
    a small exercise. Up to ``count`` spares wait, each for the limits of the exercise last graded
    with them (exercises mostly share the default limits); taking one asks a background thread to
    start the next, and a spare for other limits makes way for it. A spare has run no student code
    and is used by exactly one submission, like any run; a spare that is no longer pristine (it
    ended, its zygote died, or it sent something unasked) is closed, never handed out. Spares
    start only on idle zygotes that no submission is waiting for, and hold at most ``count``.
    """

    def __init__(self, pool: ZygotePool, count: int) -> None:
        self.count = count
        self._pool = pool
        self._ready: list[WarmRunnerProcess] = []  # oldest first
        self._wanted: Limits | None = None
        self._closed = False
        self._starting = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def take(self, limits: Limits) -> WarmRunnerProcess | None:
        """A pristine spare run with these limits, if one is ready; start its successor either way."""
        if self.count <= 0:
            return None
        with self._changed:
            run = next((r for r in reversed(self._ready) if r.limits == limits), None)
            if run is not None:
                self._ready.remove(run)
            self._want(limits)
        if run is not None and not (run.unused_and_alive() and run.cgroup_host() is _current_cgroup_host()):
            run.close()  # also one started before the host's cgroups were looked at again (tests do that)
            return None
        return run

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until no spare is being started (so the spares' processes and cgroups are all known)."""
        with self._changed:
            return self._changed.wait_for(
                lambda: self._closed or (self._wanted is None and not self._starting), timeout
            )

    def process_ids(self) -> set[int]:
        """Host pids of the spares' processes (which exist with no submission)."""
        pids: set[int] = set()
        for run in self._runs():
            with contextlib.suppress(OSError, ProcessLookupError):
                pids |= run.process_ids()
        return pids

    def cgroup_dirs(self) -> set[str]:
        """The spares' cgroup directories."""
        return {str(path) for run in self._runs() for path in run.cgroup_dirs()}

    def _runs(self) -> list[WarmRunnerProcess]:
        with self._changed:
            return list(self._ready)

    def close(self) -> None:
        with self._changed:
            self._closed = True
            runs, self._ready = self._ready, []
            self._changed.notify_all()
        for run in runs:
            run.close()
        if self._thread is not None:
            self._thread.join(_SETUP_TIMEOUT)  # a spare being started closes itself when it is up

    def _want(self, limits: Limits) -> None:
        self._wanted = limits
        if self._thread is None:
            self._thread = threading.Thread(target=self._start_wanted, name="mlkata-spare-runs", daemon=True)
            self._thread.start()
        self._changed.notify_all()

    def _start_wanted(self) -> None:
        while True:
            evicted: WarmRunnerProcess | None = None
            with self._changed:
                while self._wanted is None and not self._closed:
                    self._changed.wait()
                if self._closed:
                    return
                limits, self._wanted = self._wanted, None
                if any(run.limits == limits for run in self._ready):
                    self._changed.notify_all()
                    continue
                if len(self._ready) >= self.count:
                    evicted = self._ready.pop(0)  # spares hold at most ``count`` zygotes
                self._starting = True
            if evicted is not None:
                evicted.close()
            run: WarmRunnerProcess | None = None
            try:
                run = WarmRunnerProcess(limits, pool=self._pool, wait_for_zygote=False)
            except NoIdleZygote:
                pass  # busy: the next submission starts its own run, and asks again
            except Exception:
                log.exception("a spare run did not start")
            with self._changed:
                self._starting = False
                if run is not None and not self._closed:
                    self._ready.append(run)
                    run = None
                self._changed.notify_all()
            if run is not None:
                run.close()


class _Background:
    """One daemon thread doing submitted work in order; :meth:`settle` waits until it is idle."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._work: list[Callable[[], None]] = []
        self._busy = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, work: Callable[[], None]) -> None:
        with self._changed:
            self._work.append(work)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def settle(self, timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: not (self._work or self._busy), timeout)

    def _loop(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._work))
                work = self._work.pop(0)
                self._busy = True
            try:
                work()
            except Exception:
                log.exception("tidying up a run failed")
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()


def _current_cgroup_host() -> cgroups.Host | None:
    found = cgroups.status()
    return found if isinstance(found, cgroups.Host) else None


_default_pool: ZygotePool | None = None
_default_pool_lock = threading.Lock()


def default_pool() -> ZygotePool:
    """The process-wide pool, made on first use."""
    global _default_pool
    with _default_pool_lock:
        if _default_pool is None:
            _default_pool = ZygotePool()
        return _default_pool


class WarmRunnerProcess(RunnerProcess):
    """A runner forked from a zygote, with the interface of :class:`RunnerProcess`.

    The request/reply/output loop is inherited; starting, killing and learning how the run ended
    go through the zygote's control socket and a pidfd of the run's init.
    """

    def __init__(self, limits: Limits, *, pool: ZygotePool | None = None, wait_for_zygote: bool = True) -> None:
        self.limits = limits
        self.output = CapturedOutput(limit=limits.output_kb * 1024)
        self._slot = None
        self._cpu_seconds = 0.0
        self._pool = pool or default_pool()
        self._ended: dict[str, object] | None = None
        self._zygote_done = False
        self._pidfd = -1
        self._runner_pid = 0
        self._cgroup: cgroups.RunCgroup | None = None
        self._pinned: cores.PinnedThread | None = None
        for attempt in range(2):
            zygote = self._pool.acquire() if wait_for_zygote else self._pool.try_acquire()
            if zygote is None:
                raise NoIdleZygote
            self._zygote = zygote
            try:
                self._start(limits)
                break
            except ZygoteLost as exc:
                # A zygote that died while idle is replaced once; a second failure is real.
                self._pool.release(self._zygote, healthy=False)
                self._close_pipes()
                if attempt:
                    raise SandboxUnavailable(f"the zygote failed to start a run: {exc}") from None
            except BaseException:
                self._pool.release(self._zygote, healthy=False)
                self._close_pipes()
                raise
        try:
            self._enter_cgroup(limits)
        except BaseException:
            self.close()
            raise
        self._watch_pipes(self._stdout_r, self._stderr_r)

    def _start(self, limits: Limits) -> None:
        request_r, self._request_w = sandbox.message_pipe()
        self._reply_r, reply_w = sandbox.message_pipe()
        self._stdout_r, stdout_w = os.pipe()
        self._stderr_r, stderr_w = os.pipe()
        scratch = limits.scratch_mb << 20
        message = {
            "limits": {
                "memory": limits.memory_mb << 20,
                "cpu": limits.cpu_seconds,
                # The launcher, the init and the runner count too, within the run's user namespace.
                "nproc": limits.processes + 3,
                "fsize": scratch,
                "nofile": 64,
                "scratch": scratch,
            },
            "max_request": sandbox._MAX_REQUEST_BYTES,
            "seccomp": _seccomp_program(),
        }
        try:
            self._zygote.send(message, [request_r, reply_w, stdout_w, stderr_w])
        finally:
            for fd in (request_r, reply_w, stdout_w, stderr_w):
                os.close(fd)
        deadline = time.monotonic() + _SETUP_TIMEOUT
        ready = False
        while self._pidfd < 0 or not ready:
            message, fds, sender = self._zygote.receive_from(deadline)
            if message.get("started") and len(fds) == 1:
                self._pidfd = fds[0]
                continue
            for fd in fds:
                os.close(fd)
            if message.get("ready"):
                ready = True
                self._runner_pid = sender  # only the runner sends "ready" once the zygote is up
            elif "error" in message:
                raise ZygoteLost(f"setting up the run failed: {message['error']}")
            else:
                self._note(message)
                if self._zygote_done or self._ended is not None:
                    raise ZygoteLost(f"the run ended while starting: {message}")

    def attach(self) -> None:
        """Pin the calling thread, which will talk to this run, and the run to one CPU (see grader/cores.py)."""
        if _pinning_refused.is_set():
            return
        self._pinned = cores.default_assignment().pin_current_thread()
        cpu = self._pinned.cpu
        if cpu is None:
            return  # a busy process: the scheduler places this run
        try:
            for pid in (self.pid, self._runner_pid):
                os.sched_setaffinity(pid, {cpu})
        except OSError as exc:
            # A pinned thread with an unpinned run would be worse than neither: undo.
            self._unpin()
            if exc.errno == errno.EPERM and not _pinning_refused.is_set():
                # Moving a process of another uid takes CAP_SYS_NICE, which a container may lack.
                _pinning_refused.set()
                log.warning("runs are not pinned to the grading thread's CPU (%s); grading works, only slower", exc)

    def unused_and_alive(self) -> bool:
        """Still waiting for its first request: nothing ended, nothing written, its zygote alive."""
        if self._ended is not None or self._pidfd < 0 or not self._zygote.alive():
            return False
        readable, _, _ = select.select([self._pidfd, self._reply_r, self._zygote.fileno()], [], [], 0)
        return not readable

    def process_ids(self) -> set[int]:
        """The host pids of the run's launcher, init and runner."""
        init = self.pid
        return {_parent_of(init), init, self._runner_pid}

    def cgroup_host(self) -> cgroups.Host | None:
        return self._cgroup.host if self._cgroup is not None else None

    def cgroup_dirs(self) -> list[Path]:
        return list(self._cgroup.dirs.values()) if self._cgroup is not None else []

    def _enter_cgroup(self, limits: Limits) -> None:
        """Move the run's init and runner into a new cgroup of their own, before any student code runs.

        Airtight because both are still our code: the init only forked the runner and now waits, and the
        runner forks nothing before its first request, which is sent after this. Everything the solution
        forks later inherits the cgroup. Root on the host may move a process of another pid and user
        namespace: it is named by its host pid, which the pidfd (init) and the kernel-stamped sender
        credentials of the runner's "ready" message (runner) give.
        """
        self._cgroup = cgroups.create_run(limits)
        if self._cgroup is None:
            return  # fallback (no usable hierarchy), already logged and shown by mlkata doctor
        init = self.pid
        if not self._runner_pid or _parent_of(self._runner_pid) != init:
            raise SandboxUnavailable(f"cannot tell the run's runner process (sender pid {self._runner_pid})")
        try:
            self._cgroup.add(init)
            self._cgroup.add(self._runner_pid)
        except cgroups.CgroupError as exc:
            raise SandboxUnavailable(str(exc)) from None

    def _note(self, message: dict[str, object]) -> None:
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
                message, fds = self._zygote.receive(deadline)
            except ZygoteLost:
                return False
            for fd in fds:
                os.close(fd)
            self._note(message)
        return True

    @property
    def pid(self) -> int:
        """The run's init, as the host sees it (killing it ends the run's pid namespace)."""
        with open(f"/proc/self/fdinfo/{self._pidfd}") as handle:
            for line in handle:
                if line.startswith("Pid:"):
                    return int(line.split()[1])
        raise ProcessLookupError("the run has no pid")

    def _died_unexpectedly(self) -> None:
        if not self._await(done=False, seconds=_END_TIMEOUT):
            self._die(Ending.MALFORMED_REPLY, "the reply channel was closed")
        self.kill()
        self.drain_output()
        raise _verdict(self._ended or {}, self.limits, self._cgroup.oom_killed() if self._cgroup is not None else None)

    def kill(self) -> None:
        """Kill the run's init, and so every process in the run's pid namespace; wait for it."""
        if self._pidfd >= 0 and self._ended is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            self._await(done=False, seconds=_END_TIMEOUT)
        if self._cgroup is not None:
            self._cgroup.kill()  # a second mechanism, whatever the pid namespace kill left

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
            self._pool.release(self._zygote, healthy=healthy)
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        self._close_pipes()
        with contextlib.suppress(AttributeError):
            self._selector.close()
        self._unpin()

    def _unpin(self) -> None:
        if self._pinned is not None:
            cores.default_assignment().release(self._pinned)
            self._pinned = None

    def _close_pipes(self) -> None:
        for name in ("_request_w", "_reply_r", "_stdout_r", "_stderr_r"):
            fd = getattr(self, name, -1)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
                setattr(self, name, -1)


def start_runner(limits: Limits, *, jailed: bool, warm: bool) -> RunnerProcess:
    """A runner for one solution: warm (forked from a zygote) when asked and possible, else cold.

    The warm path needs the jail and root; without them this falls back to the cold path.
    """
    if warm and jailed and os.geteuid() == 0:
        pool = default_pool()
        run = pool.spares.take(limits) or WarmRunnerProcess(limits, pool=pool)
        run.attach()
        return run
    return RunnerProcess(limits, jailed=jailed)


def _verdict(ended: dict[str, object], limits: Limits, oom: bool | None = None) -> RunnerDied:
    """The same verdicts as the cold path, from the runner's wait status, CPU time and cgroup."""
    status = ended.get("status")
    if not isinstance(status, int):
        return RunnerDied(Ending.MALFORMED_REPLY, detail="the run ended without a status")
    if os.WIFEXITED(status):
        return RunnerDied(Ending.EXITED, exit_code=os.WEXITSTATUS(status))
    signum = os.WTERMSIG(status)
    name = sandbox._signal_name(signum)
    cpu = ended.get("cpu")
    cpu_seconds = float(cpu) if isinstance(cpu, int | float) else 0.0
    cpu_limit = limits.cpu_seconds
    if signum == signal.SIGSYS:
        return RunnerDied(Ending.BLOCKED_SYSCALL, signal_name=name)
    if signum == signal.SIGXCPU or (signum == signal.SIGKILL and cpu_seconds >= cpu_limit - 0.05):
        return RunnerDied(Ending.CPU_LIMIT, signal_name=name)
    return RunnerDied(Ending.SIGNALLED, signal_name=name, oom=oom)


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


def _seccomp_program() -> str:
    """The cold path's seccomp filter, for the run to install itself."""
    return base64.b64encode(seccomp_policy.filter_bpf()).decode()


def _zygote_command(slot: UidSlot, control_fd: int) -> list[str]:
    """Today's jail command, running ``zygote.py`` instead of ``main.py``.

    Three differences: limits fit a long-lived parent (each run sets its own); the host's /proc is
    bound read-only at :data:`HOST_PROC`; and no seccomp filter on the zygote, which must still
    unshare and mount. Each run installs the filter itself once its namespaces are made.
    """
    runner_args = [str(control_fd), HOST_PROC]
    command = sandbox._jail_command(require_sandbox(), Limits(), slot, runner_args, seccomp_fd=-1)
    at = command.index("--seccomp")
    del command[at : at + 2]
    command[command.index(f"{sandbox._JAIL_RUNNER}/main.py")] = f"{sandbox._JAIL_RUNNER}/zygote.py"
    separator = command.index("--")
    command[separator:separator] = ["--ro-bind", "/proc", HOST_PROC]
    prlimit = shutil.which("prlimit") or "prlimit"
    return [prlimit, f"--nproc={_ZYGOTE_NPROC}", "--core=0", "--nofile=256", "--", *command]
