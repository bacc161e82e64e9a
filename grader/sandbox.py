"""Start the runner inside bubblewrap and talk to it. The only module that starts the sandbox.

The jail, when the grader runs as root (a server or a container):

* new pid, network, IPC, UTS and cgroup namespaces: no network at all, not even loopback;
* a read-only view of only the Python installation, numpy and the runner, under an empty root;
* a fresh size-capped tmpfs for ``/tmp`` and ``/dev/shm``, the only writable places;
* no ptys (an empty read-only ``/dev/pts``) and a seccomp allowlist of system calls;
* a cleared environment, a new session (no terminal to type into), killed with its parent;
* a real, unprivileged uid of its own (one per concurrent run, so process limits do not leak
  between runs), no capabilities, ``no_new_privs``;
* rlimits on address space, CPU time, processes, file size and open files.

As an ordinary user, bubblewrap makes a user namespace instead and the run keeps that user's uid.

The host never reads or writes a path the sandbox can write: values come back over a pipe and
the tmpfs vanishes with the run. Stopping a run kills bubblewrap, whose pid-1 init dies with it,
and the kernel then kills every process left in the pid namespace, daemons included.
"""

from __future__ import annotations

import contextlib
import enum
import fcntl
import importlib.util
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader import cgroups, seccomp_policy
from grader.limits import Limits
from grader.sandbox_uids import UidSlot, acquire_uid_slot
from runner import wire

