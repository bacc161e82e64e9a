"""Messages to the grader over the zygote's control socket: small JSON objects, with descriptors by ``SCM_RIGHTS``.

The zygote and every process of a run share the one socket (the runner closes it before it serves
a request); each says what it is reporting: ``ready``, ``started``, ``ended``, ``done`` or an ``error``.
"""

from __future__ import annotations

import contextlib
import json
import socket
from typing import Any

#: The largest request the zygote reads: the run's limits and seccomp filter, never the checks.
MAX_MESSAGE = 1 << 16
#: The most descriptors one request carries (a run's four pipes, with room to spare).
MAX_FDS = 8


def send(control: socket.socket, message: dict[str, Any], fds: list[int] | tuple[int, ...] = ()) -> None:
    socket.send_fds(control, [json.dumps(message).encode()], list(fds))


def receive(control: socket.socket) -> tuple[bytes, list[int]]:
    """The next request and the descriptors it carries; empty bytes once the grader has closed the socket."""
    data, fds, _flags, _addr = socket.recv_fds(control, MAX_MESSAGE, MAX_FDS)
    return data, fds


def report(control: socket.socket, exc: BaseException) -> None:
    """Tell the grader why a step failed, if it still can be told."""
    with contextlib.suppress(BaseException):  # nothing left to tell it with
        send(control, {"error": f"{type(exc).__name__}: {exc}"})
