"""``mlkata check --changed``: an exercise verified as sound is skipped until it, the grader or the runner changes;
plain ``mlkata check`` (CI) verifies every exercise every time."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.authoring import user_cache, verified
from grader.exercise import load_exercise

MLKATA = str(Path(sys.executable).with_name("mlkata"))
VERIFIED = "  ✓ reference solution passes every check"


def check(folder: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MLKATA, "check", "--exercises", str(folder.parent), *args],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "MLKATA_CACHE_DIR": str(cache)},
    )  # fmt: skip


def test_changed_skips_an_exercise_verified_as_sound_until_its_content_changes(
    make_exercise: Callable[..., Path], tmp_path: Path
) -> None:
    folder, cache = make_exercise(), tmp_path / "cache"
    first = check(folder, cache, "--changed")
    assert first.returncode == 0, first.stdout
    assert any(line.startswith(VERIFIED) for line in first.stdout.splitlines())

    again = check(folder, cache, "--changed")
    assert again.returncode == 0, again.stdout
    assert "adder unchanged since verified: skipped" in again.stdout
    assert VERIFIED not in again.stdout
    assert again.stdout.splitlines()[-1] == "0/0 properties hold in 0 exercise(s), 1 unchanged skipped"

    everything = check(folder, cache)  # as CI runs it: the record is never read
    assert VERIFIED in everything.stdout and "unchanged since verified" not in everything.stdout

    (folder / "reference.py").write_text("def add(a, b):\n    return b + a\n")
    changed = check(folder, cache, "--changed")
    assert changed.returncode == 0, changed.stdout
    assert VERIFIED in changed.stdout and "unchanged since verified" not in changed.stdout

    stronger = check(folder, cache, "--changed", "--mutation")  # verified, but not with --mutation
    assert "mutation score" in stronger.stdout and "unchanged since verified" not in stronger.stdout


def test_an_exercise_that_fails_is_never_recorded(make_exercise: Callable[..., Path], tmp_path: Path) -> None:
    folder, cache = make_exercise(files={"starter.py": "def add(a, b):\n    return a + b\n"}), tmp_path / "cache"
    for _ in range(2):
        run = check(folder, cache, "--changed")
        assert (
            run.returncode == 1
            and "✗ starter does not pass" in run.stdout
            and "unchanged since verified" not in run.stdout
        )


def test_a_record_holds_for_the_same_content_code_and_kind_of_verification(
    make_exercise: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLKATA_CACHE_DIR", str(tmp_path / "cache"))
    exercise = load_exercise(make_exercise())
    assert not verified.holds(exercise, "full")
    verified.record(exercise, verified.modes(mutation=True, reference_only=False, trusted=False))
    assert verified.holds(exercise, "full") and verified.holds(exercise, "mutation")
    assert not verified.holds(exercise, "full, trusted")
    (exercise.path / "__pycache__").mkdir()
    (exercise.path / "__pycache__" / "checks.pyc").write_bytes(b"\0")  # not content: Python wrote it
    assert verified.holds(exercise, "full")
    monkeypatch.setattr(verified, "code_hash", lambda: "the grader changed")
    assert not verified.holds(exercise, "full")


def test_the_cache_goes_where_mlkata_cache_dir_says_else_under_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MLKATA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache.cache_dir() == tmp_path / "xdg" / "mlkata"
    monkeypatch.setenv("MLKATA_CACHE_DIR", str(tmp_path / "mine"))
    user_cache.store("kind", "key", {"a": 1})
    assert user_cache.load("kind", "key") == {"a": 1}
    assert [p.name for p in (tmp_path / "mine" / "kind").iterdir()] == ["key.json"]  # no temporary file left


def test_tests_never_touch_the_users_cache(user_cache_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    assert os.environ["MLKATA_CACHE_DIR"] == str(user_cache_dir)
    assert user_cache_dir.is_relative_to(tmp_path_factory.getbasetemp())
