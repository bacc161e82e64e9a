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
_DTYPES: dict[str, np.dtype[Any]] = {s: np.dtype(s) for s in ALLOWED_DTYPES}
#: Allowed dtypes by dtype object: ``dtype.str`` builds a new string on every call.
_DTYPE_STRS: dict[np.dtype[Any], str] = {dtype: s for s, dtype in _DTYPES.items()}
_SCALAR_TYPES: frozenset[type] = frozenset(dtype.type for dtype in _DTYPES.values())
#: Every buffer starts at a multiple of this within the message body, so that arrays received in
#: one block of memory are aligned without a copy.
_ALIGN = max(dtype.alignment for dtype in _DTYPES.values())
_PADDING = [b"\0" * n for n in range(_ALIGN)]
#: Values that cross as themselves. ``int`` is not among them: it has a size limit.
_PLAIN = frozenset([type(None), bool, str, float])
MAX_DEPTH = 64
#: Values of one message, array-table entries included.
MAX_NODES = 1_000_000
#: The JSON header of a reply decoded on the trusted side. Decoding JSON builds objects some 20-30
#: times the size of their text, so this bounds that cost whatever the reply limit; numeric data
#: travels in the buffers, outside the header, and is viewed where it arrived.
MAX_REPLY_HEADER_BYTES = 1 << 20
#: Integers cross as JSON numbers; Python refuses to print more than 4,300 digits by default.
MAX_INT_DIGITS = 4000
_MAX_INT_BITS = int(MAX_INT_DIGITS / 0.30103)
_U32 = struct.Struct(">I")
_U32_MAX = 0xFFFFFFFF
#: No cycles can reach the encoder (the tree is built fresh, depth-limited), so it skips checking for them.
_JSON = json.JSONEncoder(separators=(",", ":"), check_circular=False)
#: Linux refuses a writev of more buffers than this.
_IOV_MAX = 1024


class WireError(ValueError):
    """A value cannot be encoded, or a message is not a well-formed frame."""


# --------------------------------------------------------------------------- encoding


def encode(value: Any, *, share: bool = False) -> bytes:
    """Encode ``value`` as one frame (length prefix included); see :func:`encode_parts`."""
    return b"".join(encode_parts(value, share=share))


def encode_parts(value: Any, *, share: bool = False) -> list[bytes | memoryview]:
    """Encode ``value`` as the buffers of one frame, in order, without copying the arrays' data.

    A large reply then costs no extra memory to send, and the receiver can refuse it from its
    length prefix alone. With ``share`` (requests), a dict or list reached more than once is sent
    once and arrives as one object.
    """
    arrays = _Arrays(_repeated_containers(value) if share else frozenset())
    kind = type(value)
    tree = value if kind in _PLAIN else _to_tree(value, arrays, 0)
    parts, sizes = arrays.buffers()
    header = _JSON.encode({"v": tree, "a": arrays.table, "b": sizes}).encode()
    # JSON ignores trailing spaces: they put the first buffer on an aligned offset of the body.
    header += b" " * (-(4 + len(header)) % _ALIGN)
    body_len = 4 + len(header) + sum(sizes)
    if body_len > _U32_MAX:
        raise WireError(f"value is too large to send ({body_len} bytes)")
    return [_U32.pack(body_len), _U32.pack(len(header)), header, *parts]


