"""The suite itself: every golden submission says what it attacks, and some test grades it."""

from __future__ import annotations

import re

import pytest
from redteam_harness import HERE, read_submission, submission_names

pytestmark = pytest.mark.redteam


def test_every_submission_starts_with_a_comment_naming_its_attack() -> None:
    names = submission_names()
    assert len(names) >= 40
    for name in names:
        first = read_submission(name).split(b"\n", 1)[0]
        assert first.startswith(b"# ") and len(first) > 20, name


def test_every_submission_is_graded_by_some_test() -> None:
    tests = "".join(p.read_text() for p in HERE.glob("test_*.py"))
    used = set(re.findall(r'"([a-z0-9_]+)"', tests))
    unused = sorted(set(submission_names()) - used)
    assert not unused, f"submissions no test grades: {unused}"
