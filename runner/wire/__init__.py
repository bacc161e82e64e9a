"""The only format in which values cross the sandbox boundary.

A message is a length-prefixed frame::

    u32 frame length | u32 header length | JSON header | raw buffers

The JSON header is ``{"v": <value>, "a": [[dtype, shape, buffer, offset], ...], "b": [nbytes, ...]}``:
the value, a table of numeric arrays (each one a C-ordered view into one of the buffers that
follow the header) and the buffers' sizes. The sender pads the header with spaces and each buffer
with zeros so that every buffer starts at a multiple of the largest alignment an allowed dtype
needs (8 bytes on x86-64 and arm64) into the body: a receiver can view the arrays where they arrived.
Plain JSON carries ``None``, ``bool``, ``int``, ``float``, ``str`` and ``list``; everything else
is a one-key object:

* ``{"t": [...]}`` a tuple, ``{"d": {...}}`` a dict with string keys,
* ``{"a": i}`` the i-th numeric ndarray, ``{"s": i}`` a numpy scalar stored as the i-th 0-d array.

The same array object reached twice is sent once, and arrives as one object again. Requests (the
trusted side's messages) keep the identity of dicts and lists too, as a Python caller would: a dict
or list reached more than once is sent once as ``{"n": k, "d": {...}}`` or ``{"n": k, "l": [...]}``
and then referred to as ``{"r": k}``, so a call that changes an argument in place changes what a
later call of the same message sees. Replies never share containers: a receiver on the trusted side
refuses references, so a small reply cannot stand for a large graph of values.

The trusted side also bounds its own cost of decoding a reply: the JSON header (everything but the
arrays' data) is limited in size, and array-table entries count against the limit on values.

There is no pickle and no way to name a class: decoding can only ever build plain data and fresh
numeric arrays. Decoding is strict because the other side of the boundary may be hostile; any
deviation raises :class:`WireError`. This module is imported on both sides, so it needs nothing
beyond the standard library and numpy.
"""

from runner.wire.decode import decode
from runner.wire.encode import encode, encode_parts
from runner.wire.format import MAX_DEPTH, MAX_INT_DIGITS, MAX_NODES, MAX_REPLY_HEADER_BYTES, WireError
from runner.wire.frames import frame_length, read_frame_blocking, write_frame, write_parts

__all__ = [
    "MAX_DEPTH", "MAX_INT_DIGITS", "MAX_NODES", "MAX_REPLY_HEADER_BYTES", "WireError", "decode", "encode",
    "encode_parts", "frame_length", "read_frame_blocking", "write_frame", "write_parts",
]  # fmt: skip
