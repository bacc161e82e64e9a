"""Helpers for the warm path's tests: probe functions loaded into a run, and runs to load them into."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from grader.sandbox import Limits, Run, RunClock, RunnerDied
from grader.sandbox.cold import ColdRun
from grader.sandbox.pool import ZygotePool
from grader.sandbox.warm import WarmRun
from grader.sandbox.zygote import Zygote
from runner import protocol, wire

PROBES = """
import os, signal, socket, sys, time

import numpy as np


def status():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
    return {name: fields[name].strip() for name in ("CapEff", "CapPrm", "CapBnd", "CapAmb", "NoNewPrivs")}


def pids():
    return sorted(int(name) for name in os.listdir("/proc") if name.isdigit())


def interfaces():
    return [line.split(":")[0].strip() for line in open("/proc/self/net/dev").read().splitlines()[2:]]


def connect():
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=1)
    except OSError as exc:
        return type(exc).__name__
    return "connected"


def leave_traces():
    with open("/tmp/secret.txt", "w") as handle:
        handle.write("answer")
    np.LEFT_BEHIND = True
    sys.modules["os"].LEFT_BEHIND = True
    return sorted(os.listdir("/tmp"))


def traces():
    return {
        "tmp": sorted(os.listdir("/tmp")),
        "shm": sorted(os.listdir("/dev/shm")),
        "numpy": hasattr(np, "LEFT_BEHIND"),
        "os": hasattr(os, "LEFT_BEHIND"),
        "solution": "solution" in sys.modules and hasattr(sys.modules["solution"], "COUNTER"),
    }


def start_daemon():
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(600)
        os._exit(0)
    os.waitpid(child, 0)
    return pids()


def fork_bomb():
    made = 0
    while True:
        try:
            pid = os.fork()
        except OSError as exc:
            return [made, exc.errno]
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        made += 1


def fork_once():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def spin():
    while True:
        pass


def spin_in_children():
    # The runner itself waits: only its children compute.
    for _ in range(2):
        if os.fork() == 0:
            while True:
                pass
    os.wait()


def nap():
    time.sleep(0.3)
    return "rested"


def exit_three():
    os._exit(3)


def segfault():
    os.kill(os.getpid(), signal.SIGSEGV)


def memory_bomb():
    return np.ones(10**10).sum()


def random_numbers():
    return np.random.rand(3).tolist()
"""


class Probed:
    """One submission through the warm (or cold) path, with the probes loaded.

    Each exchange is given ``seconds`` of wall-clock time, or the time left on ``clock``.
    """

    def __init__(self, process: Run) -> None:
        self.process = process
        reply = self._exchange(protocol.load(textwrap.dedent(PROBES), []), RunClock.wall_only(10))
        assert reply.keys() == protocol.LOADED, reply

    def _exchange(self, request: dict[str, Any], clock: RunClock) -> dict[str, Any]:
        return wire.decode(self.process.exchange(wire.encode(request), clock))

    def reply(self, function: str, seconds: float = 10, clock: RunClock | None = None) -> dict[str, Any]:
        return self._exchange(protocol.call(function, []), clock or RunClock.wall_only(seconds))

    def call(self, function: str, seconds: float = 10, clock: RunClock | None = None) -> Any:
        reply = self.reply(function, seconds, clock)
        assert reply.keys() == protocol.VALUE, reply
        return reply["value"]

    def died(self, function: str, seconds: float = 10, clock: RunClock | None = None) -> RunnerDied:
        with pytest.raises(RunnerDied) as caught:
            self.reply(function, seconds, clock)
        return caught.value


@contextmanager
def warm_run(pool: ZygotePool[Zygote], limits: Limits | None = None) -> Iterator[Probed]:
    process = WarmRun(limits or Limits(), pool=pool)
    try:
        yield Probed(process)
    finally:
        process.close()


@contextmanager
def cold_run(limits: Limits | None = None) -> Iterator[Probed]:
    process = ColdRun(limits or Limits(), jailed=True)
    try:
        yield Probed(process)
    finally:
        process.close()
