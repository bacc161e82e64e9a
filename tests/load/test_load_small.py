"""A small load run through real processes: mlkata serve and two mlkata workers, PostgreSQL, a private Redis.

Sixty submissions (honest, wrong and hostile) from ten learners at once; afterwards every one must
be final in the database, the API and its event stream, with exactly one result. Half the learners
sign up first (the form, its CSRF token) and two of them sign in a second device mid-run: each
device must show the learner's ✓, its history and each of its runs, and none may read another
learner's run. ``make loadtest`` runs the full-size version and the fault run.
"""

from __future__ import annotations

import os

import pytest

from loadtest.run import RunConfig, RunReport, run
from loadtest.stack import ServiceMissing, has_worker_command

# Sized for a loaded 2-core machine (about 40 s when quiet): the run stops early once every submission
# is final, and the deadline only bounds a run that would never end.
pytestmark = [pytest.mark.services, pytest.mark.timeout(600)]


def run_or_report_missing_services(config: RunConfig) -> RunReport:
    """The run; without PostgreSQL or redis-server it fails in CI and skips, saying why, elsewhere."""
    try:
        return run(config)
    except ServiceMissing as missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide PostgreSQL and redis-server: {missing}")
        pytest.skip(f"needs PostgreSQL and redis-server: {missing}")


def test_sixty_submissions_through_serve_and_two_workers_are_all_final_none_lost_none_duplicated() -> None:
    assert has_worker_command(), "mlkata worker is missing: the scale-out topology cannot be tested"
    report = run_or_report_missing_services(
        RunConfig(submissions=60, concurrency=10, workers=2, deadline=420, signed_in_share=0.5, second_device_share=0.5)
    )
    audit = report.audit
    print(report.render())
    assert audit.accepted == audit.sent == 60
    assert audit.lost == []
    assert audit.duplicated == []
    assert audit.mismatched == []
    assert audit.client_errors == []
    assert audit.breaches == []
    assert audit.orphans == []
    assert sum(sum(counts.values()) for counts in audit.statuses.values()) == 60
    # Under load, honest solutions still pass and every hostile one gets the verdict it must.
    assert audit.wrong_verdicts == []
    # Signed-in learners: their runs are theirs on every device, and no one else's.
    assert (audit.learners, audit.signed_in, audit.second_devices) == (10, 5, 2)
    assert len(audit.signup_seconds) == 5 and len(audit.signin_seconds) == 2
    assert audit.account_failures == []
    assert audit.misfiled == []
    assert audit.unseen == []
    assert audit.leaks == []
    assert audit.second_device_runs > 0 and audit.cross_reads > 0 and audit.foreign_reads >= 2 * 10
    assert audit.ok
