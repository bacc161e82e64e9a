"""Settings, read from ``MLKATA_*`` environment variables, a ``.env`` file and an optional settings file.

Precedence, highest first: values passed in code, environment variables, the file named by
``MLKATA_SETTINGS_FILE`` (``.toml``: keys without the prefix; anything else: ``.env`` syntax), ``./.env``.
Every field is documented in ``docs/settings.md`` (a test keeps the two in step).
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from grader.exercise import DEFAULT_EXERCISES

SECRET_KEY_FILE = "secret_key"
SETTINGS_FILE_VARIABLE = "MLKATA_SETTINGS_FILE"


class Settings(BaseSettings):
    """Everything the server can be told; defaults suit one machine serving a class."""

    model_config = SettingsConfigDict(env_prefix="MLKATA_", env_file=".env", extra="ignore")

    data_dir: Path = Field(Path("data"), description="Where the SQLite database and the secret key live.")
    database_url: str | None = Field(None, description="SQLAlchemy URL; default: SQLite in data_dir.")
    secret_key: str | None = Field(None, description="Signs learner cookies; generated in data_dir when unset.")
    exercises_dir: Path = Field(DEFAULT_EXERCISES, description="Folder holding the exercise folders.")
    settings_file: Path | None = Field(
        None,
        description="A .toml or .env file of further settings; only read from the environment (MLKATA_SETTINGS_FILE).",
    )
    redis_url: str | None = Field(
        None,
        description="Redis URL (redis://host:6379/0). Set: submissions go through Redis Streams to `mlkata worker` "
        "processes. Unset: the embedded in-process queue.",
    )
    redis_prefix: str = Field(
        "mlkata", min_length=1, description="Prefix of every Redis key, so several sites can share one Redis."
    )
    workers: int | None = Field(
        None,
        ge=0,
        description="Gradings `mlkata serve` runs at once; 0 only queues. Default: the CPU count with the embedded "
        "queue, 0 with Redis (`mlkata worker` grades).",
    )
    lease_seconds: float = Field(
        30.0,
        gt=0,
        description="How long a claim on a submission lasts without renewal (workers renew it every third of it); "
        "past it, the submission is graded again by another worker.",
    )
    sweep_seconds: float = Field(
        5.0,
        gt=0,
        description="How often each process looks for submissions stuck past their lease, and an idle worker for "
        "waiting runs no queue entry announced.",
    )
    max_attempts: int = Field(
        3, ge=1, description="Claims a submission may get; one whose workers keep dying is then failed with an error."
    )
    events_ttl_seconds: int = Field(
        3600,
        ge=1,
        description="How long a finished submission's events stay in Redis (the database keeps them for good).",
    )
    log_format: Literal["json", "text"] = Field(
        "json", description="Log lines as JSON objects (with the submission id) or as plain text."
    )
    max_queue: int = Field(64, ge=1, description="Submissions waiting at most; more get 503.")
    queue_share_per_learner: float = Field(
        0.0625,
        gt=0,
        le=1,
        description="Fraction of max_queue one learner may have waiting at once (at least one run); more get 429.",
    )
    queue_share_per_address: float = Field(
        0.25,
        gt=0,
        le=1,
        description="Fraction of max_queue one client address may have waiting at once, whatever its cookies (at "
        "least one run); more get 429.",
    )
    rate_limit: int = Field(30, ge=1, description="Submissions one learner may make per rate_limit_window.")
    rate_limit_per_address: int = Field(
        120,
        ge=1,
        description="Submissions one client address (an IPv4 address or an IPv6 /64) may make per "
        "rate_limit_window, whatever its cookies: a classroom behind one NAT shares it.",
    )
    rate_limit_window: float = Field(60.0, gt=0, description="Seconds over which the rate limits count.")
    forwarded_allow_ips: str = Field(
        "",
        description="Reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: comma-separated "
        "addresses or networks, or * for any. Empty: none, the connection's address is the client's.",
    )
    max_code_kb: int = Field(64, ge=1, description="Largest solution accepted, in KiB.")
    drafts_per_address: int = Field(
        1000,
        ge=1,
        description="New drafts (an exercise's code or Try it inputs saved the first time) one client address may "
        "start per hour, whatever its cookies; saving a draft again is not counted.",
    )
    jailed: bool = Field(True, description="Run solutions in the sandbox. Turn off only for trusted code.")
    cookie_secure: bool = Field(False, description="Send the learner cookie over HTTPS only.")
    learner_cookie_days: int = Field(
        180,
        ge=1,
        le=400,
        description="Days a learner cookie stays valid since it was issued; a visit that finds it over a day old "
        "issues it again, so only learners away this long start afresh.",
    )
    legacy_learner_cookies: bool = Field(
        True,
        description="Accept learner cookies signed before they expired (no timestamp) and upgrade them, so "
        "learners keep their progress across the upgrade.",
    )
    session_days: int = Field(
        30, ge=1, le=400, description="Days a sign-in lasts (the session cookie and its row); signing out ends it."
    )
    login_attempts: int = Field(
        10, ge=1, description="Failed sign-ins one account may have per login_window before it must wait."
    )
    login_attempts_per_address: int = Field(
        50, ge=1, description="Failed sign-ins one client address may have per login_window, whatever the accounts."
    )
    signups_per_address: int = Field(20, ge=1, description="Accounts one client address may create per login_window.")
    login_window: float = Field(900.0, gt=0, description="Seconds over which the login rate limits count.")
    hashing_workers: int | None = Field(
        None,
        ge=1,
        description="Passwords each web process hashes or checks at once (argon2id: about 64 MiB and a core each). "
        "Default: the CPU count.",
    )
    hashing_queue: int = Field(
        32,
        ge=1,
        description="Password checks waiting for a hashing place in each web process, a client address holding at "
        "most a quarter of them; past it, sign-ins and sign-ups get 503 with Retry-After.",
    )
    header_timeout_seconds: float = Field(
        10.0,
        gt=0,
        description="Seconds a connection has to send a complete request line and headers (from opening, or "
        "from the end of its last response); past it the server closes the connection.",
    )
    keep_alive_seconds: int = Field(5, ge=1, description="Seconds an idle keep-alive connection stays open.")
    max_connections: int = Field(
        1000, ge=1, description="Connections served at once; requests past it get 503 (uvicorn's limit_concurrency)."
    )
    max_header_kb: int = Field(
        16, ge=1, description="Largest request line plus headers accepted, in KiB; larger ones get 400."
    )

    @field_validator("forwarded_allow_ips")
    @classmethod
    def _proxies_are_addresses(cls, value: str) -> str:
        """A typo must not start a server that silently trusts nothing (or the wrong host)."""
        for item in (part.strip() for part in value.split(",")):
            if not item or item == "*":
                continue
            try:  # as uvicorn reads them: a network has no host bits set (10.0.0.0/8, not 10.0.0.1/8)
                ipaddress.ip_network(item) if "/" in item else ipaddress.ip_address(item)
            except ValueError:
                raise ValueError(f"{item!r} is not an IP address or network") from None
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources = [init_settings, env_settings]
        named = os.environ.get(SETTINGS_FILE_VARIABLE)
        if named:
            path = Path(named)
            if not path.is_file():
                raise FileNotFoundError(f"{SETTINGS_FILE_VARIABLE} names {named}, which is not a file")
            if path.suffix == ".toml":
                sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
            else:
                sources.append(DotEnvSettingsSource(settings_cls, env_file=path))
        return (*sources, dotenv_settings, file_secret_settings)

    def resolved_workers(self) -> int:
        """Grading threads in the web process: with Redis, workers grade elsewhere unless asked."""
        if self.workers is not None:
            return self.workers
        return 0 if self.redis_url else os.cpu_count() or 1

    def resolved_hashing_workers(self) -> int:
        return self.hashing_workers or os.cpu_count() or 1

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
