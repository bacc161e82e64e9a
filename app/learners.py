"""Anonymous learners: a signed, HttpOnly cookie carries a random id; nothing else identifies them.

Rate limits also count per client address, which is kept only as a hash keyed with the secret key.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import time
import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie

from fastapi import Request
from itsdangerous import BadSignature, SignatureExpired, Signer, TimestampSigner
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.models import Learner, utcnow

COOKIE_NAME = "mlkata_learner"
DAY = 24 * 3600
#: A returning learner's cookie older than this is issued again, so its expiry counts from the last visit.
REISSUE_AFTER = DAY
#: Cookies signed before they expired: the id and a signature, no timestamp.
_LEGACY_SALT = "mlkata.learner"
#: A salt of its own, so neither kind of signature can pass for the other.
_TIMED_SALT = "mlkata.learner.timed"


@dataclass(frozen=True)
class CookieLearner:
    """Who a cookie names, and whether it should be issued again (old or of the legacy format)."""

    learner_id: str
    reissue: bool


class _ClockedSigner(TimestampSigner):
    """A timestamp signer reading the time from ``clock`` (tests move it; the server uses time.time)."""

    def __init__(self, secret_key: str, *, salt: str, clock: Callable[[], float]) -> None:
        super().__init__(secret_key, salt=salt)
        self._clock = clock

    def get_timestamp(self) -> int:
        return int(self._clock())


class LearnerCookies:
    """Signs learner ids, with the time, into cookie values and reads them back within ``max_age_days``."""

    def __init__(
        self,
        secret_key: str,
        *,
        max_age_days: int,
        accept_legacy: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_age_seconds = max_age_days * DAY
        self._signer = _ClockedSigner(secret_key, salt=_TIMED_SALT, clock=clock)
        self._legacy = Signer(secret_key, salt=_LEGACY_SALT) if accept_legacy else None
        self._clock = clock

    def sign(self, learner_id: str) -> str:
        return self._signer.sign(learner_id).decode("ascii")

    def read(self, value: str | None) -> CookieLearner | None:
        """The learner a cookie value names, or None when it is missing, forged or expired."""
        if not value:
            return None
        try:
            raw, signed_at = self._signer.unsign(value, max_age=self.max_age_seconds, return_timestamp=True)
        except SignatureExpired:
            return None
        except BadSignature:
            return self._read_legacy(value)
        learner_id = _as_uuid(raw)
        if learner_id is None:
            return None
        return CookieLearner(learner_id, reissue=self._clock() - signed_at.timestamp() > REISSUE_AFTER)

    def _read_legacy(self, value: str) -> CookieLearner | None:
        """A cookie from before cookies expired: honoured, and replaced at once by a timed one."""
        if self._legacy is None:
            return None
        try:
            learner_id = _as_uuid(self._legacy.unsign(value))
        except BadSignature:
            return None
        return CookieLearner(learner_id, reissue=True) if learner_id else None


def _as_uuid(raw: bytes) -> str | None:
    try:
        return str(uuid.UUID(raw.decode("ascii")))
    except (UnicodeDecodeError, ValueError):
        return None


class ClientAddresses:
    """Keyed hashes of client addresses: the rate limit counts per address without storing any.

    An IPv6 client counts by its /64 (one subscriber usually holds a whole one) and an IPv4-mapped
    IPv6 address as the IPv4 address it maps.
    """

    def __init__(self, secret_key: str) -> None:
        # A key of its own, derived from the secret key: these hashes and cookie signatures never share one.
        self._key = hmac.new(secret_key.encode("utf-8"), b"mlkata.client-address", hashlib.sha256).digest()

    def key(self, host: str | None) -> str:
        return hmac.new(self._key, _address_group(host).encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def _address_group(host: str | None) -> str:
    """What one client's addresses have in common; a host that is no IP address (a socket path) as it is."""
    if host is None:
        return ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class LearnerMiddleware:
    """Gives every request a learner id (``request.state.learner_id``), setting the cookie for new ones.

    A plain ASGI middleware rather than a dependency, so pages, JSON and event streams all get it.
    """

    def __init__(self, app: ASGIApp, cookies: LearnerCookies, addresses: ClientAddresses, *, secure: bool) -> None:
        self.app, self.cookies, self.addresses, self.secure = app, cookies, addresses, secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        known = self.cookies.read(_cookie(scope, COOKIE_NAME))
        learner_id = known.learner_id if known else str(uuid.uuid4())
        issue = known is None or known.reissue
        state = scope.setdefault("state", {})
        state["learner_id"] = learner_id
        # After uvicorn's proxy headers middleware: behind a trusted proxy, this is the forwarded client.
        client = scope.get("client")
        state["client_key"] = self.addresses.key(client[0] if client else None)

        async def send_with_cookie(message: Message) -> None:
            # A handler may give the browser a new learner (``request.state.new_learner_id``, at sign-in).
            renewed = state.get("new_learner_id")
            if (issue or renewed) and message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                # The browser keeps it as long as the server honours it.
                attributes = f"Path=/; Max-Age={self.cookies.max_age_seconds}; HttpOnly; SameSite=Lax"
                if self.secure:
                    attributes += "; Secure"
                value = self.cookies.sign(str(renewed or learner_id))
                headers.append("set-cookie", f"{COOKIE_NAME}={value}; {attributes}")
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


def client_key(request: Request) -> str:
    """The keyed hash of the current client's address (set by :class:`LearnerMiddleware`)."""
    return str(request.state.client_key)


def ensure_learner(session: Session, learner: str) -> None:
    """Create the learner's row the first time they submit or save a draft (page views alone store nothing).

    Two requests of a new learner may do it at once (a run and the draft saved as it starts): the one
    that comes second finds the row made and does nothing, rather than failing on the duplicate.
    """
    if session.get(Learner, learner) is not None:
        return
    # The two databases the server runs on, each with its INSERT that does nothing where the row exists.
    postgres = session.get_bind().dialect.name == "postgresql"
    insert = postgresql.insert(Learner) if postgres else sqlite.insert(Learner)
    session.execute(insert.values(id=learner, created_at=utcnow()).on_conflict_do_nothing())
