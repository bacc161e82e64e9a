"""``make deploy-test``: build the image, run it alone and as the compose stack, attack it, tear it down.

Exit status 0 when every check passed. Everything it starts is removed at the end, on failure too
(and anything a killed earlier run left is removed first); the base images, the stand-ins and the
debootstrap'd root file system stay cached (``/var/cache/mlkata-deploy-test`` and the engine's
image store), so a second run builds nothing but what changed.
"""

from __future__ import annotations

import os
import platform
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from deploy import single
from deploy.audit import Audit
from deploy.engine import REPO, Engine, cgroup_version, pick_engine
from deploy.learner import Learner
from deploy.solutions import graded_solutions, slow_reference
from deploy.stack import Stack, wait_for
from deploy.standins import ensure_bases, extra_ca_bundle

IMAGE = "mlkata:latest"


def build(engine: Engine, audit: Audit) -> None:
    bundle = extra_ca_bundle()
    secret = ["--secret", f"id=extra_ca,src={bundle}"] if bundle else []
    audit.fact("extra CA certificates", f"{bundle} as the build secret extra_ca" if bundle else "none on this host")
    env = {**engine.env, "DOCKER_BUILDKIT": "1"}
    started = time.monotonic()
    Engine(engine.name, engine.compose, env, engine.build_options)(
        "build", *engine.build_options, *secret, "-t", IMAGE, str(REPO), timeout=2400
    )
    size = engine("image", "inspect", "--format", "{{.Size}}", IMAGE).stdout.strip()
    audit.check(
        "the Dockerfile builds, unchanged", True, f"{int(size) >> 20} MB" if size.isdigit() else "",
        time.monotonic() - started,
    )  # fmt: skip


def grade_through_compose(stack: Stack, learner: Learner, audit: Audit) -> list[str]:
    ids = []
    workers = stack.containers("worker")

    def oom_kills() -> int:
        return sum(stack.oom_kills(name) or 0 for name in workers)

    for solution in graded_solutions():
        kills = oom_kills()
        graded = learner.grade(solution.code, seconds=240)
        ids.append(graded.id)
        escaped = solution.forbidden_output is not None and solution.forbidden_output in graded.output
        ok = solution.accepts(graded.status, graded.reason) and not escaped
        detail = f"{graded.status} ({graded.reason})"
        if escaped:
            detail += f", printed {solution.forbidden_output!r}"
        if (killed := oom_kills() - kills) > 0:
            detail += f"; the container's cgroup OOM-killed {killed} of its processes"
        audit.check(f"graded: {solution.name}", ok, detail, graded.seconds)
    restarts = {name: stack.inspect(name).get("RestartCount") for name in stack.containers("worker")}
    audit.check(
        "both workers survived the hostile runs (no restart) and are healthy",
        all(count == 0 for count in restarts.values()) and stack.all_healthy("worker", stack.workers),
        ", ".join(f"{name}: {count} restarts" for name, count in restarts.items()),
    )
    return ids


def kill_mid_grade(stack: Stack, learner: Learner, audit: Audit) -> str:
    submission = learner.submit(slow_reference(8))
    query = "SELECT status, worker_id, attempts FROM submissions WHERE id = :'id'"
    holder: list[str] = []

    def claimed() -> bool:
        rows = stack.sql(query, id=submission)
        if rows and rows[0][0] == "running" and rows[0][1]:
            holder[:] = [rows[0][1]]
            return True
        return False

    wait_for(claimed, "the slow submission's claim", 60, 0.2)
    container = stack.worker_of(holder[0])
    if container is None:
        raise RuntimeError(f"no worker container runs {holder[0]}")
    stack.engine("kill", container)
    killed = time.monotonic()
    audit.say(f"killed {container} (SIGKILL) while it graded {submission}")
    graded = learner.wait(submission, seconds=300)
    status, worker, attempts = stack.sql(query, id=submission)[0]
    events = "SELECT count(*) FROM submission_events WHERE submission_id = :'id' AND type = 'done'"
    done = stack.sql(events, id=submission)
    audit.check(
        "a worker killed mid-grade: the submission is graded again elsewhere, and recorded once",
        graded.status == "pass" and int(attempts) >= 2 and done == [["1"]] and worker != holder[0],
        f"{status} after {attempts} claims, {done[0][0]} done event(s), first {holder[0].split(':')[1]}, "
        f"then {worker.split(':')[1]}",
        time.monotonic() - killed,
    )
    stack.engine("start", container)
    seconds = wait_for(lambda: stack.all_healthy("worker", stack.workers), "the killed worker again", 180, 2)
    audit.check("the killed worker starts again and is healthy", True, container, seconds)
    return submission


