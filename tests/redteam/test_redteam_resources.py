"""Resource exhaustion and escape attempts: contained, reported clearly, the host unharmed."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from collections.abc import Iterator

import pytest
from redteam_harness import REPO as REPO_ROOT
from redteam_harness import GradeHostile

from grader.results.records import Reason, Status
from grader.sandbox import cgroups

pytestmark = pytest.mark.redteam


#: What each limit says: the CPU time of the whole run (every process and thread together), or the wall clock.
CPU = "the run used up its 2 s of CPU time"
WALL = "the run reached its wall-clock limit of 4 s"
# On a busy host a computing run can meet the 4 s wall clock before its 2 s of CPU time: either is a timeout.
COMPUTING = (CPU, WALL)
#: A sleep uses no CPU: only the wall clock stops it, and the message says it was waiting.
WAITING = f"{WALL} (2× its 2 s of CPU time) without finishing, and had used only 0.0"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("infinite_loop_in_call", COMPUTING),
        ("sleep_forever", (WAITING,)),
        ("ignore_signals", COMPUTING),
        ("fork_bomb_persistent", COMPUTING),
        ("thread_bomb", COMPUTING),
    ],
)
def test_endless_calls_are_stopped_by_a_time_limit_and_reported_as_such(
    hostile: GradeHostile, name: str, said: tuple[str, ...]
) -> None:
    graded = hostile(name)
    assert graded.result.status is not Status.PASS, graded.explain()
    assert graded.result.reason is Reason.TIMEOUT, graded.explain()
    first, *rest = graded.result.tests
    assert first.reason is Reason.TIMEOUT
    assert (first.message or "").startswith("Time limit exceeded during attend_step(): ")
    assert any(words in (first.message or "") for words in said), graded.explain()
    # After the first timeout the other function gets a fresh run of its own, which times out too;
    # the second timeout ends the grading. Every other check is "not run", and says why.
    second = [t for t in rest if t.reason is not Reason.NOT_RUN]
    assert [t.reason for t in second] == [Reason.TIMEOUT], graded.explain()
    assert (second[0].message or "").startswith("Time limit exceeded during kv_cache_bytes(): ")
    assert any(words in (second[0].message or "") for words in said), graded.explain()
    refused = rest[: rest.index(second[0])]
    assert refused and all("attend_step() ran out of time" in (t.message or "") for t in refused), graded.explain()


def test_an_infinite_loop_at_import_is_reported_as_timeout_while_loading(hostile: GradeHostile) -> None:
    graded = hostile("infinite_loop_at_import")
    assert graded.result.status is Status.ERROR, graded.explain()
    assert graded.result.reason is Reason.TIMEOUT
    assert "Time limit exceeded while loading solution.py" in (graded.result.message or "")


@pytest.mark.parametrize(("name", "line"), [("fork_bomb", "os.fork()"), ("subprocess_loop", "subprocess.Popen")])
def test_fork_bombs_and_subprocess_loops_hit_the_process_limit_and_say_so(
    hostile: GradeHostile, name: str, line: str
) -> None:
    graded = hostile(name)
    assert graded.result.status is Status.FAIL, graded.explain()
    assert graded.result.reason is Reason.RAISED
    first = graded.result.tests[0]
    assert "Process limit reached (a solution may run at most 16 processes" in (first.message or "")
    assert line in (first.message or "")


def test_a_forking_solution_is_graded_by_its_own_answers_not_its_childrens(hostile: GradeHostile) -> None:
    # Regression: children forked by the solution used to fall back into the runner loop, read the
    # grader's requests and answer on the same pipe as the runner.
    graded = hostile("fork_then_return")
    assert graded.result.status is Status.PASS, graded.explain()


def test_a_double_fork_daemon_does_not_outlive_the_run(hostile: GradeHostile) -> None:
    graded = hostile("double_fork_daemon")
    assert graded.result.status is Status.FAIL and graded.result.reason is Reason.WRONG_ANSWER, graded.explain()
    # The harness already asserted that no process of a sandbox uid survived and that the daemon's
    # canary file does not exist in the checkout.


@pytest.mark.parametrize("name", ["numpy_memory_bomb", "bytearray_memory_bomb"])
def test_memory_bombs_are_reported_as_memory_limit(hostile: GradeHostile, name: str) -> None:
    graded = hostile(name)
    assert graded.result.status is not Status.PASS, graded.explain()
    assert graded.result.reason is Reason.MEMORY_LIMIT
    assert "256 MB" in graded.messages() or "MemoryError" in graded.messages()


def test_a_huge_return_value_is_refused_as_reply_too_large(hostile: GradeHostile) -> None:
    graded = hostile("huge_return_value")
    assert graded.result.status is Status.FAIL, graded.explain()
    assert {t.reason for t in graded.result.tests} == {Reason.REPLY_TOO_LARGE}
    assert "larger than 32 MB" in graded.messages()


def test_a_huge_integer_is_refused_as_unsupported_not_a_runner_crash(hostile: GradeHostile) -> None:
    graded = hostile("huge_integer")
    assert graded.result.status is Status.FAIL, graded.explain()
    by_id = {t.id: t for t in graded.result.tests}
    for check_id in ("cache_bytes_examples", "cache_bytes_exact"):
        assert by_id[check_id].reason is Reason.UNSUPPORTED_VALUE
    # The public check says what is wrong with the value; the hidden one says only that it cannot say.
    assert "digits cannot be sent" in (by_id["cache_bytes_examples"].message or "")
    assert "this check is hidden" in (by_id["cache_bytes_exact"].message or "")
    assert "digits" not in (by_id["cache_bytes_exact"].message or "")
    assert by_id["worked_example"].status is Status.PASS  # attend_step is correct and still graded


@pytest.mark.parametrize(
    ("name", "where"), [("stdout_flood", "during attend_step()"), ("stderr_flood_at_import", "while loading")]
)
def test_output_floods_are_cut_at_the_output_limit(hostile: GradeHostile, name: str, where: str) -> None:
    graded = hostile(name)
    assert graded.result.status is not Status.PASS, graded.explain()
    assert graded.result.reason is Reason.OUTPUT_LIMIT
    assert f"Output limit exceeded {where}" in graded.messages()
    assert len(graded.output.encode()) <= 64 * 1024


def test_filling_tmp_shm_and_the_working_directory_stops_at_the_scratch_size(hostile: GradeHostile) -> None:
    graded = hostile("fill_scratch")
    assert graded.result.status is Status.PASS, graded.explain()  # correct, and the host is untouched
    reports = re.findall(r"filled (\S+): (\d+) bytes, then OSError errno (\d+)", graded.output)
    assert {place for place, _, _ in reports} == {"/tmp", "/dev/shm"}, graded.output
    assert "NO LIMIT" not in graded.output
    for _, written, errno_ in reports:
        assert int(written) <= 16 << 20 and int(errno_) in (27, 28)  # EFBIG or ENOSPC


def test_writing_outside_scratch_is_denied(hostile: GradeHostile) -> None:
    graded = hostile("write_outside_scratch")
    assert graded.result.status is Status.PASS, graded.explain()
    wrote = [line for line in graded.output.splitlines() if line.startswith("WROTE")]
    # Only paths under /tmp can be written: the sandbox's own tmpfs (the exercise copy lives under
    # the host's /tmp, so its path exists there too). The harness checked the host's copy is unchanged.
    assert all(line.startswith("WROTE /tmp/") for line in wrote), wrote
    targets = ["/etc/passwd", "/opt/mlkata/lib/runner/wire/__init__.py", "/proc/sys/kernel/core_pattern"]
    if not REPO_ROOT.is_relative_to("/tmp"):
        # A checkout under /tmp sits below the sandbox's own tmpfs, where writing is allowed and vanishes.
        targets.append(str(REPO_ROOT))
    for target in targets:
        assert any(line.startswith(f"denied {target}") for line in graded.output.splitlines()), target


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A loopback port on the host that the sandbox must not reach."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        yield server


def test_network_to_loopback_services_and_outside_fails(hostile: GradeHostile, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    graded = hostile("network", extra={"__PORT__": str(port)})
    assert graded.result.status is Status.PASS, graded.explain()
    assert "CONNECTED" not in graded.output
    for target in ("127.0.0.1:6379", "127.0.0.1:5432", "127.0.0.1:8000", f"127.0.0.1:{port}", "192.0.2.1:80"):
        assert f"no connection to {target}" in graded.output
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody connected to the host's port


@pytest.fixture
def host_sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """An unrelated process on the host that the sandbox must not be able to kill."""
    sleeper = subprocess.Popen(["sleep", "60"])
    yield sleeper
    sleeper.kill()
    sleeper.wait()


def test_killing_everything_the_parent_and_host_processes_fails(
    hostile: GradeHostile, host_sleeper: subprocess.Popen[bytes]
) -> None:
    graded = hostile("kill_others", extra={"__HOST_PID__": str(host_sleeper.pid)})
    assert graded.result.status is Status.PASS, graded.explain()  # the runner itself survived its own kill(-1)
    # The parent is the run's pid-namespace init (or root's bwrap): refused, or delivered and ignored.
    assert f"kill({host_sleeper.pid}): ProcessLookupError" in graded.output  # host pids are not even visible
    assert host_sleeper.poll() is None, "a host process was killed from the sandbox"
    os.kill(host_sleeper.pid, 0)


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_killing_its_own_process_group_is_reported_as_a_kill_not_an_unreadable_answer(
    hostile: GradeHostile, warm: bool
) -> None:
    # Regression (warm path): the run shared the zygote's process group, so the kill also took the zygote
    # and the launcher, and with them the report of how the run ended.
    graded = hostile("kill_own_group", warm=warm)
    assert graded.result.status is not Status.PASS, graded.explain()
    assert graded.result.points == 0
    assert "could not be read" not in graded.messages(), graded.explain()
    first = graded.result.tests[0]
    # Either the group is out of reach (ProcessLookupError: the cold runner's parent is bwrap's init) or
    # the runner died of SIGKILL: say which. On the warm path the runner leads a session of its own, and
    # the group it names is invisible in its pid namespace, so the kernel takes its own: SIGKILL, always.
    # (Not a substring test on "SIGKILL": the traceback of a ProcessLookupError quotes the source line.)
    if warm or first.reason is not Reason.RAISED:
        # With a cgroup the grader knows it was no OOM kill; without one it can only guess (and says so).
        expected = Reason.CRASHED if isinstance(cgroups.status(), cgroups.Host) else Reason.MEMORY_LIMIT
        assert first.reason is expected, graded.explain()
        assert "killed during attend_step() by SIGKILL" in (first.message or ""), graded.explain()
    else:
        assert "ProcessLookupError" in (first.message or ""), graded.explain()


def test_ptrace_is_blocked_and_reported(hostile: GradeHostile) -> None:
    graded = hostile("ptrace_parent")
    assert graded.result.status is Status.ERROR, graded.explain()
    assert graded.result.reason is Reason.BLOCKED_SYSCALL
    assert "ptrace" in (graded.result.message or "")


@pytest.mark.parametrize("name", ["segfault_ctypes", "c_stack_overflow"])
def test_segfaults_in_a_call_are_reported_as_crashed_with_sigsegv(hostile: GradeHostile, name: str) -> None:
    graded = hostile(name)
    assert graded.result.status is not Status.PASS, graded.explain()
    assert graded.result.reason is Reason.CRASHED
    first = graded.result.tests[0]
    assert first.reason is Reason.CRASHED and "SIGSEGV" in (first.message or "")
    assert {t.reason for t in graded.result.tests} <= {Reason.CRASHED, Reason.TIMEOUT, Reason.NOT_RUN}


def test_a_segfault_at_import_is_reported_as_crashed_while_loading(hostile: GradeHostile) -> None:
    graded = hostile("segfault_at_import")
    assert graded.result.status is Status.ERROR and graded.result.reason is Reason.CRASHED, graded.explain()
    assert "crashed while loading solution.py (SIGSEGV)" in (graded.result.message or "")


def test_deep_python_recursion_is_reported_as_a_recursion_error(hostile: GradeHostile) -> None:
    graded = hostile("deep_recursion")
    assert graded.result.status is Status.FAIL and graded.result.reason is Reason.RAISED, graded.explain()
    assert "RecursionError: maximum recursion depth exceeded (solution.py, line 3)" in graded.messages()
    assert all(len(t.message or "") < 5000 for t in graded.result.tests)  # the traceback is bounded


def test_shell_commands_find_no_secrets_and_no_privileges(hostile: GradeHostile) -> None:
    graded = hostile("shell_commands")
    assert graded.result.status is Status.PASS, graded.explain()
    out = graded.output
    uid = int(re.search(r"uid=(\d+)", out).group(1))  # type: ignore[union-attr]
    assert 61000 <= uid < 61256
    assert not re.search(r"\buid=0\b", out) and "root:x:0" not in out
    assert re.search(r"\$ sudo -n id\n\[exit [1-9]", out)
    assert re.search(r"\$ cat /etc/shadow\n\[exit [1-9]", out)
    assert "CapEff:\t0000000000000000" in out
    env = out.split("$ env\n", 1)[1].split("$ ", 1)[0]
    assert "MLKATA" not in env and "DATABASE" not in env and "SECRET" not in env
