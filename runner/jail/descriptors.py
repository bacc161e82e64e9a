"""The runner's file descriptors: stdin on /dev/null, stdout and stderr on their pipes, requests and replies on 3, 4."""

from __future__ import annotations

import os

#: fds of a run: the runner's request and reply pipes sit at 3 and 4, as the cold runner is told.
REQUEST_FD, REPLY_FD = 3, 4


def arrange(fds: list[int]) -> None:
    """Move the run's four pipes (request, reply, stdout, stderr, as received) into place, closing the originals."""
    request_r, reply_w, out_w, err_w = (os.dup(fd) for fd in fds)  # out of the way of 0-4
    for fd in fds:
        os.close(fd)
    null = os.open("/dev/null", os.O_RDONLY)
    for source, target in ((null, 0), (out_w, 1), (err_w, 2), (request_r, REQUEST_FD), (reply_w, REPLY_FD)):
        os.dup2(source, target, inheritable=target <= 2)
    for fd in {null, out_w, err_w, request_r, reply_w} - {0, 1, 2, REQUEST_FD, REPLY_FD}:
        os.close(fd)
