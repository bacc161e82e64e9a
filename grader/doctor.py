"""Which sandbox protections hold on this host, checked from inside a real sandbox.

Each protection is observed, not assumed: a probe solution runs in the jail and reports what it
sees (its uid, capabilities, seccomp mode, whether it can reach the network or write outside its
scratch space), and the host side checks the tools and kernel features the jail relies on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from grader import cgroups, seccomp_policy
from grader.limits import Limits
from grader.sandbox import SandboxUnavailable, bwrap_path
from grader.session import SolutionSession

PROBE_SOURCE = """
import os, socket

def probe():
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    facts = {key: status[key].strip() for key in ("Uid", "CapEff", "CapBnd", "NoNewPrivs", "Seccomp")}
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
        facts["network"] = "connected"
    except OSError as exc:
        facts["network"] = type(exc).__name__
    try:
        open("/usr/mlkata-probe", "w").close()
        facts["usr_writable"] = "yes"
    except OSError:
        facts["usr_writable"] = "no"
    facts["environment"] = sorted(os.environ)
    facts["processes"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    facts["home_visible"] = os.path.exists("/etc/passwd") or os.path.exists("/home")
    return facts
"""


@dataclass(frozen=True)
class Protection:
    name: str
    active: bool
    detail: str
    required: bool = True


def examine() -> list[Protection]:
    """Every protection, active or not, with what was observed."""
    found: list[Protection] = []
    bwrap = bwrap_path()
    found.append(
        Protection(
            "bubblewrap installed", bwrap is not None, _version(bwrap) if bwrap else "apt-get install bubblewrap"
        )
    )
    found.append(
        Protection(
            "unprivileged uid per run",
            os.geteuid() == 0 and shutil.which("setpriv") is not None,
            "setpriv drops each run to a uid of its own"
            if os.geteuid() == 0
            else "not root: the run keeps your uid inside a user namespace",
        )
    )
    try:
        seccomp_policy.filter_bpf()
        found.append(Protection("seccomp filter built", True, f"{len(seccomp_policy.KILLED)} system calls denied"))
    except seccomp_policy.SeccompUnavailable as exc:
        found.append(Protection("seccomp filter built", False, str(exc)))
    found.append(
        Protection("rlimits (memory, CPU, processes, file size)", shutil.which("prlimit") is not None, "prlimit")
    )
    found += _cgroup_protections()
    if bwrap is None:
        return found
    try:
        facts = _probe()
    except (SandboxUnavailable, RuntimeError, OSError) as exc:
        found.append(Protection("sandbox starts", False, str(exc)))
        return found
    found.append(Protection("sandbox starts", True, "a probe ran inside it"))
    uid = facts["Uid"].split()[0]
    found += [
        Protection("runs without root", uid != "0", f"uid {uid}"),
        Protection(
            "no capabilities",
            set(facts["CapEff"]) == {"0"} and set(facts["CapBnd"]) == {"0"},
            f"CapEff {facts['CapEff']}, CapBnd {facts['CapBnd']}",
        ),
        Protection("no new privileges", facts["NoNewPrivs"] == "1", f"NoNewPrivs {facts['NoNewPrivs']}"),
        Protection("seccomp active", facts["Seccomp"] == "2", f"Seccomp mode {facts['Seccomp']}"),
        Protection("no network", facts["network"] != "connected", f"connecting to 127.0.0.1: {facts['network']}"),
        Protection("read-only system files", facts["usr_writable"] == "no", "writing under /usr fails"),
        Protection(
            "cleared environment",
            set(facts["environment"])
            <= {"PATH", "HOME", "LANG", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "PWD"},
            ", ".join(facts["environment"]),
        ),
        Protection("own pid namespace", max(facts["processes"]) < 10, f"sees pids {facts['processes']}"),
        Protection("no host files", not facts["home_visible"], "/etc and /home are not visible"),
    ]
    if facts["cgroup_procs"] is not None:
        inside = facts["runner_pid"] in facts["cgroup_procs"]
        found.append(
            Protection(
                "run inside its own cgroup",
                inside,
                f"the probe's processes {facts['cgroup_procs']} are in its run cgroup"
                if inside
                else f"process {facts['runner_pid']} is not in its run cgroup {facts['cgroup_procs']}",
            )
        )
    return found


def _probe() -> dict[str, Any]:
    session = SolutionSession(Limits(), jailed=True, deadline=time.monotonic() + 10)
    try:
        session.load(PROBE_SOURCE, ["probe"])
        facts = session.call("probe", []).value
        # Observed from the host: the run's cgroup (None on the fallback) and who is in it.
        run = getattr(session.process, "_cgroup", None)
        facts["cgroup_procs"] = sorted(run.procs()) if run is not None else None
        facts["runner_pid"] = session.process.pid
        return facts
    finally:
        session.close()


def _version(path: str) -> str:
    completed = subprocess.run([path, "--version"], capture_output=True, text=True, check=False, timeout=5)
    return completed.stdout.strip() or path


def _cgroup_protections() -> list[Protection]:
    """The cgroup ceiling for a run's whole process tree: required wherever the host offers a writable hierarchy."""
    name = "cgroup limits for the whole process tree"
    found = cgroups.status()
    if isinstance(found, cgroups.Fallback):
        return [
            Protection(
                name,
                False,
                f"not used: {found.reason}. Fallback: per-process rlimits (memory, CPU), the per-run uid's "
                "process limit and the pid-namespace kill; nothing caps the memory of a run's whole tree",
                required=False,
            )
        ]
    limits = Limits()
    return [
        Protection(
            name,
            True,
            f"{found.describe()}: memory {cgroups.memory_limit_mb(limits)} MB for the whole run by default "
            f"(no swap), pids.max {cgroups.pids_limit(limits)}, a CPU share per run, OOM kills reported exactly, "
            f"{'cgroup.kill' if found.version == 2 else 'freezer'} kill on timeout",
        )
    ]
