"""A cgroup per run, on this host's real cgroups (no mocks), and the fallback when there are none.

These need root, bubblewrap and a writable cgroup hierarchy (v1 on the machines this runs on); they
fail, never skip, without them. The fallback is exercised by pointing the module at an empty
directory, exactly what a host without a mounted hierarchy looks like to it.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader import sandbox
from grader.exercise import Exercise
from grader.grading.engine import grade
from grader.grading.session import SolutionSession
from grader.results.records import Reason, Status
from grader.sandbox import Limits, Run, RunnerDied, cgroups, doctor
from grader.sandbox.cold import ColdRun
from grader.sandbox.policy import CGROUP_TASKS, memory_limit_mb, pids_limit
from grader.sandbox.runs import default_pool
from grader.sandbox.warm import WarmRun

PATHS = ["warm", "cold"]

# Each child stays far below its own 256 MB address-space limit (a forked runner starts near 100 MB);
# eight of them together pass the run's ceiling of 256 + 2 * 16 + 64 = 352 MB.
TREE_MEMORY_BOMB = """
import os, time

def attend_step(x_t, cache, p):
    children = []
    for _ in range(8):
        pid = os.fork()
        if pid == 0:
            try:
                hold = b"x" * (80 << 20)  # written, so really resident
                time.sleep(60)
            finally:
                os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    return x_t, cache

def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 0
"""

KILLS_ITSELF = """
import os, signal

def attend_step(x_t, cache, p):
    os.kill(os.getpid(), signal.SIGKILL)

def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    os.kill(os.getpid(), signal.SIGKILL)
"""

# Children in sessions of their own that ignore SIGTERM and outlive the call.
DAEMONS_THEN_SLEEP = """
import os, signal, time

def spawn():
    for _ in range(3):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                time.sleep(600)
            os._exit(0)
    return len(os.listdir("/proc"))

def forever():
    time.sleep(600)
"""


@pytest.fixture(autouse=True)
def _real_cgroups() -> Iterator[None]:
    cgroups.use_mount_root(None)
    yield
    cgroups.use_mount_root(None)


@pytest.fixture
def host() -> cgroups.Host:
    found = cgroups.status()
    assert isinstance(found, cgroups.Host), f"this host should offer writable cgroups: {found}"
    return found


@pytest.fixture
def no_cgroups(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Iterator[cgroups.Fallback]:
    """The module pointed at an empty directory: what a host without a writable hierarchy looks like."""
    cgroups.use_mount_root(tmp_path)
    with caplog.at_level(logging.WARNING, logger="grader.sandbox.cgroups.host"):
        found = cgroups.status()
    assert isinstance(found, cgroups.Fallback)
    assert "cgroups not used" in caplog.text  # logged, never silently assumed
    yield found
    cgroups.use_mount_root(None)


def _own_runs(host: cgroups.Host) -> list[Path]:
    """This process's run cgroups, apart from those of spare runs (started ahead, no submission yet)."""
    pattern = f"{cgroups.PREFIX}-{os.getpid()}-*"
    sandbox.settle()
    spares = sandbox.spare_cgroup_dirs()
    return [path for parent in host.parents.values() for path in parent.glob(pattern) if str(path) not in spares]


def _start(path: str, limits: Limits) -> Run:
    return WarmRun(limits, pool=default_pool()) if path == "warm" else ColdRun(limits, jailed=True)


# --------------------------------------------------------------------------- through the grader


@pytest.mark.parametrize("path", PATHS)
def test_a_tree_of_children_over_the_run_memory_is_killed_and_reported_as_memory_limit(
    fast_exercise: Exercise, host: cgroups.Host, path: str
) -> None:
    result = grade(fast_exercise, TREE_MEMORY_BOMB, warm=path == "warm")
    first = result.tests[0]
    assert first.reason is Reason.MEMORY_LIMIT, first.message
    assert "processes together used more than 352 MB" in (first.message or "")
    # Its children only sleep: without the memory limit, only the wall clock would have ended the run.
    assert first.duration_ms < 1000 * fast_exercise.limits.wall_seconds, "killed by the memory limit"
    assert _own_runs(host) == []


@pytest.mark.parametrize("path", PATHS)
def test_a_sigkill_that_was_no_oom_is_a_crash_not_a_memory_verdict(
    fast_exercise: Exercise, host: cgroups.Host, path: str
) -> None:
    result = grade(fast_exercise, KILLS_ITSELF, warm=path == "warm")
    first = result.tests[0]
    assert first.reason is Reason.CRASHED, first.message
    assert "by SIGKILL, not by the memory limit" in (first.message or "")
    assert _own_runs(host) == []


