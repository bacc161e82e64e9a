"""Which cgroups this host offers the grader, found once: a writable v2 or v1 hierarchy, or why not.

Each run gets ``<grader's own cgroup>/mlkata-run-<pid>-<n>-<random>``, a direct child of the cgroup the
grader already lives in: whoever accounts for the grader still accounts for its runs, and for the CPU
scheduler each run weighs what one process weighed before (a shared ``mlkata`` parent would make all
runs together weigh as one process against everything else on the host, which slowed grading
threefold on a loaded machine).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox.cgroups.enclosing import Enclosing, own_enclosing_limits
from grader.sandbox.cgroups.files import read_words, write
from grader.sandbox.cgroups.run import CgroupError, RunCgroup
from grader.sandbox.cgroups.v1 import CONTROLLERS as V1_CONTROLLERS
from grader.sandbox.cgroups.v1 import V1RunCgroup
from grader.sandbox.cgroups.v2 import UNIFIED, V2RunCgroup
from grader.sandbox.limits import Limits

log = logging.getLogger(__name__)

#: Where cgroup hierarchies are mounted; ``MLKATA_CGROUP_ROOT`` or :func:`use_mount_root` change it.
DEFAULT_MOUNT_ROOT = Path(os.environ.get("MLKATA_CGROUP_ROOT", "/sys/fs/cgroup"))
PREFIX = "mlkata-run"
_REQUIRED = ("memory", "pids")
_counter = itertools.count()


@dataclass(frozen=True)
class Fallback:
    """No usable cgroup hierarchy: why, for logs and ``mlkata doctor``."""

    reason: str


@dataclass(frozen=True)
class Host:
    """A writable cgroup hierarchy found at start-up, and where runs' cgroups go."""

    version: int
    #: v1: controller name -> the grader's own cgroup in that hierarchy; v2: ``{"unified": its own cgroup}``.
    parents: dict[str, Path]
    controllers: tuple[str, ...]

    @property
    def counts_cpu(self) -> bool:
        """Whether a run's cgroup counts its CPU time (v2 always does; v1 with the cpuacct controller)."""
        return self.version == 2 or "cpuacct" in self.parents

    def describe(self) -> str:
        where = ", ".join(str(path) for path in dict.fromkeys(self.parents.values()))
        return f"cgroups v{self.version} ({', '.join(self.controllers)}) under {where}"

    def run_cgroup(self, name: str) -> RunCgroup:
        """The object for a run's cgroup called ``name`` (made or not)."""
        kind = V2RunCgroup if self.version == 2 else V1RunCgroup
        return kind(self, {key: parent / name for key, parent in self.parents.items()})

    def create_run(self, limits: Limits) -> RunCgroup:
        """Make a run's cgroup with its limits set; raise :class:`CgroupError` if the kernel refuses."""
        run = self.run_cgroup(f"{PREFIX}-{os.getpid()}-{next(_counter)}-{secrets.token_hex(3)}")
        try:
            for directory in run.unique_dirs:
                directory.mkdir()
                run.made.append(directory)
            run.configure(limits)
        except OSError as exc:
            run.remove()
            raise CgroupError(f"cannot set up the run's cgroup: {exc}") from None
        return run


_state_lock = threading.Lock()
_mount_root = DEFAULT_MOUNT_ROOT
_status: Host | Fallback | None = None


def use_mount_root(path: Path | str | None) -> None:
    """Look for cgroup hierarchies under ``path`` (``None``: the default) and detect again."""
    global _mount_root, _status
    with _state_lock:
        _mount_root = Path(path) if path is not None else DEFAULT_MOUNT_ROOT
        _status = None


def status() -> Host | Fallback:
    """What this host offers, detected once (and logged once when it falls back)."""
    global _status
    with _state_lock:
        if _status is None:
            _status = detect(_mount_root)
            if isinstance(_status, Fallback):
                log.warning(
                    "cgroups not used (%s): runs are limited by rlimits, a uid per run and the pid-namespace "
                    "kill only; nothing caps the memory of a run's whole process tree",
                    _status.reason,
                )
            else:
                log.info("sandboxed runs get their own cgroup: %s", _status.describe())
        return _status


def enclosing() -> Enclosing | None:
    """The ceiling of the grader's own cgroup (in a container, the container's) under the mount root in use."""
    with _state_lock:
        root = _mount_root
    return own_enclosing_limits(root)


