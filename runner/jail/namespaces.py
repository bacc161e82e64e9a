"""The run's namespaces and mounts: what a run can see of the machine, set up before any of its code runs.

The launcher enters new user, mount, pid, network, IPC, UTS and cgroup namespaces (mapping only its
own uid and gid) and mounts the run's scratch space; the run's init, pid 1 of the new pid namespace,
then mounts a ``/proc`` of its own and covers the host's.
"""

from __future__ import annotations

import os

from runner.jail.libc import mount, unshare

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REC, MS_PRIVATE = 0x4000, 0x40000


def enter(scratch: int) -> None:
    """Unshare every namespace, map our own ids, and mount a fresh ``scratch``-byte ``/tmp`` and ``/dev/shm``.

    The calling process stays in the old pid namespace: its next child is pid 1 of the new one.
    """
    uid, gid = os.getuid(), os.getgid()
    unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)
    # Map only our own ids: inside, the run is the same unprivileged uid it is outside.
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    mount("none", "/", None, MS_REC | MS_PRIVATE)
    for target in ("/tmp", "/dev/shm"):
        mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={scratch},mode=1777")
    # No ptys: every devpts instance's ptys count against the host's kernel.pty.max. An empty read-only
    # /dev/pts leaves /dev/ptmx (a link to pts/ptmx) dangling, so openpty() fails with an ordinary error.
    mount("tmpfs", "/dev/pts", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555")


def mount_own_proc(host_proc: str) -> None:
    """In the run's init: mount a read-only ``/proc`` of the run's pid namespace, then hide the host's.

    The kernel allows a new proc mount in a user namespace only while an unobstructed proc is
    visible: the host's, bound read-only at ``host_proc``. Mount ours, then cover the host's.
    """
    mount("proc", "/proc", "proc", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount("tmpfs", host_proc, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555")
