"""The limits of the cgroup the grader itself runs in: in a container, the container's own ceiling.

Per-run cgroups (``host.py``) need a writable, delegated hierarchy, which a container seldom has
(cgroups v1, or a read-only ``/sys/fs/cgroup``). The container's cgroup still caps everything in it,
the grader and all its runs together: a compose file's ``mem_limit``, ``pids_limit`` and ``cpus``.
This reads that ceiling, for ``mlkata doctor`` to report. It is the tightest limit among the
grader's own cgroup and the ancestors visible from inside (a container sees its own cgroup as the
root of each hierarchy).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

#: cgroups v1 write "no limit" as the largest page-aligned counter (about 2^63); anything above this is none.
_UNLIMITED_FROM = 1 << 62


@dataclass(frozen=True)
class Enclosing:
    """The ceiling over all of the grader's runs together; ``None`` where nothing is set."""

    memory_bytes: int | None
    pids: int | None
    cpus: float | None
    where: str

    @property
    def bounded(self) -> bool:
        return self.memory_bytes is not None and self.pids is not None

    def describe(self) -> str:
        parts = [
            f"{self.memory_bytes >> 20} MB" if self.memory_bytes is not None else "no memory limit",
            f"{self.pids} pids" if self.pids is not None else "no pids limit",
        ]
        if self.cpus is not None:
            parts.append(f"{self.cpus:g} CPUs")
        return ", ".join(parts)


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """``/proc/self/cgroup`` as controller -> path (``""`` for the v2 hierarchy)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for name in controllers.split(",") if controllers else [""]:
            found[name] = path
    return found


def _number(text: str) -> int | None:
    """A limit file's value: ``None`` for "max", an unlimited v1 value or anything unreadable."""
    word = text.split()[0] if text.split() else ""
    if not word.isdigit():
        return None
    value = int(word)
    return value if value < _UNLIMITED_FROM else None


def _read(path: Path) -> str | None:
    with contextlib.suppress(OSError):
        return path.read_text()
    return None


def _chain(hierarchy: Path, own: str) -> list[Path]:
    """The grader's cgroup in ``hierarchy`` and its visible ancestors, innermost first.

    Without a cgroup namespace, ``/proc/self/cgroup`` names the host's path, which does not exist
    inside a container whose own cgroup is mounted as the hierarchy's root: then the root is it.
    """
    start = hierarchy / own.lstrip("/")
    if not start.is_dir():
        start = hierarchy
    chain = [start]
    while chain[-1] != hierarchy and hierarchy in chain[-1].parents:
        chain.append(chain[-1].parent)
    return chain


def _tightest(paths: list[Path], file: str) -> int | None:
    bounded = []
    for path in paths:
        text = _read(path / file)
        value = _number(text) if text is not None else None
        if value is not None:
            bounded.append(value)
    return min(bounded) if bounded else None


def _cpus_v2(paths: list[Path]) -> float | None:
    found = []
    for path in paths:
        words = (_read(path / "cpu.max") or "").split()
        if len(words) == 2 and words[0].isdigit() and words[1].isdigit() and int(words[1]) > 0:
            found.append(int(words[0]) / int(words[1]))
    return min(found) if found else None


def _cpus_v1(paths: list[Path]) -> float | None:
    found = []
    for path in paths:
        quota = (_read(path / "cpu.cfs_quota_us") or "").strip()
        period = (_read(path / "cpu.cfs_period_us") or "").strip()
        if quota.isdigit() and period.isdigit() and int(period) > 0:  # "-1" (no quota) is not digits
            found.append(int(quota) / int(period))
    return min(found) if found else None


def enclosing_limits(mount_root: Path, proc_cgroup: str) -> Enclosing | None:
    """The ceiling of the grader's own cgroup under ``mount_root``, or ``None`` without any hierarchy there."""
    own = parse_proc_cgroup(proc_cgroup)
    if (mount_root / "cgroup.controllers").is_file():
        chain = _chain(mount_root, own.get("", "/"))
        return Enclosing(
            memory_bytes=_tightest(chain, "memory.max"),
            pids=_tightest(chain, "pids.max"),
            cpus=_cpus_v2(chain),
            where=f"cgroups v2, {chain[0]}",
        )
    hierarchies = {name: mount_root / name for name in ("memory", "pids", "cpu")}
    if not any(path.is_dir() for path in hierarchies.values()):
        return None
    chains = {name: _chain(path, own.get(name, "/")) for name, path in hierarchies.items() if path.is_dir()}
    return Enclosing(
        memory_bytes=_tightest(chains.get("memory", []), "memory.limit_in_bytes"),
        pids=_tightest(chains.get("pids", []), "pids.max"),
        cpus=_cpus_v1(chains.get("cpu", [])),
        where=f"cgroups v1, {chains['memory'][0] if 'memory' in chains else mount_root}",
    )


def own_enclosing_limits(mount_root: Path) -> Enclosing | None:
    """:func:`enclosing_limits` of this process."""
    return enclosing_limits(mount_root, _read(Path("/proc/self/cgroup")) or "")
