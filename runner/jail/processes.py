"""The processes of one run, each forked from the one before: the launcher, the run's init, and the runner.

The launcher makes the run's namespaces and mounts, forks the init, hands the grader a pidfd for
it and waits; the init (pid 1 of the run's pid namespace) mounts its own ``/proc``, forks the
runner and reports how it ended; the runner keeps only its pipes, sets its limits, loses every
privilege and serves requests. Each reports a failure of its own setup over the control socket.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import traceback
from collections.abc import Callable
from typing import Any

from runner.jail import descriptors, limits, messages, namespaces, privileges
from runner.jail.libc import PR_SET_DUMPABLE, PR_SET_PDEATHSIG, SetupError, prctl


def fork_child(control: socket.socket, fds: list[int], work: Callable[[], int], failure_code: int = 125) -> int:
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
            messages.report(control, exc)
        finally:
            os._exit(code)
    for fd in fds:
        os.close(fd)
    return child


def launch(control: socket.socket, message: bytes, fds: list[int], host_proc: str, zygote_pid: int) -> int:
    """In the launcher: make the namespaces, fork the run's init, hand over its pidfd, wait for it."""
    request = json.loads(message)  # here, not in the zygote: a malformed one is reported, not fatal
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    if os.getppid() != zygote_pid:
        return 1  # the zygote died before the death signal was armed
    # Out of the zygote's process group and session: a run that signals its group (kill(0, ...), or
    # killpg of a group it cannot even see, which the kernel takes as its own) must not reach the
    # zygote or this launcher, whose reports of how the run ended it would otherwise cut off.
    os.setsid()
    if len(fds) != 4:
        raise SetupError(f"expected 4 descriptors, got {len(fds)}")
    namespaces.enter(int(request["limits"]["scratch"]))
    init = fork_child(control, fds, lambda: _become_init(control, request, fds, host_proc))
    pidfd = os.pidfd_open(init)
    messages.send(control, {"started": True}, [pidfd])
    os.close(pidfd)
    _, status, _usage = os.wait4(init, 0)
    messages.send(control, {"init_ended": True, "status": status})
    return 0


def _become_init(control: socket.socket, request: dict[str, Any], fds: list[int], host_proc: str) -> int:
    """In pid 1 of the run's namespace: finish the jail, fork the runner, report how it ended.

    The runner is not pid 1 itself because the kernel shields pid 1 from signals it sends itself
    (``os.kill(os.getpid(), SIGSEGV)`` would do nothing). When this init exits, the kernel kills
    every process left in the namespace.
    """
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    prctl(PR_SET_DUMPABLE, 0, "PR_SET_DUMPABLE")  # the runner (same uid) may not ptrace its init
    namespaces.mount_own_proc(host_proc)
    os.chdir("/tmp")  # the new tmpfs: the old working directory was the zygote's /tmp
    runner = fork_child(control, fds, lambda: _become_runner(control, request, fds))
    while True:  # as init, also reap whatever the solution orphaned
        pid, status, usage = os.wait4(-1, 0)
        if pid == runner:
            messages.send(control, {"ended": True, "status": status, "cpu": usage.ru_utime + usage.ru_stime})
            return 0


def _become_runner(control: socket.socket, request: dict[str, Any], fds: list[int]) -> int:
    """In the runner (pid 2): keep only its pipes, set limits, lose every privilege, serve requests."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    os.setsid()  # a session and group of its own, like the cold runner (bwrap --new-session)
    descriptors.arrange(fds)
    limits.apply(request["limits"])
    messages.send(control, {"ready": True})
    control.detach()  # closed just below; the object must not close that number again later
    os.closerange(descriptors.REPLY_FD + 1, 1 << 16)  # the control socket included: the run keeps only its pipes
    import numpy

    numpy.random.seed()  # children of one zygote would otherwise share the legacy global RNG state
    privileges.drop(request.get("seccomp"))
    from runner import main as runner_main

    try:
        return runner_main.serve(descriptors.REQUEST_FD, descriptors.REPLY_FD, int(request["max_request"]))
    except BaseException:  # noqa: BLE001  (the solution may have rewritten the runner; the grader sees the run end)
        # As a cold runner's Python would: the traceback on stderr, exit status 1. Not reported over the
        # control socket, which this process no longer has (and the filter would refuse the attempt).
        traceback.print_exc()
        return 1
