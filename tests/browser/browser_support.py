"""Constants and helpers shared by the browser tests."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import ConsoleMessage

from app.accounts.passwords import Passwords
from app.accounts.users import Accounts, parse_role
from app.db import make_engine, make_sessionmaker
from app.settings import Settings

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SLUG = "kv-cache-decoding"


@dataclass
class Problems:
    """Console errors and Content-Security-Policy violations a page reported."""

    messages: list[str] = field(default_factory=list)

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.messages.append(message.text)


@dataclass(frozen=True)
class Server:
    """The live server: its address, and the environment its own ``mlkata`` commands need to reach its data."""

    url: str
    env: dict[str, str]
    mlkata: Path

    def cli(self, *args: str, stdin: str = "") -> str:
        """Run ``mlkata ARGS`` against the server's database, as its operator would; return what it printed."""
        done = subprocess.run(
            [str(self.mlkata), *args],
            input=stdin,
            env=self.env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"mlkata {' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout

    def create_account(self, email: str, password: str, role: str = "student") -> None:
        """An account made by what ``mlkata user create`` calls, in this process (quicker than starting the command)."""
        settings = Settings(data_dir=Path(self.env["MLKATA_DATA_DIR"]))
        engine = make_engine(settings.resolved_database_url())
        try:
            Accounts(make_sessionmaker(engine), Passwords()).create(email, password, role=parse_role(role))
        finally:
            engine.dispose()
