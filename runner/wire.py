"""The only format in which values cross the sandbox boundary.

A message is a length-prefixed frame::

    u32 frame length | u32 header length | JSON header | raw buffers

The JSON header is ``{"v": <value>, "a": [[dtype, shape, buffer, offset], ...], "b": [nbytes, ...]}``:
the value, a table of numeric arrays (each one a C-ordered view into one of the buffers that
follow the header) and the buffers' sizes. Plain JSON carries
``None``, ``bool``, ``int``, ``float``, ``str`` and ``list``; everything else is a one-key object:

* ``{"t": [...]}`` a tuple, ``{"d": {...}}`` a dict with string keys,
* ``{"a": i}`` the i-th numeric ndarray, ``{"s": i}`` a numpy scalar stored as the i-th 0-d array.

There is no pickle and no way to name a class: decoding can only ever build plain data and fresh
numeric arrays. Decoding is strict because the other side of the boundary may be hostile; any
deviation raises :class:`WireError`. This module is imported on both sides, so it needs nothing
beyond the standard library and numpy.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

import numpy as np

#: dtypes allowed to cross, by their canonical little-endian ``str``.
ALLOWED_DTYPES: frozenset[str] = frozenset(
    ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"]
)
_SCALAR_TYPES: frozenset[type] = frozenset(np.dtype(s).type for s in ALLOWED_DTYPES)
MAX_DEPTH = 64
MAX_NODES = 1_000_000
#: Integers cross as JSON numbers; Python refuses to print more than 4,300 digits by default.
MAX_INT_DIGITS = 4000
_MAX_INT_BITS = int(MAX_INT_DIGITS / 0.30103)
_U32 = struct.Struct(">I")
_U32_MAX = 0xFFFFFFFF


class WireError(ValueError):
    """A value cannot be encoded, or a message is not a well-formed frame."""


# --------------------------------------------------------------------------- encoding


def encode(value: Any) -> bytes:
    """Encode ``value`` as one frame (length prefix included)."""
    return b"".join(encode_parts(value))


def encode_parts(value: Any) -> list[bytes | memoryview]:
    """Encode ``value`` as the buffers of one frame, in order, without copying the arrays' data.

    A large reply then costs no extra memory to send, and the receiver can refuse it from its
    length prefix alone.
    """
    arrays = _Arrays()
    tree = _to_tree(value, arrays, 0)
    buffers = arrays.buffers()
    header = json.dumps({"v": tree, "a": arrays.table, "b": [len(b) for b in buffers]}, separators=(",", ":"))
    header_bytes = header.encode()
    body_len = 4 + len(header_bytes) + sum(len(b) for b in buffers)
    if body_len > _U32_MAX:
        raise WireError(f"value is too large to send ({body_len} bytes)")
    return [_U32.pack(body_len), _U32.pack(len(header_bytes)), header_bytes, *buffers]


class _Arrays:
    """The arrays of one message, each sent once, and the memory they are sent in.

    The same array object reached twice is one table entry. Views into one C-contiguous array
    (``X[t]``, ``K[:t]``, ...) share one buffer holding the span they cover, when that span is no
    larger than the views themselves: a batch of calls on prefixes of one cache then sends the
    cache once, not once per call.
    """

    def __init__(self) -> None:
        self.table: list[list[Any]] = []  # [dtype, shape, buffer index, byte offset]
        self._index: dict[int, int] = {}  # id(array) -> table index
        self._owned: list[np.ndarray] = []  # arrays kept alive while their ids are keys
        self._groups: dict[int, _ViewGroup] = {}
        self._plain: list[tuple[int, np.ndarray]] = []  # (table index, array) sent in a buffer of its own

    def add(self, array: np.ndarray) -> int:
        key = id(array)
        found = self._index.get(key)
        if found is not None:
            return found
        plain = _plain_array(array)
        index = len(self.table)
        self.table.append([plain.dtype.str, list(plain.shape), -1, 0])
        self._index[key] = index
        self._owned.append(array)
        root = plain.base
        if type(root) is np.ndarray and plain.nbytes:
            while type(root.base) is np.ndarray:
                root = root.base
            if root.flags.c_contiguous:
                group = self._groups.get(id(root))
                if group is None:
                    group = self._groups[id(root)] = _ViewGroup(root)
                group.members.append((index, plain))
                return index
        self._plain.append((index, plain))
        return index

    def add_scalar(self, value: np.generic) -> int:
        plain = _plain_array(np.asarray(value))
        self.table.append([plain.dtype.str, [], -1, 0])
        self._plain.append((len(self.table) - 1, plain))
        return len(self.table) - 1

    def buffers(self) -> list[memoryview]:
        plain = list(self._plain)
        out: list[memoryview] = []
        for group in self._groups.values():
            span = group.span()
            if span is None:
                plain.extend(group.members)
                continue
            buffer, start = span
            for index, member in group.members:
                self.table[index][2:] = [len(out), _address(member) - start]
            out.append(buffer)
        for index, array in sorted(plain, key=lambda item: item[0]):
            self.table[index][2:] = [len(out), 0]
            out.append(memoryview(array.reshape(-1).view(np.uint8)))
        return out


class _ViewGroup:
    """Views into one C-contiguous root array."""

    def __init__(self, root: np.ndarray) -> None:
        self.root = root
        self.members: list[tuple[int, np.ndarray]] = []

    def span(self) -> tuple[memoryview, int] | None:
        """The root's bytes covering every member and the address they start at, if worth sharing."""
        if len(self.members) < 2:
            return None
        root_start = _address(self.root)
        starts = [_address(m) for _, m in self.members]
        ends = [s + m.nbytes for s, (_, m) in zip(starts, self.members, strict=True)]
        # From a 16-byte boundary of the root, so every member keeps the alignment it had.
        low = root_start + (min(starts) - root_start) // 16 * 16
        high = max(ends)
        if high - low > sum(m.nbytes for _, m in self.members):
            return None
        raw = self.root.reshape(-1).view(np.uint8)
        return memoryview(raw[low - root_start : high - root_start]), low