RUNNER_DIR = Path(__file__).resolve().parent.parent / "runner"
_JAIL_RUNNER = "/opt/mlkata/runner"
_JAIL_SITE = "/opt/mlkata/site"
_MAX_REQUEST_BYTES = 256 << 20
_INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be started on this host; untrusted code must not run."""


class Ending(enum.Enum):
    """Why a runner stopped before answering."""

    TIMEOUT = "timeout"
    CPU_LIMIT = "cpu_limit"
    OUTPUT_LIMIT = "output_limit"
    REPLY_TOO_LARGE = "reply_too_large"
    MALFORMED_REPLY = "malformed_reply"
    EXITED = "exited"
    SIGNALLED = "signalled"
    BLOCKED_SYSCALL = "blocked_syscall"


@dataclass(frozen=True)
class RunnerDied(Exception):
    """The runner ended, or was stopped, before it sent a reply."""

    ending: Ending
    exit_code: int | None = None
    signal_name: str | None = None
    detail: str = ""
    #: The run's cgroup saw the kernel's OOM killer act (True), saw no OOM (False), or there is no cgroup (None).
    oom: bool | None = field(default=None, compare=False)


@dataclass
class CapturedOutput:
    """Student stdout and stderr, interleaved as read, capped at ``limit`` bytes."""

    limit: int
    chunks: list[bytes] = field(default_factory=list)
    size: int = 0
    exceeded: bool = False
    _taken: int = 0

    def add(self, data: bytes) -> bool:
        """Keep what fits; return False once the cap is passed."""
        room = self.limit - self.size
        if len(data) > room:
            self.chunks.append(data[: max(room, 0)])
            self.size = self.limit
            self.exceeded = True
            return False
        self.chunks.append(data)
        self.size += len(data)
        return True

    def take_new(self) -> str:
        """Output captured since the previous call."""
        text = b"".join(self.chunks[self._taken :]).decode("utf-8", "replace")
        self._taken = len(self.chunks)
        return text

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def require_sandbox() -> str:
    """Return the bwrap executable, or raise :class:`SandboxUnavailable` saying how to get it."""
    path = bwrap_path()
    if path is None:
        raise SandboxUnavailable(
            f"bubblewrap (bwrap) is not installed, so untrusted code cannot be run safely: {_INSTALL_HINT}. "
            "To grade your own files without a sandbox, pass --trusted."
        )
    return path


class RunnerProcess:
    """One runner process, jailed or not, and the pipes to it."""

    def __init__(self, limits: Limits, *, jailed: bool) -> None:
        self.limits = limits
        self.output = CapturedOutput(limit=limits.output_kb * 1024)
        self._slot: UidSlot | None = None
        request_r, self._request_w = message_pipe()
        self._reply_r, reply_w = message_pipe()
        os.set_inheritable(request_r, True)
        os.set_inheritable(reply_w, True)
        runner_args = [str(request_r), str(reply_w), str(_MAX_REQUEST_BYTES)]
        inherited = [request_r, reply_w]
        if jailed:
            self._slot = acquire_uid_slot() if os.geteuid() == 0 else None
            seccomp_fd = seccomp_policy.filter_fd()
            inherited.append(seccomp_fd)
            command = _jail_command(require_sandbox(), limits, self._slot, runner_args, seccomp_fd)
        else:
            command = [sys.executable, "-I", "-B", "-u", str(RUNNER_DIR / "main.py"), *runner_args]
        command = [*_rlimit_prefix(limits), *command]
        # The whole tree's cgroup, joined by a shell shim before prlimit and bwrap exec: nothing forks outside it.
        self._cgroup = cgroups.create_run(limits) if jailed else None
        command = [*self._cgroup.join_command(), *command] if self._cgroup is not None else command
        try:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=inherited,
                start_new_session=True,
                env=_runner_environment(),
            )
        except BaseException:
            if self._cgroup is not None:
                self._cgroup.remove()
            raise
        finally:
            for fd in inherited:
                os.close(fd)
        assert self._process.stdout is not None and self._process.stderr is not None
        self._cpu_seconds = 0.0
        self._watch_pipes(self._process.stdout.fileno(), self._process.stderr.fileno())

    def _watch_pipes(self, stdout_fd: int, stderr_fd: int) -> None:
        """Watch the reply pipe and the output pipes, then wait until the runner says it is ready."""
        self._streams = {stdout_fd: "stdout", stderr_fd: "stderr"}
        for fd in (self._request_w, self._reply_r, *self._streams):
            os.set_blocking(fd, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._reply_r, selectors.EVENT_READ)
        for fd in self._streams:
            self._selector.register(fd, selectors.EVENT_READ)
        self._open_streams = set(self._streams)
        self._await_ready()

    @property
    def pid(self) -> int:
        return self._process.pid

    def exchange(self, frame: bytes, deadline: float) -> bytearray:
        """Send one request frame and return the reply body; raise :class:`RunnerDied` otherwise.

        The body is read in place into memory of its own, which :func:`runner.wire.decode` can take over.
        """
        pending = memoryview(frame)
        # Most requests fit in the pipe at once: no need to wait for it to become writable.
        with contextlib.suppress(BlockingIOError, BrokenPipeError):
            pending = pending[os.write(self._request_w, pending) :]
        if pending:
            self._selector.register(self._request_w, selectors.EVENT_WRITE)
        reply = _Reply(self.limits.reply_mb << 20)
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._die(Ending.TIMEOUT)
                for key, _ in self._selector.select(timeout=remaining):
                    fd = key.fd
                    if fd == self._request_w:
                        try:
                            pending = pending[os.write(fd, pending) :]
                        except BrokenPipeError:
                            pending = pending[len(pending) :]
                        if not pending:
                            self._selector.unregister(fd)
                    elif fd == self._reply_r:
                        body = self._read_reply(reply)
                        if body is not None:
                            return body
                    else:
                        self._read_output(fd)
        finally:
            if pending and self._request_w in self._selector.get_map():
                self._selector.unregister(self._request_w)

    def _read_reply(self, reply: _Reply) -> bytearray | None:
        """Read what the reply pipe holds into ``reply``; its body once complete."""
        while True:
            missing = reply.missing
            try:
                n = os.readv(self._reply_r, [missing, reply.beyond] if reply.body is not None else [missing])
            except BlockingIOError:
                return None if missing else reply.body  # (an empty body is complete with its prefix)
            if n > len(missing):
                self._die(Ending.MALFORMED_REPLY, "bytes after the reply")
            if not n and missing:
                self._died_unexpectedly()
            if n < len(missing):
                reply.missing = missing[n:]
                return None  # the pipe is empty for now
            if reply.body is not None:
                return reply.body
            expected = wire.frame_length(reply.prefix)
            if expected > reply.cap:
                self._die(Ending.REPLY_TOO_LARGE, f"{expected} bytes")
            reply.body = bytearray(expected)
            reply.missing = memoryview(reply.body)

    def _read_output(self, fd: int) -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        if not chunk:
            self._selector.unregister(fd)
            self._open_streams.discard(fd)
            return
        if not self.output.add(chunk):
            self._die(Ending.OUTPUT_LIMIT)

    def drain_output(self, seconds: float = 0.05) -> None:
        """Collect output still in the pipes (after a reply, or after the process ended)."""
        end = time.monotonic() + seconds
        # At least one pass even when ``seconds`` is 0: output written before the reply is
        # already in the pipes and must not be missed.
        first_pass = True
        while self._open_streams and (first_pass or time.monotonic() < end):
            first_pass = False
            events = self._selector.select(timeout=max(0.0, end - time.monotonic()))
            ready = [key.fd for key, _ in events if key.fd in self._open_streams]
            if not ready:
                return
            for fd in ready:
                try:
                    self._read_output(fd)
                except RunnerDied:
                    return

    def _died_unexpectedly(self) -> None:
        """The reply pipe closed: the runner is gone or closed it. Say how it ended."""
        deadline = time.monotonic() + 2
        while self._process.poll() is None and time.monotonic() < deadline:
            try:
                pid, status, usage = os.wait4(self._process.pid, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                self._process.returncode = os.waitstatus_to_exitcode(status)
                self._cpu_seconds = usage.ru_utime + usage.ru_stime
                break
            time.sleep(0.005)
        if self._process.poll() is None:
            self._die(Ending.MALFORMED_REPLY, "the reply channel was closed")
        self.kill()
        self.drain_output()
        code = self._process.returncode
        # bwrap reports a child killed by signal N as exit status 128 + N.
        signum = -code if code < 0 else code - 128 if code > 128 else 0
        if not signum:
            raise RunnerDied(Ending.EXITED, exit_code=code)
        cpu_limit = self.limits.cpu_seconds
        if signum == signal.SIGSYS:
            raise RunnerDied(Ending.BLOCKED_SYSCALL, signal_name=_signal_name(signum))
        if signum == signal.SIGXCPU or (signum == signal.SIGKILL and self._cpu_seconds >= cpu_limit - 0.05):
            raise RunnerDied(Ending.CPU_LIMIT, signal_name=_signal_name(signum))
        oom = self._cgroup.oom_killed() if self._cgroup is not None else None
        raise RunnerDied(Ending.SIGNALLED, signal_name=_signal_name(signum), oom=oom)

    def _die(self, ending: Ending, detail: str = "") -> None:
        self.kill()
        self.drain_output()
        raise RunnerDied(ending, detail=detail)

    def _await_ready(self) -> None:
        """Wait for the runner's first message; raise :class:`SandboxUnavailable` if it never comes.

        Nothing of the solution runs before that message, so a runner that dies first means the
        sandbox itself could not start (a host without user namespaces, a container without the
        permissions bubblewrap needs, a broken Python): an infrastructure failure, never the
        solution's. Starting has its own deadline, and the run's time budget begins once it is up.
        """
        try:
            self.exchange(b"", time.monotonic() + START_SECONDS)
        except RunnerDied as died:
            detail = self.output.text().strip()[-2000:] or f"{died.ending.value} {died.exit_code or ''}".strip()
            self.close()
            raise SandboxUnavailable(f"the sandbox could not start: {detail}") from None
        self.output = CapturedOutput(limit=self.output.limit)

    def kill(self) -> None:
        """Kill the whole sandbox (bwrap, its init and so every process in its pid namespace)."""
        if self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
        if self._cgroup is not None:
            self._cgroup.kill()  # a second mechanism: every task of the run's cgroup, whatever its namespace

    def close_soon(self) -> None:
        """Close without making the caller wait for the tidying up (where the kind of run allows it)."""
        self.close()

    def close(self) -> None:
        self.kill()
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        for fd in (self._request_w, self._reply_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._selector.close()
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()
        if self._slot is not None:
            self._slot.release()
            self._slot = None


class _Reply:
    """A reply as it arrives: its 4-byte length prefix, then its body, each read in place."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.prefix = bytearray(4)
        self.body: bytearray | None = None
        self.missing = memoryview(self.prefix)  # the part of the prefix, then of the body, still to come
        self.beyond = bytearray(1)  # a byte read here means the runner sent more than it announced


