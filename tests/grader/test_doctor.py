"""``mlkata doctor`` observes each protection from inside a real sandbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.doctor import examine

MLKATA = str(Path(sys.executable).with_name("mlkata"))


def test_every_required_protection_is_active_on_this_host() -> None:
    missing = [p.name for p in examine() if p.required and not p.active]
    assert missing == []


def test_the_probe_sees_none_of_the_servers_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLKATA_SECRET_KEY", "do-not-leak")
    environment = next(p for p in examine() if p.name == "cleared environment")
    assert environment.active
    assert "MLKATA_SECRET_KEY" not in environment.detail


def test_doctor_command_lists_protections_and_exits_0() -> None:
    run = subprocess.run([MLKATA, "doctor"], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stdout
    assert "✓ seccomp active (Seccomp mode 2)" in run.stdout
    assert "✓ no network" in run.stdout
    assert run.stdout.rstrip().endswith("Every required protection is active.")
