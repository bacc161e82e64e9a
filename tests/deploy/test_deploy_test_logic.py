"""The pure parts of `make deploy-test` (deploy/): what it derives from the files, and how it reports."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from app.monitoring.health import SINGLE_CONTAINER_RUN
from deploy import engine
from deploy.audit import Audit
from deploy.engine import containers_conf
from deploy.single import documented_options
from deploy.solutions import FAILS, Solution, graded_solutions
from deploy.standins import base_images, containerfile, extra_ca_bundle, fingerprint, qualified

REPO = Path(__file__).resolve().parents[2]


def compose() -> dict[str, object]:
    document = yaml.safe_load((REPO / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def test_podman_gets_runc_only_where_crun_refuses_and_ulimits_everywhere() -> None:
    v1 = containers_conf(cgroups=1, nofile=20000, nproc=4096)
    assert 'runtime = "runc"' in v1
    assert 'default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]' in v1
    assert "runtime" not in containers_conf(cgroups=2, nofile=1024, nproc=4096)


def test_engine_commands_run_in_the_cache_never_in_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # conmon writes an ``oom`` file into its working directory: it must never be the checkout.
    monkeypatch.chdir(REPO)
    monkeypatch.setattr(engine, "WORK", tmp_path / "cache" / "work")
    ran = engine.run(["sh", "-c", "pwd; : > oom"])
    assert ran.stdout.strip() == str(tmp_path / "cache" / "work")
    assert (tmp_path / "cache" / "work" / "oom").is_file() and not (REPO / "oom").exists()
    assert engine.run(["pwd"], cwd=tmp_path).stdout.strip() == str(tmp_path)  # unless told otherwise


@pytest.mark.parametrize(
    ("short", "full"),
    [
        ("redis:7", "docker.io/library/redis:7"),
        ("python:3.11-slim-bookworm", "docker.io/library/python:3.11-slim-bookworm"),
        ("postgres", "docker.io/library/postgres:latest"),
        ("ghcr.io/owner/image:1", "ghcr.io/owner/image:1"),
        ("owner/image:2", "docker.io/owner/image:2"),
        ("localhost/mlkata:latest", "localhost/mlkata:latest"),
    ],
)
def test_short_names_are_docker_hubs(short: str, full: str) -> None:
    assert qualified(short) == full


def test_every_base_image_the_files_name_has_a_stand_in() -> None:
    images = base_images((REPO / "Dockerfile").read_text(encoding="utf-8"), compose())
    assert images == [
        "docker.io/library/node:20-bookworm-slim",
        "docker.io/library/python:3.11-slim-bookworm",
        "docker.io/library/redis:7",
        "docker.io/library/postgres:16",
    ]
    for image in images:
        assert containerfile(image).is_file(), image
        assert containerfile(image).read_text(encoding="utf-8").startswith("# Stand-in for " + image)


def test_base_images_skip_the_dockerfiles_own_stages_and_built_services() -> None:
    dockerfile = "FROM node:20 AS front\nFROM --platform=linux/amd64 python:3.11 AS app\nFROM front\n"
    services = {"services": {"a": {"build": ".", "image": "mine:1"}, "b": {"image": "redis:7"}}}
    assert base_images(dockerfile, services) == [
        "docker.io/library/node:20", "docker.io/library/python:3.11", "docker.io/library/redis:7",
    ]  # fmt: skip


def test_a_stand_ins_fingerprint_follows_its_sources_and_its_base() -> None:
    image = "docker.io/library/postgres:16"
    assert fingerprint(image, "base-1") == fingerprint(image, "base-1")
    assert fingerprint(image, "base-1") != fingerprint(image, "base-2")
    assert fingerprint(image, "base-1") != fingerprint("docker.io/library/redis:7", "base-1")


def test_the_extra_ca_bundle_joins_every_certificate(tmp_path: Path) -> None:
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "a.crt").write_text("-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----")
    (tmp_path / "certs" / "b.crt").write_text("-----BEGIN CERTIFICATE-----\nB\n-----END CERTIFICATE-----\n")
    bundle = extra_ca_bundle(tmp_path / "certs", tmp_path / "out" / "bundle.pem")
    assert bundle is not None and bundle.read_text().count("BEGIN CERTIFICATE") == 2
    assert extra_ca_bundle(tmp_path / "missing", tmp_path / "none.pem") is None


def test_the_single_container_line_gives_the_workers_permissions_and_runs_as_root() -> None:
    worker = compose()["services"]["worker"]  # type: ignore[index]
    options = documented_options()
    assert options[:2] == ["--user", "root"] and "--cap-drop" in options
    added = {options[i + 1] for i, word in enumerate(options) if word == "--cap-add"}
    assert added == set(worker["cap_add"])
    security = {options[i + 1] for i, word in enumerate(options) if word == "--security-opt"}
    assert security == {opt.replace(":true", "") for opt in worker["security_opt"]}
    assert SINGLE_CONTAINER_RUN.startswith("docker run -p 8000:8000 ") and SINGLE_CONTAINER_RUN.endswith(" mlkata")


@pytest.mark.parametrize("document", ["README.md", "docs/deployment.md"])
def test_the_docs_show_the_single_container_line(document: str) -> None:
    text = " ".join((REPO / document).read_text(encoding="utf-8").replace("\\\n", " ").split())
    assert " ".join(SINGLE_CONTAINER_RUN.split()) in text


def test_the_worker_container_is_bounded_as_a_whole() -> None:
    worker = compose()["services"]["worker"]  # type: ignore[index]
    for key in ("mem_limit", "memswap_limit", "pids_limit", "cpus"):
        assert key in worker, key
    assert worker["mem_limit"] == worker["memswap_limit"]


def test_no_hostile_solution_may_end_in_an_internal_error() -> None:
    for solution in graded_solutions():
        assert not solution.accepts(next(iter(solution.status)), "internal_error")
    assert Solution("x", "", FAILS).accepts("fail", "timeout")
    assert not Solution("x", "", FAILS, frozenset({"timeout"})).accepts("fail", "crashed")


def test_the_audit_fails_on_any_failed_check_and_lists_every_one() -> None:
    audit = Audit()
    audit.check("first", True, "fine", 1.25)
    assert audit.passed
    audit.check("second", False, "broken")
    report = audit.report("✓ doctor line")
    assert not audit.passed
    assert "✓ first [1.2 s] — fine" in report and "✗ second — broken" in report
    assert "  ✓ doctor line" in report and report.endswith("deploy test FAILED (1 of 2 checks)")
