"""The runner: the only program started inside the sandbox, next to the student's code.

Everything in this process is untrusted once the solution is loaded: the student may rewrite any
of it. That is fine, because this program decides nothing. It loads ``solution.py`` from a
message, calls the functions it is asked to call and sends back what they return, over the two
file descriptors named on its command line. The checks, the expected values and the verdict stay
on the trusted side of the pipe. Student output goes to stdout/stderr, which the grader only
shows, never parses.

Usage: ``python -I [-S] main.py REQUEST_FD REPLY_FD MAX_REQUEST_BYTES [SYS_PATH ...]``
"""

from __future__ import annotations

import contextlib
import inspect
import linecache
import os
import sys
import traceback
import types
from typing import Any

# The folder holding the ``runner`` package: ``python -I`` leaves the script's own off ``sys.path``.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from runner import protocol  # standard library only: it need not wait for numpy's directory, as wire does

SOLUTION_FILENAME = "solution.py"
#: The files a traceback shows: the solution's, and a try's inputs.
_SHOWN_FILES = (SOLUTION_FILENAME, "<inputs>")
_MAX_TRACEBACK_FRAMES = 20


def main(argv: list[str]) -> int:
    request_fd, reply_fd, max_request = int(argv[1]), int(argv[2]), int(argv[3])
    sys.path[:0] = argv[4:]  # numpy's directory
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    import numpy  # noqa: F401  (loaded before the solution, so its cost is not the student's)

    return serve(request_fd, reply_fd, max_request)


def serve(request_fd: int, reply_fd: int, max_request: int) -> int:
    """Answer requests until the request pipe closes; return the exit code.

    The caller has put numpy's directory on ``sys.path`` and imported numpy (the warm path's
    zygote, ``runner/jail/``, calls this in each freshly forked child).
    """
    from runner import wire

    # Tell the grader the sandbox is up before any student code exists: a failure before this
    # point is the host's problem, never the solution's.
    wire.write_frame(reply_fd, wire.encode(protocol.READY))
    module: types.ModuleType | None = None
    steps: Any = None  # a try's compiled inputs (runner.trying.Steps)
    runner_pid = os.getpid()
    while True:
        body = wire.read_frame_blocking(request_fd, max_request)
        if body is None:
            return 0
        request = wire.decode(body, shared=True)
        op = request["op"]
        if op == protocol.Op.LOAD:
            module, reply = _load(request["source"], request["functions"])
        elif op == protocol.Op.CALL and module is not None:
            reply = _call(module, request["function"], request["args"])
        elif op == protocol.Op.CALL_EACH and module is not None:
            reply = _call_each(module, request["function"], request["args_list"])
        elif op == protocol.Op.CALL_CHAIN and module is not None:
            reply = _call_each(module, request["function"], request["args_list"], request["feed"])
        elif op == protocol.Op.TRY and module is not None:
            steps, reply = _try(module, request["inputs"])
        elif op == protocol.Op.TRY_STEP and steps is not None:
            reply = steps.run(request["index"], _describe_exception)
        else:
            reply = protocol.protocol_error(f"unexpected request {op!r}")
        _flush_output()
        if os.getpid() != runner_pid:
            # A process the solution forked came back here: only the runner itself answers.
            os._exit(0)
        try:
            parts = wire.encode_parts(reply)
        except wire.WireError as exc:
            parts = wire.encode_parts(protocol.unencodable(str(exc)))
        except MemoryError:
            reason = "the value is too large to send (out of memory encoding it)"
            parts = wire.encode_parts(protocol.unencodable(reason))
        wire.write_parts(reply_fd, parts)


def _load(source: str, functions: list[str]) -> tuple[types.ModuleType | None, dict[str, Any]]:
    linecache.cache[SOLUTION_FILENAME] = (len(source), None, source.splitlines(True), SOLUTION_FILENAME)
    try:
        code = compile(source, SOLUTION_FILENAME, "exec", dont_inherit=True)
    except SyntaxError as exc:
        text = (exc.text or "").rstrip("\n")[:500]
        return None, protocol.syntax_error(type(exc).__name__, str(exc.msg), exc.lineno, exc.offset, text)
    module = types.ModuleType("solution")
    module.__file__ = SOLUTION_FILENAME
    sys.modules["solution"] = module
    try:
        exec(code, module.__dict__)  # noqa: S102  (running the solution is this program's job)
    except BaseException as exc:  # noqa: BLE001  (SystemExit too: a solution must not exit)
        return None, protocol.raised(_describe_exception(exc))
    return module, protocol.loaded({name: _describe_function(module, name) for name in functions})


def _try(module: types.ModuleType, inputs: str) -> tuple[Any, dict[str, Any]]:
    from runner.trying import Steps

    try:
        steps = Steps(module, inputs)
    except SyntaxError as exc:
        text = (exc.text or "").rstrip("\n")[:500]
        return None, protocol.syntax_error(type(exc).__name__, str(exc.msg), exc.lineno, exc.offset, text)
    except (RecursionError, MemoryError, ValueError) as exc:  # too deeply nested to parse; NUL bytes
        return None, protocol.raised(_describe_exception(exc))
    return steps, steps.described()


def _describe_function(module: types.ModuleType, name: str) -> dict[str, Any] | None:
    obj = module.__dict__.get(name)
    if obj is None:
        return None
    if not callable(obj):
        return {"callable": False, "type": type(obj).__name__, "params": []}
    try:
        params = [
            [p.name, p.kind.name, p.default is not inspect.Parameter.empty]
            for p in inspect.signature(obj).parameters.values()
        ]
    except (TypeError, ValueError):
        params = None
    return {"callable": True, "type": type(obj).__name__, "params": params}


def _call(module: types.ModuleType, name: str, args: list[Any]) -> dict[str, Any]:
    function = module.__dict__.get(name)
    if not callable(function):
        missing = {"type": "AttributeError", "message": f"solution.py has no function {name}", "line": None}
        return protocol.raised({**missing, "traceback": ""})
    try:
        answer = function(*args)
    except BaseException as exc:  # noqa: BLE001
        return protocol.raised(_describe_exception(exc))
    return protocol.value(answer)


def _call_each(
    module: types.ModuleType, name: str, args_list: list[list[Any]], feed: list[int] | None = None
) -> dict[str, Any]:
    """Several calls in one crossing, in order; stop at the first that raises.

    With ``feed`` (argument, part): argument ``argument`` of each call after the first is part
    ``part`` of the previous call's answer, the very object it returned.
    """
    answers: list[Any] = []
    for args in args_list:
        if feed is not None and answers:
            argument, part = feed
            args[argument] = protocol.fed_part(answers[-1], part)
        reply = _call(module, name, args)
        if "raised" in reply:
            return protocol.raised(reply["raised"], len(answers), answers)
        answers.append(reply["value"])
    return protocol.values(answers)


def _describe_exception(exc: BaseException) -> dict[str, Any]:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename in _SHOWN_FILES]
    frames = frames[-_MAX_TRACEBACK_FRAMES:]
    lines = [f'  File "{f.filename}", line {f.lineno}, in {f.name}\n    {(f.line or "").strip()}' for f in frames]
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001  (a hostile __str__)
        message = "<message could not be shown>"
    return {
        "type": type(exc).__name__,
        "message": message[:2000],
        "line": next((f.lineno for f in reversed(frames) if f.filename == SOLUTION_FILENAME), None),
        "traceback": "\n".join(lines),
    }


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):  # the student may have replaced or closed it
            stream.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
