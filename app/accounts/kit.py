"""What the account pages and checks share, built once per app from its settings."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.csrf import Csrf
from app.accounts.hashing import HashGate
from app.accounts.limits import LoginLimiter, LoginLimits
from app.accounts.passwords import Passwords
from app.accounts.sessions import SignIns
from app.accounts.users import Accounts
from app.settings import Settings


@dataclass(frozen=True)
class AccountKit:
    accounts: Accounts
    signins: SignIns
    limiter: LoginLimiter
    gate: HashGate
    csrf: Csrf
    secure_cookies: bool
    session_days: int


def build_kit(settings: Settings, sessions: sessionmaker[Session], passwords: Passwords | None = None) -> AccountKit:
    secret_key = settings.resolved_secret_key()
    limits = LoginLimits(
        per_account=settings.login_attempts, per_address=settings.login_attempts_per_address,
        signups_per_address=settings.signups_per_address, window_seconds=settings.login_window,
    )  # fmt: skip
    return AccountKit(
        accounts=Accounts(sessions, passwords or Passwords()),
        signins=SignIns(sessions, days=settings.session_days),
        limiter=LoginLimiter(sessions, secret_key, limits),
        gate=HashGate(settings.resolved_hashing_workers(), settings.hashing_queue),
        csrf=Csrf(secret_key),
        secure_cookies=settings.cookie_secure,
        session_days=settings.session_days,
    )


def account_kit(request: Request) -> AccountKit:
    """FastAPI dependency: the account kit of the app serving this request."""
    found = request.app.state.account_kit
    assert isinstance(found, AccountKit)
    return found
