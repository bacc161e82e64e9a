"""The login rate limits, as reservations: a password is checked only once its attempt holds a place.

A sign-in, a password change or a sign-up first reserves its attempt (a row), atomically with
counting the attempts already in the window, per account and per client address for passwords
checked, per address for sign-ups; past a limit it is refused before any hash is computed. A
sign-in that succeeds gives its account's failures back; one whose hash was never computed (the
hashing queue was full) gives its own back. So however many arrive at once, at most the limit are
ever evaluated.

Counted in the database (keyed hashes only), so every web process shares the count and a restart
does not reset it. The count and the reservation are one transaction that holds the table's write
lock (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's ``SHARE ROW EXCLUSIVE``), so two requests never
both take the last place; a request already past a limit is refused on a plain read, without it.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.identity import fold
from app.models import LoginAttempt, as_utc, utcnow
from app.web import RateLimited

#: A failed sign-in or a wrong current password (one budget: both guess the same password), and a sign-up.
SIGNIN, SIGNUP = "signin", "signup"


@dataclass(frozen=True)
class LoginLimits:
    per_account: int
    per_address: int
    signups_per_address: int
    window_seconds: float


@dataclass(frozen=True)
class Reservation:
    """An attempt's place in the count; it stays (a failure, or a sign-up) unless given back."""

    id: int
    kind: str
    account_key: str


class LoginLimiter:
    """Reserves attempts; :class:`~app.grading.RateLimited` when an account or an address is at its limit."""

    def __init__(self, sessions: sessionmaker[Session], secret_key: str, limits: LoginLimits) -> None:
        self.sessions, self.limits = sessions, limits
        self._key = hmac.new(secret_key.encode("utf-8"), b"mlkata.login-account", hashlib.sha256).digest()

    def account_key(self, email: str) -> str:
        return hmac.new(self._key, fold(email).encode("utf-8"), hashlib.sha256).hexdigest()[:32]

    def reserve_signin(self, email: str, client_key: str) -> Reservation:
        """Before checking a password of ``email`` (signing in, or the current one when changing it)."""
        account = self.account_key(email)
        return self._reserve(SIGNIN, account, client_key, [(LoginAttempt.account_key == account,
                             self.limits.per_account), (LoginAttempt.client_key == client_key,
                             self.limits.per_address)])  # fmt: skip

    def reserve_signup(self, email: str, client_key: str) -> Reservation:
        """Before hashing a new account's password, whether or not the address turns out to be free."""
        limits = [(LoginAttempt.client_key == client_key, self.limits.signups_per_address)]
        return self._reserve(SIGNUP, self.account_key(email), client_key, limits)

    def release(self, reservation: Reservation) -> None:
        """The attempt was not made after all (no hash was computed): it counts for nothing."""
        with self.sessions.begin() as session:
            session.execute(delete(LoginAttempt).where(LoginAttempt.id == reservation.id))

    def succeeded(self, reservation: Reservation) -> None:
        """The password was right: the owner's own earlier typos, and this attempt, no longer count."""
        with self.sessions.begin() as session:
            session.execute(
                delete(LoginAttempt).where(
                    LoginAttempt.kind == SIGNIN,
                    LoginAttempt.account_key == reservation.account_key,
                    LoginAttempt.id <= reservation.id,
                )
            )

    def _since(self, now: datetime) -> datetime:
        return now - timedelta(seconds=self.limits.window_seconds)

    def _reserve(
        self, kind: str, account_key: str, client_key: str, limits: list[tuple[ColumnElement[bool], int]]
    ) -> Reservation:
        # Refused on a plain read first: a flood past its limit is answered without taking the write lock.
        with self.sessions() as session:
            self._refuse_if_limited(session, kind, limits)
        with self.sessions() as session:
            _lock_attempts(session)
            self._refuse_if_limited(session, kind, limits)
            now = utcnow()
            session.execute(delete(LoginAttempt).where(LoginAttempt.created_at < self._since(now)))
            attempt = LoginAttempt(kind=kind, account_key=account_key, client_key=client_key, created_at=now)
            session.add(attempt)
            session.commit()
            return Reservation(attempt.id, kind, account_key)

    def _refuse_if_limited(self, session: Session, kind: str, limits: list[tuple[ColumnElement[bool], int]]) -> None:
        now = utcnow()
        waits = [wait for sender, limit in limits if (wait := self._wait(session, kind, sender, limit, now))]
        if waits:
            session.rollback()
            raise RateLimited(max(waits))

    def _wait(self, session: Session, kind: str, sender: ColumnElement[bool], limit: int, now: datetime) -> int:
        """Seconds until the sender is below ``limit`` attempts of this kind; 0 when it is now."""
        where = (LoginAttempt.kind == kind, sender, LoginAttempt.created_at > self._since(now))
        if (session.scalar(select(func.count()).select_from(LoginAttempt).where(*where)) or 0) < limit:
            return 0
        # The count drops below the limit when the oldest of the newest ``limit`` leaves the window.
        oldest = session.scalars(
            select(LoginAttempt.created_at).where(*where).order_by(LoginAttempt.created_at.desc())
            .offset(limit - 1).limit(1)
        ).first()  # fmt: skip
        until = as_utc(oldest) + timedelta(seconds=self.limits.window_seconds) if oldest else now
        return max(1, math.ceil((until - now).total_seconds()))


def _lock_attempts(session: Session) -> None:
    """Begin the session's transaction holding the attempts' write lock, so counting and reserving are one step."""
    dialect = session.get_bind().dialect.name
    if dialect == "sqlite":
        # pysqlite begins a transaction only at the first write; this one must own the write lock before reading.
        session.execute(text("BEGIN IMMEDIATE"))
    elif dialect == "postgresql":
        # Conflicts with itself and with every write to the table, not with reads.
        session.execute(text("LOCK TABLE login_attempts IN SHARE ROW EXCLUSIVE MODE"))
