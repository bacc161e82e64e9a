"""The zygote: a long-lived, sandboxed process with numpy loaded that forks one fresh run per submission.

It is started by ``grader/sandbox/zygote.py`` inside the same bubblewrap jail as a cold runner (read-only
Python, numpy and runner; no network; cleared environment; an unprivileged uid; no capabilities;
``no_new_privs``). It never runs student code itself: it has read nothing but Python, numpy and
this directory, and holds no secrets.

Per request (on the control socket named on its command line: four pipe fds by ``SCM_RIGHTS``
and the run's limits) it forks a *launcher*, which makes new user, mount, pid, network, IPC, UTS and
cgroup namespaces (mapping only its own uid and gid), mounts a fresh size-capped tmpfs on ``/tmp``
and ``/dev/shm`` and an empty read-only one on ``/dev/pts`` (no ptys), forks the run's *init* (pid 1
of the new pid namespace), hands the grader a pidfd for it and waits. The init mounts a read-only
``/proc`` of its own, hides the host ``/proc`` the kernel needed to allow that, forks the *runner*
and reports how the runner ended (wait status, CPU time). The runner keeps only its four pipes,
sets its rlimits, drops every capability, installs the seccomp filter and serves requests with
``runner/main.py``'s loop. Killing the init kills the whole namespace. Nothing one run leaves
(files, processes, module state) is seen by the next.

Usage: ``python -I -S -B -u zygote.py CONTROL_FD HOST_PROC_DIR [SYS_PATH ...]``

Only the standard library and numpy: this runs inside the sandbox and must not import the grader.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import functools
import gc
import json
import os
import resource
import signal
import socket
import sys
import traceback
from collections.abc import Callable
from typing import Any, ClassVar

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REC, MS_PRIVATE = 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_CAP_AMBIENT = (
    1,
    4,
    24,
    38,
    22,
    47,
)
PR_CAP_AMBIENT_CLEAR_ALL, SECCOMP_MODE_FILTER = 4, 2
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
#: fds of a run: the runner's request and reply pipes sit at 3 and 4, as the cold runner is told.
REQUEST_FD, REPLY_FD = 3, 4
_MAX_MESSAGE = 1 << 16

_libc = ctypes.CDLL(None, use_errno=True)


class SetupError(RuntimeError):
    """A step of building the run's sandbox failed; the run must not start."""


class _SockFprog(ctypes.Structure):
    _fields_: ClassVar[list[tuple[str, Any]]] = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(errno)} (errno {errno})")


def _prctl(option: int, arg: int, what: str) -> None:
    _check(_libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), what)


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc.mount(
        source.encode(), target.encode(), fstype.encode() if fstype else None, flags, data.encode() if data else None
    )
    _check(result, f"mount {fstype or 'flags'} on {target}")


def _send(control: socket.socket, message: dict[str, Any], fds: list[int] | tuple[int, ...] = ()) -> None:
    socket.send_fds(control, [json.dumps(message).encode()], list(fds))


def main(argv: list[str]) -> int:
    control_fd, host_proc = int(argv[1]), argv[2]
    # The folder holding the ``runner`` package, and numpy's.
    sys.path[:0] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *argv[3:]]
    # One thread only: a multi-threaded process cannot unshare a user namespace.
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    # The point of the zygote: children start with numpy loaded. numpy.random too: numpy loads it
    # lazily, and every run reseeds it (importing it cost each run 10 ms).
    import numpy.random  # noqa: F401

    from runner import main as runner_main  # noqa: F401  (the run loop, loaded once for every child)
    from runner import wire  # noqa: F401

    # Children would otherwise copy (on write) and re-scan everything loaded so far at each collection.
    gc.freeze()
    control = socket.socket(fileno=control_fd)
    _send(control, {"ready": True})
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(control, _MAX_MESSAGE, 8)
        except ConnectionResetError:
            return 0
        if not data:
            return 0  # the grader closed the control socket: stop
        zygote_pid = os.getpid()
        launcher = _fork_child(control, fds, functools.partial(_launch, control, data, fds, host_proc, zygote_pid), 1)
        _, status = os.waitpid(launcher, 0)
        try:
            _send(control, {"done": True, "launcher_status": status})
        except (BrokenPipeError, ConnectionResetError):
            return 0  # the grader has gone (it is exiting): so do we, quietly


def _fork_child(control: socket.socket, fds: list[int], work: Callable[[], int], failure_code: int = 125) -> int:
    """Fork a child that runs ``work`` and exits with its code, telling the grader of any exception.

    In the parent, close ``fds`` (only the run may hold its pipes, or the grader never sees them
    close) and return the child's pid.
    """
    child = os.fork()
    if child == 0:
        code = failure_code
        try:
            code = work()
        except BaseException as exc:  # noqa: BLE001  (whatever it is, report it and never return)
            _report(control, exc)
        finally:
            os._exit(code)
    for fd in fds:
        os.close(fd)
    return child


def _report(control: socket.socket, exc: BaseException) -> None:
    with contextlib.suppress(BaseException):  # nothing left to tell it with
        _send(control, {"error": f"{type(exc).__name__}: {exc}"})


