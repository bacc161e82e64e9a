"""The container engine: Docker where an engine answers, else podman, and how to run it on this host.

Podman comes from Debian's packages (``scripts/ensure-system-packages``) and is given a
``containers.conf`` of its own through ``CONTAINERS_CONF``, so nothing in ``/etc`` changes: on hosts
with cgroups v1 or hybrid, runc as the runtime (crun refuses them), and on every host explicit
ulimits within this host's hard limits (podman's defaults exceed them where ``CAP_SYS_RESOURCE`` is
not held). Compose files run through podman-compose, pinned, from PyPI, in a virtualenv of its own.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("MLKATA_DEPLOY_TEST_CACHE", "/var/cache/mlkata-deploy-test"))
#: The working directory of every command run here. Podman's conmon writes an empty ``oom`` file into
#: its working directory when a container's process is killed for memory (which the deploy test
#: provokes): run from the checkout, that file landed at the checkout's root.
WORK = CACHE / "work"
PODMAN_COMPOSE = "podman-compose==1.6.0"
#: Command -> Debian package, for scripts/ensure-system-packages.
PODMAN_PACKAGES = ("podman=podman", "runc=runc", "newuidmap=uidmap", "debootstrap=debootstrap")
DNS_PLUGINS = {
    "cni": "/usr/lib/cni/dnsname=golang-github-containernetworking-plugin-dnsname",
    "netavark": "/usr/lib/podman/aardvark-dns=aardvark-dns",
}


class CommandFailed(RuntimeError):
    """A command exited with an error; the message holds the end of what it printed."""


def run(
    argv: list[str],
    *,
    env: dict[str, str] | None = None,
    check: bool = True,
    timeout: float | None = 600,
    input_bytes: bytes | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    if cwd is None:
        WORK.mkdir(parents=True, exist_ok=True)
    completed = subprocess.run(
        argv,
        env=env,
        cwd=cwd if cwd is not None else WORK,
        input=input_bytes.decode() if input_bytes is not None else None,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    if check and completed.returncode != 0:
        said = (completed.stderr.strip() or completed.stdout.strip())[-3000:]
        shown = " ".join(argv[:6]) + (" …" if len(argv) > 6 else "")
        raise CommandFailed(f"{shown} exited {completed.returncode}:\n{said}")
    return completed


def cgroup_version(mount_root: Path = Path("/sys/fs/cgroup")) -> int:
    """2 on a unified (v2-only) host, 1 on v1 and hybrid hosts."""
    return 2 if (mount_root / "cgroup.controllers").is_file() else 1


def containers_conf(*, cgroups: int, nofile: int, nproc: int) -> str:
    """Podman's settings for this host: runc where crun refuses (v1 or hybrid), ulimits within the hard limits."""
    lines = ["[containers]", f'default_ulimits = ["nofile={nofile}:{nofile}", "nproc={nproc}:{nproc}"]']
    if cgroups == 1:
        lines += ["", "[engine]", 'runtime = "runc"']
    return "\n".join(lines) + "\n"


def hard_limit(which: int, ceiling: int) -> int:
    """This process's hard limit (at most ``ceiling``): what a container may be given without CAP_SYS_RESOURCE."""
    hard = resource.getrlimit(which)[1]
    return ceiling if hard == resource.RLIM_INFINITY else min(hard, ceiling)


@dataclass
class Engine:
    """``name`` is ``docker`` or ``podman``; ``compose`` the compose tool's command before its options."""

    name: str
    compose: list[str]
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    #: Options every ``build`` needs (podman: the Docker image format, which keeps HEALTHCHECK).
    build_options: list[str] = field(default_factory=list)

    def __call__(self, *args: str, **options: object) -> subprocess.CompletedProcess[str]:
        return run([self.name, *args], env=self.env, **options)  # type: ignore[arg-type]  # subprocess.run's keywords

    def compose_command(self, project: str, *args: str) -> list[str]:
        return [*self.compose, "-p", project, "-f", str(REPO / "docker-compose.yml"), *args]

    def describe(self) -> str:
        version = self("version", "--format", "{{.Client.Version}}", check=False).stdout.strip()
        runtime = ""
        if self.name == "podman":
            runtime = self("info", "--format", "{{.Host.OCIRuntime.Name}}", check=False).stdout.strip()
        compose = run([*self.compose, "version"], env=self.env, check=False).stdout.strip().splitlines()
        parts = [f"{self.name} {version}", f"runtime {runtime}" if runtime else "", compose[0] if compose else ""]
        return ", ".join(part for part in parts if part)


def ensure_packages(*pairs: str) -> None:
    run([str(REPO / "scripts" / "ensure-system-packages"), *pairs], timeout=900)


def docker_engine() -> Engine | None:
    """Docker, when an engine answers and compose is there (the plugin or docker-compose)."""
    if shutil.which("docker") is None or run(["docker", "info"], check=False, timeout=30).returncode != 0:
        return None
    if run(["docker", "compose", "version"], check=False).returncode == 0:
        return Engine("docker", ["docker", "compose"])
    if shutil.which("docker-compose"):
        return Engine("docker", ["docker-compose"])
    return None


def podman_engine() -> Engine:
    """Podman from Debian's packages, with this host's settings, and podman-compose beside it."""
    if os.geteuid() != 0:
        raise CommandFailed("the deploy test runs podman as root (the worker container's root is the host's)")
    ensure_packages(*PODMAN_PACKAGES)
    CACHE.mkdir(parents=True, exist_ok=True)
    conf = CACHE / "containers.conf"
    conf.write_text(
        containers_conf(
            cgroups=cgroup_version(),
            nofile=hard_limit(resource.RLIMIT_NOFILE, 1 << 16),
            # runc refuses even this host's own hard limit (96551 here) above about 32768; the
            # containers run a few hundred processes (the sandbox sets each run's own limit).
            nproc=hard_limit(resource.RLIMIT_NPROC, 4096),
        )
    )
    env = {**os.environ, "CONTAINERS_CONF": str(conf)}
    backend = run(["podman", "info", "--format", "{{.Host.NetworkBackend}}"], env=env).stdout.strip()
    if backend in DNS_PLUGINS:  # service names resolve on compose networks only with the DNS plugin
        ensure_packages(DNS_PLUGINS[backend])
    # Not in a pod: the workers each serve /healthz on their own loopback port 9100, as under Docker.
    compose = [str(_podman_compose()), "--in-pod", "false"]
    return Engine("podman", compose, env=env, build_options=["--format", "docker"])


def _podman_compose() -> Path:
    tools = CACHE / "tools"
    executable = tools / "bin" / "podman-compose"
    version = PODMAN_COMPOSE.split("==")[1]
    if executable.is_file():
        said = run([str(executable), "--version"], check=False).stdout
        if f"podman-compose version {version}" in said:
            return executable
    run([sys.executable, "-m", "venv", "--clear", str(tools)])
    run([str(tools / "bin" / "pip"), "install", "--quiet", PODMAN_COMPOSE], timeout=300)
    return executable


def pick_engine() -> Engine:
    return docker_engine() or podman_engine()
