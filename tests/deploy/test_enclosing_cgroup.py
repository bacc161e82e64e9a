"""The ceiling the grader's own cgroup puts on all runs together (what `mlkata doctor` reports in a container)."""

from __future__ import annotations

from pathlib import Path

from grader.sandbox.cgroups.enclosing import enclosing_limits, parse_proc_cgroup

HOST_PATH = "/libpod_parent/libpod-abc"
V1_PROC = "\n".join(f"{n}:{c}:{HOST_PATH}" for n, c in [(8, "pids"), (4, "memory"), (1, "cpu,cpuacct")]) + "\n0::/x\n"
V1_UNLIMITED = "9223372036854771712\n"


def write(directory: Path, **files: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name.replace("__", ".")).write_text(text)


def test_proc_cgroup_names_each_v1_controller_and_the_v2_hierarchy() -> None:
    found = parse_proc_cgroup(V1_PROC)
    assert found == {"pids": HOST_PATH, "memory": HOST_PATH, "cpu": HOST_PATH, "cpuacct": HOST_PATH, "": "/x"}


def test_v1_in_a_container_reads_its_own_cgroup_mounted_as_each_hierarchys_root(tmp_path: Path) -> None:
    # Without a cgroup namespace the host's path does not exist inside: the root is the container's cgroup.
    write(tmp_path / "memory", memory__limit_in_bytes=str(2 << 30), **{"cgroup.procs": ""})
    write(tmp_path / "pids", pids__max="1024\n")
    write(tmp_path / "cpu", cpu__cfs_quota_us="200000\n", cpu__cfs_period_us="100000\n")
    found = enclosing_limits(tmp_path, V1_PROC)
    assert found is not None and found.bounded
    assert (found.memory_bytes, found.pids, found.cpus) == (2 << 30, 1024, 2.0)
    assert found.describe() == "2048 MB, 1024 pids, 2 CPUs"
    assert found.where == f"cgroups v1, {tmp_path / 'memory'}"


def test_v1_takes_the_tightest_of_the_cgroup_and_its_ancestors_and_ignores_no_limit(tmp_path: Path) -> None:
    write(tmp_path / "memory", memory__limit_in_bytes=V1_UNLIMITED)
    write(tmp_path / "memory" / "libpod_parent", memory__limit_in_bytes=str(1 << 30))
    write(tmp_path / "memory" / "libpod_parent" / "libpod-abc", memory__limit_in_bytes=V1_UNLIMITED)
    write(tmp_path / "pids" / "libpod_parent" / "libpod-abc", pids__max="max\n")
    write(tmp_path / "cpu" / "libpod_parent" / "libpod-abc", cpu__cfs_quota_us="-1\n", cpu__cfs_period_us="100000\n")
    found = enclosing_limits(tmp_path, V1_PROC)
    assert found is not None
    assert (found.memory_bytes, found.pids, found.cpus) == (1 << 30, None, None)
    assert not found.bounded
    assert found.describe() == "1024 MB, no pids limit"


def test_v2_private_namespace_reads_the_root_and_cpu_max(tmp_path: Path) -> None:
    write(tmp_path, **{"cgroup.controllers": "cpu memory pids\n"}, memory__max=str(512 << 20), pids__max="256\n",
          cpu__max="150000 100000\n")  # fmt: skip
    found = enclosing_limits(tmp_path, "0::/\n")
    assert found is not None and found.bounded
    assert (found.memory_bytes, found.pids, found.cpus) == (512 << 20, 256, 1.5)


def test_v2_without_limits_is_unbounded(tmp_path: Path) -> None:
    write(tmp_path, **{"cgroup.controllers": "memory pids\n"})
    write(tmp_path / "system.slice" / "mlkata.service", memory__max="max\n", pids__max="max\n", cpu__max="max 100000\n")
    found = enclosing_limits(tmp_path, "0::/system.slice/mlkata.service\n")
    assert found is not None
    assert (found.memory_bytes, found.pids, found.cpus, found.bounded) == (None, None, None, False)
    assert found.where == f"cgroups v2, {tmp_path / 'system.slice' / 'mlkata.service'}"


def test_no_hierarchy_mounted_is_none(tmp_path: Path) -> None:
    assert enclosing_limits(tmp_path, V1_PROC) is None
