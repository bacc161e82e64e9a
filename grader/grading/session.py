"""A solution loaded in a runner, and the request/reply protocol spoken with it.

Every reply is untrusted: it is decoded by :mod:`runner.wire` (plain data only) and its shape is
checked here. Anything unexpected is the solution's failure, never the grader's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grader.sandbox import Ending, Limits, Run, RunClock, RunnerDied, start_runner
from runner import protocol, wire


@dataclass(frozen=True)
class SolutionRaised(Exception):
    """The solution raised an exception (while loading, or inside a call)."""

    type: str
    message: str
    line: int | None
    traceback: str
    call_index: int | None = None  # which call of a batch raised
    #: What the calls of the batch before the one that raised returned.
    earlier_values: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    def describe(self, context: str) -> str:
        where = f" (solution.py, line {self.line})" if self.line else ""
        text = (
            f"{context} raised {self.type}: {self.message}{where}"
            if self.message
            else f"{context} raised {self.type}{where}"
        )
        return f"{text}\n{self.traceback}" if self.traceback else text


@dataclass(frozen=True)
class SolutionSyntaxError(Exception):
    type: str
    message: str
    line: int | None
    column: int | None
    text: str


@dataclass(frozen=True)
class UnsupportedValue(Exception):
    """The solution returned a value that cannot cross the boundary (an object, an ndarray subclass…)."""

    detail: str


@dataclass(frozen=True)
class CallReply:
    """What one call returned: its value, and nothing the sandbox says about itself."""

    value: Any


class SolutionSession:
    """One runner with ``solution.py`` loaded. Dies with the runner; the grader starts another."""

    def __init__(self, limits: Limits, *, jailed: bool, clock: RunClock | None = None, warm: bool = True) -> None:
        """A new runner; ``clock`` holds the time it may use, shared with the grading's earlier runners if given."""
        self.run: Run = start_runner(limits, jailed=jailed, warm=warm)
        self.clock = clock or RunClock.of(limits)
        self.clock.new_run()
        self.alive = True

    def load(self, source: str, functions: list[str]) -> dict[str, Any]:
        """Load the solution; return what the runner saw of each expected function."""
        reply = self._exchange(protocol.load(source, functions))
        if reply.keys() == protocol.SYNTAX_ERROR:
            info = self._dict_field(reply["syntax_error"])
            raise SolutionSyntaxError(
                type=_text(info.get("type")),
                message=_text(info.get("message")),
                line=_int(info.get("line")),
                column=_int(info.get("column")),
                text=_text(info.get("text")),
            )
        if reply.keys() == protocol.LOADED and reply["ok"] is True and isinstance(reply["functions"], dict):
            return reply["functions"]
        raise self._malformed("unexpected reply to load")

    def try_inputs(self, inputs: str) -> list[tuple[int, str]]:
        """Compile a try's inputs in the runner; each statement's (line, source). Syntax errors raise as in load."""
        reply = self._exchange(protocol.try_inputs(inputs))
        if reply.keys() == protocol.SYNTAX_ERROR:
            info = self._dict_field(reply["syntax_error"])
            raise SolutionSyntaxError(
                type=_text(info.get("type")), message=_text(info.get("message")), line=_int(info.get("line")),
                column=_int(info.get("column")), text=_text(info.get("text")),
            )  # fmt: skip
        found = reply.get("steps")
        if reply.keys() == protocol.STEPS and reply["ok"] is True and type(found) is list:
            steps = [(s[0], s[1]) for s in found if type(s) is list and len(s) == 2 and type(s[0]) is int]
            if len(steps) == len(found) and all(isinstance(source, str) for _, source in steps):
                return [(line, source[:200]) for line, source in steps]
        raise self._malformed("unexpected reply to try")

    def try_step(self, index: int) -> tuple[bool, Any, str | None]:
        """Run one statement of a try: (has a value, the value, the type name of a value shown as text)."""
        reply = self._exchange(protocol.try_step(index))
        if reply.keys() == protocol.NO_VALUE and reply["ok"] is True:
            return False, None, None
        if reply.keys() == protocol.VALUE and reply["ok"] is True:
            return True, reply["value"], None
        if reply.keys() == protocol.AS_TEXT and reply["ok"] is True:
            return True, _text(reply["text"]), _text(reply["type"], 100)
        if reply.keys() == protocol.UNENCODABLE:
            raise UnsupportedValue(_text(reply["unencodable"]))
        raise self._malformed("unexpected reply to try_step")

    def call(self, function: str, args: list[Any]) -> CallReply:
        reply = self._exchange(protocol.call(function, args))
        if reply.keys() == protocol.VALUE and reply["ok"] is True:
            return CallReply(reply["value"])
        if reply.keys() == protocol.UNENCODABLE:
            raise UnsupportedValue(_text(reply["unencodable"]))
        raise self._malformed("unexpected reply to call")

    def call_each(self, function: str, args_list: list[list[Any]]) -> list[Any]:
        """Calls in one crossing, in order. If one raises, :class:`SolutionRaised` says which.

        An object passed to several calls is one object in the sandbox too, as it would be for a
        Python caller: a call that changes it in place changes what the later calls see.
        """
        return self._values(protocol.call_each(function, args_list), len(args_list), "call_each")

    def call_chain(self, function: str, args_list: list[list[Any]], argument: int, part: int) -> list[Any]:
        """Calls in one crossing, each after the first given part of the previous one's result."""
        return self._values(protocol.call_chain(function, args_list, argument, part), len(args_list), "call_chain")

    def _values(self, request: dict[str, Any], count: int, op: str) -> list[Any]:
        reply = self._exchange(request)
        values = reply.get("values")
        well_formed = reply.keys() == protocol.VALUES and reply["ok"] is True
        if well_formed and isinstance(values, list) and len(values) == count:
            return values
        if reply.keys() == protocol.UNENCODABLE:
            raise UnsupportedValue(_text(reply["unencodable"]))
        raise self._malformed(f"unexpected reply to {op}")

    def _exchange(self, request: dict[str, Any]) -> dict[str, Any]:
        if not self.alive:
            raise RuntimeError("the runner has stopped")
        try:
            body = self.run.exchange(wire.encode(request, share=True), self.clock)
            try:
                # The body is a bytearray of its own: the reply's arrays are decoded in place, not copied.
                reply = wire.decode(body, max_header=wire.MAX_REPLY_HEADER_BYTES)
            except wire.WireError as exc:
                self.run.kill()
                raise RunnerDied(Ending.MALFORMED_REPLY, detail=str(exc)) from None
        except RunnerDied:
            self.alive = False
            raise
        if not isinstance(reply, dict):
            raise self._malformed("the reply is not a message")
        if "raised" in reply:
            if reply.keys() not in (protocol.RAISED, protocol.RAISED_IN_BATCH):
                raise self._malformed("unexpected reply")
            info = self._dict_field(reply["raised"])
            raise SolutionRaised(
                type=_text(info.get("type")),
                message=_text(info.get("message")),
                line=_int(info.get("line")),
                traceback=_text(info.get("traceback")),
                call_index=_int(reply.get("index")),
                earlier_values=tuple(reply["values"]) if type(reply.get("values")) is list else (),
            )
        return reply

    def _malformed(self, detail: str) -> RunnerDied:
        """A reply of no shape the protocol knows: the runner was rewritten. It is ended, never trusted again."""
        self.run.kill()
        self.alive = False
        return RunnerDied(Ending.MALFORMED_REPLY, detail=detail)

    def _dict_field(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self._malformed("a reply field has the wrong form")
        return value

    def take_output(self) -> str:
        self.run.drain_output(0.0 if self.alive else 0.05)
        return self.run.output.take_new()

    def close(self, *, wait: bool = True) -> None:
        """Stop the runner; with ``wait=False`` only its killing is waited for, not its tidying up."""
        self.clock.look(self.run.cpu_seconds)  # its last reading: a runner after this one starts from there
        self.alive = False
        if wait:
            self.run.close()
        else:
            self.run.close_soon()


def _text(value: Any, limit: int = 4000) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    return value if type(value) is int else None
