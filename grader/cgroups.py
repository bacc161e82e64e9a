"""One cgroup per sandboxed run: a memory, process and CPU ceiling for its whole process tree.

rlimits hold per process (``RLIMIT_AS``) or per uid (``RLIMIT_NPROC``): sixteen children that each
stay under the address-space limit can still use sixteen times the memory. A run's cgroup caps the
tree as a whole, gives each run one equal CPU share (a fork bomb competes with honest runs as *one*
group, not as hundreds of tasks), tells the grader exactly when the kernel's OOM killer acted, and is
a second way to kill every task of a run on timeout.

Each run gets ``<grader's own cgroup>/mlkata-run-<pid>-<n>-<random>``, a direct child of the cgroup the
grader already lives in: whoever accounts for the grader still accounts for its runs, and for the CPU
scheduler each run weighs what one process weighed before (a shared ``mlkata`` parent would make all
runs together weigh as one process against everything else on the host, which slowed grading
threefold on a loaded machine).

cgroup v1 (one hierarchy per controller; this is what hybrid hosts such as Debian 12 on older
systemd setups use) and v2 (one unified hierarchy; modern hosts and most containers) differ in:

* layout: v1 has one directory per controller (``memory/``, ``pids/``, ``cpu/``, ``freezer/``) and a
  process must be written into each; v2 has one directory, and controllers must be enabled for
  children in the parent's ``cgroup.subtree_control`` (impossible in a non-root cgroup that itself
  holds processes: the "no internal processes" rule, which is why a container whose root cgroup
  holds its processes cannot delegate, and falls back);
* memory: v1 ``memory.limit_in_bytes`` plus ``memory.memsw.limit_in_bytes`` (memory + swap, when
  swap accounting exists); v2 ``memory.max`` plus ``memory.swap.max = 0``;
* OOM: v2 ``memory.oom.group = 1`` makes the kernel kill the whole run, and ``memory.events``
  counts ``oom_kill``; v1 kills one victim (often a child) and counts it in ``memory.oom_control``,
  so a watcher thread, woken through ``cgroup.event_control``, kills the rest of the run;
* CPU: v1 ``cpu.shares``, v2 ``cpu.weight``;
* kill: v2 writes ``cgroup.kill``; v1 freezes the group (``freezer.state``) so nothing can fork,
  sends SIGKILL to every task in ``cgroup.procs``, then thaws it so the signals are delivered.

Without a writable hierarchy (not root, a read-only ``/sys/fs/cgroup`` in a container, v2 without
delegation) :func:`status` says why and runs keep today's protections: rlimits, the per-run uid
and the pid-namespace kill. That fallback is logged and reported by ``mlkata doctor``.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import secrets
import select
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader.limits import Limits

log = logging.getLogger(__name__)

#: Where cgroup hierarchies are mounted; ``MLKATA_CGROUP_ROOT`` or :func:`use_mount_root` change it.
DEFAULT_MOUNT_ROOT = Path(os.environ.get("MLKATA_CGROUP_ROOT", "/sys/fs/cgroup"))
PREFIX = "mlkata-run"
#: Room on top of the solution's own memory for the runner, bwrap, page tables and pipe buffers.
HEADROOM_MB = 64
#: Tasks of the sandbox itself (bwrap and its init, or the warm path's init) on top of the solution's.
TRUSTED_TASKS = 4
_V1_CONTROLLERS = ("memory", "pids", "cpu", "freezer")
_REQUIRED = ("memory", "pids")
_SETTLE_SECONDS = 2.0


class CgroupError(RuntimeError):
    """A run's cgroup could not be made or joined although the host offers cgroups."""


def memory_limit_mb(limits: Limits) -> int:
    """The whole run's memory: one process's worth, its two scratch tmpfs (charged to the run), headroom.

    A single process therefore meets its own ``RLIMIT_AS`` (a clean ``MemoryError``) before the
    cgroup; only a tree of processes can reach the cgroup's ceiling.
    """
    return limits.memory_mb + 2 * limits.scratch_mb + HEADROOM_MB


