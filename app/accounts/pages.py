"""Signing up, in and out, and the account page."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from typing import Annotated, Any, TypeVar
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.accounts.hashing import Busy
from app.accounts.kit import AccountKit, account_kit
from app.accounts.limits import SIGNIN, Reservation
from app.accounts.passwords import password_problem
from app.accounts.sessions import COOKIE_NAME, clear_cookie, cookie_learner_id, current_account, session_cookie
from app.accounts.users import Account, AccountError, AddressTaken
from app.learners import client_key
from app.web import ApiError, RateLimited

KitDep = Annotated[AccountKit, Depends(account_kit)]
T = TypeVar("T")


def safe_next(value: str | None) -> str:
    """A path on this site to go to after signing in; anything else (another site, a scheme) is the roadmap."""
    if value and value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    return "/"


def require_account(request: Request) -> Account:
    """The signed-in account; anonymous learners are sent to sign in (pages) or get 401 (the API)."""
    account = current_account(request)
    if account is None:
        if request.url.path.startswith("/api/"):
            raise ApiError(401, "Sign in first: this needs an account (a session cookie or a Bearer token).")
        wanted = quote(request.url.path + (f"?{request.url.query}" if request.url.query else ""), safe="")
        raise ApiError(303, "Sign in to see this page.", headers={"Location": f"/signin?next={wanted}"})
    return account


def router(templates: Jinja2Templates) -> APIRouter:
    pages = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

    def form_page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        headers = context.pop("headers", None)
        return templates.TemplateResponse(request, name, context, status_code=status, headers=headers)

    def signed_in(request: Request, kit: AccountKit, account: Account, next_path: str) -> Response:
        """Move the browser's anonymous work to the account, start its session, and go on."""
        kit.accounts.adopt(cookie_learner_id(request), account)
        token = kit.signins.start(account)
        # A fresh anonymous id for this browser: whoever uses it after signing out starts with nothing.
        request.state.new_learner_id = str(uuid.uuid4())
        response = RedirectResponse(safe_next(next_path), status_code=303)
        response.headers.append("set-cookie", session_cookie(token, days=kit.session_days, secure=kit.secure_cookies))
        return response

    @pages.get("/signup")
    def signup_page(request: Request, next: str = "/") -> Response:
        if current_account(request) is not None:
            return RedirectResponse(safe_next(next), status_code=303)
        return form_page(request, "accounts/signup.html", next=safe_next(next), email="", error=None, field=None)

    @pages.post("/signup")
    async def signup(request: Request, kit: KitDep) -> Response:
        """Make the account and ask to sign in, answering the same whether or not the address already had one.

        There is no mail to confirm an address with, so the answer cannot differ: it would tell anyone which
        addresses have accounts. Both cases take the same work (a reserved attempt, a hash, an insert).
        """
        form = await kit.csrf.form(request)
        email, password, next_path = form.get("email"), form.get("password"), safe_next(form.get("next"))
        again: dict[str, Any] = {"next": next_path, "email": email[:254]}
        if password != form.get("password_again", password):
            return form_page(request, "accounts/signup.html", 400, **again, field="password_again",
                             error="The two passwords differ: type the same one twice.")  # fmt: skip
        try:
            folded = kit.accounts.check_new(email, password)
        except AccountError as exc:
            return form_page(request, "accounts/signup.html", 400, **again, field=exc.field, error=exc.message)
        client = client_key(request)
        try:
            await checked(kit, client, partial(kit.limiter.reserve_signup, folded, client),
                          partial(_create_unless_taken, kit, folded, password))  # fmt: skip
        except (RateLimited, Busy) as refused:
            what = "Too many sign-ups were sent from your address"
            return form_page(request, "accounts/signup.html", **_refusal(refused, what), **again, field=None)
        return form_page(request, "accounts/signin.html", next=next_path, email=folded, error=None, signed_up=True)

    @pages.get("/signin")
    def signin_page(request: Request, next: str = "/") -> Response:
        if current_account(request) is not None:
            return RedirectResponse(safe_next(next), status_code=303)
        return form_page(request, "accounts/signin.html", next=safe_next(next), email="", error=None)

    @pages.post("/signin")
    async def signin(request: Request, kit: KitDep) -> Response:
        form = await kit.csrf.form(request)
        email, password, next_path = form.get("email"), form.get("password"), safe_next(form.get("next"))
        again: dict[str, Any] = {"next": next_path, "email": email[:254]}
        client = client_key(request)
        try:
            reservation, account = await checked(kit, client, partial(kit.limiter.reserve_signin, email, client),
                                                 partial(kit.accounts.authenticate, email, password))  # fmt: skip
        except (RateLimited, Busy) as refused:
            return form_page(request, "accounts/signin.html", **_refusal(refused, "Too many failed sign-ins"), **again)
        if account is None:
            return form_page(request, "accounts/signin.html", 400, **again,
                             error="That e-mail address and password do not match an account.")  # fmt: skip
        await run_in_threadpool(kit.limiter.succeeded, reservation)
        old = request.cookies.get(COOKIE_NAME)
        if old:
            await run_in_threadpool(kit.signins.end, old)
        return await run_in_threadpool(signed_in, request, kit, account, next_path)

    @pages.post("/signout")
    async def signout(request: Request, kit: KitDep) -> Response:
        await kit.csrf.form(request)
        token = request.cookies.get(COOKIE_NAME)
        if token:
            await run_in_threadpool(kit.signins.end, token)
        response = RedirectResponse("/", status_code=303)
        response.headers.append("set-cookie", clear_cookie(secure=kit.secure_cookies))
        return response

    @pages.get("/account")
    def account_page(request: Request, changed: bool = False) -> Response:
        account = require_account(request)
        return form_page(request, "accounts/account.html", account=account, error=None, changed=changed)

    @pages.post("/account/password")
    async def change_password(request: Request, kit: KitDep) -> Response:
        """Limited as signing in is: a wrong current password is a failed sign-in of the account."""
        form = await kit.csrf.form(request)
        account = require_account(request)

        def page(status: int, error: str, headers: dict[str, str] | None = None) -> HTMLResponse:
            return form_page(request, "accounts/account.html", status, account=account, changed=False, error=error,
                             headers=headers)  # fmt: skip

        new = form.get("password")
        problem = password_problem(new, account.email)
        if problem:
            return page(400, problem)
        client = client_key(request)
        reserve = partial(kit.limiter.reserve_signin, account.email, client)
        try:
            reservation, changed = await checked(
                kit, client, reserve, partial(_change_password, kit, account, form.get("current"), new)
            )
        except (RateLimited, Busy) as refused:
            return page(**_refusal(refused, "Too many wrong passwords were tried for this account"))
        if not changed:
            return page(400, "Your current password is not that.")
        await run_in_threadpool(kit.limiter.succeeded, reservation)
        # Every session was ended, this one too: start a new one so the change does not sign this browser out.
        return await run_in_threadpool(signed_in, request, kit, account, "/account?changed=1")

    return pages