class _Arrays:
    """The arrays of one message, each sent once, and the memory they are sent in.

    The same array object reached twice is one table entry. Views into one C-contiguous array
    (``X[t]``, ``K[:t]``, ...) share one buffer holding the span they cover, when that span is no
    larger than the views themselves: a batch of calls on prefixes of one cache then sends the
    cache once, not once per call.
    """

    def __init__(self, repeated: frozenset[int] | set[int]) -> None:
        #: ids of the dicts and lists reached more than once, and the number each was given so far
        self.repeated = repeated
        self.numbered: dict[int, int] = {}
        self.finished: set[int] = set()
        self.table: list[list[Any]] = []  # [dtype, shape, buffer index, byte offset]
        self._index: dict[int, int] = {}  # id(array) -> table index
        self._owned: list[np.ndarray] = []  # arrays kept alive while their ids are keys
        self._groups: dict[int, list[Any]] = {}  # id(root) -> [root, (table index, view), ...]
        self._plain: list[tuple[int, np.ndarray]] = []  # (table index, array) sent in a buffer of its own

    def add(self, array: np.ndarray) -> int:
        key = id(array)
        found = self._index.get(key)
        if found is not None:
            return found
        dtype_str = _DTYPE_STRS.get(array.dtype)
        if dtype_str is not None and array.flags.c_contiguous:
            plain = array
        else:
            plain, dtype_str = _plain_array(array)
        index = len(self.table)
        self.table.append([dtype_str, list(plain.shape), -1, 0])
        self._index[key] = index
        self._owned.append(array)
        root = plain.base
        if type(root) is np.ndarray and plain.nbytes:
            while type(root.base) is np.ndarray:
                root = root.base
            if root.flags.c_contiguous:
                group = self._groups.get(id(root))
                if group is None:
                    self._groups[id(root)] = [root, (index, plain)]
                else:
                    group.append((index, plain))
                return index
        self._plain.append((index, plain))
        return index

    def add_scalar(self, value: np.generic) -> int:
        plain, dtype_str = _plain_array(np.asarray(value))
        self.table.append([dtype_str, [], -1, 0])
        self._plain.append((len(self.table) - 1, plain))
        return len(self.table) - 1

    def buffers(self) -> tuple[list[bytes | memoryview], list[int]]:
        """The frame's buffers, each followed by zeros up to a multiple of ``_ALIGN``, and their padded sizes."""
        plain = self._plain
        table = self.table
        parts: list[bytes | memoryview] = []
        sizes: list[int] = []
        regrouped = False
        for root, *members in self._groups.values():
            span = _span(root, members) if len(members) > 1 else None
            if span is None:
                plain.extend(members)
                regrouped = True
                continue
            buffer, offsets = span
            for (index, _), offset in zip(members, offsets, strict=True):
                entry = table[index]
                entry[2] = len(sizes)
                entry[3] = offset
            parts.append(buffer)
            pad = -len(buffer) % _ALIGN
            if pad:
                parts.append(_PADDING[pad])
            sizes.append(len(buffer) + pad)
        if regrouped:
            plain.sort(key=_first)
        for index, array in plain:
            table[index][2] = len(sizes)
            nbytes = array.nbytes
            if nbytes:
                parts.append(memoryview(array).cast("B"))
            pad = -nbytes % _ALIGN
            if pad:
                parts.append(_PADDING[pad])
            sizes.append(nbytes + pad)
        return parts, sizes


def _first(item: tuple[int, np.ndarray]) -> int:
    return item[0]


def _span(root: np.ndarray, members: list[tuple[int, np.ndarray]]) -> tuple[memoryview, list[int]] | None:
    """The bytes of ``root`` covering every member and each member's offset in them, if worth sharing."""
    root_start = _address(root)
    starts = [_address(member) for _, member in members]
    low = min(starts)
    high = max(start + member.nbytes for start, (_, member) in zip(starts, members, strict=True))
    # From a ``_ALIGN``-byte boundary of the root, so every member keeps the alignment it had.
    low = root_start + (low - root_start) // _ALIGN * _ALIGN
    if high - low > sum(member.nbytes for _, member in members):
        return None
    offsets = [start - low for start in starts]
    if any(offset % member.dtype.alignment for offset, (_, member) in zip(offsets, members, strict=True)):
        return None  # a root that is itself misaligned in memory: the receiver refuses unaligned arrays
    raw = root.reshape(-1).view(np.uint8)
    return memoryview(raw[low - root_start : high - root_start]), offsets