def pids_limit(limits: Limits) -> int:
    return limits.processes + TRUSTED_TASKS


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

    def describe(self) -> str:
        where = ", ".join(str(path) for path in dict.fromkeys(self.parents.values()))
        return f"cgroups v{self.version} ({', '.join(self.controllers)}) under {where}"

    def create_run(self, limits: Limits) -> RunCgroup:
        """Make a run's cgroup with its limits set; raise :class:`CgroupError` if the kernel refuses."""
        name = f"{PREFIX}-{os.getpid()}-{next(_counter)}-{secrets.token_hex(3)}"
        run = RunCgroup(self, {key: parent / name for key, parent in self.parents.items()})
        try:
            for directory in dict.fromkeys(run.dirs.values()):
                directory.mkdir()
                run._made.append(directory)
            run._configure(limits)
        except OSError as exc:
            run.remove()
            raise CgroupError(f"cannot set up the run's cgroup: {exc}") from None
        return run


_counter = itertools.count()


@dataclass
class RunCgroup:
    """One run's cgroup (one directory per v1 hierarchy, or one v2 directory)."""

    host: Host
    dirs: dict[str, Path]
    _made: list[Path] = field(default_factory=list)
    _oom_watch: int = -1
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def _unique_dirs(self) -> list[Path]:
        return list(dict.fromkeys(self.dirs.values()))

    def _dir(self, controller: str) -> Path | None:
        if self.host.version == 2:
            return self.dirs["unified"] if controller in self.host.controllers else None
        return self.dirs.get(controller)

    def _configure(self, limits: Limits) -> None:
        memory = memory_limit_mb(limits) << 20
        memory_dir, pids_dir, cpu_dir = self._dir("memory"), self._dir("pids"), self._dir("cpu")
        assert memory_dir is not None and pids_dir is not None
        if self.host.version == 1:
            _write(memory_dir / "memory.limit_in_bytes", memory)
            if (memory_dir / "memory.memsw.limit_in_bytes").exists():  # only with swap accounting
                _write(memory_dir / "memory.memsw.limit_in_bytes", memory)
            _write(memory_dir / "memory.swappiness", 0)
            if cpu_dir is not None:
                _write(cpu_dir / "cpu.shares", 1024)
            self._watch_oom(memory_dir)
        else:
            _write(memory_dir / "memory.max", memory)
            if (memory_dir / "memory.swap.max").exists():
                _write(memory_dir / "memory.swap.max", 0)
            _write(memory_dir / "memory.oom.group", 1)  # an OOM kills the whole run, not one victim
            if cpu_dir is not None:
                _write(cpu_dir / "cpu.weight", 100)
        _write(pids_dir / "pids.max", pids_limit(limits))

    def _watch_oom(self, memory_dir: Path) -> None:
        """v1 only: be woken when the kernel reports an OOM here, to end the whole run as v2 would."""
        event = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
        control = os.open(memory_dir / "memory.oom_control", os.O_RDONLY | os.O_CLOEXEC)
        try:
            _write(memory_dir / "cgroup.event_control", f"{event} {control}")
        except OSError:
            os.close(event)
            raise
        finally:
            os.close(control)
        self._oom_watch = event
        _watcher().watch(event, self)

    def join_command(self) -> list[str]:
        """A ``sh`` prefix that moves itself into this cgroup, then execs the rest of the command.

        The process keeps its pid across ``exec``, so bwrap and everything it forks start inside.
        If joining fails it exits 126 with a message instead of running unconfined.
        """
        procs = [str(directory / "cgroup.procs") for directory in self._unique_dirs]
        writes = " && ".join(f'echo $$ > "${index}"' for index in range(1, len(procs) + 1))
        failed = 'echo "mlkata: cannot join the run cgroup" >&2; exit 126'
        script = f'{writes} && shift {len(procs)} && exec "$@"; {failed}'
        return ["/bin/sh", "-c", script, "sh", *procs]

    def add(self, pid: int) -> None:
        """Move a process (by its pid in the grader's pid namespace) into this cgroup."""
        try:
            for directory in self._unique_dirs:
                _write(directory / "cgroup.procs", pid)
        except OSError as exc:
            raise CgroupError(f"cannot move process {pid} into the run's cgroup: {exc}") from None

    def procs(self) -> set[int]:
        """Every process in the run (every hierarchy holds the same ones; read the first)."""
        try:
            text = (self._unique_dirs[0] / "cgroup.procs").read_text()
        except OSError:
            return set()
        return {int(line) for line in text.split()}

    def _kill_member(self, pid: int) -> None:
        """SIGKILL ``pid`` only if it is still a process of this run.

        A pid read from ``cgroup.procs`` may belong to a process that exits before the signal, and
        then to any new process on the host (another run's, say): never kill by number alone. A
        pidfd pins one process; if that process is in this cgroup after it is pinned, the signal
        can reach nobody else.
        """
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            return
        try:
            if self._holds(pid):
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        finally:
            os.close(pidfd)

    def _holds(self, pid: int) -> bool:
        """Whether the process with this pid is in this run's cgroup (in its first hierarchy)."""
        directory = self._unique_dirs[0]
        try:
            return pid in {int(line) for line in (directory / "cgroup.procs").read_text().split()}
        except OSError:
            return False

    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer killed a process of this run (the memory limit was hit)."""
        memory_dir = self._dir("memory")
        name = "memory.oom_control" if self.host.version == 1 else "memory.events"
        counts = _flat_keyed(memory_dir / name) if memory_dir is not None else {}
        return counts.get("oom_kill", 0) > 0 or counts.get("oom_group_kill", 0) > 0

    def peak_memory(self) -> int | None:
        """The most memory the run used at once, in bytes, when the kernel keeps it."""
        memory_dir = self._dir("memory")
        name = "memory.max_usage_in_bytes" if self.host.version == 1 else "memory.peak"
        with contextlib.suppress(OSError, ValueError):
            return int((memory_dir / name).read_text()) if memory_dir is not None else None
        return None

    def kill(self, settle: float = _SETTLE_SECONDS) -> None:
        """SIGKILL every process of the run, including any it forks meanwhile; wait until none is left."""
        with self._lock:
            if not self.procs():
                return
            if self.host.version == 2 and (self.dirs["unified"] / "cgroup.kill").exists():
                with contextlib.suppress(OSError):
                    _write(self.dirs["unified"] / "cgroup.kill", 1)
            else:
                self._freeze_and_kill()
            deadline = time.monotonic() + settle
            while self.procs() and time.monotonic() < deadline:
                time.sleep(0.002)

    def _freeze_and_kill(self) -> None:
        freezer = self._dir("freezer")
        state = freezer / "freezer.state" if freezer is not None and self.host.version == 1 else None
        if state is None and self.host.version == 2:
            state = self.dirs["unified"] / "cgroup.freeze"
        frozen = False
        if state is not None:
            with contextlib.suppress(OSError):
                _write(state, "FROZEN" if self.host.version == 1 else 1)
                frozen = True
                deadline = time.monotonic() + 0.5
                # Wait for the freeze to take hold, so that no task forks between listing and killing.
                while self.host.version == 1 and time.monotonic() < deadline:
                    if state.read_text().strip() == "FROZEN":
                        break
                    time.sleep(0.001)
        for _ in range(100):  # without a freezer, pids.max bounds how many forks can race us
            pids = self.procs()
            if not pids:
                break
            for pid in pids:
                self._kill_member(pid)
            if frozen:
                break
        if frozen and state is not None:
            with contextlib.suppress(OSError):
                _write(state, "THAWED" if self.host.version == 1 else 0)  # the killed tasks now die

    def remove(self) -> None:
        """Kill whatever is left and delete the run's directories."""
        if self._oom_watch >= 0:
            _watcher().unwatch(self._oom_watch)
            self._oom_watch = -1
        self.kill()
        for directory in reversed(self._made):
            deadline = time.monotonic() + _SETTLE_SECONDS
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        log.warning("could not remove the run cgroup %s: %s", directory, exc)
                        break
                    time.sleep(0.005)
        self._made.clear()


