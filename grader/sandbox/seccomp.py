"""The system calls a sandboxed solution may make, compiled to a BPF program for bubblewrap.

An allowlist: every call not named here, whatever its number, kills the process with SIGSYS,
which the grader reports as a blocked system call. New kernel interfaces (mount API calls,
``listmount``, ``memfd_secret``…) are therefore refused the day they appear, and so are the
host-wide pools that namespaces do not bound: native AIO, SysV IPC, POSIX message queues,
inotify, fanotify, keyrings, io_uring, BPF, perf and userfaultfd are simply not on the list.
Calls through another ABI (x32 numbers, i386's ``int 0x80``) kill the process too.

The list was taken from traces of real runs (the reference solutions on both paths, the
red-team and grader suites: threads, fork, subprocess, files in /tmp, shell commands), plus the
other entry points of the same operations (``pipe`` beside ``pipe2``, ``nanosleep`` beside
``clock_nanosleep``) and the clock calls the vDSO falls back to on some hosts.

Special cases: sockets fail with EPERM (code that merely probes the network gets an ordinary
error); ``clone3`` answers ENOSYS so that the C library falls back to ``clone``, whose flags can
be inspected (no new namespaces from inside the sandbox); ``ioctl`` may not type into a terminal.
"""

from __future__ import annotations

import errno
import operator
import os
import tempfile
from functools import lru_cache, reduce

#: Group → the system calls it needs. On the cold path bubblewrap installs the filter before it
#: executes setpriv, which then executes Python: the list covers that exec chain too. On the warm
#: path the runner installs it itself once its jail is built.
ALLOWED: dict[str, tuple[str, ...]] = {
    # glibc's start-up of every program (dynamic loader, TLS, robust futexes, rseq), threads and their locks.
    "startup": (
        "execve", "arch_prctl", "set_tid_address", "set_robust_list", "rseq", "futex", "sched_yield",
        "sched_getaffinity", "prlimit64", "getrlimit", "uname", "sysinfo", "getrandom", "exit", "exit_group",
        "restart_syscall",
    ),
    # Python's allocator, numpy's buffers (realloc moves large ones with mremap), OpenBLAS's NUMA hint (mbind).
    "memory": ("brk", "mmap", "munmap", "mprotect", "mremap", "madvise", "msync", "mbind"),
    # The runner's pipes, stdout and stderr, files in the run's /tmp (shutil copies with sendfile).
    "descriptors": (
        "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "lseek", "close",
        "close_range", "dup", "dup2", "dup3", "fcntl", "pipe", "pipe2", "sendfile", "copy_file_range",
        "fsync", "fdatasync", "ftruncate", "truncate", "fadvise64",
    ),
    # Imports, os.listdir and scandir, tempfile, pathlib and shutil (writable only in /tmp and /dev/shm).
    "files": (
        "open", "openat", "stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs", "access",
        "faccessat", "faccessat2", "getdents64", "readlink", "readlinkat", "getcwd", "chdir", "fchdir",
        "umask", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2",
        "link", "linkat", "symlink", "symlinkat", "chmod", "fchmod", "fchmodat", "utimensat",
        "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr",
    ),
    # subprocess waits with poll; the selectors module opens an epoll at import to see that it works.
    "waiting": (
        "poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
        "epoll_pwait",
    ),
    # time.sleep, timers and CPU clocks (the vDSO answers most reads; these are its fallbacks).
    "time": (
        "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep",
        "getitimer", "setitimer", "alarm", "getrusage", "times",
    ),
    # Python's signal handlers, faulthandler's stack, raise() and abort() (tgkill), kill within the run.
    "signals": (
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait", "rt_sigpending",
        "sigaltstack", "pause", "kill", "tgkill", "tkill",
    ),
    # os.fork, subprocess (vfork, then execve), waiting for children, sessions and process groups.
    "processes": (
        "vfork", "wait4", "waitid", "getpid", "getppid", "gettid", "getpgrp", "getpgid", "setpgid", "getsid",
        "setsid",
    ),
    # Who the run is (id, getpass); setpriv dropping to the run's uid and every capability on the cold path.
    "identity": (
        "getuid", "geteuid", "getgid", "getegid", "getgroups", "getresuid", "getresgid", "setresuid",
        "setresgid", "setgroups", "capget", "capset", "prctl",
    ),
}  # fmt: skip
DENIED_WITH_EPERM = ("socket", "socketpair")
DENIED_WITH_ENOSYS = ("clone3",)
#: Allowed only with these arguments: ``clone`` without namespace flags, ``ioctl`` but not these requests.
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
CONDITIONAL = ("clone", "ioctl")


