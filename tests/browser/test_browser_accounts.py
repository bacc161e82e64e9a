"""Accounts in Chromium: solve anonymously, sign up, find the ✓ on another browser, sign out, a wrong password."""

from __future__ import annotations

import re
from pathlib import Path

from browser_support import REPO, SLUG, Problems, Server
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from test_browser_exercise import REFERENCE, open_exercise, replace_code, run_with_keyboard, wait_finished

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
PASSWORD = "correct horse battery"
WRONG_PASSWORD_ERROR = "That e-mail address and password do not match an account."


def new_page(browser: Browser, base_url: str, problems: Problems) -> tuple[BrowserContext, Page]:
    """Another browser: a context of its own (no cookie, no drafts), 1280×800, light mode."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 800}, color_scheme="light")
    page = context.new_page()
    page.on("console", problems.on_console)
    page.on("pageerror", lambda error: problems.messages.append(f"page error: {error}"))
    return context, page


def header(page: Page) -> Locator:
    return page.get_by_role("navigation", name="Site")


def fill_sign_up(page: Page, email: str, password: str = PASSWORD, again: str | None = None) -> None:
    """Fill in and send the sign-up form on the page."""
    expect(page.get_by_role("heading", name="Sign up", level=1)).to_be_visible()
    page.get_by_label("E-mail").fill(email)
    page.get_by_label(re.compile("^Password")).fill(password)
    page.get_by_label("The same password again").fill(password if again is None else again)
    page.get_by_role("button", name="Sign up").click()


def finish_sign_up(page: Page, email: str, password: str = PASSWORD) -> None:
    """After sending the sign-up form: its answer asks to sign in, the address filled in; sign in."""
    expect(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
    expect(page.get_by_role("status")).to_contain_text(f"If there was no account for {email}, there is one now")
    expect(page.get_by_label("E-mail")).to_have_value(email)
    expect(page.get_by_label("Password")).to_be_focused()
    page.keyboard.type(password)
    page.keyboard.press("Enter")
    expect(header(page).locator(".account-link")).to_have_text(email)


def sign_up_from_header(page: Page, email: str, password: str = PASSWORD) -> None:
    """Header's Sign in, the page's Sign up link, the form, then signing in; back on the page it started from."""
    header(page).get_by_role("link", name="Sign in").click()
    page.get_by_role("link", name="Sign up").click()
    fill_sign_up(page, email, password)
    finish_sign_up(page, email, password)


def fill_sign_in(page: Page, email: str, password: str = PASSWORD) -> None:
    expect(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def sign_in_from_header(page: Page, email: str, password: str = PASSWORD) -> None:
    header(page).get_by_role("link", name="Sign in").click()
    fill_sign_in(page, email, password)
    expect(header(page).locator(".account-link")).to_have_text(email)


def sign_out(page: Page) -> None:
    header(page).get_by_role("button", name="Sign out").click()
    expect(header(page).get_by_role("link", name="Sign in")).to_be_visible()


def solve(page: Page, code: str) -> str:
    """Type ``code`` into the editor of the open exercise, run it with Ctrl+Enter and wait for the verdict."""
    replace_code(page, code)
    run_with_keyboard(page)
    return wait_finished(page)


def axe_violations(page: Page) -> list:
    page.evaluate(AXE.read_text(encoding="utf-8"))
    return page.evaluate(
        "async () => (await axe.run(document)).violations"
        ".map(v => [v.id, v.nodes.length, v.nodes[0].target.join(' '), v.nodes[0].failureSummary])"
    )


def roadmap_card(page: Page) -> Locator:
    return page.locator(f'a.exercise-card[data-slug="{SLUG}"]')


def test_a_solve_made_before_signing_up_follows_the_account_to_another_browser(
    browser: Browser, base_url: str, artifacts: Path, problems: Problems
) -> None:
    email = "ada@example.org"
    first, page = new_page(browser, base_url, problems)
    open_exercise(page)
    assert solve(page, REFERENCE) == "pass"
    expect(page.locator("#run-status")).to_have_text("passed")
    expect(page.locator("#solved-mark")).to_be_visible()
    # Signing up (and then in) from the exercise page comes back to it, signed in, the solve now the account's;
    # on the way, the header's own Sign in link keeps that destination too.
    header(page).get_by_role("link", name="Sign in").click()
    page.get_by_role("link", name="Sign up").click()
    back = f"/signin?next=/exercises/{SLUG}"
    expect(header(page).get_by_role("link", name="Sign in")).to_have_attribute("href", back)
    fill_sign_up(page, email)
    finish_sign_up(page, email)
    expect(page).to_have_url(re.compile(f"/exercises/{SLUG}$"))
    expect(page.locator("#solved-mark")).to_be_visible()
    page.goto("/account")
    expect(page.locator('[data-role="student"]')).to_have_text("student")
    first.close()

    second, page = new_page(browser, base_url, problems)
    page.goto("/")
    expect(roadmap_card(page).locator(".solved-mark")).to_have_count(0)
    expect(page.locator("#progress-label")).to_have_text("0 of 1 solved")
    sign_in_from_header(page, email)
    expect(page).to_have_url(re.compile(r"/$"))
    expect(roadmap_card(page).locator(".solved-mark")).to_have_text("✓")
    expect(page.locator("#progress-label")).to_have_text("1 of 1 solved")
    page.screenshot(path=artifacts / "roadmap-signed-in.png")
    roadmap_card(page).click()
    expect(page).to_have_url(re.compile(f"/exercises/{SLUG}$"))
    expect(page.locator("#solved-mark")).to_be_visible()
    expect(page.locator("#run-status")).to_have_attribute("data-state", "pass")  # the last run came along
    expect(page.locator("#next-exercise")).to_be_visible()

    # Signing out leaves this browser with nothing: no ✓, no account page.
    sign_out(page)
    expect(page).to_have_url(re.compile(r"/$"))
    expect(roadmap_card(page).locator(".solved-mark")).to_have_count(0)
    page.goto(f"/exercises/{SLUG}")
    expect(page.locator("#editor .cm-editor")).to_be_visible()
    expect(page.locator("#solved-mark")).to_be_hidden()
    page.goto("/account")
    expect(page).to_have_url(re.compile(r"/signin\?next=%2Faccount$"))
    # Signing in again after signing out still works, and goes back where it was asked to.
    fill_sign_in(page, email)
    expect(page).to_have_url(re.compile(r"/account$"))
    expect(page.locator("#account-title")).to_have_text("Your account")
    second.close()
    assert problems.messages == []


def test_a_wrong_password_says_so_and_keeps_the_address(
    browser: Browser, base_url: str, server: Server, artifacts: Path, problems: Problems
) -> None:
    email = "alan@example.org"
    server.create_account(email, PASSWORD)
    context, page = new_page(browser, base_url, problems)
    page.goto("/signin")
    fill_sign_in(page, email, "not the password")
    alert = page.get_by_role("alert")
    expect(alert).to_have_text(WRONG_PASSWORD_ERROR)
    expect(page.get_by_label("E-mail")).to_have_value(email)
    expect(page.get_by_label("Password")).to_have_value("")
    expect(page.get_by_label("Password")).to_be_focused()  # the address is kept: the password is left to type
    expect(header(page).get_by_role("link", name="Sign in")).to_be_visible()
    page.screenshot(path=artifacts / "signin-wrong-password.png")
    # An unknown address gets the same words: the page does not tell who has an account.
    fill_sign_in(page, "nobody@example.org", PASSWORD)
    expect(page.get_by_role("alert")).to_have_text(WRONG_PASSWORD_ERROR)
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").focus()
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(header(page).locator(".account-link")).to_have_text(email)
    expect(page.get_by_role("alert")).to_have_count(0)
    context.close()
    # The console shows the 400s of the failed attempts as resource errors; nothing else.
    assert [m for m in problems.messages if "status of 400" not in m] == []


def test_sign_up_mistakes_are_named_on_the_field_at_fault(
    browser: Browser, base_url: str, server: Server, problems: Problems
) -> None:
    server.create_account("grace@example.org", PASSWORD)
    context, page = new_page(browser, base_url, problems)
    page.goto("/signup")
    fill_sign_up(page, "emmy@example.org", PASSWORD, again="correct horse battery staple")
    expect(page.get_by_role("alert")).to_have_text("The two passwords differ: type the same one twice.")
    expect(page.get_by_label("The same password again")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("E-mail")).to_have_value("emmy@example.org")
    expect(page.get_by_label(re.compile("^Password"))).to_be_focused()  # both are typed again, from the first
    # A taken address gets the answer a new one gets (the page does not tell who has an account), and Grace's
    # account keeps its own password.
    page.goto("/signup")
    fill_sign_up(page, "Grace@Example.org", "another long password")
    expect(page.get_by_role("status")).to_contain_text("If there already was one, nothing about it was changed")
    expect(page.get_by_role("alert")).to_have_count(0)
    fill_sign_in(page, "grace@example.org", "another long password")
    expect(page.get_by_role("alert")).to_have_text(WRONG_PASSWORD_ERROR)
    page.goto("/signup")
    # The browser itself refuses a short password before anything is sent.
    page.get_by_label("E-mail").fill("emmy@example.org")
    page.locator("#password").fill("short")
    page.locator("#password_again").fill("short")
    page.get_by_role("button", name="Sign up").click()
    assert page.locator("#password").evaluate("(el) => el.validity.tooShort")
    expect(page).to_have_url(re.compile(r"/signup$"))
    fill_sign_up(page, "emmy@example.org")
    finish_sign_up(page, "emmy@example.org")
    context.close()
    assert [m for m in problems.messages if "status of 400" not in m] == []


def test_the_account_pages_pass_axe(browser: Browser, base_url: str, server: Server, problems: Problems) -> None:
    server.create_account("hedy@example.org", PASSWORD)
    context, page = new_page(browser, base_url, problems)
    for path in ("/signin", "/signup"):
        page.goto(path)
        assert axe_violations(page) == [], f"axe-core on {path}"
    fill_sign_up(page, "ida@example.org")
    expect(page.get_by_role("status")).to_be_visible()
    assert axe_violations(page) == [], "axe-core on the answer to a sign-up"
    page.goto("/signin")
    fill_sign_in(page, "hedy@example.org", "not the password")
    expect(page.get_by_role("alert")).to_be_visible()
    assert axe_violations(page) == [], "axe-core on a failed sign-in"
    page.emulate_media(color_scheme="dark")
    assert axe_violations(page) == [], "axe-core on a failed sign-in (dark)"
    page.emulate_media(color_scheme="light")
    fill_sign_in(page, "hedy@example.org")
    for path in ("/account", "/"):
        page.goto(path)
        assert axe_violations(page) == [], f"axe-core on {path} signed in"
    context.close()
    assert [m for m in problems.messages if "status of 400" not in m] == []
