"""Server settings, read from ``MLKATA_*`` environment variables (and a ``.env`` file)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from grader.cli import DEFAULT_EXERCISES

SECRET_KEY_FILE = "secret_key"


class Settings(BaseSettings):
    """Everything the server can be told; defaults suit one machine serving a class."""

    model_config = SettingsConfigDict(env_prefix="MLKATA_", env_file=".env", extra="ignore")

    data_dir: Path = Field(Path("data"), description="Where the SQLite database and the secret key live.")
    database_url: str | None = Field(None, description="SQLAlchemy URL; default: SQLite in data_dir.")
    secret_key: str | None = Field(None, description="Signs learner cookies; generated in data_dir when unset.")
    exercises_dir: Path = Field(DEFAULT_EXERCISES, description="Folder holding the exercise folders.")
    workers: int = Field(
        default_factory=lambda: os.cpu_count() or 1,
        ge=0,
        description="Gradings run at once in this process; 0 only queues (for workers running elsewhere).",
    )
    max_queue: int = Field(64, ge=1, description="Submissions waiting at most; more get 503.")
    rate_limit: int = Field(30, ge=1, description="Submissions one learner may make per rate_limit_window.")
    rate_limit_window: float = Field(60.0, gt=0, description="Seconds over which rate_limit counts.")
    max_code_kb: int = Field(64, ge=1, description="Largest solution accepted, in KiB.")
    jailed: bool = Field(True, description="Run solutions in the sandbox. Turn off only for trusted code.")
    cookie_secure: bool = Field(False, description="Send the learner cookie over HTTPS only.")

    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite:///{(self.data_dir / 'mlkata.db').resolve()}"

    def resolved_secret_key(self) -> str:
        """The configured key, else the one stored in ``data_dir`` (created on first use)."""
        if self.secret_key:
            return self.secret_key
        path = self.data_dir / SECRET_KEY_FILE
        if path.is_file():
            return path.read_text(encoding="ascii").strip()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(32)
        # O_EXCL: two processes starting at once agree on the key the first one wrote.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_text(encoding="ascii").strip()
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write(key + "\n")
        return key
