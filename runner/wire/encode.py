"""Encoding: a value as the buffers of one frame, each array sent once and viewed in place by the receiver."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from runner.wire.format import (
    ALIGN,
    ALLOWED_DTYPES,
    DTYPE_STRS,
    MAX_DEPTH,
    MAX_INT_BITS,
    MAX_INT_DIGITS,
    PADDING,
    PLAIN,
    SCALAR_TYPES,
    U32,
    U32_MAX,
    WireError,
)

#: No cycles can reach the encoder (the tree is built fresh, depth-limited), so it skips checking for them.
_JSON = json.JSONEncoder(separators=(",", ":"), check_circular=False)


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
    tree = value if kind in PLAIN else _to_tree(value, arrays, 0)
    parts, sizes = arrays.buffers()
    header = _JSON.encode({"v": tree, "a": arrays.table, "b": sizes}).encode()
    # JSON ignores trailing spaces: they put the first buffer on an aligned offset of the body.
    header += b" " * (-(4 + len(header)) % ALIGN)
    body_len = 4 + len(header) + sum(sizes)
    if body_len > U32_MAX:
        raise WireError(f"value is too large to send ({body_len} bytes)")
    return [U32.pack(body_len), U32.pack(len(header)), header, *parts]


class _Arrays:
    """The arrays of one message, each sent once, and the memory they are sent in.

    The same array object reached twice is one table entry. Views into one C-contiguous array
    (``X[t]``, ``K[:t]``, ..., and the array itself) share one buffer holding the span they cover, when that span is no
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
        self._owned: list[np.ndarray | bytes] = []  # arrays (and bytes) kept alive while their ids are keys
        self._groups: dict[int, list[Any]] = {}  # id(root) -> [root, (table index, view), ...]
        self._plain: list[tuple[int, np.ndarray]] = []  # (table index, array) sent in a buffer of its own

    def add(self, array: np.ndarray) -> int:
        key = id(array)
        found = self._index.get(key)
        if found is not None:
            return found
        dtype_str = DTYPE_STRS.get(array.dtype)
        if dtype_str is not None and array.flags.c_contiguous:
            plain = array
        else:
            plain, dtype_str = _plain_array(array)
        index = len(self.table)
        self.table.append([dtype_str, list(plain.shape), -1, 0])
        self._index[key] = index
        self._owned.append(array)
        # An array with no base is the root of its views: sent with them, it shares their buffer too, as
        # ``x`` and ``x[:4]`` share memory where they were made (and where a check's calls are replayed).
        root = plain
        while type(root.base) is np.ndarray:
            root = root.base
        if plain.nbytes and root.flags.c_contiguous:
            group = self._groups.get(id(root))
            if group is None:
                self._groups[id(root)] = [root, (index, plain)]
            else:
                group.append((index, plain))
            return index
        self._plain.append((index, plain))
        return index

    def add_bytes(self, value: bytes) -> int:
        """``value`` sent as a buffer of its own (a ``|u1`` vector), not in the JSON header."""
        self.table.append(["|u1", [len(value)], -1, 0])
        self._owned.append(value)
        self._plain.append((len(self.table) - 1, np.frombuffer(value, np.uint8)))
        return len(self.table) - 1

    def add_scalar(self, value: np.generic) -> int:
        plain, dtype_str = _plain_array(np.asarray(value))
        self.table.append([dtype_str, [], -1, 0])
        self._plain.append((len(self.table) - 1, plain))
        return len(self.table) - 1

    def buffers(self) -> tuple[list[bytes | memoryview], list[int]]:
        """The frame's buffers, each followed by zeros up to a multiple of ``ALIGN``, and their padded sizes."""
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
            pad = -len(buffer) % ALIGN
            if pad:
                parts.append(PADDING[pad])
            sizes.append(len(buffer) + pad)
        if regrouped:
            plain.sort(key=_first)
        for index, array in plain:
            table[index][2] = len(sizes)
            nbytes = array.nbytes
            if nbytes:
                parts.append(array.data.cast("B"))
            pad = -nbytes % ALIGN
            if pad:
                parts.append(PADDING[pad])
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
    # From a ``ALIGN``-byte boundary of the root, so every member keeps the alignment it had.
    low = root_start + (low - root_start) // ALIGN * ALIGN
    if high - low > sum(member.nbytes for _, member in members):
        return None
    offsets = [start - low for start in starts]
    if any(offset % member.dtype.alignment for offset, (_, member) in zip(offsets, members, strict=True)):
        return None  # a root that is itself misaligned in memory: the receiver refuses unaligned arrays
    raw = root.reshape(-1).view(np.uint8)
    return raw[low - root_start : high - root_start].data, offsets


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
    """The JSON form of ``value`` (at ``depth``), which is not one of the ``PLAIN`` types."""
    kind = type(value)
    if shared and arrays.repeated and id(value) in arrays.repeated:
        return _shared_tree(value, arrays, depth)
    if kind is list or kind is tuple:
        if value and depth >= MAX_DEPTH:
            raise WireError(f"value is nested more than {MAX_DEPTH} levels deep")
        out: list[Any] = []
        append = out.append
        for item in value:
            item_kind = type(item)
            if item_kind in PLAIN or (item_kind is int and item.bit_length() <= MAX_INT_BITS):
                append(item)
            elif item_kind is np.ndarray:
                append({"a": arrays.add(item)})
            else:
                append(_to_tree(item, arrays, depth + 1))
        return out if kind is list else {"t": out}
    if kind is dict:
        if value and depth >= MAX_DEPTH:
            raise WireError(f"value is nested more than {MAX_DEPTH} levels deep")
        if any(type(key) is not str for key in value):
            return {"k": [[_key(key), _item(item, arrays, depth)] for key, item in value.items()]}
        out_dict = {}
        for key, item in value.items():
            item_kind = type(item)
            if item_kind in PLAIN or (item_kind is int and item.bit_length() <= MAX_INT_BITS):
                out_dict[key] = item
            elif item_kind is np.ndarray:
                out_dict[key] = {"a": arrays.add(item)}
            else:
                out_dict[key] = _to_tree(item, arrays, depth + 1)
        return {"d": out_dict}
    if kind is int:
        if value.bit_length() > MAX_INT_BITS:
            # JSON (and Python's int-to-str limit) cannot carry it; fail here, not inside json.dumps.
            raise WireError(f"an integer of about {int(value.bit_length() * 0.30103):,} digits cannot be sent "
                            f"(at most {MAX_INT_DIGITS:,} digits)")  # fmt: skip
        return value
    if kind is np.ndarray:
        return {"a": arrays.add(value)}
    if kind is bytes:
        return {"y": arrays.add_bytes(value)}
    if kind in SCALAR_TYPES:
        return {"s": arrays.add_scalar(value)}
    if isinstance(value, np.ndarray):
        raise WireError(f"an ndarray subclass ({kind.__name__}) cannot be sent; return a plain numpy array")
    raise WireError(
        f"a value of type {kind.__name__} cannot be sent; use numbers, strings, bytes, lists, tuples, dicts or numpy "
        "arrays"
    )


def _key(key: Any) -> str | int:
    """A dict key of a dict that is not keyed by strings alone: a string, or an integer JSON can carry."""
    if type(key) is str or (type(key) is int and key.bit_length() <= MAX_INT_BITS):
        return key
    raise WireError(f"dict keys must be strings or integers, got {type(key).__name__}")


def _item(item: Any, arrays: _Arrays, depth: int) -> Any:
    kind = type(item)
    if kind in PLAIN or (kind is int and item.bit_length() <= MAX_INT_BITS):
        return item
    return _to_tree(item, arrays, depth + 1)


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