def _address(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


def _repeated_containers(value: Any) -> set[int]:
    """ids of the dicts and lists that ``value`` reaches more than once (a cycle included)."""
    seen: set[int] = set()
    repeated: set[int] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is dict or kind is list:
            key = id(node)
            if key in seen:
                repeated.add(key)
                continue
            seen.add(key)
            stack.extend(node.values() if kind is dict else node)
        elif kind is tuple:
            stack.extend(node)
    return repeated


def _shared_tree(value: Any, arrays: _Arrays, depth: int) -> Any:
    """A dict or list reached more than once: its definition the first time, a reference after."""
    key = id(value)
    number = arrays.numbered.get(key)
    if number is not None:
        if key not in arrays.finished:
            raise WireError("value contains itself (a cycle)")
        return {"r": number}
    number = arrays.numbered[key] = len(arrays.numbered)
    node = _to_tree(value, arrays, depth, shared=False)
    arrays.finished.add(key)
    if type(node) is list:
        return {"n": number, "l": node}
    node["n"] = number
    return node


def _to_tree(value: Any, arrays: _Arrays, depth: int, *, shared: bool = True) -> Any:
    """The JSON form of ``value`` (at ``depth``), which is not one of the ``_PLAIN`` types."""
    kind = type(value)
    if shared and arrays.repeated and id(value) in arrays.repeated:
        return _shared_tree(value, arrays, depth)
    if kind is list or kind is tuple:
        if value and depth >= MAX_DEPTH:
            raise WireError(f"value is nested more than {MAX_DEPTH} levels deep")
        out = []
        append = out.append
        for item in value:
            item_kind = type(item)
            if item_kind in _PLAIN or (item_kind is int and item.bit_length() <= _MAX_INT_BITS):
                append(item)
            elif item_kind is np.ndarray:
                append({"a": arrays.add(item)})
            else:
                append(_to_tree(item, arrays, depth + 1))
        return out if kind is list else {"t": out}
    if kind is dict:
        if value and depth >= MAX_DEPTH:
            raise WireError(f"value is nested more than {MAX_DEPTH} levels deep")
        out_dict = {}
        for key, item in value.items():
            if type(key) is not str:
                raise WireError(f"dict keys must be strings, got {type(key).__name__}")
            item_kind = type(item)
            if item_kind in _PLAIN or (item_kind is int and item.bit_length() <= _MAX_INT_BITS):
                out_dict[key] = item
            elif item_kind is np.ndarray:
                out_dict[key] = {"a": arrays.add(item)}
            else:
                out_dict[key] = _to_tree(item, arrays, depth + 1)
        return {"d": out_dict}
    if kind is int:
        if value.bit_length() > _MAX_INT_BITS:
            # JSON (and Python's int-to-str limit) cannot carry it; fail here, not inside json.dumps.
            raise WireError(f"an integer of about {int(value.bit_length() * 0.30103):,} digits cannot be sent "
                            f"(at most {MAX_INT_DIGITS:,} digits)")  # fmt: skip
        return value
    if kind is np.ndarray:
        return {"a": arrays.add(value)}
    if kind in _SCALAR_TYPES:
        return {"s": arrays.add_scalar(value)}
    if isinstance(value, np.ndarray):
        raise WireError(f"an ndarray subclass ({kind.__name__}) cannot be sent; return a plain numpy array")
    raise WireError(
        f"a value of type {kind.__name__} cannot be sent; use numbers, strings, lists, tuples, dicts or numpy arrays"
    )


def _plain_array(array: np.ndarray) -> tuple[np.ndarray, str]:
    """``array`` as a little-endian C-ordered array of an allowed dtype, and that dtype's ``str``."""
    dtype = array.dtype
    if dtype.byteorder == ">":
        dtype = dtype.newbyteorder("<")
        array = array.astype(dtype)
    dtype_str = dtype.str
    if dtype_str not in ALLOWED_DTYPES:
        raise WireError(f"arrays of dtype {array.dtype} cannot be sent; use a numeric dtype")
    # Not np.ascontiguousarray: it turns 0-d arrays (and so numpy scalars) into shape (1,).
    return (array if array.flags.c_contiguous else array.copy(order="C")), dtype_str


# --------------------------------------------------------------------------- decoding


def decode(body: bytes | bytearray, *, shared: bool = False, max_header: int | None = None) -> Any:
    """Decode a frame body (the bytes after the length prefix) into plain values.

    Arrays are writeable. Given ``bytes``, they are fresh and never alias ``body``; given a
    ``bytearray``, the arrays are views into it: the caller hands it over and must not change it
    afterwards. Arrays that shared memory when sent share it again (one buffer, several views),
    exactly as the sender's did. ``shared`` accepts the shared dicts and lists of a request (see
    :func:`encode_parts`); ``max_header`` bounds the JSON header (replies: :data:`MAX_REPLY_HEADER_BYTES`).
    """
    if len(body) < 4:
        raise WireError("message is shorter than its header")
    (header_len,) = _U32.unpack_from(body, 0)
    if max_header is not None and header_len > max_header:
        raise WireError(
            f"message structure of {header_len:,} bytes exceeds the limit of {max_header:,} "
            "(return numpy arrays rather than long lists of numbers)"
        )
    data_start = 4 + header_len
    if data_start > len(body):
        raise WireError("message header runs past the end of the message")
    try:
        header = json.loads(body[4:data_start])
    except (ValueError, RecursionError) as exc:
        raise WireError(f"message header is not valid JSON: {exc}") from None
    if (
        type(header) is not dict
        or len(header) != 3
        or header.keys() != {"v", "a", "b"}
        or type(header["a"]) is not list
        or type(header["b"]) is not list
    ):
        raise WireError("message header must be an object with keys 'v', 'a' and 'b'")
    sizes = header["b"]
    table = header["a"]
    if len(sizes) > len(table):
        raise WireError("message has more buffers than arrays")  # every buffer holds one at least
    if len(table) > MAX_NODES:
        raise WireError(f"message holds more than {MAX_NODES} values")
    _check_sizes(sizes, len(body) - data_start)
    arrays = _read_arrays(table, _read_buffers(sizes, body, data_start)) if table else []
    value = header["v"]
    kind = type(value)
    if kind is not list and kind is not dict:
        return value
    # Every value takes at least one byte of the header, each starting at a byte of its own.
    if header_len > MAX_NODES - len(table):
        _count_values(value, MAX_NODES - len(table))
    return _from_tree(value, arrays, 0, {} if shared else None)


def _check_sizes(sizes: list[Any], data_len: int) -> None:
    total = 0
    for n in sizes:
        if type(n) is not int or n < 0:
            raise WireError("buffer sizes must be non-negative integers")
        total += n
    if total != data_len:
        raise WireError("buffer sizes do not add up to the message's data")


def _read_buffers(sizes: list[int], body: bytes | bytearray, data_start: int) -> list[np.ndarray]:
    if type(body) is bytearray:
        data = memoryview(body)[data_start:]
    else:
        # One copy for all: the arrays own their memory and are writeable, whatever the sender did.
        data = memoryview(np.frombuffer(body, np.uint8, offset=data_start).copy())
    buffers = []
    offset = 0
    for n in sizes:
        # Over a memoryview, not an ndarray: each buffer is a root of its own again when re-sent.
        buffers.append(np.frombuffer(data[offset : offset + n], np.uint8))
        offset += n
    return buffers


def _read_arrays(table: list[Any], buffers: list[np.ndarray]) -> list[np.ndarray]:
    arrays: list[np.ndarray] = []
    append = arrays.append
    buffer_count = len(buffers)
    for entry in table:
        if type(entry) is not list or len(entry) != 4:
            raise WireError("array table entry must be [dtype, shape, buffer, offset]")
        dtype_str, shape, buffer_index, offset = entry
        dtype = _DTYPES.get(dtype_str) if type(dtype_str) is str else None
        if dtype is None:
            raise WireError(f"array dtype {dtype_str!r} is not allowed")
        if type(shape) is not list or len(shape) > 32:
            raise WireError("array shape must be a list of non-negative integers")
        nbytes = dtype.itemsize
        for n in shape:
            if type(n) is not int or n < 0:
                raise WireError("array shape must be a list of non-negative integers")
            nbytes *= n
        if type(buffer_index) is not int or not 0 <= buffer_index < buffer_count:
            raise WireError("array buffer index out of range")
        buffer = buffers[buffer_index]
        if type(offset) is not int or offset < 0 or offset + nbytes > len(buffer):
            raise WireError("array data runs past the end of its buffer")
        try:
            array = np.ndarray(shape, dtype, buffer, offset)
        except ValueError:  # a zero dimension beside ones too large for numpy
            raise WireError("array shape is too large") from None
        # Refused rather than copied: a copy per entry would let a small message that points many
        # entries at the same bytes grow into any amount of memory. An honest sender never sends one.
        if not array.flags.aligned:
            raise WireError("array data is not aligned for its dtype")
        append(array)
    return arrays


def _count_values(root: Any, budget: int) -> None:
    """Refuse a tree of more than ``budget`` values, counted as :func:`_from_tree` visits them."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        count += 1
        if count > budget:
            raise WireError(f"message holds more than {MAX_NODES} values")
        kind = type(node)
        if kind is list:
            stack.extend(node)
        elif kind is dict:
            for inner in node.values():
                if type(inner) is list:
                    stack.extend(inner)
                elif type(inner) is dict:
                    stack.extend(inner.values())


#: Shared dicts and lists of a request by number (None: references are refused, as in replies).
_Refs = dict[int, Any] | None


def _from_tree(node: list[Any] | dict[str, Any], arrays: list[np.ndarray], depth: int, refs: _Refs) -> Any:
    """The value of a list or object ``node`` at ``depth``; other JSON values stand for themselves."""
    if type(node) is list:
        return _from_list(node, arrays, depth, refs)
    if len(node) == 1:
        ((tag, inner),) = node.items()
        if tag == "a":
            if type(inner) is int and 0 <= inner < len(arrays):
                return arrays[inner]
        elif tag == "d":
            if type(inner) is dict:
                return _from_dict(inner, arrays, depth, refs)
        elif tag == "t":
            if type(inner) is list:
                return tuple(_from_list(inner, arrays, depth, refs))
        elif tag == "s" and type(inner) is int and 0 <= inner < len(arrays):
            array = arrays[inner]
            if array.shape != ():
                raise WireError("a numpy scalar must be stored as a 0-d array")
            return array[()]
        elif tag == "r" and refs is not None and type(inner) is int and inner in refs:
            return refs[inner]
    elif len(node) == 2 and refs is not None and "n" in node:
        return _from_definition(node, arrays, depth, refs)
    raise WireError("message holds a value of an unknown form")


def _from_definition(node: dict[str, Any], arrays: list[np.ndarray], depth: int, refs: dict[int, Any]) -> Any:
    """A shared dict or list; it can be referred to once it is complete (so never from inside itself)."""
    number = node["n"]
    if type(number) is not int or number in refs:
        raise WireError("message holds a shared value of an unknown form")
    inner = node.get("d")
    if type(inner) is dict:
        value: Any = _from_dict(inner, arrays, depth, refs)
    elif type(node.get("l")) is list:
        value = _from_list(node["l"], arrays, depth, refs)
    else:
        raise WireError("message holds a shared value of an unknown form")
    refs[number] = value
    return value


# _from_list and _from_dict take arrays (the commonest values) and JSON scalars without a call.


def _from_list(items: list[Any], arrays: list[np.ndarray], depth: int, refs: _Refs) -> list[Any]:
    if items and depth >= MAX_DEPTH:
        raise WireError(f"message is nested more than {MAX_DEPTH} levels deep")
    out: list[Any] = []
    append = out.append
    count = len(arrays)
    for item in items:
        kind = type(item)
        if kind is dict:
            index = item.get("a") if len(item) == 1 else None
            if type(index) is int and 0 <= index < count:
                append(arrays[index])
            else:
                append(_from_tree(item, arrays, depth + 1, refs))
        elif kind is list:
            append(_from_list(item, arrays, depth + 1, refs))
        else:
            append(item)
    return out


def _from_dict(items: dict[str, Any], arrays: list[np.ndarray], depth: int, refs: _Refs) -> dict[str, Any]:
    if items and depth >= MAX_DEPTH:
        raise WireError(f"message is nested more than {MAX_DEPTH} levels deep")
    out: dict[str, Any] = {}
    count = len(arrays)
    for key, item in items.items():
        kind = type(item)
        if kind is dict:
            index = item.get("a") if len(item) == 1 else None
            if type(index) is int and 0 <= index < count:
                out[key] = arrays[index]
            else:
                out[key] = _from_tree(item, arrays, depth + 1, refs)
        elif kind is list:
            out[key] = _from_list(item, arrays, depth + 1, refs)
        else:
            out[key] = item
    return out


# --------------------------------------------------------------------------- framing


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
    (length,) = _U32.unpack(prefix)
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
    return int(_U32.unpack(prefix)[0])
