"""The kernel's surface: host-wide resources that namespaces do not bound, and system calls no run needs.

The seccomp filter is an allowlist: a call not on it kills the run (``blocked_syscall``), whatever
its number and whichever ABI it comes through. Ptys are not on offer at all (``/dev/pts`` is an
empty read-only directory), so a run cannot take the host's ``kernel.pty.max``. Each attack runs on
both paths: the cold one, where bubblewrap installs the filter, and the warm one, where the runner
installs it itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from redteam_harness import Graded, GradeHostile

from grader.results.records import Reason, Status
from grader.sandbox import seccomp

pytestmark = pytest.mark.redteam

BOTH_PATHS = pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])


@dataclass
class HostCounter:
    """A host-wide counter under /proc/sys, sampled while a run is graded."""

    path: Path
    before: int = 0
    peak: int = 0

    def read(self) -> int:
        return int(self.path.read_text().split()[0])


@contextmanager
def watching(path: str) -> Iterator[HostCounter]:
    """Sample ``path`` every few milliseconds until the block ends; ``peak`` is the largest value seen."""
    counter = HostCounter(Path(path))
    counter.before = counter.peak = counter.read()
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.005):
            counter.peak = max(counter.peak, counter.read())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield counter
    finally:
        stop.set()
        sampler.join()


def assert_blocked(graded: Graded) -> None:
    """The run was killed by the filter in its first call, and the grade says so."""
    first = graded.result.tests[0]
    assert graded.result.reason is Reason.BLOCKED_SYSCALL, graded.explain()
    assert first.reason is Reason.BLOCKED_SYSCALL, graded.explain()
    assert "made a system call the sandbox forbids" in (first.message or ""), graded.explain()


@BOTH_PATHS
def test_native_aio_is_blocked_and_the_hosts_aio_pool_is_untouched(hostile: GradeHostile, warm: bool) -> None:
    # The attack once took all 65,536 of the host's AIO events in one run; the host's io_setup then failed.
    with watching("/proc/sys/fs/aio-nr") as aio:
        graded = hostile("native_aio", warm=warm)
    assert_blocked(graded)
    assert "AIO events" not in graded.output  # killed at its first io_setup
    assert aio.peak == aio.before, f"the run took {aio.peak - aio.before} of the host's AIO events"


@BOTH_PATHS
def test_a_run_gets_no_pty_and_the_hosts_pty_count_does_not_grow(hostile: GradeHostile, warm: bool) -> None:
    # Every devpts instance's ptys count against the host's kernel.pty.max: four runs once took them all.
    with watching("/proc/sys/kernel/pty/nr") as ptys:
        graded = hostile("pty_hoard", warm=warm)
    assert graded.result.status is Status.PASS, graded.explain()  # an ordinary OSError, then a correct answer
    assert "opened 0 ptys" in graded.output, graded.output
    assert "openpty: FileNotFoundError errno 2" in graded.output, graded.output
    # (Other users of the host may open a terminal meanwhile; the run alone would have added 25.)
    assert ptys.peak - ptys.before < 25, f"the host's pty count grew from {ptys.before} to {ptys.peak}"


@BOTH_PATHS
@pytest.mark.parametrize(
    "name",
    [
        "sysv_ipc",  # shmget, semget, msgget
        "posix_mqueue",  # mq_open
        "inotify_watches",  # inotify_init1, inotify_add_watch
        "keyring_quota",  # add_key
    ],
)
def test_shared_kernel_objects_are_blocked(hostile: GradeHostile, name: str, warm: bool) -> None:
    # Each is counted per user or per host rather than per run; no numerical solution needs any of them.
    graded = hostile(name, warm=warm)
    assert_blocked(graded)
    assert graded.output == "", graded.output  # killed by its first call: nothing was made, nothing printed


UNLISTED = {"open_tree_attr": 467, "listmount": 458, "statmount": 457, "memfd_secret": 447, "modify_ldt": 154}


@BOTH_PATHS
@pytest.mark.parametrize("syscall", sorted(UNLISTED))
def test_system_calls_a_denylist_never_named_are_blocked(hostile: GradeHostile, syscall: str, warm: bool) -> None:
    graded = hostile("unlisted_syscall", extra={"__NR__": str(UNLISTED[syscall])}, warm=warm)
    assert_blocked(graded)
    assert "syscall(" not in graded.output, graded.output


@BOTH_PATHS
@pytest.mark.parametrize("abi", ["x32", "i386", "i386_thread"])
def test_system_calls_through_another_abi_kill_the_whole_run(hostile: GradeHostile, abi: str, warm: bool) -> None:
    # x32 numbers (bit 0x40000000) and i386's int 0x80 reach other syscall tables the filter's numbers do not
    # describe. From a second thread too: the whole run ends, not only that thread (which would leave a hang).
    graded = hostile("foreign_abi", extra={"__ABI__": abi}, warm=warm)
    assert_blocked(graded)
    assert "getpid" not in graded.output, graded.output


@BOTH_PATHS
def test_processes_threads_files_and_clocks_of_the_standard_library_still_work(
    hostile: GradeHostile, warm: bool
) -> None:
    graded = hostile("stdlib_tour", warm=warm)
    assert graded.result.status is Status.PASS, graded.explain()
    for line in (
        "threads 14",
        "subprocess 0 shell",
        "multiprocessing 14",
        "semaphore",
        "fork 7",
        "files ['a.txt', 'c.txt', 'd.txt'] c.txt",
        "poll 1 select 1",
        "clocks True True True",
        "timer True",
    ):
        assert line in graded.output, graded.output


@BOTH_PATHS
@pytest.mark.parametrize("case", ["tiocsti", "tiocsti_high_bits", "clone_newuser"])
def test_typing_into_a_terminal_and_making_namespaces_stay_blocked(
    hostile: GradeHostile, case: str, warm: bool
) -> None:
    # The allowlist keeps the denylist's argument rules: ioctl but not TIOCSTI (whatever the request's unused
    # high bits say), clone but not with namespace flags.
    graded = hostile("filter_special_cases", extra={"__CASE__": case}, warm=warm)
    assert_blocked(graded)
    assert graded.output == "", graded.output


@BOTH_PATHS
@pytest.mark.parametrize(("case", "line"), [("clone3", "clone3 -1 errno 38"), ("socket", "PermissionError errno 1")])
def test_clone3_and_sockets_get_ordinary_errors(hostile: GradeHostile, case: str, line: str, warm: bool) -> None:
    # ENOSYS makes the C library fall back to clone, whose flags the filter can read; EPERM for sockets.
    graded = hostile("filter_special_cases", extra={"__CASE__": case}, warm=warm)
    assert graded.result.status is Status.PASS, graded.explain()
    assert line in graded.output, graded.output


#: Each is a host-wide pool, a kernel administration call or an attack surface no solution needs.
DENIED_BY_CONSTRUCTION = (
    "io_setup", "io_submit", "io_getevents", "io_destroy", "io_cancel", "io_pgetevents",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "open_tree_attr", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "listmount", "statmount", "unshare", "setns",
    "add_key", "request_key", "keyctl", "bpf", "perf_event_open", "userfaultfd",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl",
    "msgget", "msgsnd", "msgrcv", "msgctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    "inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch", "fanotify_init", "fanotify_mark",
    "memfd_secret", "modify_ldt", "personality", "iopl", "ioperm", "kexec_load", "init_module", "finit_module",
    "delete_module", "reboot", "swapon", "swapoff", "syslog", "acct", "settimeofday", "clock_settime", "adjtimex",
    "open_by_handle_at", "name_to_handle_at", "vhangup", "seccomp", "mknod", "mknodat",
)  # fmt: skip


def test_the_allowlist_names_no_host_wide_pool_and_no_administration_call() -> None:
    allowed = set(seccomp.allowed_calls())
    assert allowed.isdisjoint(DENIED_BY_CONSTRUCTION), sorted(allowed & set(DENIED_BY_CONSTRUCTION))
    assert allowed.isdisjoint(seccomp.DENIED_WITH_EPERM + seccomp.DENIED_WITH_ENOSYS)
    groups = list(seccomp.ALLOWED.values())
    assert sum(len(g) for g in groups) == len({c for g in groups for c in g}), "a call is in two groups"


@pytest.mark.parametrize("excluded", [{0x5412, 0x541C}, {0}, {0xFFFFFFFF}, {1, 2, 3}])
def test_the_ioctl_rules_match_every_request_but_the_excluded_ones(excluded: set[int]) -> None:
    rules = seccomp.words_except(excluded)
    near = {w ^ (1 << bit) for w in excluded for bit in range(32)} | {0, 1, 0x5401, 0x5451, 0xFFFFFFFF, 0x80000000}
    for word in near | excluded:
        matched = sum(word & mask == value for mask, value in rules)
        assert matched == (0 if word in excluded else 1), hex(word)  # the rules are disjoint, too