@pytest.mark.parametrize("path", PATHS)
def test_a_runs_cgroup_holds_the_run_while_it_lives_and_is_gone_after(host: cgroups.Host, path: str) -> None:
    limits = Limits(memory_mb=256, processes=8)
    process = _start(path, limits)
    try:
        run = process.cgroup
        assert run is not None
        # The cold shim joins before it execs prlimit and bwrap: wait for that; the warm run is moved already.
        deadline = time.monotonic() + 30
        while process.pid not in run.procs() and time.monotonic() < deadline:
            time.sleep(0.005)
        assert process.pid in run.procs()  # bwrap (cold) or the run's init (warm), before any request
        memory = run.dirs["memory"]
        assert int((memory / "memory.limit_in_bytes").read_text()) == memory_limit_mb(limits) << 20
        assert int((run.dirs["pids"] / "pids.max").read_text()) == limits.processes + CGROUP_TASKS
        assert [path.name for path in _own_runs(host)] == [memory.name] * len(set(host.parents.values()))
    finally:
        process.close()
    assert _own_runs(host) == []
    assert not any(directory.exists() for directory in run.dirs.values())


@pytest.mark.parametrize("path", PATHS)
def test_the_cgroup_kill_alone_ends_every_task_of_a_run_in_its_namespaces(host: cgroups.Host, path: str) -> None:
    session = SolutionSession(Limits(processes=16), jailed=True, warm=path == "warm")
    process = session.run
    try:
        session.load(DAEMONS_THEN_SLEEP, ["spawn", "forever"])
        session.call("spawn", [])
        run = process.cgroup
        assert run is not None
        assert len(run.procs()) >= 5  # the runner, its three daemons and the sandbox's own processes
        run.kill()  # only the cgroup: neither bwrap nor the init was signalled by the grader
        assert run.procs() == set()
        with pytest.raises(RunnerDied):
            session.call("forever", [])
    finally:
        session.close()
    assert _own_runs(host) == []


@pytest.mark.parametrize("path", PATHS)
def test_a_timeout_leaves_no_task_and_no_cgroup(fast_exercise: Exercise, host: cgroups.Host, path: str) -> None:
    source = DAEMONS_THEN_SLEEP + textwrap.dedent("""
        def attend_step(x_t, cache, p):
            spawn()
            forever()

        def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
            forever()
    """)
    result = grade(fast_exercise, source, warm=path == "warm")
    assert result.reason is Reason.TIMEOUT, result.message
    assert _own_runs(host) == []


# --------------------------------------------------------------------------- the module on its own


