"""A run refused because its learner already has their share of the queue waiting: shown as not run, code kept."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect
from test_browser_exercise import REFERENCE, editor_text, open_exercise, replace_code, run_with_keyboard

# Nothing is graded, so what is queued stays waiting; one waiting run per learner (a share of 1 of the 64).
SERVER_ENV = {"MLKATA_WORKERS": "0", "MLKATA_QUEUE_SHARE_PER_LEARNER": "0.01"}


def test_a_run_past_the_learners_share_is_not_run_says_why_and_keeps_the_code(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    page.get_by_role("tab", name="Try it").click()
    page.get_by_role("button", name="Try it", exact=True).click()
    expect(page.locator("#try-status")).to_have_attribute("data-state", "queued")

    code = REFERENCE + "\n# my own line\n"
    replace_code(page, code)
    run_with_keyboard(page)
    status = page.locator("#run-status")
    expect(status).to_have_attribute("data-state", "refused")
    expect(status).to_have_text("not run")
    expect(page.locator("#run-message")).to_contain_text("You already have 1 run waiting to be graded")
    expect(page.locator("#run-button")).not_to_have_attribute("aria-disabled", "true")
    assert editor_text(page) == code
    page.screenshot(path=artifacts / "refused.png")
