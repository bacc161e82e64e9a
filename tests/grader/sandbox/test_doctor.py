"""``mlkata doctor`` observes each protection from inside a real sandbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.sandbox import doctor, seccomp
from grader.sandbox.doctor import KERNEL_SURFACE, examine

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
    allowed = len(seccomp.allowed_calls())
    assert f"✓ seccomp filter built ({allowed} system calls allowed, every other call kills the run)" in run.stdout
    assert run.stdout.rstrip().endswith("Every required protection is active.")


def test_the_probe_reaches_no_host_wide_pool_and_no_call_off_the_allowlist() -> None:
    found = {p.name: p for p in examine()}
    for name, calls in KERNEL_SURFACE:
        protection = found[name]
        assert protection.active and protection.required, protection
        for call in calls:
            # Observed: each call was made in a child of the probe, which the filter killed (the probe went on).
            expected = "openpty: ENOENT" if call == "openpty" else f"{call}: killed by SIGSYS"
            assert expected in protection.detail, protection


@pytest.mark.parametrize(
    ("call", "outcome", "blocked"),
    [
        ("io_setup", "SIGSYS", True),
        ("io_setup", "made", False),
        ("io_setup", "EAGAIN", True),  # a refusal of a valid request
        ("openpty", "ENOENT", True),
        ("listmount", "EFAULT", False),  # the kernel read the probe's null pointer: the call got through
        ("open_tree_attr", "EPERM", False),  # the kernel's own capability check: the call got through
        ("statmount", "ENOSYS", True),
        ("x32 getpid", "SIGSEGV", False),
    ],
)
def test_what_counts_as_blocked(call: str, outcome: str, blocked: bool) -> None:
    assert doctor._blocked(call, outcome) is blocked