async def checked(
    kit: AccountKit, client: str, reserve: Callable[[], Reservation], work: Callable[[], T]
) -> tuple[Reservation, T]:
    """Reserve the attempt, then do the password ``work`` in a hashing place (a sign-in's before a sign-up's).

    Raises :class:`RateLimited` at a limit and :class:`Busy` when no hashing place can be had, both
    before any hash is computed; an attempt that got no place is given back.
    """
    reservation = await run_in_threadpool(reserve)
    try:
        async with kit.gate.slot(client, first=reservation.kind == SIGNIN):
            return reservation, await run_in_threadpool(work)
    except Busy:
        await run_in_threadpool(kit.limiter.release, reservation)
        raise


def _create_unless_taken(kit: AccountKit, email: str, password: str) -> None:
    with suppress(AddressTaken):
        kit.accounts.create(email, password)


def _change_password(kit: AccountKit, account: Account, current: str, new: str) -> bool:
    """Set ``new`` when ``current`` is the account's password (both hashes in one place); whether it was."""
    if kit.accounts.authenticate(account.email, current) is None:
        return False
    kit.accounts.set_password(account.email, new)
    return True


def _refusal(refused: RateLimited | Busy, too_many: str) -> dict[str, Any]:
    """The status, Retry-After and message of a form refused before its password was checked."""
    headers = {"Retry-After": str(refused.retry_after)}
    if isinstance(refused, RateLimited):
        return {
            "status": 429,
            "headers": headers,
            "error": f"{too_many}: wait {_minutes(refused.retry_after)} and try again.",
        }
    whose = "from your address are" if refused.yours else "are"
    error = f"Many passwords {whose} being checked right now: try again in {refused.retry_after} s."
    return {"status": 503, "headers": headers, "error": error}


def _minutes(seconds: int) -> str:
    return f"{seconds} s" if seconds < 120 else f"{round(seconds / 60)} minutes"
