"""CSRF protection for HTML forms, and reading their bodies.

Every state-changing form carries a token: a keyed hash of the browser's learner cookie and its
session, so only pages this server rendered for this browser can produce it (the cookie is HttpOnly
and the key secret). A request whose ``Origin`` names another site is refused before the token is
even read. The JSON API needs no token: it accepts only ``application/json`` bodies, which a page on
another site cannot send without a CORS preflight this server never grants.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qs, urlsplit

from fastapi import Request

from app.accounts.sessions import cookie_learner_id, session_hash
from app.web import ApiError

FIELD = "csrf_token"
#: No form of this app comes near it; a larger body is refused unread.
MAX_FORM_BYTES = 64 * 1024
_FORM_TYPE = "application/x-www-form-urlencoded"


class Form:
    """A parsed form body: one value per field, or every value of a repeated one."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        self.fields = fields

    def get(self, name: str, default: str = "") -> str:
        values = self.fields.get(name)
        return values[0] if values else default

    def getlist(self, name: str) -> list[str]:
        return list(self.fields.get(name, []))


class Csrf:
    """Makes and checks the token of the forms a browser is shown."""

    def __init__(self, secret_key: str) -> None:
        self._key = hmac.new(secret_key.encode("utf-8"), b"mlkata.csrf", hashlib.sha256).digest()

    def token(self, request: Request) -> str:
        binding = f"{cookie_learner_id(request)}|{session_hash(request) or ''}"
        return hmac.new(self._key, binding.encode("utf-8"), hashlib.sha256).hexdigest()

    async def form(self, request: Request) -> Form:
        """The request's form, once its origin and token are checked; 403 or 415 with the reason otherwise."""
        _same_origin(request)
        form = await read_form(request)
        sent = form.get(FIELD)
        if not sent or not hmac.compare_digest(sent, self.token(request)):
            raise ApiError(
                403, "This form has expired (you signed in or out in another tab, or the page is old). "
                "Reload the page and send it again.",
            )  # fmt: skip
        return form


def _same_origin(request: Request) -> None:
    origin = request.headers.get("origin")
    if origin is None:  # not every client sends one; the token still has to match
        return
    host = request.headers.get("host", "")
    if urlsplit(origin).netloc.lower() != host.lower():
        raise ApiError(403, f"This form was sent from another site ({origin[:80]}); it is accepted only from this one.")


async def read_form(request: Request) -> Form:
    """An ``application/x-www-form-urlencoded`` body, bounded in size and in UTF-8."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != _FORM_TYPE:
        raise ApiError(415, f"Send the form as {_FORM_TYPE}, as a browser does.")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise ApiError(413, f"The form is larger than {MAX_FORM_BYTES // 1024} KiB.")
    try:
        text = bytes(body).decode("utf-8")
        fields = parse_qs(text, keep_blank_values=True, max_num_fields=500, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise ApiError(422, "The form is not valid UTF-8 form data.") from None
    if any("\x00" in value for values in fields.values() for value in values):
        raise ApiError(422, "The form contains a NUL character.")
    return Form(fields)
