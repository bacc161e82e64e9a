"""The server commands: `mlkata worker` refuses to start without Redis."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import app


def test_the_worker_needs_a_redis_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MLKATA_REDIS_URL", raising=False)
    monkeypatch.delenv("MLKATA_SETTINGS_FILE", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    result = CliRunner().invoke(app, ["worker", "--concurrency", "1"])
    assert result.exit_code == 2
    assert "needs a Redis URL (MLKATA_REDIS_URL)" in result.output
