"""Fixtures for the red-team suite: the small-limits exercise, host secrets and a grading helper."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from redteam_harness import (
    Graded,
    GradeHostile,
    Secrets,
    copy_exercise_with_limits,
    grade_hostile,
    load_fast_exercise,
    make_secrets,
)

from grader.exercise import Exercise, load_exercise
from grader.sandbox import bwrap_path


@pytest.fixture(scope="session", autouse=True)
def _sandbox_is_installed() -> None:
    # No skipping: the red-team suite is exactly the thing that must not pass without a sandbox.
    assert bwrap_path() is not None, "bubblewrap is required for the red-team suite (apt-get install bubblewrap)"


@pytest.fixture(scope="session")
def fast_exercise(tmp_path_factory: pytest.TempPathFactory) -> Exercise:
    """The KV-cache exercise with 2 s of CPU time, a 4 s wall clock and ``memory_mb = 256``."""
    return load_fast_exercise(tmp_path_factory.mktemp("redteam-exercise"))


@pytest.fixture(scope="session")
def roomy_exercise(tmp_path_factory: pytest.TempPathFactory) -> Exercise:
    """The KV-cache exercise with ``time_seconds = 10``: for attacks slow by nature (walking every visible file)."""
    folder = copy_exercise_with_limits(
        tmp_path_factory.mktemp("redteam-roomy"), {"time_seconds": "10", "memory_mb": "256"}
    )
    return load_exercise(folder)


@pytest.fixture(scope="session")
def host_secrets() -> Iterator[Secrets]:
    """A root-only secret file under /tmp and ``MLKATA_SECRET_KEY`` in the grading process's environment."""
    with tempfile.TemporaryDirectory(prefix="mlkata-redteam-secret-") as folder:
        secrets = make_secrets(Path(folder))
        previous = os.environ.get("MLKATA_SECRET_KEY")
        os.environ["MLKATA_SECRET_KEY"] = secrets.token
        try:
            yield secrets
        finally:
            if previous is None:
                os.environ.pop("MLKATA_SECRET_KEY", None)
            else:
                os.environ["MLKATA_SECRET_KEY"] = previous


@pytest.fixture
def hostile(fast_exercise: Exercise, host_secrets: Secrets) -> GradeHostile:
    """``hostile("fork_bomb")`` grades ``submissions/fork_bomb.py`` and checks it was contained."""

    def run(name: str, **kwargs: object) -> Graded:
        return grade_hostile(name, fast_exercise, host_secrets, **kwargs)  # type: ignore[arg-type]

    return run