class _OomWatcher:
    """One thread for every v1 run: wakes on an OOM event and kills that run's whole cgroup."""

    def __init__(self) -> None:
        self._epoll = select.epoll()
        self._runs: dict[int, RunCgroup] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._loop, name="mlkata-cgroup-oom", daemon=True).start()

    def watch(self, event_fd: int, run: RunCgroup) -> None:
        with self._lock:
            self._runs[event_fd] = run
            self._epoll.register(event_fd, select.EPOLLIN)

    def unwatch(self, event_fd: int) -> None:
        with self._lock:
            self._runs.pop(event_fd, None)
            with contextlib.suppress(OSError):
                self._epoll.unregister(event_fd)
            os.close(event_fd)

    def _loop(self) -> None:
        while True:
            for event_fd, _ in self._epoll.poll():
                with self._lock:
                    run = self._runs.get(event_fd)
                    if run is None:
                        continue
                    with contextlib.suppress(BlockingIOError, OSError):
                        os.read(event_fd, 8)
                if run.oom_killed() or _flat_keyed(run.dirs["memory"] / "memory.oom_control").get("under_oom"):
                    log.info("out of memory in %s: killing the whole run", run.dirs["memory"])
                    with contextlib.suppress(OSError):
                        run.kill()


_oom_watcher: _OomWatcher | None = None
_state_lock = threading.Lock()
_mount_root = DEFAULT_MOUNT_ROOT
_status: Host | Fallback | None = None


