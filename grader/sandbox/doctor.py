"""Which sandbox protections hold on this host, checked from inside a real sandbox.

Each protection is observed, not assumed: a probe solution runs in the jail and reports what it
sees (its uid, capabilities, seccomp mode, whether it can reach the network or write outside its
scratch space), and the host side checks the tools and kernel features the jail relies on.

Longer than 300 lines: one short check for each protection, read top to bottom as the report that
``mlkata doctor`` prints; split, the list of what is checked would no longer be in one place.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

from grader.sandbox import cgroups, cputime, seccomp
from grader.sandbox.bwrap import bwrap_path
from grader.sandbox.clock import RunClock
from grader.sandbox.endings import RunnerDied, SandboxUnavailable
from grader.sandbox.limits import Limits
from grader.sandbox.policy import memory_limit_mb, pids_limit
from grader.sandbox.runs import Run, start_runner
from runner import protocol, wire

PROBE_SOURCE = """
import ctypes, errno, os, signal, socket, time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def syscall(number, *args):
    result = libc.syscall(number, *args)
    if result == -1:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


ATTEMPTS = {
    "io_setup": lambda: syscall(206, 1, ctypes.byref(ctypes.c_ulong(0))),
    "openpty": os.openpty,
    "shmget": lambda: syscall(29, 0, 4096, 0o1600),
    "mq_open": lambda: syscall(240, b"mlkata-doctor", os.O_CREAT | os.O_RDWR, 0o600, None),
    "inotify_init1": lambda: syscall(294, 0),
    "add_key": lambda: syscall(248, b"user", b"mlkata-doctor", b"x", 1, -2),
    "open_tree_attr": lambda: syscall(467, -100, b"/tmp", 1, None, 0),
    "listmount": lambda: syscall(458, None, None, 0, 0),
    "statmount": lambda: syscall(457, None, None, 0, 0),
    "memfd_secret": lambda: syscall(447, 0),
    "modify_ldt": lambda: syscall(154, 0, None, 0),
    "x32 getpid": lambda: syscall(0x40000000 | 39),
}


def attempt(call):
    # In a child: the filter kills the whole process, and the probe must go on.
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            ATTEMPTS[call]()
            outcome = "made"
        except OSError as exc:
            outcome = errno.errorcode.get(exc.errno, str(exc.errno))
        except BaseException as exc:
            outcome = type(exc).__name__
        os.write(write_end, outcome.encode())
        os._exit(0)
    os.close(write_end)
    _, status = os.waitpid(child, 0)
    outcome = os.read(read_end, 100).decode()
    os.close(read_end)
    return signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else outcome


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
    facts["kernel"] = {call: attempt(call) for call in ATTEMPTS}
    return facts


def burn(seconds):
    # In a child, waited for: the run's CPU time must count its processes, not only the runner.
    child = os.fork()
    if child == 0:
        while time.process_time() < seconds:
            pass
        os._exit(0)
    os.waitpid(child, 0)
    return seconds
