"""Framing: writing a frame's buffers in few system calls, and reading one frame into memory of its own."""

from __future__ import annotations

import os

from runner.wire.format import U32, WireError

#: Linux refuses a writev of more buffers than this.
_IOV_MAX = 1024


def write_parts(fd: int, parts: list[bytes | memoryview]) -> None:
    """Write the buffers of one frame (bytes-like, as :func:`encode_parts` returns them) in few system calls."""
    parts = list(parts)
    first = 0
    while first < len(parts):
        written = os.writev(fd, parts[first : first + _IOV_MAX])
        while first < len(parts) and written >= len(parts[first]):
            written -= len(parts[first])
            first += 1
        if written:
            parts[first] = memoryview(parts[first])[written:]


def write_frame(fd: int, frame: bytes | memoryview) -> None:
    """Write a whole encoded frame (or one of its parts) to a file descriptor."""
    view = memoryview(frame)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_frame_blocking(fd: int, max_bytes: int) -> bytearray | None:
    """Read one frame body (for :func:`decode` to take over); ``None`` on a clean end of stream before a frame."""
    prefix = bytearray(4)
    if not _read_into(fd, memoryview(prefix)):
        return None
    (length,) = U32.unpack(prefix)
    if length > max_bytes:
        raise WireError(f"message of {length} bytes exceeds the limit of {max_bytes}")
    body = bytearray(length)
    if length and not _read_into(fd, memoryview(body)):
        raise WireError("stream ended in the middle of a message")
    return body


def _read_into(fd: int, view: memoryview) -> bool:
    """Fill ``view``; False if the stream ends before the first byte."""
    filled = 0
    while filled < len(view):
        n = os.readv(fd, [view[filled:]])
        if not n:
            if not filled:
                return False
            raise WireError("stream ended in the middle of a message")
        filled += n
    return True


def frame_length(prefix: bytes | bytearray) -> int:
    """The body length announced by a 4-byte frame prefix."""
    return int(U32.unpack(prefix)[0])
