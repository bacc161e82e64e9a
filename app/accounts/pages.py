"""Signing up, in and out, and the account page."""

from __future__ import annotations

import uuid
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.accounts.kit import AccountKit, account_kit
from app.accounts.limits import SIGNIN, SIGNUP
from app.accounts.sessions import COOKIE_NAME, clear_cookie, cookie_learner_id, current_account, session_cookie
from app.accounts.users import Account, AccountError
from app.errors import ApiError
from app.learners import client_key
from app.submissions import RateLimited

KitDep = Annotated[AccountKit, Depends(account_kit)]


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
        form = await kit.csrf.form(request)
        email, password, next_path = form.get("email"), form.get("password"), safe_next(form.get("next"))
        again = {"next": next_path, "email": email[:254]}
        try:
            await run_in_threadpool(kit.limiter.check_signup, client_key(request))
        except RateLimited as limited:
            message = f"Too many accounts were made from your address: wait {limited.retry_after} s."
            return form_page(
                request, "accounts/signup.html", 429, **again, field=None, headers=_retry(limited), error=message
            )
        if password != form.get("password_again", password):
            return form_page(request, "accounts/signup.html", 400, **again, field="password_again",
                             error="The two passwords differ: type the same one twice.")  # fmt: skip
        try:
            account = await run_in_threadpool(kit.accounts.create, email, password)
        except AccountError as exc:
            return form_page(request, "accounts/signup.html", 400, **again, field=exc.field, error=exc.message)
        await run_in_threadpool(kit.limiter.record, SIGNUP, account.email, client_key(request))
        return await run_in_threadpool(signed_in, request, kit, account, next_path)

    @pages.get("/signin")
    def signin_page(request: Request, next: str = "/") -> Response:
        if current_account(request) is not None:
            return RedirectResponse(safe_next(next), status_code=303)
        return form_page(request, "accounts/signin.html", next=safe_next(next), email="", error=None)

    @pages.post("/signin")
    async def signin(request: Request, kit: KitDep) -> Response:
        form = await kit.csrf.form(request)
        email, password, next_path = form.get("email"), form.get("password"), safe_next(form.get("next"))
        again = {"next": next_path, "email": email[:254]}
        try:
            await run_in_threadpool(kit.limiter.check_signin, email, client_key(request))
        except RateLimited as limited:
            message = f"Too many failed sign-ins: wait {_minutes(limited.retry_after)} and try again."
            return form_page(request, "accounts/signin.html", 429, **again, headers=_retry(limited), error=message)
        account = await run_in_threadpool(kit.accounts.authenticate, email, password)
        if account is None:
            await run_in_threadpool(kit.limiter.record, SIGNIN, email, client_key(request))
            return form_page(request, "accounts/signin.html", 400, **again,
                             error="That e-mail address and password do not match an account.")  # fmt: skip
        await run_in_threadpool(kit.limiter.forget_failures, email)
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
        form = await kit.csrf.form(request)
        account = require_account(request)
        current = await run_in_threadpool(kit.accounts.authenticate, account.email, form.get("current"))
        if current is None:
            return form_page(request, "accounts/account.html", 400, account=account, changed=False,
                             error="Your current password is not that.")  # fmt: skip
        try:
            await run_in_threadpool(kit.accounts.set_password, account.email, form.get("password"))
        except AccountError as exc:
            return form_page(request, "accounts/account.html", 400, account=account, changed=False, error=exc.message)
        # Every session was ended, this one too: start a new one so the change does not sign this browser out.
        return await run_in_threadpool(signed_in, request, kit, account, "/account?changed=1")

    return pages


def _retry(limited: RateLimited) -> dict[str, str]:
    return {"Retry-After": str(limited.retry_after)}


def _minutes(seconds: int) -> str:
    return f"{seconds} s" if seconds < 120 else f"{round(seconds / 60)} minutes"