PIPE_BYTES = 1 << 20
START_SECONDS = 30.0


def message_pipe() -> tuple[int, int]:
    """A pipe large enough that most requests and replies pass in one system call."""
    read_end, write_end = os.pipe()
    with contextlib.suppress(OSError):  # the host may cap pipe sizes lower (fs.pipe-max-size)
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    return read_end, write_end


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _rlimit_prefix(limits: Limits) -> list[str]:
    """``prlimit`` sets the limits before bwrap starts, so they hold for everything inside.

    (A ``preexec_fn`` would do the same but is unsafe in a threaded server.)
    """
    memory = limits.memory_mb << 20
    cpu = limits.cpu_seconds
    scratch = limits.scratch_mb << 20
    return [
        shutil.which("prlimit") or "prlimit",
        f"--as={memory}",
        f"--cpu={cpu}:{cpu + 1}",
        f"--nproc={limits.processes + 1}",
        f"--fsize={scratch}",
        "--core=0",
        "--nofile=64",
        "--",
    ]


def _runner_environment() -> dict[str, str]:
    # Nothing of the server's environment (database URLs, secret keys) reaches the runner.
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1"}


def _numpy_dirs() -> list[Path]:
    spec = importlib.util.find_spec("numpy")
    if spec is None or not spec.submodule_search_locations:
        raise SandboxUnavailable("numpy is not installed for the grader's Python")
    numpy_dir = Path(next(iter(spec.submodule_search_locations))).resolve()
    libs = numpy_dir.parent / "numpy.libs"
    return [numpy_dir, libs] if libs.is_dir() else [numpy_dir]