def _launch(control: socket.socket, message: bytes, fds: list[int], host_proc: str, zygote_pid: int) -> int:
    """In the launcher: make the namespaces, fork the run's init, hand over its pidfd, wait for it."""
    request = json.loads(message)  # here, not in the zygote: a malformed one is reported, not fatal
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    if os.getppid() != zygote_pid:
        return 1  # the zygote died before the death signal was armed
    # Out of the zygote's process group and session: a run that signals its group (kill(0, ...), or
    # killpg of a group it cannot even see, which the kernel takes as its own) must not reach the
    # zygote or this launcher, whose reports of how the run ended it would otherwise cut off.
    os.setsid()
    if len(fds) != 4:
        raise SetupError(f"expected 4 descriptors, got {len(fds)}")
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP
    _check(_libc.unshare(flags), "unshare")
    # Map only our own ids: inside, the run is the same unprivileged uid it is outside.
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    scratch = int(request["limits"]["scratch"])
    for target in ("/tmp", "/dev/shm"):
        _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={scratch},mode=1777")
    # No ptys: every devpts instance's ptys count against the host's kernel.pty.max. An empty read-only
    # /dev/pts leaves /dev/ptmx (a link to pts/ptmx) dangling, so openpty() fails with an ordinary error.
    _mount("tmpfs", "/dev/pts", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555")
    init = _fork_child(control, fds, lambda: _become_init(control, request, fds, host_proc))
    pidfd = os.pidfd_open(init)
    _send(control, {"started": True}, [pidfd])
    os.close(pidfd)
    _, status, _usage = os.wait4(init, 0)
    _send(control, {"init_ended": True, "status": status})
    return 0


def _become_init(control: socket.socket, request: dict[str, Any], fds: list[int], host_proc: str) -> int:
    """In pid 1 of the run's namespace: finish the jail, fork the runner, report how it ended.

    The runner is not pid 1 itself because the kernel shields pid 1 from signals it sends itself
    (``os.kill(os.getpid(), SIGSEGV)`` would do nothing). When this init exits, the kernel kills
    every process left in the namespace.
    """
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    _prctl(PR_SET_DUMPABLE, 0, "PR_SET_DUMPABLE")  # the runner (same uid) may not ptrace its init
    # The kernel allows a new proc mount in a user namespace only while an unobstructed proc is
    # visible: the host's, bound read-only at host_proc. Mount ours, then cover the host's.
    _mount("proc", "/proc", "proc", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _mount("tmpfs", host_proc, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555")
    os.chdir("/tmp")  # the new tmpfs: the old working directory was the zygote's /tmp
    runner = _fork_child(control, fds, lambda: _become_runner(control, request, fds))
    while True:  # as init, also reap whatever the solution orphaned
        pid, status, usage = os.wait4(-1, 0)
        if pid == runner:
            _send(control, {"ended": True, "status": status, "cpu": usage.ru_utime + usage.ru_stime})
            return 0


def _become_runner(control: socket.socket, request: dict[str, Any], fds: list[int]) -> int:
    """In the runner (pid 2): keep only its pipes, set limits, lose every privilege, serve requests."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    os.setsid()  # a session and group of its own, like the cold runner (bwrap --new-session)
    _arrange_fds(fds)
    _set_limits(request["limits"])
    _send(control, {"ready": True})
    control.detach()  # closed just below; the object must not close that number again later
    os.closerange(REPLY_FD + 1, 1 << 16)  # the control socket included: the run keeps only its pipes
    import numpy

    numpy.random.seed()  # children of one zygote would otherwise share the legacy global RNG state
    _drop_privileges(request.get("seccomp"))
    from runner import main as runner_main

    try:
        return runner_main.serve(REQUEST_FD, REPLY_FD, int(request["max_request"]))
    except BaseException:  # noqa: BLE001  (the solution may have rewritten the runner; the grader sees the run end)
        # As a cold runner's Python would: the traceback on stderr, exit status 1. Not reported over the
        # control socket, which this process no longer has (and the filter would refuse the attempt).
        traceback.print_exc()
        return 1


def _arrange_fds(fds: list[int]) -> None:
    """Put stdin on /dev/null, stdout/stderr on their pipes and the runner's pipes on 3 and 4."""
    request_r, reply_w, out_w, err_w = (os.dup(fd) for fd in fds)  # out of the way of 0-4
    for fd in fds:
        os.close(fd)
    null = os.open("/dev/null", os.O_RDONLY)
    for source, target in ((null, 0), (out_w, 1), (err_w, 2), (request_r, REQUEST_FD), (reply_w, REPLY_FD)):
        os.dup2(source, target, inheritable=target <= 2)
    for fd in {null, out_w, err_w, request_r, reply_w} - {0, 1, 2, REQUEST_FD, REPLY_FD}:
        os.close(fd)


def _set_limits(limits: dict[str, int]) -> None:
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


def _drop_privileges(seccomp_filter: str | None) -> None:
    """Lose every capability this run's user namespace granted, for good, then install seccomp."""
    cap = 0
    while _libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) == 0:
        cap += 1
    if ctypes.get_errno() != 22 or cap < 38:  # EINVAL past the last capability is the normal end
        raise SetupError(f"PR_CAPBSET_DROP stopped at {cap}: {os.strerror(ctypes.get_errno())}")
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, "clear ambient capabilities")
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: twice, all zero
    _check(_libc.capset(header, data), "capset")
    _prctl(PR_SET_NO_NEW_PRIVS, 1, "PR_SET_NO_NEW_PRIVS")
    if seccomp_filter:
        program = base64.b64decode(seccomp_filter)
        buffer = ctypes.create_string_buffer(program, len(program))
        fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
        _check(_libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog), 0, 0), "seccomp")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