def _watcher() -> _OomWatcher:
    global _oom_watcher
    with _state_lock:
        if _oom_watcher is None:
            _oom_watcher = _OomWatcher()
        return _oom_watcher


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
    for controller in _V1_CONTROLLERS:
        parent = mount_root / controller / own.get(controller, "/").lstrip("/")
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
    available = set(_read_words(parent / "cgroup.controllers"))
    missing = [name for name in _REQUIRED if name not in available]
    if missing:
        return Fallback(f"cgroups v2 without the {', '.join(missing)} controller in {parent}")
    wanted = [name for name in ("memory", "pids", "cpu") if name in available]
    enabled = set(_read_words(parent / "cgroup.subtree_control"))
    try:
        if not set(wanted) <= enabled:
            # Refused (EBUSY) when the grader's cgroup is not the root and holds processes itself.
            _write(parent / "cgroup.subtree_control", " ".join(f"+{name}" for name in wanted))
    except OSError as exc:
        return Fallback(
            f"cgroups v2 in {parent} do not delegate {', '.join(wanted)} to child cgroups ({exc.strerror}); "
            "run the grader in a cgroup of its own with delegation (systemd Delegate=yes)"
        )
    problem = _probe_writable([parent])
    if problem:
        return Fallback(f"cgroups v2 not writable: {problem}")
    return _without_stale_runs(Host(2, {"unified": parent}, tuple(wanted)))


def _without_stale_runs(host: Host) -> Host:
    """Kill and remove the runs of graders that died mid-run (their pid is in the name), then return ``host``."""
    names = {path.name for parent in host.parents.values() for path in parent.glob(f"{PREFIX}-*-*")}
    for name in names:
        owner = name.removeprefix(f"{PREFIX}-").split("-")[0]
        if not owner.isdigit() or Path(f"/proc/{owner}").exists():
            continue  # a live grader's run (or a reused pid: left for a later start-up)
        stale = RunCgroup(host, {key: parent / name for key, parent in host.parents.items()})
        stale._made = [path for path in stale._unique_dirs if path.is_dir()]
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


def _read_words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


def _flat_keyed(path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            with contextlib.suppress(ValueError):
                counts[key] = int(value)
    return counts


def _write(path: Path, value: object) -> None:
    # One write() per value: the kernel takes each write to a cgroup file as one command.
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)
