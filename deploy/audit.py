"""What the deploy test checked, how long each step took, and the report it prints at the end."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    seconds: float | None = None


@dataclass
class Audit:
    started: float = field(default_factory=time.monotonic)
    checks: list[Check] = field(default_factory=list)
    phases: list[tuple[str, float]] = field(default_factory=list)
    facts: list[tuple[str, str]] = field(default_factory=list)

    def say(self, message: str) -> None:
        print(f"[{time.monotonic() - self.started:6.1f} s] {message}", flush=True)

    def fact(self, name: str, value: str) -> None:
        self.facts.append((name, value))

    def check(self, name: str, ok: bool, detail: str = "", seconds: float | None = None) -> bool:
        self.checks.append(Check(name, ok, detail, seconds))
        self.say(f"{'ok  ' if ok else 'FAIL'} {name}{f': {detail}' if detail else ''}")
        return ok

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.say(f"--- {name}")
        started = time.monotonic()
        try:
            yield
        finally:
            self.phases.append((name, time.monotonic() - started))

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(check.ok for check in self.checks)

    def report(self, doctor: str | None = None) -> str:
        lines = ["", "=== mlkata deploy test: audit ==="]
        lines += [f"{name}: {value}" for name, value in self.facts]
        lines += ["", "checks:"]
        for check in self.checks:
            timing = f" [{check.seconds:.1f} s]" if check.seconds is not None else ""
            detail = f" — {check.detail}" if check.detail else ""
            lines.append(f"  {'✓' if check.ok else '✗'} {check.name}{timing}{detail}")
        lines += ["", "timings:"]
        lines += [f"  {seconds:7.1f} s  {name}" for name, seconds in self.phases]
        lines.append(f"  {time.monotonic() - self.started:7.1f} s  in all")
        if doctor is not None:
            lines += ["", "mlkata doctor in a worker container:", *(f"  {line}" for line in doctor.splitlines())]
        failed = [check for check in self.checks if not check.ok]
        verdict = "PASSED" if self.passed else f"FAILED ({len(failed)} of {len(self.checks)} checks)"
        lines += ["", f"deploy test {verdict}"]
        return "\n".join(lines)

    def print_report(self, doctor: str | None = None) -> None:
        sys.stdout.write(self.report(doctor) + "\n")
        sys.stdout.flush()
