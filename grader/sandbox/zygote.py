"""The grader's side of a zygote: a long-lived sandboxed process with numpy loaded (``runner/jail/``).

It runs in the same bubblewrap jail as a cold runner, under a uid slot of its own, and forks one
fresh run per request sent over its control socket. It never runs student code itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from grader.sandbox.bwrap import jail_command, zygote_program
from grader.sandbox.endings import SandboxUnavailable
from grader.sandbox.limits import Limits
from grader.sandbox.policy import ENVIRONMENT, ZYGOTE_OPEN_FILES, ZYGOTE_PROCESSES, RunPolicy
from grader.sandbox.uids import UidSlot, acquire_uid_slot

_START_TIMEOUT = 15.0
_MAX_MESSAGE = 1 << 16
_UCRED = struct.Struct("iII")  # struct ucred: pid, uid, gid
Message = dict[str, object]
#: Zygotes are started from this one thread, which lives as long as the grader: bubblewrap's
#: --die-with-parent (PR_SET_PDEATHSIG) fires when the *thread* that started it ends, and a zygote
#: outlives the grading thread that needed it first, serving other threads' runs.
_starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mlkata-zygote-start")


class ZygoteLost(RuntimeError):
    """The zygote died, or stopped answering; it must be replaced."""


class Exiting(RuntimeError):
    """The grader's process is exiting (its starter thread is shut down): no zygote is started any more."""


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
            try:
                started = _starter.submit(
                    subprocess.Popen,
                    _zygote_command(self.slot, theirs.fileno()),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    pass_fds=(theirs.fileno(),),
                    start_new_session=True,
                    env={k: v for k, v in ENVIRONMENT.items() if k != "HOME"},
                )
            except RuntimeError as exc:  # what submit raises once the interpreter's exit has shut the executor down
                raise Exiting(str(exc)) from None
            self._process = started.result()
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

    def send(self, message: Message, fds: list[int]) -> None:
        try:
            socket.send_fds(self._socket, [json.dumps(message).encode()], fds)
        except OSError as exc:
            raise ZygoteLost(str(exc)) from None

    def receive(self, deadline: float) -> tuple[Message, list[int]]:
        """The next message from the zygote or a run it forked, with any descriptors it carries."""
        message, fds, _sender = self.receive_from(deadline)
        return message, fds

    def receive_from(self, deadline: float) -> tuple[Message, list[int], int]:
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
            _close_all(fds)
            raise ZygoteLost("the zygote closed its control socket")
        try:
            message = json.loads(data)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            _close_all(fds)
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


def _zygote_command(slot: UidSlot, control_fd: int) -> list[str]:
    """The jail running ``runner/jail/__main__.py``: limits for a long-lived parent (each run sets its own)."""
    scratch = RunPolicy.of(Limits()).scratch_bytes  # the zygote's own /tmp, which no run sees
    prlimit = shutil.which("prlimit") or "prlimit"
    limits = [f"--nproc={ZYGOTE_PROCESSES}", "--core=0", f"--nofile={ZYGOTE_OPEN_FILES}"]
    return [prlimit, *limits, "--", *jail_command(zygote_program(control_fd), scratch, slot)]


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)