def create_run(limits: Limits) -> RunCgroup | None:
    """A new cgroup for one run, or ``None`` on a host without usable cgroups (the fallback)."""
    found = status()
    return found.create_run(limits) if isinstance(found, Host) else None


def detect(mount_root: Path = DEFAULT_MOUNT_ROOT) -> Host | Fallback:
    """Find a writable v2 or v1 hierarchy with the memory and pids controllers, or say why not."""
    if os.geteuid() != 0:
        return Fallback("not root: the grader cannot create cgroups or move processes into them")
    own = _own_cgroups()
    if (mount_root / "cgroup.controllers").is_file():
        return _detect_v2(mount_root, own.get("", "/"))
    if (mount_root / "memory" / "cgroup.procs").is_file():
        return _detect_v1(mount_root, own)
    return Fallback(f"no cgroup v2 or v1 memory hierarchy mounted under {mount_root}")


def _detect_v1(mount_root: Path, own: dict[str, str]) -> Host | Fallback:
    parents: dict[str, Path] = {}
    for controller in V1_CONTROLLERS:
        # Resolved: where the host mounts controllers together (cpu,cpuacct), both names are one directory.
        parent = (mount_root / controller).resolve() / own.get(controller, "/").lstrip("/")
        if (parent / "cgroup.procs").is_file():
            parents[controller] = parent
    missing = [name for name in _REQUIRED if name not in parents]
    if missing:
        return Fallback(f"cgroups v1 without the {', '.join(missing)} controller under {mount_root}")
    if not (parents["memory"] / "memory.oom_control").is_file():
        return Fallback("cgroups v1 memory controller without memory.oom_control")
    problem = _probe_writable(list(parents.values()))
    if problem:
        return Fallback(f"cgroups v1 not writable: {problem}")
    return _without_stale_runs(Host(1, parents, tuple(parents)))


def _detect_v2(mount_root: Path, own: str) -> Host | Fallback:
    parent = mount_root / own.lstrip("/")
    available = set(read_words(parent / "cgroup.controllers"))
    missing = [name for name in _REQUIRED if name not in available]
    if missing:
        return Fallback(f"cgroups v2 without the {', '.join(missing)} controller in {parent}")
    wanted = [name for name in ("memory", "pids", "cpu") if name in available]
    enabled = set(read_words(parent / "cgroup.subtree_control"))
    try:
        if not set(wanted) <= enabled:
            # Refused (EBUSY) when the grader's cgroup is not the root and holds processes itself.
            write(parent / "cgroup.subtree_control", " ".join(f"+{name}" for name in wanted))
    except OSError as exc:
        return Fallback(
            f"cgroups v2 in {parent} do not delegate {', '.join(wanted)} to child cgroups ({exc.strerror}); "
            "run the grader in a cgroup of its own with delegation (systemd Delegate=yes)"
        )
    problem = _probe_writable([parent])
    if problem:
        return Fallback(f"cgroups v2 not writable: {problem}")
    return _without_stale_runs(Host(2, {UNIFIED: parent}, tuple(wanted)))


def _without_stale_runs(host: Host) -> Host:
    """Kill and remove the runs of graders that died mid-run (their pid is in the name), then return ``host``."""
    names = {path.name for parent in host.parents.values() for path in parent.glob(f"{PREFIX}-*-*")}
    for name in names:
        owner = name.removeprefix(f"{PREFIX}-").split("-")[0]
        if not owner.isdigit() or Path(f"/proc/{owner}").exists():
            continue  # a live grader's run (or a reused pid: left for a later start-up)
        stale = host.run_cgroup(name)
        stale.made = [path for path in stale.unique_dirs if path.is_dir()]
        log.info("removing the cgroup %s of a grader that is gone", name)
        stale.remove()
    return host


def _probe_writable(parents: list[Path]) -> str | None:
    """Make and delete a child in each parent: the one test that proves we may create runs."""
    for parent in dict.fromkeys(parents):
        probe = parent / f"{PREFIX}-probe-{os.getpid()}-{secrets.token_hex(3)}"
        try:
            probe.mkdir()
            probe.rmdir()
        except OSError as exc:
            return f"{parent}: {exc.strerror or exc}"
    return None


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup per v1 controller (and ``""`` for v2), from ``/proc/self/cgroup``."""
    found: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                found[name] = path
    return found
