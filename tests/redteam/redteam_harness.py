"""Grade hostile submissions through the real grader and bubblewrap, and check what they left behind.

Every submission under ``submissions/`` is graded against a copy of the KV-cache exercise with
tight limits. :func:`grade_hostile` then asserts what must hold for *every* hostile run, whatever
the attack: the run ended within its time limits (plus starting its runners), no process of the
sandbox's uids survived it, nothing was written on the host (the repository, host ``/tmp``, the
exercise folder, the canary paths the attacks aim at) and no secret of the host shows up in the
result. Each test then asserts the specific verdict for its attack.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader import sandbox
from grader.exercise import Exercise, load_exercise
from grader.grading.engine import grade
from grader.results.records import GradeResult, Reason
from grader.sandbox import cgroups
from grader.sandbox.uids import FIRST_UID, SLOT_COUNT

HERE = Path(__file__).resolve().parent
SUBMISSIONS = HERE / "submissions"
REPO = HERE.parent.parent
KV_EXERCISE = REPO / "exercises" / "kv-cache-decoding"
SANDBOX_UIDS = range(FIRST_UID, FIRST_UID + SLOT_COUNT)
#: Every file an attack tries to create on the host has this in its name.
CANARY_NAME = "mlkata-redteam-was-here"
#: Slack on top of the exercise's time limits for each runner a grading starts: starting and killing
#: a sandbox and the grader's own work (its diagnosis alone may take 2 s of CPU time), none of which is
#: the solution's time. Sized for a loaded 2-core machine, where each takes several times its quiet time;
#: a grading that hangs still goes far past it.
TIME_MARGIN = 10.0
#: A check that ends with one of these ended its runner: the next check starts another.
ENDS_THE_RUNNER = {
    Reason.TIMEOUT, Reason.CRASHED, Reason.BLOCKED_SYSCALL, Reason.MEMORY_LIMIT, Reason.EXITED,
    Reason.UNSUPPORTED_VALUE, Reason.REPLY_TOO_LARGE, Reason.OUTPUT_LIMIT,
}  # fmt: skip
#: 2 s of CPU time; a wall clock of 4 s, so that what sleeps ends soon too.
FAST_LIMITS = {"time_seconds": "2", "wall_clock_factor": "2", "memory_mb": "256"}


def copy_exercise_with_limits(destination: Path, limits: dict[str, str]) -> Path:
    """Copy the KV-cache exercise to ``destination/kv-cache-decoding`` and rewrite its ``[limits]``."""
    folder = destination / KV_EXERCISE.name
    shutil.copytree(KV_EXERCISE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "exercise.toml"
    text = toml.read_text(encoding="utf-8")
    head, sep, tail = text.partition("\n[limits]\n")
    if not sep:
        head, sep, tail = text, "\n[limits]\n", ""
    body, next_table, rest = tail.partition("\n[")
    kept = [line for line in body.splitlines() if line.split("=")[0].strip() not in limits]
    body = "\n".join([*(f"{key} = {value}" for key, value in limits.items()), *kept])
    toml.write_text(head + sep + body + "\n" + next_table + rest, encoding="utf-8")
    return folder


def load_fast_exercise(destination: Path) -> Exercise:
    exercise = load_exercise(copy_exercise_with_limits(destination, FAST_LIMITS))
    assert exercise.limits.time_seconds == 2 and exercise.limits.wall_seconds == 4 and exercise.limits.memory_mb == 256
    return exercise


@dataclass(frozen=True)
class Secrets:
    """A root-only canary file and an environment variable of the grading process."""

    token: str
    file: Path


@dataclass
class Graded:
    """A hostile submission's grade, with the evidence the tests look at."""

    name: str
    result: GradeResult
    seconds: float
    dump: str = field(repr=False)

    @property
    def output(self) -> str:
        """Everything the solution printed (at load and during each check)."""
        parts = [self.result.output or ""] + [t.output or "" for t in self.result.tests]
        return "".join(parts)

    @property
    def reasons(self) -> set[Reason]:
        return {t.reason for t in self.result.tests} | {self.result.reason}

    def messages(self) -> str:
        return "\n".join([self.result.message or "", *(t.message or "" for t in self.result.tests)])

    def explain(self) -> str:
        lines = [f"{self.name}: {self.result.status.value}/{self.result.reason.value} in {self.seconds:.2f} s"]
        lines += [f"  {t.id}: {t.status.value}/{t.reason.value}: {(t.message or '')[:300]}" for t in self.result.tests]
        if not self.result.tests:
            lines.append(f"  {self.result.message}")
        lines.append(f"  output: {self.output[:500]!r}")
        return "\n".join(lines)


#: ``hostile("fork_bomb")`` grades ``submissions/fork_bomb.py`` (the fixture of that name).
GradeHostile = Callable[..., "Graded"]


def read_submission(name: str) -> bytes:
    return (SUBMISSIONS / f"{name}.py").read_bytes()


def fill_placeholders(
    source: bytes, exercise: Exercise, secrets: Secrets, extra: dict[str, str] | None = None
) -> bytes:
    """Tell attacks where the host's valuables are (as a real attacker might guess)."""
    values = {
        "__REPO__": str(REPO),
        "__EXERCISE__": str(exercise.path),
        "__SECRET_FILE__": str(secrets.file),
        "__CANARY__": CANARY_NAME,
        **(extra or {}),
    }
    for key, value in values.items():
        source = source.replace(key.encode(), value.encode())
    return source