"""
#: CPU time the probe spends in a child process, which the host must see counted in the run's.
BURN_SECONDS = 0.2

#: What the probe tries, by protection: a call that kills the run (SIGSYS) or fails is blocked.
KERNEL_SURFACE = (
    ("no native AIO (fs.aio-max-nr)", ("io_setup",)),
    ("no ptys (kernel.pty.max)", ("openpty",)),
    ("no SysV IPC", ("shmget",)),
    ("no POSIX message queues", ("mq_open",)),
    ("no inotify", ("inotify_init1",)),
    ("no keyrings", ("add_key",)),
    ("newer kernel calls blocked", ("open_tree_attr", "listmount", "statmount", "memfd_secret", "modify_ldt")),
    ("other ABIs blocked", ("x32 getpid",)),
)
#: Calls probed with arguments the kernel itself would refuse: only SIGSYS or ENOSYS shows they were blocked.
_KERNEL_WOULD_REFUSE = {"open_tree_attr", "listmount", "statmount", "modify_ldt"}


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
        seccomp.filter_bpf()
        allowed = len(seccomp.allowed_calls())
        found.append(
            Protection("seccomp filter built", True, f"{allowed} system calls allowed, every other call kills the run")
        )
    except seccomp.SeccompUnavailable as exc:
        found.append(Protection("seccomp filter built", False, str(exc)))
    found.append(
        Protection("rlimits (memory, CPU, processes, file size)", shutil.which("prlimit") is not None, "prlimit")
    )
    found += _cgroup_protections()
    counted, how = cputime.how_counted()
    found.append(Protection("CPU time limit on the whole run", counted, how, required=counted))
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
        *_kernel_surface(facts["kernel"]),
    ]
    seen = facts["cpu_seen"]
    found.append(
        Protection(
            "CPU time of a run's children counted",
            seen >= 0.9 * BURN_SECONDS,  # /proc counts in clock ticks, rounded down
            f"a child of the probe computed for {BURN_SECONDS:g} s; the run's CPU time read {seen:.2f} s",
        )
    )
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


def _kernel_surface(outcomes: dict[str, str]) -> list[Protection]:
    """One row per host-wide resource or kernel interface the probe tried to reach from inside the run."""
    found = []
    for name, calls in KERNEL_SURFACE:
        blocked = [_blocked(call, outcomes.get(call, "not tried")) for call in calls]
        detail = ", ".join(f"{call}: {_said(outcomes.get(call, 'not tried'))}" for call in calls)
        found.append(Protection(name, all(blocked), detail))
    return found


def _blocked(call: str, outcome: str) -> bool:
    if outcome == "SIGSYS":
        return True
    if outcome in ("made", "not tried") or outcome.startswith("SIG"):
        return False
    # An ordinary error: a refusal, unless the kernel would have refused the probe's own arguments anyway
    # (a null pointer, no capability): then only "no such call" says the call was blocked.
    return call not in _KERNEL_WOULD_REFUSE or outcome == "ENOSYS"


def _said(outcome: str) -> str:
    return {"SIGSYS": "killed by SIGSYS", "made": "succeeded"}.get(outcome, outcome)


def _probe() -> dict[str, Any]:
    """Run the probe in a real run, as a solution: load it, call it, and look at the run from the host."""
    run = start_runner(Limits(), jailed=True)
    clock = RunClock.wall_only(10)
    try:
        loaded = _ask(run, protocol.load(PROBE_SOURCE, ["probe", "burn"]), clock)
        answer = _ask(run, protocol.call("probe", []), clock) if loaded.keys() == protocol.LOADED else loaded
        if answer.keys() != protocol.VALUE or not isinstance(answer["value"], dict):
            raise RuntimeError(f"the probe did not run: {answer}")
        facts: dict[str, Any] = answer["value"]
        before = run.cpu_seconds()
        _ask(run, protocol.call("burn", [BURN_SECONDS]), clock)
        facts["cpu_seen"] = run.cpu_seconds() - before
        # Observed from the host: the run's cgroup (None on the fallback) and who is in it.
        facts["cgroup_procs"] = sorted(run.cgroup.procs()) if run.cgroup is not None else None
        facts["runner_pid"] = run.pid
        return facts
    finally:
        run.close()


def _ask(run: Run, request: dict[str, Any], clock: RunClock) -> dict[str, Any]:
    try:
        reply = wire.decode(run.exchange(wire.encode(request, share=True), clock))
    except RunnerDied as died:
        raise RuntimeError(f"the probe's run ended: {died.ending.value} {died.detail}".strip()) from None
    if not isinstance(reply, dict):
        raise RuntimeError("the probe's run answered something else than a message")
    return reply


def _version(path: str) -> str:
    completed = subprocess.run([path, "--version"], capture_output=True, text=True, check=False, timeout=5)
    return completed.stdout.strip() or path


def _cgroup_protections() -> list[Protection]:
    """The cgroup ceiling for a run's whole process tree: required wherever the host offers a writable hierarchy.

    Then the ceiling over all runs together that the grader's own cgroup sets (in a container, the
    container's ``mem_limit`` and ``pids_limit``): reported, never required.
    """
    name = "cgroup limits for the whole process tree"
    found = cgroups.status()
    together = _enclosing_protection()
    if isinstance(found, cgroups.Fallback):
        tree = (
            "nothing caps the memory of one run's whole tree; the grader's own cgroup caps all runs together (below)"
            if together.active
            else "nothing caps the memory of a run's whole tree"
        )
        return [
            Protection(
                name,
                False,
                f"not used: {found.reason}. Fallback: per-process rlimits (memory, CPU), the per-run uid's "
                f"process limit and the pid-namespace kill; {tree}",
                required=False,
            ),
            together,
        ]
    limits = Limits()
    return [
        Protection(
            name,
            True,
            f"{found.describe()}: memory {memory_limit_mb(limits)} MB for the whole run by default "
            f"(no swap), pids.max {pids_limit(limits)}, a CPU share per run, OOM kills reported exactly, "
            f"{'cgroup.kill' if found.version == 2 else 'freezer'} kill on timeout",
        ),
        together,
    ]


def _enclosing_protection() -> Protection:
    name = "one ceiling over all runs together"
    found = cgroups.enclosing()
    container = any(os.path.exists(marker) for marker in ("/.dockerenv", "/run/.containerenv"))
    whose = "the container's cgroup" if container else "the grader's own cgroup"
    if found is None:
        return Protection(name, False, "no cgroup hierarchy is mounted", required=False)
    if found.bounded:
        return Protection(
            name, True, f"{whose} caps all runs together: {found.describe()} ({found.where})", required=False
        )
    advice = "set mem_limit and pids_limit in compose (docker run --memory, --pids-limit)" if container else ""
    return Protection(
        name,
        False,
        f"{whose} sets {found.describe()} ({found.where}){'; ' + advice if advice else ''}",
        required=False,
    )
