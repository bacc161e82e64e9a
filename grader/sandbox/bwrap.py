"""The bubblewrap command: the only place that says what the jail is. Cold runs and zygotes both start here.

The jail, when the grader runs as root (a server or a container):

* new pid, network, IPC, UTS and cgroup namespaces: no network at all, not even loopback;
* a read-only view of only the Python installation, numpy and the runner, under an empty root;
* a fresh size-capped tmpfs for ``/tmp`` and ``/dev/shm``, the only writable places, and an empty
  read-only ``/dev/pts`` (no ptys: every devpts instance's count against the host's ``kernel.pty.max``);
* a cleared environment, a new session (no terminal to type into), killed with its parent;
* a real, unprivileged uid of its own (one per concurrent run, so process limits do not leak
  between runs), no capabilities, ``no_new_privs``.

As an ordinary user, bubblewrap makes a user namespace instead and the run keeps that user's uid.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox.endings import SandboxUnavailable
from grader.sandbox.policy import ENVIRONMENT, HOST_PROC, JAIL_RUNNER, JAIL_SITE, RUNNER_DIR
from grader.sandbox.uids import UidSlot

_INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


@dataclass(frozen=True)
class Program:
    """What runs in the jail: the runner, or a zygote that forks runners."""

    script: str
    arguments: tuple[str, ...]
    #: The seccomp filter bubblewrap installs before the program starts; None for a zygote, which must
    #: still unshare and mount (each of its runs installs the filter itself once its namespaces are made).
    seccomp_fd: int | None
    #: A zygote sees the host's /proc read-only at HOST_PROC: the kernel then lets its runs mount their own.
    host_proc: bool = False


def runner_program(arguments: list[str], seccomp_fd: int) -> Program:
    return Program("main.py", tuple(arguments), seccomp_fd)


def zygote_program(control_fd: int) -> Program:
    return Program("jail/__main__.py", (str(control_fd), HOST_PROC), None, host_proc=True)


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def require_sandbox() -> str:
    """Return the bwrap executable, or raise :class:`SandboxUnavailable` saying how to get it."""
    path = bwrap_path()
    if path is None:
        raise SandboxUnavailable(
            f"bubblewrap (bwrap) is not installed, so untrusted code cannot be run safely: {_INSTALL_HINT}. "
            "To grade your own files without a sandbox, pass --trusted."
        )
    return path


def jail_command(program: Program, scratch_bytes: int, slot: UidSlot | None) -> list[str]:
    """The bubblewrap command running ``program`` as the slot's uid (or in a user namespace without one)."""
    python = Path(sys.executable).resolve()
    scratch = str(scratch_bytes)
    command = [
        require_sandbox(),
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session",
        *_read_only_system(python),
        "--proc", "/proc",
        "--dev", "/dev",
        # An empty read-only /dev/pts leaves /dev/ptmx (a link to pts/ptmx) dangling: openpty() fails.
        "--size", "4096", "--perms", "0555", "--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts",
        "--size", scratch, "--perms", "1777", "--tmpfs", "/tmp",
        "--size", scratch, "--perms", "1777", "--tmpfs", "/dev/shm",
        "--chdir", "/tmp",
    ]  # fmt: skip
    if program.seccomp_fd is not None:
        command += ["--seccomp", str(program.seccomp_fd)]
    command.append("--clearenv")
    for name, value in ENVIRONMENT.items():
        command += ["--setenv", name, value]
    if program.host_proc:
        command += ["--ro-bind", "/proc", HOST_PROC]
    interpreter = [str(python), "-I", "-S", "-B", "-u", f"{JAIL_RUNNER}/{program.script}", *program.arguments]
    interpreter.append(JAIL_SITE)
    if slot is None:
        # Not root: bubblewrap makes a user namespace and the run keeps the caller's own uid.
        return [*command, "--unshare-user", "--uid", "65534", "--gid", "65534", "--", *interpreter]
    # Root: keep just enough capability to drop to the run's own unprivileged uid, then lose it all.
    return [
        *command,
        "--cap-add", "CAP_SETUID,CAP_SETGID,CAP_SETPCAP",
        "--",
        shutil.which("setpriv") or "/usr/bin/setpriv",
        f"--reuid={slot.uid}", f"--regid={slot.uid}", "--clear-groups",
        "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
        "--",
        *interpreter,
    ]  # fmt: skip


def _read_only_system(python: Path) -> list[str]:
    """Binds of /usr, the top-level system links, the Python installation, numpy and the runner."""
    prefix = Path(sys.base_prefix).resolve()
    command = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/lib", "/lib64", "/lib32", "/sbin"):
        path = Path(top)
        if path.is_symlink():
            command += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            command += ["--ro-bind", top, top]
    binds = [(prefix, prefix)] if not prefix.is_relative_to("/usr") else []
    if not python.is_relative_to(prefix) and not python.is_relative_to("/usr"):
        binds.append((python, python))
    binds += [(directory, Path(JAIL_SITE, directory.name)) for directory in _numpy_dirs()]
    binds.append((RUNNER_DIR, Path(JAIL_RUNNER)))
    created: set[Path] = set()
    for source, target in binds:
        # bwrap would create missing parents as root-only (0700); the run's uid must traverse them.
        for parent in reversed(target.parents[:-1]):
            if parent not in created:
                created.add(parent)
                command += ["--perms", "0755", "--dir", str(parent)]
        command += ["--ro-bind", str(source), str(target)]
    return command


def _numpy_dirs() -> list[Path]:
    spec = importlib.util.find_spec("numpy")
    if spec is None or not spec.submodule_search_locations:
        raise SandboxUnavailable("numpy is not installed for the grader's Python")
    numpy_dir = Path(next(iter(spec.submodule_search_locations))).resolve()
    libs = numpy_dir.parent / "numpy.libs"
    return [numpy_dir, libs] if libs.is_dir() else [numpy_dir]