def grade_hostile(
    name: str,
    exercise: Exercise,
    secrets: Secrets,
    *,
    source: bytes | None = None,
    extra: dict[str, str] | None = None,
    warm: bool = True,
) -> Graded:
    """Grade ``submissions/<name>.py`` and assert the run was contained and left nothing behind."""
    raw = read_submission(name) if source is None else source
    raw = fill_placeholders(raw, exercise, secrets, extra)
    exercise_files = snapshot_tree(exercise.path)
    started = time.monotonic()
    result = grade(exercise, raw, warm=warm)
    seconds = time.monotonic() - started
    graded = Graded(name, result, seconds, result.model_dump_json())
    # At most two runs' wall-clock limits (after a timeout, the other function's checks get a fresh run),
    # and starting each runner.
    runners = 1 + sum(test.reason in ENDS_THE_RUNNER for test in result.tests)
    limit = 2 * exercise.limits.wall_seconds + TIME_MARGIN * runners
    assert seconds < limit, f"{name} took {seconds:.1f} s, more than {limit} s\n{graded.explain()}"
    assert_no_sandbox_process_survives()
    assert_no_run_cgroup_left()
    assert snapshot_tree(exercise.path) == exercise_files, f"{name} changed the exercise folder"
    assert_no_canary_files(exercise)
    assert secrets.token not in graded.dump, f"{name} read a host secret\n{graded.explain()}"
    return graded


# --------------------------------------------------------------------------- processes


def assert_no_run_cgroup_left() -> None:
    """Every run's cgroup made by this process is removed when the run ends (on hosts that have them).

    A spare run (started ahead, no submission yet) has its cgroup already.
    """
    found = cgroups.status()
    if isinstance(found, cgroups.Host):
        pattern = f"{cgroups.PREFIX}-{os.getpid()}-*"
        assert sandbox.settle(), "runs were still being tidied up or started"
        spares = sandbox.spare_cgroup_dirs()
        left = [str(p) for parent in found.parents.values() for p in parent.glob(pattern) if str(p) not in spares]
        assert left == [], f"run cgroups left behind: {left}"


def _status_fields(pid: str) -> dict[str, str] | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def _parent(pid: int) -> int:
    fields = _status_fields(str(pid))
    return int(fields["PPid"]) if fields else 0


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _is_zygote(pid: str, fields: dict[str, str]) -> bool:
    """A warm-path zygote: long-lived by design, one pid namespace deep (runs are nested deeper)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return len(fields.get("NSpid", "").split()) == 2 and any(arg.endswith(b"/jail/__main__.py") for arg in cmdline)


def leftover_sandbox_processes() -> list[str]:
    """Live processes of the sandbox uids that are ours: descendants of this process, or orphans.

    Runs graded by other people on the same host live under their own ``bwrap``, which is not a
    descendant of this process; anything of a sandbox uid that is not under some ``bwrap`` at all
    escaped its pid namespace. Warm-path zygotes and spare runs (which never ran student code) are
    expected to stay; every process of a run lives in a pid namespace nested below its zygote's.
    """
    me = os.getpid()
    assert sandbox.settle(), "runs were still being tidied up or started"
    spares = sandbox.spare_process_ids()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _status_fields(entry)
        if not fields or fields.get("State", "").startswith(("Z", "X")):
            continue
        uids = [int(u) for u in fields.get("Uid", "").split()]
        if not any(u in SANDBOX_UIDS for u in uids):
            continue
        if _is_zygote(entry, fields) or int(entry) in spares:
            continue
        ancestor, under_bwrap, ours = int(fields["PPid"]), False, False
        for _ in range(64):
            if ancestor <= 1:
                break
            if ancestor == me:
                ours = True
                break
            under_bwrap = under_bwrap or _comm(ancestor) == "bwrap"
            ancestor = _parent(ancestor)
        if ours or not under_bwrap:
            found.append(f"pid {entry} uid {uids[0]} {fields.get('Name')} ({'ours' if ours else 'orphan'})")
    return found


def assert_no_sandbox_process_survives(grace: float = 3.0) -> None:
    deadline = time.monotonic() + grace
    while True:
        left = leftover_sandbox_processes()
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not left, f"sandbox processes survived the run: {left}"


# --------------------------------------------------------------------------- files


def snapshot_tree(root: Path) -> dict[str, tuple[int, int]]:
    """Path → (size, mtime in ns) for every file under ``root`` (caches excluded)."""
    snapshot = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            path = Path(folder, name)
            info = path.lstat()
            snapshot[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return snapshot


_SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".ruff_cache", ".pytest_cache"}


def _suspicious(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return CANARY_NAME in path.name or info.st_uid in SANDBOX_UIDS or info.st_gid in SANDBOX_UIDS


def assert_no_canary_files(exercise: Exercise) -> None:
    """No file named like the attacks' canaries, or owned by a sandbox uid, on the host."""
    found: list[str] = []
    for root in (REPO, exercise.path):
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
            found += [str(Path(folder, n)) for n in [*dirs, *files] if _suspicious(Path(folder, n))]
    for root in (Path("/tmp"), Path("/dev/shm"), Path("/etc"), Path("/var/tmp"), Path.home()):
        with os.scandir(root) as entries:
            found += [e.path for e in entries if _suspicious(Path(e.path))]
    assert not found, f"files were written on the host: {found}"


def make_secrets(folder: Path) -> Secrets:
    token = "canary-" + os.urandom(12).hex()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    secret = folder / "secret.txt"
    secret.write_text(f"MLKATA_SECRET_KEY={token}\n")
    secret.chmod(stat.S_IRUSR)
    return Secrets(token=token, file=secret)


def first_line(name: str) -> str:
    return read_submission(name).split(b"\n", 1)[0].decode("utf-8", "replace")


def submission_names() -> list[str]:
    return sorted(p.stem for p in SUBMISSIONS.glob("*.py"))


def numbers_in(text: str, pattern: str) -> list[int]:
    return [int(m) for m in re.findall(pattern, text)]
