"""The pipes to one runner: requests out, replies in, and its output captured (and capped) as it is read.

Both paths use it the same way; how the runner ended, once its reply pipe closes, is asked of the
run it belongs to (:class:`Ends`), which knows its own process.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import selectors
import threading
import time
from dataclasses import dataclass, field
from typing import NoReturn, Protocol

from grader.sandbox.clock import RunClock
from grader.sandbox.endings import Ending, RunnerDied, SandboxUnavailable
from runner import wire

PIPE_BYTES = 1 << 20
#: How long a sandbox may take to start; the run's own time limits begin once it is up.
START_SECONDS = 30.0


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


class Ends(Protocol):
    """What a channel needs of its run: its CPU time, to kill it, and how it ended once its reply pipe closed."""

    def cpu_seconds(self) -> float: ...

    def kill(self) -> None: ...

    def ending(self) -> RunnerDied: ...


def message_pipe() -> tuple[int, int]:
    """A pipe large enough that most requests and replies pass in one system call."""
    read_end, write_end = os.pipe()
    with contextlib.suppress(OSError):  # the host may cap pipe sizes lower (fs.pipe-max-size)
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    return read_end, write_end


class Channel:
    """The grader's ends of a runner's four pipes. Owns them: :meth:`close` closes them."""

    def __init__(
        self, run: Ends, *, request_w: int, reply_r: int, stdout_r: int, stderr_r: int, output_kb: int, reply_mb: int
    ) -> None:
        self._run = run
        self._request_w, self._reply_r = request_w, reply_r
        self._streams = (stdout_r, stderr_r)
        self._reply_cap = reply_mb << 20
        self.output = CapturedOutput(limit=output_kb * 1024)
        for fd in (request_w, reply_r, *self._streams):
            os.set_blocking(fd, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(reply_r, selectors.EVENT_READ)
        for fd in self._streams:
            self._selector.register(fd, selectors.EVENT_READ)
        self._open_streams = set(self._streams)
        # Another thread may ask for the run to end (a learner pressed Stop): a byte in this pipe
        # wakes the exchange, and the thread that owns the run kills it. No other thread ever
        # signals the run's processes, so a pid or fd reused after the run is never hit.
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._wake_lock = threading.Lock()
        self._closed = False

    def interrupt(self) -> None:
        """From any thread: make the current (or next) exchange kill the run and raise ``RunnerDied(STOPPED)``."""
        with self._wake_lock:
            if not self._closed:
                with contextlib.suppress(OSError):  # the pipe is full: it is awake already
                    os.write(self._wake_w, b"x")

    def await_ready(self) -> None:
        """Wait for the runner's first message; raise :class:`SandboxUnavailable` if it never comes.

        Nothing of the solution runs before that message, so a runner that dies first means the
        sandbox itself could not start (a host without user namespaces, a container without the
        permissions bubblewrap needs, a broken Python): an infrastructure failure, never the
        solution's. What was printed before it is the sandbox's, not the solution's: dropped.
        """
        try:
            self.exchange(b"", RunClock.wall_only(START_SECONDS))
        except RunnerDied as died:
            detail = self.output.text().strip()[-2000:] or f"{died.ending.value} {died.exit_code or ''}".strip()
            raise SandboxUnavailable(f"the sandbox could not start: {detail}") from None
        self.output = CapturedOutput(limit=self.output.limit)

    def exchange(self, frame: bytes, clock: RunClock) -> bytearray:
        """Send one request frame and return the reply body; raise :class:`RunnerDied` otherwise.

        The run is stopped once ``clock`` says a time limit is reached; the wait counts towards its
        wall-clock time. The body is read in place into memory of its own, which
        :func:`runner.wire.decode` can take over.
        """
        began = time.monotonic()
        try:
            return self._exchange(frame, clock, began)
        finally:
            clock.wall_used += time.monotonic() - began

    def _exchange(self, frame: bytes, clock: RunClock, began: float) -> bytearray:
        pending = memoryview(frame)
        # Most requests fit in the pipe at once: no need to wait for it to become writable.
        with contextlib.suppress(BlockingIOError, BrokenPipeError):
            pending = pending[os.write(self._request_w, pending) :]
        if pending:
            self._selector.register(self._request_w, selectors.EVENT_WRITE)
        reply = _Reply(self._reply_cap)
        try:
            while True:
                waited = time.monotonic() - began
                self._within(clock, waited)
                for key, _ in self._selector.select(timeout=clock.wait(waited)):
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
                            self._within(clock, time.monotonic() - began)  # an answer past a limit is not taken
                            return body
                    elif fd == self._wake_r:
                        self.die(Ending.STOPPED)
                    else:
                        self._read_output(fd)
        finally:
            if pending and self._request_w in self._selector.get_map():
                self._selector.unregister(self._request_w)

    def _within(self, clock: RunClock, waited: float) -> None:
        """Stop the run if it has reached a time limit, saying which (and, for the wall clock, the CPU it used)."""
        ending = clock.spent(self._run.cpu_seconds, waited)
        if ending is Ending.WALL_CLOCK:
            clock.look(self._run.cpu_seconds)  # a fresh reading: the CPU time may have run out too
            if clock.cpu_used < clock.cpu_seconds:
                self.die(ending, cpu_seconds=clock.cpu_used)
            ending = Ending.CPU_LIMIT
        if ending is not None:
            self.die(ending)

    def _read_reply(self, reply: _Reply) -> bytearray | None:
        """Read what the reply pipe holds into ``reply``; its body once complete."""
        while True:
            missing = reply.missing
            try:
                n = os.readv(self._reply_r, [missing, reply.beyond] if reply.body is not None else [missing])
            except BlockingIOError:
                return None if missing else reply.body  # (an empty body is complete with its prefix)
            if n > len(missing):
                self.die(Ending.MALFORMED_REPLY, "bytes after the reply")
            if not n and missing:
                self._reply_closed()
            if n < len(missing):
                reply.missing = missing[n:]
                return None  # the pipe is empty for now
            if reply.body is not None:
                return reply.body
            expected = wire.frame_length(reply.prefix)
            if expected > reply.cap:
                self.die(Ending.REPLY_TOO_LARGE, f"{expected} bytes")
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
            self.die(Ending.OUTPUT_LIMIT)

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

    def die(self, ending: Ending, detail: str = "", cpu_seconds: float | None = None) -> NoReturn:
        """Stop the run for ``ending``: kill it, keep what it printed, raise :class:`RunnerDied`."""
        self._run.kill()
        self.drain_output()
        raise RunnerDied(ending, detail=detail, cpu_seconds=cpu_seconds)

    def _reply_closed(self) -> NoReturn:
        died = self._run.ending()
        self._run.kill()
        self.drain_output()
        if self.output.exceeded:
            # It printed past the cap before it ended: that came first, however the pipes were read.
            raise RunnerDied(Ending.OUTPUT_LIMIT)
        raise died

    def reply_waiting(self) -> bool:
        """Whether the reply pipe holds bytes not read yet, or has closed."""
        readable, _, _ = select.select([self._reply_r], [], [], 0)
        return bool(readable)

    def close(self) -> None:
        with self._wake_lock:
            self._closed = True
        self._selector.close()
        for fd in (self._request_w, self._reply_r, *self._streams, self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)


class _Reply:
    """A reply as it arrives: its 4-byte length prefix, then its body, each read in place."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.prefix = bytearray(4)
        self.body: bytearray | None = None
        self.missing = memoryview(self.prefix)  # the part of the prefix, then of the body, still to come
        self.beyond = bytearray(1)  # a byte read here means the runner sent more than it announced
