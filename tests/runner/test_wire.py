"""The codec that crosses the sandbox boundary: every allowed value round-trips, anything else is refused."""

from __future__ import annotations

import contextlib
import json
import os
import struct
import threading
import tracemalloc
from typing import Any

import numpy as np
import pytest

from runner import wire


def _body(value: Any) -> bytes:
    frame = wire.encode(value)
    (length,) = struct.unpack(">I", frame[:4])
    assert length == len(frame) - 4
    return frame[4:]


def _body_shared(value: Any) -> bytes:
    return wire.encode(value, share=True)[4:]


def _frame(header: Any, data: bytes = b"") -> bytes:
    raw = json.dumps(header).encode() if not isinstance(header, bytes) else header
    return struct.pack(">I", len(raw)) + raw + data


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return type(b) is np.ndarray and a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, True)
    if isinstance(a, np.generic):
        return type(a) is type(b) and (a == b or (np.isnan(a) and np.isnan(b)))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and a != a:
        return isinstance(b, float) and b != b
    return type(a) is type(b) and a == b


PLAIN_VALUES = [
    None,
    True,
    False,
    0,
    -(2**63),
    10**3999,
    1.5,
    float("inf"),
    float("nan"),
    "",
    "héllo\x00",
    [],
    [1, [2, [3]]],
    (),
    (1, "a", None),
    {},
    {"k": {"v": [1, (2,)]}},
    b"",
    b"\x00\xffbytes",
    {0: b"\x00", 255: b"\xff", 256: b"<|eot|>"},  # a tokenizer's vocabulary
    [(b"a", b"b"), (b"ab", b"c")],  # its merges
    {"text": 1, 2: [3], -(2**70): {7: None}},  # int and str keys together, nested
]
ARRAYS = [
    np.zeros((0, 3)),
    np.arange(12, dtype=np.float64).reshape(3, 4),
    np.arange(12, dtype=np.float64).reshape(3, 4).T,  # not contiguous
    np.array(2.5),  # 0-d
    np.array([1, 2, 3], dtype=">i4"),  # big-endian: sent as little-endian
    *(np.ones((2, 2), dtype=d) for d in ("?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "c8", "c16")),
]
SCALARS = [np.float64(1.25), np.float32(-2), np.int64(-7), np.uint8(255), np.bool_(True), np.complex128(1 + 2j)]


@pytest.mark.parametrize("value", PLAIN_VALUES, ids=repr)
def test_plain_values_round_trip_with_their_exact_types(value: Any) -> None:
    assert _same(value, wire.decode(_body(value)))


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: f"{a.dtype.str}{a.shape}")
def test_numeric_arrays_round_trip_as_fresh_writeable_arrays(array: np.ndarray) -> None:
    back = wire.decode(_body(array))
    assert type(back) is np.ndarray and back.shape == array.shape and np.array_equal(back, array)
    want = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
    assert back.dtype == want and back.flags.writeable


@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_numpy_scalars_round_trip_as_the_same_scalar_type(scalar: np.generic) -> None:
    assert _same(scalar, wire.decode(_body(scalar)))


def test_a_nested_message_with_arrays_round_trips() -> None:
    value = {"ok": True, "value": (np.eye(2), {"k": np.zeros((1, 2)), "v": [np.float64(1), 3]}), "args": [None]}
    assert _same(value, wire.decode(_body(value)))


def test_encode_parts_join_to_encode() -> None:
    value = {"a": np.arange(5.0), "b": [np.int32(3)]}
    assert b"".join(bytes(p) for p in wire.encode_parts(value)) == wire.encode(value)


class Liar:
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


class Sub(np.ndarray):
    pass


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (Liar(), "a value of type Liar cannot be sent"),
        (np.zeros(3).view(Sub), "an ndarray subclass (Sub) cannot be sent"),
        (np.array([1, "a"], dtype=object), "arrays of dtype object cannot be sent"),
        (np.array(["a"]), "cannot be sent"),
        (np.zeros(2, dtype="datetime64[s]"), "cannot be sent"),
        (np.zeros(2, dtype=[("x", "f8")]), "cannot be sent"),
        ({1.5: 2}, "dict keys must be strings or integers, got float"),
        ({True: 2}, "dict keys must be strings or integers, got bool"),
        ({(1, 2): 2}, "dict keys must be strings or integers, got tuple"),
        ({b"k": 2}, "dict keys must be strings or integers, got bytes"),
        ({7**10000: 2}, "dict keys must be strings or integers, got int"),
        (bytearray(b"pickle"), "a value of type bytearray cannot be sent"),
        (memoryview(b"pickle"), "a value of type memoryview cannot be sent"),
        ({1, 2}, "a value of type set cannot be sent"),
        (True.__class__, "cannot be sent"),
        (7**10000, "digits cannot be sent"),
        (type("MyInt", (int,), {})(3), "a value of type MyInt cannot be sent"),
        (type("MyList", (list,), {})(), "a value of type MyList cannot be sent"),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else v[:20],
)
def test_values_that_are_not_plain_data_are_refused_on_encode(value: Any, message: str) -> None:
    with pytest.raises(wire.WireError, match=message.replace("(", r"\(").replace(")", r"\)")):
        wire.encode(value)


