"""The protocol's vocabulary: every message a side builds has exactly a shape the other accepts."""

from __future__ import annotations

from runner import protocol


def test_requests_name_their_op() -> None:
    assert protocol.load("x = 1", ["f"]) == {"op": "load", "source": "x = 1", "functions": ["f"]}
    assert protocol.call("f", [1]) == {"op": "call", "function": "f", "args": [1]}
    assert protocol.call_each("f", [[1], [2]]) == {"op": "call_each", "function": "f", "args_list": [[1], [2]]}


def test_each_reply_has_one_of_the_accepted_shapes() -> None:
    info = {"type": "ValueError", "message": "bad", "line": 3, "traceback": ""}
    shapes = {
        protocol.LOADED: protocol.loaded({"f": None}),
        protocol.SYNTAX_ERROR: protocol.syntax_error("SyntaxError", "bad", 1, 2, "x ="),
        protocol.VALUE: protocol.value(None),
        protocol.VALUES: protocol.values([1, 2]),
        protocol.RAISED: protocol.raised(info),
        protocol.RAISED_IN_BATCH: protocol.raised(info, 1, [5]),
        protocol.UNENCODABLE: protocol.unencodable("a set cannot be sent"),
        protocol.PROTOCOL_ERROR: protocol.protocol_error("unexpected request"),
    }
    for shape, reply in shapes.items():
        assert reply.keys() == shape
    assert len(set(shapes)) == len(shapes)  # no two shapes alike: a reply says which it is


def test_a_chain_feeds_the_part_of_the_previous_answer_or_none_when_it_has_no_such_part() -> None:
    cache = [1.0, 2.0]
    assert protocol.fed_part(("out", cache), 1) is cache  # the very object, not a copy
    assert protocol.fed_part({"out": 1}, 1) is None
    assert protocol.fed_part(("out",), 1) is None
    assert protocol.fed_part(None, 0) is None
