"""The system calls a sandboxed solution may not make, compiled to a BPF program for bubblewrap.

Numerical Python code needs none of these. Sockets fail with EPERM (code that merely probes the
network gets an ordinary error); the rest kill the process with SIGSYS, which the grader reports
as a blocked system call. ``clone3`` answers ENOSYS so that the C library falls back to
``clone``, whose flags can be inspected: no new namespaces from inside the sandbox.
"""

from __future__ import annotations

import errno
import os
import tempfile
from functools import lru_cache

DENIED_WITH_EPERM = ("socket", "socketpair")
KILLED = (
    # debugging and reading other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # kernel keyring, BPF, perf, userfaultfd and io_uring: large kernel attack surface
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # namespaces and mounts
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # host administration
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "syslog", "acct", "quotactl", "settimeofday", "clock_settime", "adjtimex",
    "clock_adjtime", "iopl", "ioperm", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie",
    "fanotify_init", "personality", "vhangup",
)  # fmt: skip
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
TIOCSTI, TIOCLINUX = 0x5412, 0x541C


class SeccompUnavailable(RuntimeError):
    """libseccomp (or its Python binding) is missing, so no filter can be built."""


@lru_cache(maxsize=1)
def filter_bpf() -> bytes:
    """The compiled filter for this machine's architecture."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:  # OSError: the binding is there, libseccomp.so.2 is not
        raise SeccompUnavailable(f"libseccomp is not available ({exc}); install libseccomp2") from None
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in DENIED_WITH_EPERM:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    for name in KILLED:
        rules.add_rule(seccomp.KILL_PROCESS, name)
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(seccomp.KILL_PROCESS, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    for request in (TIOCSTI, TIOCLINUX):
        # Typing into the controlling terminal (CVE-2017-5226); there is none, but deny it anyway.
        rules.add_rule(seccomp.KILL_PROCESS, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    with tempfile.TemporaryFile() as handle:
        rules.export_bpf(handle)
        handle.seek(0)
        return handle.read()


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
