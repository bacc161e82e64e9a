"""Decoding, strictly: the other side may be hostile, so any deviation from the format is a :class:`WireError`."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from runner.wire.format import DTYPES, MAX_DEPTH, MAX_NODES, U32, WireError


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
    (header_len,) = U32.unpack_from(body, 0)
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
        data = np.frombuffer(body, np.uint8, offset=data_start).copy().data
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
        dtype = DTYPES.get(dtype_str) if type(dtype_str) is str else None
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
    if isinstance(node, list):
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
        elif tag == "k":
            if type(inner) is list:
                return _from_pairs(inner, arrays, depth, refs)
        elif tag == "y" and type(inner) is int and 0 <= inner < len(arrays):
            array = arrays[inner]
            if array.dtype != np.uint8 or array.ndim != 1:
                raise WireError("bytes must be stored as a 1-d uint8 array")
            return array.tobytes()
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
    elif type(node.get("k")) is list:
        value = _from_pairs(node["k"], arrays, depth, refs)
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


def _from_pairs(pairs: list[Any], arrays: list[np.ndarray], depth: int, refs: _Refs) -> dict[str | int, Any]:
    """A dict keyed by integers (or by integers and strings), sent as its ``[key, value]`` pairs."""
    if pairs and depth >= MAX_DEPTH:
        raise WireError(f"message is nested more than {MAX_DEPTH} levels deep")
    out: dict[str | int, Any] = {}
    for pair in pairs:
        if type(pair) is not list or len(pair) != 2:
            raise WireError("a dict's pair must be [key, value]")
        key, item = pair
        if type(key) is not int and type(key) is not str:
            raise WireError("dict keys must be strings or integers")
        if key in out:
            raise WireError(f"dict key {key!r} appears twice")
        kind = type(item)
        if kind is dict:
            out[key] = _from_tree(item, arrays, depth + 1, refs)
        elif kind is list:
            out[key] = _from_list(item, arrays, depth + 1, refs)
        else:
            out[key] = item
    return out