def _address(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


def _to_tree(value: Any, arrays: _Arrays, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise WireError(f"value is nested more than {MAX_DEPTH} levels deep")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        if value.bit_length() > _MAX_INT_BITS:
            # JSON (and Python's int-to-str limit) cannot carry it; fail here, not inside json.dumps.
            raise WireError(f"an integer of about {int(value.bit_length() * 0.30103):,} digits cannot be sent "
                            f"(at most {MAX_INT_DIGITS:,} digits)")  # fmt: skip
        return value
    if kind is float:
        return value
    if kind is list:
        return [_to_tree(v, arrays, depth + 1) for v in value]
    if kind is tuple:
        return {"t": [_to_tree(v, arrays, depth + 1) for v in value]}
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise WireError(f"dict keys must be strings, got {type(key).__name__}")
            out[key] = _to_tree(item, arrays, depth + 1)
        return {"d": out}
    if kind is np.ndarray:
        return {"a": arrays.add(value)}
    if kind in _SCALAR_TYPES:
        return {"s": arrays.add_scalar(value)}
    if isinstance(value, np.ndarray):
        raise WireError(f"an ndarray subclass ({kind.__name__}) cannot be sent; return a plain numpy array")
    raise WireError(
        f"a value of type {kind.__name__} cannot be sent; use numbers, strings, lists, tuples, dicts or numpy arrays"
    )


def _plain_array(array: np.ndarray) -> np.ndarray:
    dtype = array.dtype
    if dtype.byteorder == ">":
        dtype = dtype.newbyteorder("<")
        array = array.astype(dtype)
    if dtype.str not in ALLOWED_DTYPES:
        raise WireError(f"arrays of dtype {array.dtype} cannot be sent; use a numeric dtype")
    # Not np.ascontiguousarray: it turns 0-d arrays (and so numpy scalars) into shape (1,).
    return array if array.flags.c_contiguous else array.copy(order="C")


# --------------------------------------------------------------------------- decoding


def decode(body: bytes) -> Any:
    """Decode a frame body (the bytes after the length prefix) into plain values.

    Arrays are fresh and writeable and never alias ``body``. Arrays that shared memory when sent
    share it again (one buffer, several views), exactly as the sender's did.
    """
    if len(body) < 4:
        raise WireError("message is shorter than its header")
    (header_len,) = _U32.unpack_from(body, 0)
    if header_len > len(body) - 4:
        raise WireError("message header runs past the end of the message")
    try:
        header = json.loads(body[4 : 4 + header_len])
    except (ValueError, RecursionError) as exc:
        raise WireError(f"message header is not valid JSON: {exc}") from None
    if (
        type(header) is not dict
        or set(header) != {"v", "a", "b"}
        or type(header["a"]) is not list
        or type(header["b"]) is not list
    ):
        raise WireError("message header must be an object with keys 'v', 'a' and 'b'")
    buffers = _read_buffers(header["b"], memoryview(body)[4 + header_len :])
    arrays = _read_arrays(header["a"], buffers)
    counter = [0]
    return _from_tree(header["v"], arrays, 0, counter)


def _read_buffers(sizes: list[Any], data: memoryview) -> list[np.ndarray]:
    if any(type(n) is not int or n < 0 for n in sizes):
        raise WireError("buffer sizes must be non-negative integers")
    if sum(sizes) != len(data):
        raise WireError("buffer sizes do not add up to the message's data")
    buffers = []
    offset = 0
    for n in sizes:
        # A copy: the arrays own their memory and are writeable, whatever the sender did.
        buffers.append(np.frombuffer(data[offset : offset + n], dtype=np.uint8).copy())
        offset += n
    return buffers


def _read_arrays(table: list[Any], buffers: list[np.ndarray]) -> list[np.ndarray]:
    arrays: list[np.ndarray] = []
    for entry in table:
        if type(entry) is not list or len(entry) != 4:
            raise WireError("array table entry must be [dtype, shape, buffer, offset]")
        dtype_str, shape, buffer_index, offset = entry
        if type(dtype_str) is not str or dtype_str not in ALLOWED_DTYPES:
            raise WireError(f"array dtype {dtype_str!r} is not allowed")
        if type(shape) is not list or len(shape) > 32 or any(type(n) is not int or n < 0 for n in shape):
            raise WireError("array shape must be a list of non-negative integers")
        if type(buffer_index) is not int or not 0 <= buffer_index < len(buffers):
            raise WireError("array buffer index out of range")
        dtype = np.dtype(dtype_str)
        nbytes = dtype.itemsize
        for n in shape:
            nbytes *= n
        buffer = buffers[buffer_index]
        if type(offset) is not int or offset < 0 or offset + nbytes > len(buffer):
            raise WireError("array data runs past the end of its buffer")
        array = np.ndarray(shape, dtype=dtype, buffer=buffer, offset=offset)
        # Unaligned views compute slowly (and only a strange sender makes them): give those their own memory.
        arrays.append(array if array.flags.aligned else array.copy())
    return arrays


def _from_tree(node: Any, arrays: list[np.ndarray], depth: int, counter: list[int]) -> Any:
    counter[0] += 1
    if counter[0] > MAX_NODES:
        raise WireError(f"message holds more than {MAX_NODES} values")
    if depth > MAX_DEPTH:
        raise WireError(f"message is nested more than {MAX_DEPTH} levels deep")
    kind = type(node)
    if node is None or kind in (bool, int, float, str):
        return node
    if kind is list:
        return [_from_tree(v, arrays, depth + 1, counter) for v in node]
    if kind is dict and len(node) == 1:
        ((tag, inner),) = node.items()
        if tag == "t" and type(inner) is list:
            return tuple(_from_tree(v, arrays, depth + 1, counter) for v in inner)
        if tag == "d" and type(inner) is dict:
            return {k: _from_tree(v, arrays, depth + 1, counter) for k, v in inner.items()}
        if tag in ("a", "s") and type(inner) is int and 0 <= inner < len(arrays):
            array = arrays[inner]
            if tag == "a":
                return array
            if array.shape != ():
                raise WireError("a numpy scalar must be stored as a 0-d array")
            return array[()]
    raise WireError("message holds a value of an unknown form")


# --------------------------------------------------------------------------- framing


def write_parts(fd: int, parts: list[bytes | memoryview]) -> None:
    """Write the buffers of one frame with as few system calls as the pipe allows."""
    views = [memoryview(part).cast("B") for part in parts if len(part)]
    while views:
        written = os.writev(fd, views)
        while views and written >= len(views[0]):
            written -= len(views[0])
            views.pop(0)
        if written:
            views[0] = views[0][written:]


def write_frame(fd: int, frame: bytes | memoryview) -> None:
    """Write a whole encoded frame (or one of its parts) to a file descriptor."""
    view = memoryview(frame)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_frame_blocking(fd: int, max_bytes: int) -> bytes | None:
    """Read one frame body; ``None`` on a clean end of stream before a frame starts."""
    prefix = _read_exact(fd, 4)
    if prefix is None:
        return None
    (length,) = _U32.unpack(prefix)
    if length > max_bytes:
        raise WireError(f"message of {length} bytes exceeds the limit of {max_bytes}")
    body = _read_exact(fd, length)
    if body is None:
        raise WireError("stream ended in the middle of a message")
    return body


def _read_exact(fd: int, n: int) -> bytes | None:
    chunks: list[bytes] = []
    remaining = n
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            if remaining == n:
                return None
            raise WireError("stream ended in the middle of a message")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def frame_length(prefix: bytes) -> int:
    """The body length announced by a 4-byte frame prefix."""
    return int(_U32.unpack(prefix)[0])
