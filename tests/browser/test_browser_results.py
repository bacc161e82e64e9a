"""A run's results without noise, in Chromium: each failure said once, a syntax error's drawing whole, true times."""

from __future__ import annotations

import re
import time
from pathlib import Path

from browser_support import REPO, SLUG, Problems
from playwright.sync_api import Browser, Page, expect
from test_browser_exercise import NO_SCALING, STARTER, open_exercise, replace_code, run_with_keyboard, wait_finished

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
#: Tall enough that the results console shows a whole starter run for the screenshots.
TALL = {"width": 1440, "height": 1600}
MISSING_COLON = "import numpy as np\n\n\ndef attend_step(x_t, cache, p)\n    return None\n"
BOTH_LOOP = (
    "def attend_step(x_t, cache, p):\n    while True:\n        pass\n\n\n"
    "def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):\n    while True:\n        pass\n"
)


def results_text(page: Page) -> str:
    return page.locator("#panel-results").inner_text()


def no_axe_violation(page: Page) -> None:
    if not page.evaluate("() => 'axe' in window"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    found = page.evaluate(
        "async () => (await axe.run(document)).violations.map(v => [v.id, v.nodes.length, v.nodes[0].target.join(' ')])"
    )
    assert found == [], f"axe-core: {found}"


def test_a_failed_starter_run_shows_each_traceback_once_with_its_checks(
    browser: Browser, base_url: str, artifacts: Path, problems: Problems
) -> None:
    context = browser.new_context(base_url=base_url, viewport=TALL)
    page = context.new_page()
    page.on("console", problems.on_console)
    open_exercise(page)
    replace_code(page, STARTER)
    run_with_keyboard(page)
    assert wait_finished(page) == "fail"
    rows = page.locator("#checks li.check")
    expect(rows).to_have_count(12)
    expect(page.locator('#checks li.check[data-status="fail"]')).to_have_count(12)
    # Two functions not written yet: each one's failure once, above the checks, with the checks it failed.
    shared = page.locator(".shared-failure")
    expect(shared).to_have_count(2)
    attend, cache_bytes = shared.nth(0), shared.nth(1)
    expect(attend.locator("pre")).to_contain_text("attend_step() raised NotImplementedError: compute q, k and v")
    expect(attend.locator("pre")).to_contain_text('File "solution.py", line 12, in attend_step')
    expect(attend.locator(".shared-failure-checks")).to_contain_text("10 checks failed this way:")
    expect(attend.locator(".shared-failure-checks")).to_contain_text("The worked example from the statement")
    expect(attend.locator(".shared-failure-checks")).to_contain_text("Caches reused, branched and built elsewhere")
    expect(cache_bytes.locator(".shared-failure-checks")).to_contain_text("2 checks failed this way:")
    # Said once on the whole page: one traceback, one "Go to line" per line, no check repeating either.
    text = results_text(page)
    assert text.count('File "solution.py", line 12') == 1, text
    assert text.count('File "solution.py", line 17') == 1, text
    said_by_rows = rows.all_inner_texts()
    assert not [row for row in said_by_rows if "NotImplementedError" in row or "line 1" in row], said_by_rows
    expect(page.get_by_role("button", name="Go to line 12")).to_have_count(1)
    expect(page.get_by_role("button", name="Go to line 17")).to_have_count(1)
    expect(rows.locator(".check-message")).to_have_count(0)
    expect(rows.locator(".go-to-line")).to_have_count(0)
    # What a row adds is kept: the public check's call.
    worked = page.locator("#checks li.check", has_text="The worked example from the statement")
    expect(worked.locator(".check-details dt")).to_have_text(["call"])
    expect(page.locator("#run-summary")).to_have_text(re.compile(r"^12 of 12 checks did not pass\. · 0 / 13 points"))
    page.screenshot(path=artifacts / "failed-starter.png")
    no_axe_violation(page)
    page.emulate_media(color_scheme="dark")
    no_axe_violation(page)
    page.screenshot(path=artifacts / "failed-starter-dark.png")
    page.emulate_media(color_scheme="light")
    attend.get_by_role("button", name="Go to line 12").click()
    expect(page.locator("#editor .cm-activeLine")).to_contain_text("raise NotImplementedError")
    # Shown again from the History, it is said once still.
    page.get_by_role("tab", name="History").click()
    page.locator("#history li").first.get_by_role("button", name="Show result").click()
    expect(page.locator("#last-run")).to_be_visible()
    expect(page.locator(".shared-failure")).to_have_count(2)
    assert results_text(page).count('File "solution.py", line 12') == 1
    assert problems.messages == []
    context.close()


def test_a_syntax_error_keeps_its_caret_drawing_and_is_said_once(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    replace_code(page, MISSING_COLON)
    run_with_keyboard(page)
    assert wait_finished(page) == "error"
    drawing = page.locator("#run-message pre").inner_text().splitlines()
    assert drawing[0] == "SyntaxError on line 4: expected ':'", drawing
    code, caret = drawing[1], drawing[2]
    assert code.strip() == "def attend_step(x_t, cache, p)"
    # The caret stands on its own line, under the place the colon is missing.
    assert caret.strip() == "^" and caret.index("^") == len(code), drawing
    # The summary does not say it again, flattened into one line.
    summary = page.locator("#run-summary")
    expect(summary).not_to_contain_text("SyntaxError")
    expect(summary).not_to_contain_text("^")
    expect(summary).to_have_text(re.compile(r"^0 / 13 points · total \d"))
    page.screenshot(path=artifacts / "syntax-error-caret.png")


def test_the_likely_mistake_is_said_once_and_no_check_repeats_it(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    replace_code(page, NO_SCALING)
    run_with_keyboard(page)
    assert wait_finished(page) == "fail"
    mistake = page.locator("#run-message.mistake")
    expect(mistake).to_contain_text("Most likely mistake: Scores are not divided by √d.")
    assert results_text(page).count("Scores are not divided by √d") == 1
    expect(page.locator("#run-summary")).to_have_text(re.compile(r"^4 of 12 checks did not pass\. · 8 / 13 points"))
    # The checks it explains say what differs; the guess the mistake replaces is not said beside it.
    failing = page.locator('#checks li.check[data-status="fail"]')
    expect(failing).to_have_count(4)
    expect(failing.locator(".check-message")).to_have_count(4)
    expect(failing.locator(".check-message", has_text="Right on the first call")).to_have_count(0)
    expect(failing.locator(".check-hint")).to_have_count(0)
    page.screenshot(path=artifacts / "mistake-once.png")


def test_after_stop_the_summary_says_how_long_the_run_ran(page: Page) -> None:
    open_exercise(page)
    waiting = STARTER.replace(
        'raise NotImplementedError("compute q, k and v, append k and v to the cache, then attend")',
        "import time\n    while True:\n        time.sleep(0.05)",
    )
    assert "time.sleep" in waiting
    replace_code(page, waiting)
    run_with_keyboard(page)
    expect(page.locator("#run-progress")).to_contain_text("check 1 of 12")
    page.locator("#stop-button").click()
    expect(page.locator("#run-status")).to_have_attribute("data-state", "stopped")
    summary = page.locator("#run-summary")
    expect(summary).to_contain_text("Stopped during “The worked example from the statement”")
    expect(summary).to_have_text(re.compile(r" · total ([1-9]\d* ms|\d+\.\d\d s)$"))


def test_two_looping_functions_are_told_the_time_the_run_takes(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    replace_code(page, BOTH_LOOP)
    began = time.monotonic()
    run_with_keyboard(page)
    assert wait_finished(page, timeout=180_000) == "timeout"
    took = time.monotonic() - began
    timed_out = page.locator('#checks li.check[data-reason="timeout"]')
    expect(timed_out).to_have_count(2)
    # The first says that the run goes on, and with how much time; the second that it was that run, and the last.
    expect(timed_out.nth(0).locator(".check-message")).to_contain_text(
        "The checks left that do not call attend_step() run next, in a new run with 2 s of CPU time of its own."
    )
    expect(timed_out.nth(1).locator(".check-message")).to_contain_text(
        "That was the new run for the checks that do not call attend_step(): no further run is started."
    )
    expect(page.locator("#run-summary")).to_contain_text(
        "Timed out in “The worked example from the statement”, then in “kv_cache_bytes on the statement's examples”."
    )
    (artifacts / "two-timeouts.txt").write_text(
        f"two looping functions, 2 s of CPU time each run: {took:.1f} s from Ctrl+Enter to the verdict\n",
        encoding="utf-8",
    )


def test_on_a_phone_the_shared_failure_fits_and_its_line_opens_the_code(page: Page, artifacts: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/exercises/{SLUG}")
    page.get_by_role("button", name=re.compile("^Run")).click()  # the starter, as a new learner first runs it
    assert wait_finished(page) == "fail"
    page.locator("#tab-results").click()
    expect(page.locator(".shared-failure")).to_have_count(2)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px on a phone"
    page.screenshot(path=artifacts / "failed-starter-phone.png")
    no_axe_violation(page)
    page.get_by_role("button", name="Go to line 12").click()
    expect(page.locator("#editor .cm-activeLine")).to_be_visible()
    expect(page.locator("#editor .cm-activeLine")).to_contain_text("raise NotImplementedError")
