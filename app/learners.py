"""Anonymous learners: a signed, HttpOnly cookie carries a random id; nothing else identifies them."""

from __future__ import annotations

import uuid
from contextlib import suppress
from http.cookies import CookieError, SimpleCookie

from fastapi import Request
from itsdangerous import BadSignature, Signer
from sqlalchemy.orm import Session
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.models import Learner

COOKIE_NAME = "mlkata_learner"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest lifetime browsers accept


class LearnerCookies:
    """Signs learner ids into cookie values and reads them back."""

    def __init__(self, secret_key: str) -> None:
        self._signer = Signer(secret_key, salt="mlkata.learner")

    def sign(self, learner_id: str) -> str:
        return self._signer.sign(learner_id).decode("ascii")

    def read(self, value: str | None) -> str | None:
        """The learner id in a cookie value, or None when it is missing or forged."""
        if not value:
            return None
        try:
            learner_id = self._signer.unsign(value).decode("ascii")
        except (BadSignature, UnicodeDecodeError):
            return None
        try:
            return str(uuid.UUID(learner_id))
        except ValueError:
            return None


class LearnerMiddleware:
    """Gives every request a learner id (``request.state.learner_id``), setting the cookie for new ones.

    A plain ASGI middleware rather than a dependency, so pages, JSON and event streams all get it.
    """

    def __init__(self, app: ASGIApp, cookies: LearnerCookies, *, secure: bool) -> None:
        self.app, self.cookies, self.secure = app, cookies, secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        learner_id = self.cookies.read(_cookie(scope, COOKIE_NAME))
        is_new = learner_id is None
        if learner_id is None:
            learner_id = str(uuid.uuid4())
        scope.setdefault("state", {})["learner_id"] = learner_id

        async def send_with_cookie(message: Message) -> None:
            if is_new and message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                attributes = f"Path=/; Max-Age={COOKIE_MAX_AGE}; HttpOnly; SameSite=Lax"
                if self.secure:
                    attributes += "; Secure"
                headers.append("set-cookie", f"{COOKIE_NAME}={self.cookies.sign(learner_id)}; {attributes}")
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _cookie(scope: Scope, name: str) -> str | None:
    for key, value in scope.get("headers", []):
        if key == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            with suppress(CookieError):  # a malformed Cookie header means no learner yet
                jar.load(value.decode("latin-1"))
            if name in jar:
                return jar[name].value
    return None


def learner_id(request: Request) -> str:
    """The current learner's id (set by :class:`LearnerMiddleware`)."""
    return str(request.state.learner_id)


def ensure_learner(session: Session, learner: str) -> None:
    """Create the learner's row the first time they submit (page views alone store nothing)."""
    if session.get(Learner, learner) is None:
        session.add(Learner(id=learner))
        session.flush()
