"""Your code follows you, and only you: drafts on a shared browser, on a second device, and a solved exercise."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from browser_support import REPO, SLUG, Problems, Server
from playwright.sync_api import Browser, Page, expect
from test_browser_accounts import axe_violations, new_page, sign_in_from_header, sign_out, sign_up_from_header
from test_browser_exercise import REFERENCE, STARTER, editor_text, open_exercise, replace_code, wait_finished

from grader.exercise import load_exercise

PASSWORD = "correct horse battery"
EXAMPLE = load_exercise(REPO / "exercises" / SLUG).try_example  # what Try it starts with


def try_text(page: Page) -> str:
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('#try-editor .cm-content .cm-line'), (l) => l.textContent)"
        ".join('\\n')"
    )


def type_try_inputs(page: Page, text: str) -> None:
    page.get_by_role("tab", name="Try it").click()
    page.locator("#try-editor .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def saved(page: Page, status: str = "#draft-status") -> None:
    """Wait until what was typed is on the server, as the page says beside the file name."""
    expect(page.locator(status)).to_have_attribute("data-state", "saved")
    expect(page.locator(status)).to_have_text("Saved")


def stored_in_browser(page: Page) -> list[str]:
    """The keys this browser keeps that hold code or inputs (older versions kept drafts under these)."""
    return page.evaluate(
        "() => Object.keys(localStorage).filter((k) => k.startsWith('mlkata:draft:') || k.startsWith('mlkata:try:'))"
    )


def look_again(page: Page, notice: str = "#draft-notice") -> None:
    """Come back to the tab (the window is focused again) until the page has looked for saves made elsewhere."""
    page.wait_for_function(
        "(id) => { window.dispatchEvent(new Event('focus')); return !document.querySelector(id).hidden; }",
        arg=notice,
        polling=400,
    )


def test_two_accounts_on_one_browser_never_see_each_others_drafts(
    browser: Browser, base_url: str, server: Server, artifacts: Path, problems: Problems
) -> None:
    server.create_account("ada@lab.example.org", PASSWORD)
    server.create_account("bob@lab.example.org", PASSWORD)
    lab, page = new_page(browser, base_url, problems)
    # What an older version left in this browser under the exercise's name alone, from whoever used it before.
    page.goto("/")
    page.evaluate(
        "([slug]) => { localStorage.setItem(`mlkata:draft:${slug}`, '# left on this browser\\n');"
        " localStorage.setItem(`mlkata:try:${slug}`, 'left_here()');"
        " localStorage.setItem('mlkata:draft:other', 'x'); }",
        [SLUG],
    )

    sign_in_from_header(page, "ada@lab.example.org")
    open_exercise(page)
    assert editor_text(page).rstrip("\n") == STARTER.rstrip("\n")  # not what the browser held
    assert stored_in_browser(page) == []  # and that is gone from it
    expect(page.locator("#editor-help")).to_contain_text("Your draft follows your account.")
    replace_code(page, "# Ada's secret draft\n" + STARTER)
    saved(page)
    type_try_inputs(page, "ada_only()")
    saved(page, "#try-draft-status")
    assert stored_in_browser(page) == []  # drafts live on the server only
    sign_out(page)

    # Signed out, this browser shows nobody's draft.
    open_exercise(page)
    assert editor_text(page).rstrip("\n") == STARTER.rstrip("\n")
    page.get_by_role("tab", name="Try it").click()
    assert try_text(page) == EXAMPLE
    expect(page.locator("#editor-help")).to_contain_text("sign in to take it anywhere")

    sign_in_from_header(page, "bob@lab.example.org")
    open_exercise(page)
    assert "Ada" not in editor_text(page)
    assert editor_text(page).rstrip("\n") == STARTER.rstrip("\n")
    page.get_by_role("tab", name="Try it").click()
    assert try_text(page) == EXAMPLE
    replace_code(page, "# Bob's own draft\n" + STARTER)
    saved(page)
    # Back and forward after signing out show the page as the server gives it now, never a copy of Bob's.
    sign_out(page)
    page.go_back()
    expect(page.locator("#editor .cm-editor")).to_be_visible()
    assert "Bob" not in editor_text(page)

    sign_in_from_header(page, "ada@lab.example.org")
    open_exercise(page)
    assert editor_text(page).startswith("# Ada's secret draft")
    expect(page.locator("#draft-status")).to_have_text("Saved")
    page.get_by_role("tab", name="Try it").click()
    assert try_text(page) == "ada_only()"
    page.screenshot(path=artifacts / "drafts-shared-browser.png")
    lab.close()
    assert problems.messages == []


def test_a_draft_typed_on_one_device_appears_on_another_and_a_later_save_elsewhere_is_told(
    browser: Browser, base_url: str, artifacts: Path, problems: Problems
) -> None:
    email = "grace@example.org"
    laptop, first = new_page(browser, base_url, problems)
    open_exercise(first)
    replace_code(first, "# started anonymously\n" + STARTER)
    saved(first)
    sign_up_from_header(first, email)  # the draft moves into the new account
    expect(first).to_have_url(re.compile(f"/exercises/{SLUG}$"))
    assert editor_text(first).startswith("# started anonymously")

    desktop, second = new_page(browser, base_url, problems)
    second.goto("/")
    sign_in_from_header(second, email)
    open_exercise(second)
    assert editor_text(second).startswith("# started anonymously")
    expect(second.locator("#draft-status")).to_have_text("Saved")

    # The desktop saves later; the laptop, looked at again, offers that version.
    replace_code(second, "# typed on the desktop\n" + STARTER)
    saved(second)
    look_again(first)
    notice = first.locator("#draft-notice")
    expect(notice).to_contain_text("A newer version of your code was saved in another tab or on another device at")
    first.screenshot(path=artifacts / "drafts-newer-elsewhere.png")
    assert axe_violations(first) == [], "axe-core with the notice of a save made elsewhere"
    notice.get_by_role("button", name="Use that version").click()
    expect(notice).to_be_hidden()
    assert editor_text(first).startswith("# typed on the desktop")
    saved(first)

    # The laptop saves over it; the desktop, still on the version before, saves all the same (last writer wins)
    # and is told what it replaced, which it can compare and bring back.
    replace_code(first, "# then on the laptop\n" + STARTER)
    saved(first)
    replace_code(second, "# the desktop again\n" + STARTER)
    saved(second)
    notice = second.locator("#draft-notice")
    expect(notice).to_contain_text("Another tab or device had saved your code at")
    expect(notice).to_contain_text("what you typed here replaced it")
    notice.get_by_role("button", name="Compare").click()
    expect(second.locator("#compare-title")).to_contain_text("Saved elsewhere at")
    second.get_by_role("button", name="Restore this code").click()
    assert editor_text(second).startswith("# then on the laptop")
    saved(second)
    second.reload()
    assert editor_text(second).startswith("# then on the laptop")

    # Try it inputs follow the same way.
    type_try_inputs(second, "typed_on_the_desktop()")
    saved(second, "#try-draft-status")
    first.reload()
    first.get_by_role("tab", name="Try it").click()
    assert try_text(first) == "typed_on_the_desktop()"
    laptop.close()
    desktop.close()
    assert problems.messages == []


def test_a_solved_exercise_opens_with_the_passing_code_not_the_starter(
    browser: Browser, base_url: str, artifacts: Path, problems: Problems
) -> None:
    email = "katherine@example.org"
    laptop, first = new_page(browser, base_url, problems)
    first.goto("/")
    sign_up_from_header(first, email)
    open_exercise(first)
    replace_code(first, REFERENCE)
    first.locator("#editor .cm-content").focus()
    first.keyboard.press("Control+Enter")
    assert wait_finished(first) == "pass"
    laptop.close()

    phone, second = new_page(browser, base_url, problems)
    second.goto("/")
    sign_in_from_header(second, email)
    open_exercise(second)
    expect(second.locator("#run-status")).to_have_attribute("data-state", "pass")
    assert editor_text(second).rstrip("\n") == REFERENCE.rstrip("\n")
    second.screenshot(path=artifacts / "drafts-solved-on-another-device.png")
    phone.close()

    # Solved without the page (a script posting to the API): no draft, and the page opens with the passing code.
    script, third = new_page(browser, base_url, problems)
    third.goto("/")
    accepted = third.request.post(
        f"/api/exercises/{SLUG}/submissions",
        data=json.dumps({"code": REFERENCE}),
        headers={"Content-Type": "application/json"},
    ).json()
    deadline = time.monotonic() + 120
    while third.request.get(accepted["result_url"]).json()["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, "the run did not finish"
        time.sleep(0.2)
    open_exercise(third)
    assert editor_text(third).rstrip("\n") == REFERENCE.rstrip("\n")
    expect(third.locator("#draft-status")).to_have_text("Your passing code")
    script.close()
    assert problems.messages == []


def test_what_an_older_version_kept_in_this_browser_becomes_its_anonymous_learners_draft(page: Page) -> None:
    page.goto("/")
    page.evaluate(
        "([slug, code]) => { localStorage.setItem(`mlkata:draft:${slug}`, code);"
        " localStorage.setItem(`mlkata:try:${slug}`, 'kept_here()'); }",
        [SLUG, "# kept by an older version\n" + STARTER],
    )
    open_exercise(page)
    assert editor_text(page).startswith("# kept by an older version")
    saved(page)
    page.get_by_role("tab", name="Try it").click()
    saved(page, "#try-draft-status")
    assert stored_in_browser(page) == []  # on the server now, and nowhere else
    page.reload()
    assert editor_text(page).startswith("# kept by an older version")
    page.get_by_role("tab", name="Try it").click()
    assert try_text(page) == "kept_here()"