def restart_keeps_data(stack: Stack, learner: Learner, audit: Audit, ids: list[str]) -> None:
    before = {submission: learner.view(submission)["status"] for submission in ids}
    started = time.monotonic()
    stack.down(volumes=False)
    timings = stack.up()
    after = {submission: learner.view(submission)["status"] for submission in ids}
    audit.check(
        "restarted (down, up): every submission and verdict is still there, for the same learner cookie",
        before == after,
        f"{len(after)} submissions; back up in {timings['web healthy']:.0f} s",
        time.monotonic() - started,
    )
    duplicates = stack.sql(
        "SELECT submission_id, count(*) FROM submission_events WHERE type = 'done' GROUP BY submission_id "
        "HAVING count(*) <> 1"
    )
    unfinished = stack.sql("SELECT count(*) FROM submissions WHERE status IN ('queued', 'running')")
    audit.check(
        "the database: one verdict per submission, none left unfinished",
        not duplicates and unfinished == [["0"]],
        f"{len(duplicates)} with other than one done event, {unfinished[0][0]} unfinished",
    )
    graded = learner.grade(graded_solutions()[0].code)
    audit.check("after the restart the reference still passes", graded.status == "pass", graded.status, graded.seconds)


def doctor(stack: Stack, audit: Audit) -> str:
    worker = stack.containers("worker")[0]
    said = stack.engine("exec", worker, "mlkata", "doctor", check=False, timeout=120)
    config = stack.inspect(worker).get("HostConfig", {})
    limits = (
        f"memory {int(config.get('Memory', 0)) >> 20} MB, pids {config.get('PidsLimit')}"
        if isinstance(config, dict)
        else ""
    )
    text = said.stdout.strip()
    audit.check(
        "mlkata doctor in a worker container: every required protection active",
        said.returncode == 0 and "Every required protection is active." in text,
        f"exit {said.returncode}; the container: {limits}",
    )
    ceiling = [line for line in text.splitlines() if "ceiling over all runs together" in line]
    per_run = [line for line in text.splitlines() if "cgroup limits for the whole process tree" in line]
    audit.check(
        "mlkata doctor says which whole-tree limit applies (per-run cgroups, or the container's)",
        bool(ceiling) and bool(per_run) and (per_run[0].startswith("✓") or ceiling[0].startswith("✓")),
        (ceiling or ["no row"])[0][:200],
    )
    return text


def scenario(engine: Engine, stack: Stack, audit: Audit) -> str | None:
    with audit.phase("base images"):
        for image, origin in ensure_bases(engine, audit.say).items():
            audit.fact(image, origin)
    with audit.phase("build the image"):
        build(engine, audit)
    with audit.phase("the image alone"):
        single.test_single_container(engine, audit)
        single.remove(engine)
    with audit.phase("compose: start web, 2 workers, redis, postgres"):
        for step, seconds in stack.up().items():
            audit.check(f"compose: {step}", True, "", seconds)
    learner = Learner(stack.url)
    try:
        with audit.phase("compose: grade through HTTP"):
            ids = grade_through_compose(stack, learner, audit)
        with audit.phase("compose: kill a worker mid-grade"):
            ids.append(kill_mid_grade(stack, learner, audit))
        with audit.phase("mlkata doctor in a worker"):
            text = doctor(stack, audit)
        with audit.phase("compose: restart, data kept"):
            restart_keeps_data(stack, learner, audit, ids)
    finally:
        learner.close()
    return text


def _logs(engine: Engine, stack: Stack) -> None:
    for name in [*stack.containers(running_only=False), single.NAME]:
        said = engine("logs", "--tail", "25", name, check=False)
        if said.returncode == 0:
            print(f"--- logs of {name}\n{(said.stdout + said.stderr)[-3000:]}")


def main() -> int:
    def stop(signum: int, _: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    audit = Audit()
    with audit.phase("the engine (installed when missing)"):
        engine = pick_engine()
    unified = Path("/sys/fs/cgroup/unified").is_dir()
    audit.fact("host", f"{platform.platform()}, {os.cpu_count()} CPUs, cgroups v{cgroup_version()}"
               f"{' (hybrid)' if unified else ''}")  # fmt: skip
    audit.fact("engine", engine.describe())
    stack = Stack(engine)
    for leftover in [*stack.remove(), *single.leftovers(engine)]:
        audit.say(f"removed {leftover}, left by an earlier run")
    single.remove(engine)
    text = None
    try:
        text = scenario(engine, stack, audit)
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001  (reported as a failed check, then torn down)
        audit.check("the scenario ran to its end", False, f"{type(exc).__name__}: {exc}")
        _logs(engine, stack)
    finally:
        with audit.phase("teardown"):
            removed = stack.down(volumes=True)
            single.remove(engine)
            left = stack.leftovers() + single.leftovers(engine)
            audit.check("torn down: no container, volume or network of the test is left", not left,
                        f"removed {len(removed)}; left {left}" if left else f"removed {len(removed)}")  # fmt: skip
    audit.print_report(text)
    return 0 if audit.passed else 1


if __name__ == "__main__":
    sys.exit(main())
