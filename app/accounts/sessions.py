"""Signed-in browsers and API tokens: a random token in an HttpOnly cookie or a Bearer header, its hash stored.

Server-side sessions rather than signed cookies, so that signing out, a password reset or a role change
takes effect at once on every web process.
"""

from __future__ import annotations

import hashlib
import secrets
from contextlib import suppress
from datetime import timedelta
from http.cookies import CookieError, SimpleCookie

import anyio
from fastapi import Request
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.accounts.users import Account
from app.models import AuthSession, User, as_utc, utcnow

COOKIE_NAME = "mlkata_session"
BROWSER, API = "browser", "api"
API_TOKEN_DAYS = 365
#: last_seen_at is written at most this often per session, not on every request.
_SEEN_EVERY = timedelta(hours=1)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class SignIns:
    """Sessions in the database: start one, find whose a token is, end one or all of an account's."""

    def __init__(self, sessions: sessionmaker[Session], *, days: int) -> None:
        self.sessions, self.days = sessions, days

    def start(self, account: Account, *, kind: str = BROWSER) -> str:
        """A new token for ``account`` (shown once: only its hash is kept)."""
        token = secrets.token_urlsafe(32)
        now = utcnow()
        days = self.days if kind == BROWSER else API_TOKEN_DAYS
        with self.sessions.begin() as session:
            session.add(AuthSession(token_hash=token_hash(token), user_id=account.id, kind=kind, created_at=now,
                                    last_seen_at=now, expires_at=now + timedelta(days=days)))  # fmt: skip
        return token

    def resolve(self, token: str, *, kind: str = BROWSER) -> tuple[Account, str] | None:
        """The account a live token of this kind belongs to, and the token's hash; None when it is unknown or over."""
        hashed = token_hash(token)
        now = utcnow()
        with self.sessions() as session:
            row = session.execute(
                select(AuthSession, User)
                .join(User, User.id == AuthSession.user_id)
                .where(AuthSession.token_hash == hashed, AuthSession.kind == kind)
            ).one_or_none()
        if row is None:
            return None
        signin, user = row
        if as_utc(signin.expires_at) <= now:
            self.end(token)
            return None
        if now - as_utc(signin.last_seen_at) > _SEEN_EVERY:
            with self.sessions.begin() as session:
                session.execute(update(AuthSession).where(AuthSession.token_hash == hashed).values(last_seen_at=now))
        return Account.of(user), hashed

    def end(self, token: str) -> None:
        with self.sessions.begin() as session:
            session.execute(delete(AuthSession).where(AuthSession.token_hash == token_hash(token)))


class AccountMiddleware:
    """Finds the signed-in account of each request (``request.state.account``) and makes its learner the learner.

    Runs inside :class:`app.learners.LearnerMiddleware`: the cookie's anonymous learner stays in
    ``request.state.cookie_learner_id`` (what sign-in moves to the account), while
    ``request.state.learner_id`` — what every page and API reads — becomes the account's learner.
    A Bearer token (``mlkata user token``) signs in API requests; a stale session cookie is cleared.
    """

    def __init__(self, app: ASGIApp, signins: SignIns, *, secure: bool) -> None:
        self.app, self.signins, self.secure = app, signins, secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state["cookie_learner_id"] = state.get("learner_id")
        state["account"] = None
        state["session_hash"] = None
        path = str(scope.get("path", ""))
        cookie = None if path.startswith("/static/") else _cookie(scope, COOKIE_NAME)
        bearer = _bearer(scope) if path.startswith("/api/") else None
        stale = False
        if cookie or bearer:
            signins = self.signins
            found = await anyio.to_thread.run_sync(
                lambda: signins.resolve(bearer, kind=API) if bearer else signins.resolve(cookie or "")
            )
            if found is not None:
                state["account"], state["session_hash"] = found
                state["learner_id"] = found[0].learner_id
            stale = found is None and cookie is not None and not bearer

        async def send_clearing(message: Message) -> None:
            if stale and message["type"] == "http.response.start":
                MutableHeaders(scope=message).append("set-cookie", clear_cookie(secure=self.secure))
            await send(message)

        await self.app(scope, receive, send_clearing)


def session_cookie(token: str, *, days: int, secure: bool) -> str:
    attributes = f"Path=/; Max-Age={days * 24 * 3600}; HttpOnly; SameSite=Lax"
    return f"{COOKIE_NAME}={token}; {attributes}{'; Secure' if secure else ''}"


def clear_cookie(*, secure: bool) -> str:
    return f"{COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax{'; Secure' if secure else ''}"


def _cookie(scope: Scope, name: str) -> str | None:
    for key, value in scope.get("headers", []):
        if key == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            with suppress(CookieError):
                jar.load(value.decode("latin-1"))
            if name in jar:
                return jar[name].value or None
    return None


def _bearer(scope: Scope) -> str | None:
    for key, value in scope.get("headers", []):
        if key == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


def current_account(request: Request) -> Account | None:
    """The signed-in account of this request, or None for an anonymous learner."""
    account = getattr(request.state, "account", None)
    return account if isinstance(account, Account) else None


def session_hash(request: Request) -> str | None:
    found = getattr(request.state, "session_hash", None)
    return found if isinstance(found, str) else None


def cookie_learner_id(request: Request) -> str:
    """The anonymous learner of the browser's learner cookie (whatever account is signed in)."""
    return str(getattr(request.state, "cookie_learner_id", None) or request.state.learner_id)
