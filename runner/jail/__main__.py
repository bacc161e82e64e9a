"""The zygote: a long-lived, sandboxed process with numpy loaded that forks one fresh run per submission.

Started by ``grader/sandbox/zygote.py`` (as a file, in the jail bubblewrap makes). It loads numpy
and the runner's loop once, then for each request on its control socket forks a launcher
(``processes.launch``) and tells the grader when that launcher is done. See ``runner/jail/__init__.py``
for the whole jail.

Usage: ``python -I -S -B -u runner/jail/__main__.py CONTROL_FD HOST_PROC_DIR [SYS_PATH ...]``

Only the standard library and numpy: this runs inside the sandbox and must not import the grader.
"""

from __future__ import annotations

import functools
import gc
import os
import socket
import sys

# The folder holding the ``runner`` package: ``python -I`` leaves the script's own off ``sys.path``.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from runner.jail import messages, processes  # standard library only, like everything in runner.jail


def main(argv: list[str]) -> int:
    control_fd, host_proc = int(argv[1]), argv[2]
    sys.path[1:1] = argv[3:]  # numpy's directory, after the runner's
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
    messages.send(control, {"ready": True})
    while True:
        try:
            data, fds = messages.receive(control)
        except ConnectionResetError:
            return 0
        if not data:
            return 0  # the grader closed the control socket: stop
        zygote_pid = os.getpid()
        launch = functools.partial(processes.launch, control, data, fds, host_proc, zygote_pid)
        launcher = processes.fork_child(control, fds, launch, 1)
        _, status = os.waitpid(launcher, 0)
        try:
            messages.send(control, {"done": True, "launcher_status": status})
        except (BrokenPipeError, ConnectionResetError):
            return 0  # the grader has gone (it is exiting): so do we, quietly


if __name__ == "__main__":
    sys.exit(main(sys.argv))