def test_too_deep_nesting_is_refused_on_encode() -> None:
    value: Any = 1
    for _ in range(wire.MAX_DEPTH + 2):
        value = [value]
    with pytest.raises(wire.WireError, match="nested more than"):
        wire.encode(value)


def _one_array(entry: list[Any], data: bytes, tag: str = "a") -> bytes:
    return _frame({"v": {tag: 0}, "a": [entry], "b": [len(data)]}, data)


MALFORMED = {
    "empty body": b"",
    "short body": b"\x00\x00",
    "header length past the end": struct.pack(">I", 100) + b"{}",
    "header not JSON": _frame(b"{not json"),
    "header not an object": _frame([1, 2]),
    "header with extra keys": _frame({"v": 1, "a": [], "b": [], "x": 0}),
    "header without buffers": _frame({"v": 1, "a": []}),
    "array table not a list": _frame({"v": 1, "a": {}, "b": []}),
    "buffer sizes not a list": _frame({"v": 1, "a": [], "b": 0}),
    "more buffers than arrays": _frame({"v": 1, "a": [], "b": [0, 0]}),
    "negative buffer size": _frame({"v": 1, "a": [], "b": [-1, 1]}),
    "buffer sizes past the end": _frame({"v": 1, "a": [], "b": [9]}, b"\x00" * 8),
    "unknown tag": _frame({"v": {"p": "os.system"}, "a": [], "b": []}),
    "two-key object": _frame({"v": {"t": [], "d": {}}, "a": [], "b": []}),
    "tuple tag with a non-list": _frame({"v": {"t": 5}, "a": [], "b": []}),
    "array index out of range": _frame({"v": {"a": 0}, "a": [], "b": []}),
    "array index not an int": _frame({"v": {"a": "0"}, "a": [], "b": []}),
    "array entry of the old form": _one_array(["<f8", [1], 8], b"\x00" * 8),
    "object dtype": _one_array(["|O", [1], 0, 0], b"\x00" * 8),
    "unicode dtype": _one_array(["<U1", [1], 0, 0], b"a\x00\x00\x00"),
    "big-endian dtype": _one_array([">f8", [1], 0, 0], b"\x00" * 8),
    "negative dimension": _one_array(["<f8", [-1], 0, 0], b"\x00" * 8),
    "buffer index out of range": _one_array(["<f8", [1], 1, 0], b"\x00" * 8),
    "negative offset": _one_array(["<f8", [1], 0, -8], b"\x00" * 16),
    "array past the end of its buffer": _one_array(["<f8", [2], 0, 0], b"\x00" * 8),
    "offset past the end of its buffer": _one_array(["<f8", [1], 0, 8], b"\x00" * 8),
    "trailing bytes": _frame({"v": 1, "a": [], "b": []}, b"\x00"),
    "scalar tag on a 1-d array": _one_array(["<f8", [1], 0, 0], b"\x00" * 8, tag="s"),
    "bytes tag on a float array": _one_array(["<f8", [1], 0, 0], b"\x00" * 8, tag="y"),
    "bytes tag on a 2-d array": _one_array(["|u1", [2, 4], 0, 0], b"\x00" * 8, tag="y"),
    "bytes tag out of range": _frame({"v": {"y": 0}, "a": [], "b": []}),
    "pairs tag with a non-list": _frame({"v": {"k": {}}, "a": [], "b": []}),
    "a pair of three": _frame({"v": {"k": [[1, 2, 3]]}, "a": [], "b": []}),
    "a float key": _frame({"v": {"k": [[1.5, 2]]}, "a": [], "b": []}),
    "a bool key": _frame({"v": {"k": [[True, 2]]}, "a": [], "b": []}),
    "a list key": _frame({"v": {"k": [[[1], 2]]}, "a": [], "b": []}),
    "a key twice": _frame({"v": {"k": [[1, 2], [1, 3]]}, "a": [], "b": []}),
    "too deep": _frame({"v": json.loads("[" * 70 + "]" * 70), "a": [], "b": []}),
    "huge int beyond JSON's limit": _frame(b'{"v": ' + b"9" * 5000 + b', "a": [], "b": []}'),
    "very deep JSON": _frame(b'{"v": ' + b"[" * 100_000 + b"]" * 100_000 + b', "a": [], "b": []}'),
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_frames_are_refused_with_a_wire_error(body: bytes) -> None:
    with pytest.raises(wire.WireError):
        wire.decode(body)


def test_too_many_values_are_refused() -> None:
    body = _frame({"v": [0] * (wire.MAX_NODES + 1), "a": [], "b": []})
    with pytest.raises(wire.WireError, match="more than"):
        wire.decode(body)


def test_decoded_arrays_do_not_alias_the_message() -> None:
    body = bytearray(_body(np.arange(4.0)))
    back = wire.decode(bytes(body))
    body[-8:] = b"\xff" * 8
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_frame_length_reads_the_prefix() -> None:
    assert wire.frame_length(struct.pack(">I", 1234)) == 1234


def _header(value: Any) -> dict[str, Any]:
    body = _body(value)
    (length,) = struct.unpack(">I", body[:4])
    return json.loads(body[4 : 4 + length])


def test_the_same_array_twice_is_sent_once_and_arrives_as_one_array() -> None:
    p = {"W": np.arange(6.0).reshape(2, 3)}
    calls = [(np.ones(2), p), (np.zeros(2), p)]
    assert len(_header(calls)["a"]) == 3
    back = wire.decode(_body(calls))
    assert back[0][1]["W"] is back[1][1]["W"]
    assert _same([(np.ones(2), p), (np.zeros(2), p)], back)


def test_prefixes_of_one_array_share_one_buffer_the_size_of_the_longest() -> None:
    keys = np.arange(40.0).reshape(10, 4)
    prefixes = [keys[:t] for t in range(1, 10)]
    header = _header(prefixes)
    assert header["b"] == [keys[:9].nbytes]
    back = wire.decode(_body(prefixes))
    assert all(_same(want, got) for want, got in zip(prefixes, back, strict=True))
    back[-1][0, 0] = -1.0  # the views share memory again on arrival, as they did when sent
    assert back[0][0, 0] == -1.0


def test_an_array_sent_with_its_views_shares_their_buffer() -> None:
    x = np.arange(8.0)
    header = _header([x, x[:4], x[2:]])
    assert header["b"] == [x.nbytes]
    back = wire.decode(_body([x, x[:4], x[2:]]))
    back[0][3] = -1.0  # what a solution writing into x does to the views it was given with it
    assert back[1][3] == -1.0 and back[2][1] == -1.0


def test_rows_picked_far_apart_are_sent_alone_not_with_the_rows_between() -> None:
    rows = np.arange(3000.0).reshape(1000, 3)
    header = _header([rows[0], rows[999]])
    assert sorted(header["b"]) == [24, 24]


def test_views_keep_their_alignment_within_a_shared_buffer() -> None:
    raw = np.zeros(100, dtype=np.float64)
    views = [raw[3:10], raw[5:12], raw[4:9].view(np.int64)]
    back = wire.decode(_body(views))
    assert all(v.flags.aligned for v in back)
    assert all(_same(want, got) for want, got in zip(views, back, strict=True))


def test_an_unaligned_array_is_refused() -> None:
    data = np.arange(4.0).tobytes()
    body = _frame({"v": {"a": 0}, "a": [["<f8", [3], 0, 1]], "b": [len(data) + 1]}, b"\x00" + data)
    with pytest.raises(wire.WireError, match="not aligned"):
        wire.decode(body)


def test_many_entries_over_the_same_bytes_cost_no_memory_of_their_own() -> None:
    data = bytes(1 << 20)
    entries = [["<f8", [len(data) // 8], 0, 0]] * 400  # a hostile reply: 400 arrays, one megabyte
    body = _frame({"v": [{"a": i} for i in range(400)], "a": entries, "b": [len(data)]}, data)
    tracemalloc.start()
    try:
        back = wire.decode(body)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(back) == 400 and all(np.shares_memory(back[0], array) for array in back)
    assert peak < 4 * len(data), f"decoding took {peak >> 20} MiB for a 1 MiB message"


def test_views_of_a_misaligned_array_are_sent_alone_and_arrive_aligned() -> None:
    raw = np.frombuffer(b"\x00" + np.arange(10.0).tobytes(), dtype=np.float64, offset=1)
    assert not raw.flags.aligned
    views = [raw[0:5], raw[2:7]]
    back = wire.decode(_body(views))
    assert all(v.flags.aligned for v in back)
    assert all(_same(want, got) for want, got in zip(views, back, strict=True))


def test_a_bytearray_is_taken_over_and_its_arrays_are_decoded_in_place() -> None:
    value = {"k": np.arange(6.0).reshape(2, 3), "flags": np.array([True, False, True]), "v": np.arange(3, dtype="<f4")}
    body = bytearray(_body(value))
    back = wire.decode(body)
    assert _same(value, back)
    memory = np.frombuffer(body, np.uint8)
    assert all(np.shares_memory(back[k], memory) and back[k].flags.writeable for k in value)
    back["k"][0, 0] = 7.0
    assert back["k"][0, 0] == 7.0


def test_arrays_sent_in_separate_buffers_arrive_without_shared_memory() -> None:
    arrays = [np.arange(3.0), np.ones(5, dtype="|b1"), np.arange(4, dtype="<i2")]
    for body in (_body(arrays), bytearray(_body(arrays))):
        back = wire.decode(body)
        assert not any(np.shares_memory(a, b) for i, a in enumerate(back) for b in back[i + 1 :])


def test_every_buffer_starts_aligned_so_arrays_after_odd_sized_ones_need_no_copy() -> None:
    arrays = [
        np.ones(3, dtype="|b1"),
        np.arange(5.0),
        np.arange(3, dtype="<f4"),
        np.arange(2, dtype="<c16"),
        np.int8(1),
    ]
    body = _body(arrays)
    (header_len,) = struct.unpack(">I", body[:4])
    sizes = _header(arrays)["b"]
    assert (4 + header_len) % 8 == 0 and all(size % 8 == 0 for size in sizes)
    owned = bytearray(body)
    back = wire.decode(owned)
    assert _same(arrays, back)
    memory = np.frombuffer(owned, np.uint8)
    assert all(a.flags.aligned and np.shares_memory(a, memory) for a in back[:-1])


def test_prefixes_decoded_in_place_are_resent_in_one_buffer_again() -> None:
    keys = np.arange(40.0).reshape(10, 4)
    back = wire.decode(bytearray(_body([keys[:3], keys[:5], np.zeros(2)])))
    assert _header(back)["b"] == [keys[:5].nbytes, 16]  # the two prefixes share one buffer again


@pytest.mark.parametrize(
    "dtype",
    ["l", "q", "intc", "longlong", "L", "Q", "e", "f", "d", "F", "D", "?", "b", "B", "h", "H", "i", "I", ">f8", ">i4"],
)
def test_every_spelling_of_an_allowed_dtype_is_sent_as_its_canonical_string(dtype: str) -> None:
    array = np.arange(3).astype(dtype)
    want = np.dtype(dtype).newbyteorder("<").str if np.dtype(dtype).byteorder == ">" else np.dtype(dtype).str
    assert _header(array)["a"][0][0] == want
    assert _same(array.astype(want), wire.decode(_body(array)))


def test_dtype_metadata_does_not_stop_an_array_crossing() -> None:
    array = np.zeros(2, dtype=np.dtype("f8", metadata={"unit": "m"}))
    assert _header(array)["a"][0][0] == "<f8"


@pytest.mark.parametrize("dtype", ["g", "G", "M8[s]", "m8[ns]", "V8", "S8", "U2"])
def test_dtypes_outside_the_allowed_set_are_refused(dtype: str) -> None:
    with pytest.raises(wire.WireError, match="cannot be sent"):
        wire.encode(np.zeros(2, dtype=dtype))


def _nested(levels: int, leaf: Any) -> Any:
    value = leaf
    for level in range(levels):
        value = [value] if level % 3 == 0 else (value,) if level % 3 == 1 else {"x": value}
    return value


@pytest.mark.parametrize("leaf", [1, "s", None, np.zeros(1), np.float64(2), []])
def test_the_depth_limit_on_encode_is_exact(leaf: Any) -> None:
    assert _same(_nested(wire.MAX_DEPTH, leaf), wire.decode(_body(_nested(wire.MAX_DEPTH, leaf))))
    with pytest.raises(wire.WireError, match="nested more than"):
        wire.encode(_nested(wire.MAX_DEPTH + 1, leaf))


@pytest.mark.parametrize(
    ("levels", "leaf", "allowed"),
    [(wire.MAX_DEPTH, "1", True), (wire.MAX_DEPTH + 1, "1", False), (wire.MAX_DEPTH + 1, "", True),
     (wire.MAX_DEPTH + 2, "", False), (wire.MAX_DEPTH, '{"a": 0}', True), (wire.MAX_DEPTH + 1, '{"a": 0}', False)],
)  # fmt: skip
def test_the_depth_limit_on_decode_is_exact(levels: int, leaf: str, allowed: bool) -> None:
    text = '{"v": ' + "[" * levels + leaf + "]" * levels + ', "a": [["<f8", [], 0, 0]], "b": [8]}'
    body = _frame(text.encode(), b"\0" * 8)
    if allowed:
        wire.decode(body)
    else:
        with pytest.raises(wire.WireError, match="nested more than"):
            wire.decode(body)


def test_the_value_limit_is_exact_and_counts_only_values() -> None:
    assert len(wire.decode(_frame({"v": [0] * (wire.MAX_NODES - 1), "a": [], "b": []}))) == wire.MAX_NODES - 1
    with pytest.raises(wire.WireError, match="more than"):
        wire.decode(_frame({"v": [[0]] * (wire.MAX_NODES // 2), "a": [], "b": []}))
    long_text = "x" * (wire.MAX_NODES + 10)
    assert wire.decode(_body(["a", long_text])) == ["a", long_text]


def test_a_zero_dimension_beside_a_huge_one_is_a_wire_error() -> None:
    with pytest.raises(wire.WireError, match="too large"):
        wire.decode(_one_array(["<f8", [0, 2**70], 0, 0], b""))


def test_write_parts_writes_more_buffers_than_one_system_call_takes() -> None:
    value = [np.full(i % 5, i, dtype=("<f8", "|b1", "<f4")[i % 3]) for i in range(3000)] + [np.arange(200_000.0)]
    parts = wire.encode_parts(value)
    assert len(parts) > 2 * 1024
    read_end, write_end = os.pipe()
    received: list[Any] = []
    reader = threading.Thread(target=lambda: received.append(wire.read_frame_blocking(read_end, 1 << 30)))
    reader.start()
    try:
        wire.write_parts(write_end, parts)
    finally:
        os.close(write_end)
        reader.join()
    assert type(received[0]) is bytearray
    assert _same(value, wire.decode(received[0]))
    assert wire.read_frame_blocking(read_end, 1 << 30) is None
    os.close(read_end)


# --------------------------------------------------------------------------- shared containers (requests)


def _shared_body(value: Any) -> bytes:
    return wire.encode(value, share=True)[4:]


def test_a_request_keeps_the_identity_of_a_dict_and_a_list_passed_twice() -> None:
    cache = {"k": np.zeros((2, 3)), "rows": [1, 2]}
    p = {"W": np.eye(3)}
    calls = [[np.ones(3), cache, p], [np.ones(3), cache, p]]
    back = wire.decode(_shared_body(calls), shared=True)
    assert _same(calls, back)
    (_, first_cache, first_p), (_, second_cache, second_p) = back
    assert first_cache is second_cache and first_p is second_p
    assert first_cache["rows"] is second_cache["rows"]
    first_cache["k"] = None  # as a solution changing its argument would: the later call sees it
    assert second_cache["k"] is None


def test_shared_lists_and_dicts_inside_tuples_round_trip() -> None:
    row = [1.5, "x"]
    value = ((row, row), {"a": row, "b": (row,)})
    back = wire.decode(_shared_body(value), shared=True)
    assert _same(value, back)
    assert back[0][0] is back[0][1] is back[1]["a"] is back[1]["b"][0]


def test_a_cycle_cannot_be_sent() -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    with pytest.raises(wire.WireError, match="cycle"):
        wire.encode(loop, share=True)


def test_without_sharing_a_repeated_dict_arrives_as_two_equal_dicts() -> None:
    cache = {"k": [1]}
    back = wire.decode(_body([cache, cache]))
    assert back == [cache, cache] and back[0] is not back[1]


@pytest.mark.parametrize(
    "tree",
    [
        [{"n": 0, "l": [1]}, {"r": 0}],  # a reply may not share (the trusted side decodes without refs)
        [{"r": 0}],
    ],
)
def test_a_reply_holding_references_is_refused(tree: Any) -> None:
    with pytest.raises(wire.WireError, match="unknown form"):
        wire.decode(_frame({"v": tree, "a": [], "b": []}))


@pytest.mark.parametrize(
    "tree",
    [
        [{"r": 0}, {"n": 0, "l": [1]}],  # a reference before its definition
        [{"n": 0, "l": [{"r": 0}]}],  # a reference inside its own definition: a cycle
        [{"n": 0, "l": []}, {"n": 0, "l": []}],  # one number defined twice
        [{"n": "0", "l": []}],
        [{"n": 0, "t": []}],
        [{"n": 0, "d": []}],
    ],
)
def test_malformed_shared_values_in_a_request_are_refused(tree: Any) -> None:
    with pytest.raises(wire.WireError):
        wire.decode(_frame({"v": tree, "a": [], "b": []}), shared=True)


# --------------------------------------------------------------------------- bounds on the trusted side


def test_a_reply_header_over_the_limit_is_refused_before_it_is_parsed() -> None:
    body = _frame({"v": [0] * 100, "a": [], "b": []})
    assert wire.decode(body, max_header=len(body)) == [0] * 100
    with pytest.raises(wire.WireError, match=r"message structure of .* exceeds the limit"):
        wire.decode(body, max_header=100)


def test_array_table_entries_count_against_the_value_limit() -> None:
    # Many table entries viewing one 8-byte buffer: each would cost an ndarray object of the receiver.
    half = wire.MAX_NODES // 2 + 1
    values = b"[" + b",".join([b"0"] * half) + b"]"
    header = b'{"v": ' + values + b', "a": [' + b",".join([b'["<f8",[],0,0]'] * half) + b'], "b": [8]}'
    with pytest.raises(wire.WireError, match="more than"):
        wire.decode(_frame(header, b"\0" * 8))
    table_only = b'{"v": 0, "a": [' + b",".join([b'["<f8",[],0,0]'] * (wire.MAX_NODES + 1)) + b'], "b": [8]}'
    with pytest.raises(wire.WireError, match="more than"):
        wire.decode(_frame(table_only, b"\0" * 8))


def test_decoding_the_largest_reply_header_costs_bounded_memory() -> None:
    """The worst shapes a hostile reply can take, at the header limit: memory stays within a fixed bound."""
    limit = wire.MAX_REPLY_HEADER_BYTES
    shapes = {
        "empty lists": lambda n: b'{"v": [' + b",".join([b"[]"] * n) + b'], "a": [], "b": []}',
        "table entries on one buffer": lambda n: (
            b'{"v": 0, "a": [' + b",".join([b'["|b1",[],0,0]'] * n) + b'], "b": [8]}'
        ),
    }
    for name, build in shapes.items():
        n = 1
        while len(build(n * 2)) <= limit:
            n *= 2
        header = build(n)
        body = _frame(header, b"\0" * 8 if b'"b": [8]' in header else b"")
        tracemalloc.start()
        with contextlib.suppress(wire.WireError):
            wire.decode(body, max_header=limit)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 64 << 20, f"{name}: decoding {len(body):,} bytes peaked at {peak:,} bytes"


def test_bytes_cross_in_a_buffer_of_their_own_not_in_the_header() -> None:
    body = _body([b"\x00" * 100_000, b"ab"])
    (header_len,) = struct.unpack(">I", body[:4])
    assert header_len < 200  # the bytes are buffers; only their places are in the header
    assert wire.decode(body) == [b"\x00" * 100_000, b"ab"]


def test_a_request_keeps_the_identity_of_an_int_keyed_dict_passed_twice() -> None:
    vocab = {0: b"a", 1: b"b"}
    first, second = wire.decode(_body_shared([vocab, vocab]), shared=True)
    assert first is second and first == vocab
