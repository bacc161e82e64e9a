"""The login rate limit: failed sign-ins per account and per client address, and sign-ups per address.

Counted in the database (keyed hashes only), so every web process shares the count and a restart
does not reset it. Per account, so a password cannot be guessed from many addresses; per address,
so one client cannot try many accounts.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.orm import Session, sessionmaker

from app.models import LoginAttempt, utcnow
from app.submissions import RateLimited, as_utc

SIGNIN, SIGNUP = "signin", "signup"


@dataclass(frozen=True)
class LoginLimits:
    per_account: int
    per_address: int
    signups_per_address: int
    window_seconds: float


class LoginLimiter:
    """Raises :class:`~app.submissions.RateLimited` when an account or an address has failed too often."""

    def __init__(self, sessions: sessionmaker[Session], secret_key: str, limits: LoginLimits) -> None:
        self.sessions, self.limits = sessions, limits
        self._key = hmac.new(secret_key.encode("utf-8"), b"mlkata.login-account", hashlib.sha256).digest()

    def account_key(self, email: str) -> str:
        return hmac.new(self._key, email.strip().lower().encode("utf-8"), hashlib.sha256).hexdigest()[:32]

    def check_signin(self, email: str, client_key: str) -> None:
        self._check(SIGNIN, [(LoginAttempt.account_key == self.account_key(email), self.limits.per_account),
                             (LoginAttempt.client_key == client_key, self.limits.per_address)])  # fmt: skip

    def check_signup(self, client_key: str) -> None:
        self._check(SIGNUP, [(LoginAttempt.client_key == client_key, self.limits.signups_per_address)])

    def record(self, kind: str, email: str, client_key: str) -> None:
        """Count a failed sign-in or a sign-up (and forget attempts older than the window)."""
        now = utcnow()
        with self.sessions.begin() as session:
            session.execute(delete(LoginAttempt).where(LoginAttempt.created_at < self._since(now)))
            session.add(LoginAttempt(kind=kind, account_key=self.account_key(email), client_key=client_key,
                                     created_at=now))  # fmt: skip

    def forget_failures(self, email: str) -> None:
        """After a successful sign-in: the owner's own typos no longer count against the account."""
        with self.sessions.begin() as session:
            session.execute(
                delete(LoginAttempt).where(
                    LoginAttempt.kind == SIGNIN, LoginAttempt.account_key == self.account_key(email)
                )
            )

    def _since(self, now: datetime) -> datetime:
        return now - timedelta(seconds=self.limits.window_seconds)

    def _check(self, kind: str, limits: list[tuple[ColumnElement[bool], int]]) -> None:
        now = utcnow()
        waits = []
        with self.sessions() as session:
            for sender, limit in limits:
                where = (LoginAttempt.kind == kind, sender, LoginAttempt.created_at > self._since(now))
                count = session.scalar(select(func.count()).select_from(LoginAttempt).where(*where)) or 0
                if count >= limit:
                    # The count drops below the limit when the oldest of the newest ``limit`` leaves the window.
                    oldest = session.scalars(
                        select(LoginAttempt.created_at).where(*where)
                        .order_by(LoginAttempt.created_at.desc()).offset(limit - 1).limit(1)
                    ).first()  # fmt: skip
                    until = as_utc(oldest) + timedelta(seconds=self.limits.window_seconds) if oldest else now
                    waits.append(max(1, math.ceil((until - now).total_seconds())))
        if waits:
            raise RateLimited(max(waits))