def _jail_command(
    bwrap: str, limits: Limits, slot: UidSlot | None, runner_args: list[str], seccomp_fd: int
) -> list[str]:
    python = Path(sys.executable).resolve()
    prefix = Path(sys.base_prefix).resolve()
    scratch = str(limits.scratch_mb << 20)
    command = [
        bwrap,
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session",
        "--ro-bind", "/usr", "/usr",
    ]  # fmt: skip
    for top in ("/bin", "/lib", "/lib64", "/lib32", "/sbin"):
        path = Path(top)
        if path.is_symlink():
            command += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            command += ["--ro-bind", top, top]
    binds = [(prefix, prefix)] if not prefix.is_relative_to("/usr") else []
    if not python.is_relative_to(prefix) and not python.is_relative_to("/usr"):
        binds.append((python, python))
    binds += [(directory, Path(_JAIL_SITE, directory.name)) for directory in _numpy_dirs()]
    binds.append((RUNNER_DIR, Path(_JAIL_RUNNER)))
    created: set[Path] = set()
    for source, target in binds:
        # bwrap would create missing parents as root-only (0700); the run's uid must traverse them.
        for parent in reversed(target.parents[:-1]):
            if parent not in created:
                created.add(parent)
                command += ["--perms", "0755", "--dir", str(parent)]
        command += ["--ro-bind", str(source), str(target)]
    command += [
        "--proc", "/proc",
        "--dev", "/dev",
        # No ptys: every devpts instance's ptys count against the host's kernel.pty.max. An empty
        # read-only /dev/pts leaves /dev/ptmx (a link to pts/ptmx) dangling, so openpty() fails.
        "--size", "4096", "--perms", "0555", "--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts",
        "--size", scratch, "--perms", "1777", "--tmpfs", "/tmp",
        "--size", scratch, "--perms", "1777", "--tmpfs", "/dev/shm",
        "--chdir", "/tmp",
        "--seccomp", str(seccomp_fd),
        "--clearenv",
        "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "HOME", "/tmp",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "OPENBLAS_NUM_THREADS", "1",
    ]  # fmt: skip
    interpreter = [str(python), "-I", "-S", "-B", "-u", f"{_JAIL_RUNNER}/main.py", *runner_args, _JAIL_SITE]
    if slot is None:
        # Not root: bubblewrap makes a user namespace and the run keeps the caller's own uid.
        return [*command, "--unshare-user", "--uid", "65534", "--gid", "65534", "--", *interpreter]
    # Root: keep just enough capability to drop to the run's own unprivileged uid, then lose it all.
    return [
        *command,
        "--cap-add", "CAP_SETUID,CAP_SETGID,CAP_SETPCAP",
        "--",
        shutil.which("setpriv") or "/usr/bin/setpriv",
        f"--reuid={slot.uid}", f"--regid={slot.uid}", "--clear-groups",
        "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
        "--",
        *interpreter,
    ]  # fmt: skip