def allowed_calls() -> list[str]:
    """Every system call the filter lets through, unconditionally or with some arguments."""
    return sorted({name for group in ALLOWED.values() for name in group} | set(CONDITIONAL))


class SeccompUnavailable(RuntimeError):
    """libseccomp (or its Python binding) is missing, so no filter can be built."""


@lru_cache(maxsize=1)
def filter_bpf() -> bytes:
    """The compiled filter for this machine's architecture."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:  # OSError: the binding is there, libseccomp.so.2 is not
        raise SeccompUnavailable(f"libseccomp is not available ({exc}); install libseccomp2") from None
    rules = seccomp.SyscallFilter(defaction=seccomp.KILL_PROCESS)
    # x32 numbers and i386's int 0x80 reach other syscall tables: kill the whole process, not only the thread.
    rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    rules.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)  # a binary tree of syscall numbers, not a linear scan
    for name in {name for group in ALLOWED.values() for name in group}:
        # A name this libseccomp does not know (older than the call) stays off the filter: killed, never let through.
        if seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) >= 0:
            rules.add_rule(seccomp.ALLOW, name)
    for name in DENIED_WITH_EPERM:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    for name in DENIED_WITH_ENOSYS:
        rules.add_rule(seccomp.ERRNO(errno.ENOSYS), name)
    namespaces = reduce(operator.or_, NAMESPACE_FLAGS)
    rules.add_rule(seccomp.ALLOW, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, namespaces, 0))
    # Typing into the controlling terminal (CVE-2017-5226); there is none, but refuse it anyway. The kernel
    # reads the request as 32 bits, so the rules match every other low word, whatever the high bits say.
    for mask, value in words_except({TIOCSTI, TIOCLINUX}):
        rules.add_rule(seccomp.ALLOW, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, mask, value))
    with tempfile.TemporaryFile() as handle:
        rules.export_bpf(handle)
        handle.seek(0)
        return handle.read()


def words_except(excluded: set[int], bits: int = 32) -> list[tuple[int, int]]:
    """``(mask, value)`` pairs whose matches (``word & mask == value``) are every word but ``excluded``.

    Highest bit first: words that share high bits with the excluded ones (as other terminal
    requests share TIOCSTI's) need few rules, each with a wide mask, which libseccomp tests first.
    """

    def cover(left: frozenset[int], bit: int, mask: int, value: int) -> list[tuple[int, int]]:
        if not left:
            return [(mask, value)]
        if bit < 0:
            return []  # every bit fixed: this word is an excluded one
        here = 1 << bit
        return [
            pair
            for half in (0, here)
            for pair in cover(frozenset(w for w in left if w & here == half), bit - 1, mask | here, value | half)
        ]

    return cover(frozenset(excluded), bits - 1, 0, 0)


def filter_fd() -> int:
    """A readable, inheritable descriptor holding the filter, for ``bwrap --seccomp FD``.

    The caller closes it once bubblewrap has started.
    """
    program = filter_bpf()
    read_end, write_end = os.pipe()
    # The program is a few hundred bytes: it fits in the pipe buffer, so writing cannot block.
    os.write(write_end, program)
    os.close(write_end)
    os.set_inheritable(read_end, True)
    return read_end