def test_pids_max_caps_a_fork_bomb_for_the_whole_tree(host: cgroups.Host) -> None:
    # As root, RLIMIT_NPROC does not hold at all: here only the cgroup stops the bomb.
    limits = Limits(processes=4)
    run = host.create_run(limits)
    bomb = textwrap.dedent("""
        import os, time
        made = 0
        try:
            while made < 200:
                if os.fork() == 0:
                    try:
                        os.fork()  # grandchildren count against the same ceiling
                    except OSError:
                        pass
                    time.sleep(30)
                    os._exit(0)
                made += 1
        except OSError:
            pass
        print(made, flush=True)
        time.sleep(30)
    """)
    child = subprocess.Popen([*run.join_command(), sys.executable, "-I", "-c", bomb], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        made = int(child.stdout.readline())
        assert made < pids_limit(limits)
        assert int((run.dirs["pids"] / "pids.current").read_text()) == pids_limit(limits)
        assert len(run.procs()) == pids_limit(limits)
        assert "max" in (run.dirs["pids"] / "pids.events").read_text()
    finally:
        run.remove()
        child.wait(timeout=5)
        assert child.stdout is not None
        child.stdout.close()
    assert child.returncode == -9
    assert not any(directory.exists() for directory in run.dirs.values())


def test_kill_ends_host_daemons_that_left_their_session(host: cgroups.Host) -> None:
    run = host.create_run(Limits())
    script = "for i in 1 2 3; do setsid sleep 300 & done; (setsid sh -c 'sleep 300 & sleep 300') & wait"
    parent = subprocess.Popen([*run.join_command(), "/bin/sh", "-c", script], start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while len(run.procs()) < 6 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(run.procs()) >= 6
        run.kill()
        assert run.procs() == set()
        if "freezer" in run.dirs:
            assert (run.dirs["freezer"] / "freezer.state").read_text().strip() == "THAWED"
    finally:
        run.remove()
        parent.wait(timeout=5)
    assert not any(directory.exists() for directory in run.dirs.values())


def test_controllers_mounted_together_get_one_directory_per_run(host: cgroups.Host, tmp_path: Path) -> None:
    # As hosts that mount "cpu,cpuacct" with a link for each name: here, cpuacct is a link to cpu.
    assert host.version == 1, "this host is expected to be hybrid (v1 + empty v2)"
    for name in host.parents:
        if name != "cpuacct":
            (tmp_path / name).symlink_to(Path("/sys/fs/cgroup") / name)
    (tmp_path / "cpuacct").symlink_to(tmp_path / "cpu")
    cgroups.use_mount_root(tmp_path)
    together = cgroups.status()
    assert isinstance(together, cgroups.Host) and together.parents["cpu"] == together.parents["cpuacct"]
    run = together.create_run(Limits())
    try:
        assert run.dirs["cpu"] == run.dirs["cpuacct"] and run.dirs["cpu"] in run.made
        assert len(run.unique_dirs) == len(set(together.parents.values()))
    finally:
        run.remove()
    assert not any(directory.exists() for directory in run.dirs.values())


def test_the_hybrid_hosts_unified_hierarchy_without_controllers_is_not_used() -> None:
    unified = Path("/sys/fs/cgroup/unified")
    assert (unified / "cgroup.controllers").is_file(), "this host is expected to be hybrid (v1 + empty v2)"
    found = cgroups.detect(unified)  # the v2 code path, on a v2 mount that has no controllers bound
    assert isinstance(found, cgroups.Fallback)
    assert "v2 without the memory, pids controller" in found.reason


# --------------------------------------------------------------------------- the fallback


@pytest.mark.parametrize("path", PATHS)
def test_without_cgroups_runs_still_grade_and_a_sigkill_is_an_honest_guess(
    fast_exercise: Exercise, kv_exercise: Exercise, no_cgroups: cgroups.Fallback, path: str
) -> None:
    warm = path == "warm"
    passed = grade(kv_exercise, kv_exercise.reference_path.read_text(), warm=warm)
    assert passed.status is Status.PASS, passed.message
    killed = grade(fast_exercise, KILLS_ITSELF, warm=warm)
    first = killed.tests[0]
    assert first.reason is Reason.MEMORY_LIMIT, first.message
    assert "by SIGKILL (by the memory limit of 256 MB or by the solution itself)" in (first.message or "")


def test_doctor_reports_the_fallback_and_does_not_require_it(no_cgroups: cgroups.Fallback) -> None:
    protections = {p.name: p for p in doctor.examine()}
    tree = protections["cgroup limits for the whole process tree"]
    assert not tree.active and not tree.required
    assert no_cgroups.reason in tree.detail and "Fallback" in tree.detail
    cpu = protections["CPU time limit on the whole run"]
    assert not cpu.active and not cpu.required and "read through /proc" in cpu.detail
    assert protections["CPU time of a run's children counted"].active  # seen through /proc all the same
    assert "run inside its own cgroup" not in protections
    assert [p.name for p in protections.values() if p.required and not p.active] == []


def test_doctor_requires_and_observes_cgroups_where_the_host_offers_them(host: cgroups.Host) -> None:
    protections = {p.name: p for p in doctor.examine()}
    tree = protections["cgroup limits for the whole process tree"]
    assert tree.active and tree.required
    assert f"cgroups v{host.version}" in tree.detail and "memory" in tree.detail and "pids" in tree.detail
    inside = protections["run inside its own cgroup"]
    assert inside.active and inside.required
    cpu = protections["CPU time limit on the whole run"]
    assert cpu.active and cpu.required
    assert ("cpu.stat" if host.version == 2 else "cpuacct.usage") in cpu.detail
    children = protections["CPU time of a run's children counted"]
    assert children.active and children.required, children.detail


def test_start_up_removes_the_runs_of_a_grader_that_died(host: cgroups.Host) -> None:
    dead = subprocess.Popen(["/bin/true"])
    dead.wait()
    stale = [parent / f"{cgroups.PREFIX}-{dead.pid}-0-abcdef" for parent in dict.fromkeys(host.parents.values())]
    for directory in stale:
        directory.mkdir()
    cgroups.use_mount_root(None)  # detect again, as a new grader process would
    assert isinstance(cgroups.status(), cgroups.Host)
    assert not any(directory.exists() for directory in stale)
