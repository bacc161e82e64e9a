"""The jail bubblewrap makes, observed from inside a real run (cold start and warm zygote fork)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.sandbox import Ending, Limits, Run, RunClock, RunnerDied, bwrap_path
from grader.sandbox.cold import ColdRun
from grader.sandbox.runs import default_pool
from grader.sandbox.uids import FIRST_UID, SLOT_COUNT
from grader.sandbox.warm import WarmRun
from runner import protocol, wire
from tests.redteam.redteam_harness import leftover_sandbox_processes

REPO = Path(__file__).resolve().parents[3]
LIMITS = Limits(time_seconds=5, memory_mb=256, scratch_mb=16)
SANDBOX_UIDS = range(FIRST_UID, FIRST_UID + SLOT_COUNT)

PROBE = r"""
import errno
import os
import socket


def _try(action):
    try:
        action()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "ok"


def _write(path, size=1):
    with open(path, "wb") as f:
        for _ in range(size):
            f.write(b"x" * (1 << 20))


def facts(repo, secret_name):
    status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
    tmp = os.statvfs("/tmp")
    shm = os.statvfs("/dev/shm")
    return {
        "uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "groups": os.getgroups(),
        "caps": {k: status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")},
        "no_new_privs": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip(),
        "env": dict(os.environ), "secret_in_env": secret_name in os.environ,
        "socket": _try(lambda: socket.socket().connect(("127.0.0.1", 5432))),
        "interfaces": [line.split(":")[0].strip() for line in open("/proc/net/dev").read().splitlines()[2:]],
        "root": sorted(os.listdir("/")), "runner": sorted(os.listdir("/opt/mlkata/lib/runner")),
        "repo_visible": os.path.exists(repo), "etc_visible": os.path.exists("/etc/passwd"),
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "write_usr": _try(lambda: _write("/usr/evil")), "write_root": _try(lambda: _write("/evil")),
        "write_runner": _try(lambda: _write("/opt/mlkata/lib/runner/main.py")),
        "write_tmp": _try(lambda: _write("/tmp/small")),
        "fill_tmp": _try(lambda: _write("/tmp/big", 20)), "fill_shm": _try(lambda: _write("/dev/shm/big", 20)),
        "tmp_bytes": tmp.f_blocks * tmp.f_frsize, "shm_bytes": shm.f_blocks * shm.f_frsize,
        "tty": _try(lambda: open("/dev/tty")), "isatty": [os.isatty(fd) for fd in (0, 1, 2)],
        "cwd": os.getcwd(),
    }


def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                pass
        os._exit(0)
    os.wait()
    return os.getpid()


def sleep():
    import time
    time.sleep(30)
"""


STARTERS: dict[str, Callable[[Limits], Run]] = {
    "cold": lambda limits: ColdRun(limits, jailed=True),
    "warm": lambda limits: WarmRun(limits, pool=default_pool()),
}


class Jail:
    """A runner in the sandbox with :data:`PROBE` loaded, spoken to over the wire protocol."""

    def __init__(self, process: Run) -> None:
        self.process = process
        reply = self.ask(protocol.load(PROBE, ["facts", "daemon", "sleep"]))
        assert reply.keys() == protocol.LOADED, reply

    def ask(self, request: dict[str, Any], seconds: float = 5.0) -> dict[str, Any]:
        body = self.process.exchange(wire.encode(request), RunClock.wall_only(seconds))
        reply = wire.decode(body)
        assert isinstance(reply, dict)
        return reply

    def call(self, function: str, *args: Any, seconds: float = 5.0) -> Any:
        reply = self.ask(protocol.call(function, list(args)), seconds)
        assert reply.keys() == protocol.VALUE, reply
        return reply["value"]


@pytest.fixture(params=sorted(STARTERS))
def jail(request: pytest.FixtureRequest) -> Iterator[Jail]:
    assert bwrap_path() is not None, "bubblewrap is required (apt-get install bubblewrap)"
    process = STARTERS[request.param](LIMITS)
    try:
        yield Jail(process)
    finally:
        process.close()


@pytest.fixture
def facts(jail: Jail, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("MLKATA_SECRET_KEY", "canary-not-for-the-sandbox")
    return jail.call("facts", str(REPO), "MLKATA_SECRET_KEY")


def test_the_run_has_an_unprivileged_uid_of_its_own(facts: dict[str, Any]) -> None:
    assert facts["uid"] == facts["euid"] != 0
    if os.geteuid() == 0:
        assert facts["uid"] in SANDBOX_UIDS and facts["gid"] == facts["uid"]
        assert facts["groups"] in ([], [facts["gid"]])


def test_the_run_has_no_capabilities_and_no_new_privileges(facts: dict[str, Any]) -> None:
    assert set(facts["caps"].values()) == {"0000000000000000"}, facts["caps"]
    assert facts["no_new_privs"] == "1"
    assert facts["seccomp"] == "2"  # a filter is installed


def test_the_environment_is_cleared(facts: dict[str, Any]) -> None:
    assert not facts["secret_in_env"]
    allowed = {"PATH", "HOME", "LANG", "PWD", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
    assert set(facts["env"]) <= allowed, facts["env"]


def test_there_is_no_network_not_even_loopback(facts: dict[str, Any]) -> None:
    assert facts["socket"] in ("EPERM", "EACCES", "ENETUNREACH", "ECONNREFUSED")
    assert facts["interfaces"] in ([], ["lo"])  # an empty network namespace


def test_the_filesystem_is_read_only_except_the_scratch_tmpfs(facts: dict[str, Any]) -> None:
    for key in ("write_usr", "write_root", "write_runner"):
        assert facts[key] in ("EROFS", "EACCES", "EPERM"), (key, facts[key])
    assert facts["write_tmp"] == "ok" and facts["cwd"] == "/tmp"


def test_tmp_and_dev_shm_are_capped_at_the_scratch_size(facts: dict[str, Any]) -> None:
    assert facts["tmp_bytes"] == facts["shm_bytes"] == LIMITS.scratch_mb << 20
    assert facts["fill_tmp"] in ("ENOSPC", "EFBIG") and facts["fill_shm"] in ("ENOSPC", "EFBIG")


def test_nothing_of_the_repository_or_host_is_visible_except_what_is_bound(facts: dict[str, Any]) -> None:
    assert not facts["repo_visible"] and not facts["etc_visible"]
    assert set(facts["root"]) <= {"bin", "dev", "lib", "lib32", "lib64", "opt", "proc", "root", "sbin", "tmp", "usr"}
    runner_files = {p.name for p in (REPO / "runner").iterdir() if p.name != "__pycache__"}
    assert set(facts["runner"]) - {"__pycache__"} <= runner_files


def test_the_run_has_its_own_pid_namespace_and_no_terminal(facts: dict[str, Any]) -> None:
    assert len(facts["pids"]) <= 3 and facts["pids"][0] == 1
    assert facts["tty"] != "ok"  # a new session: no controlling terminal to push keystrokes into
    assert facts["isatty"] == [False, False, False]


@pytest.mark.skipif(os.geteuid() != 0, reason="sandbox uids are used only when the grader runs as root")
def test_closing_a_run_kills_its_daemons_too(jail: Jail) -> None:
    jail.call("daemon")
    assert leftover_sandbox_processes(), "the daemon should be running before the run is closed"
    jail.process.close()
    deadline = time.monotonic() + 30
    while leftover_sandbox_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not leftover_sandbox_processes()


def test_a_call_past_the_wall_clock_limit_is_stopped_and_says_so(jail: Jail) -> None:
    began = time.monotonic()
    with pytest.raises(RunnerDied) as died:
        jail.call("sleep", seconds=0.5)
    assert died.value.ending is Ending.WALL_CLOCK
    assert time.monotonic() - began < 10  # 0.5 s, and killing the jail on a loaded host: not the 30 s sleep


def test_concurrent_runs_get_different_uids() -> None:
    if os.geteuid() != 0:
        pytest.skip("sandbox uids are used only when the grader runs as root")
    first, second = ColdRun(LIMITS, jailed=True), ColdRun(LIMITS, jailed=True)
    try:
        uids = {Jail(p).call("facts", str(REPO), "X")["uid"] for p in (first, second)}
    finally:
        first.close()
        second.close()
    assert len(uids) == 2
