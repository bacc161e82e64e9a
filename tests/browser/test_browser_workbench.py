"""The workbench in Chromium: layout, Try it, memory, the editor's marks and options, Stop, hints, weight, axe."""

from __future__ import annotations

import re
from pathlib import Path

from browser_support import REPO, SLUG, Problems
from playwright.sync_api import Browser, Page, expect
from test_browser_exercise import (
    NO_SCALING,
    REFERENCE,
    editor_text,
    open_exercise,
    replace_code,
    run_with_keyboard,
    wait_finished,
)

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
# Waits without using CPU: still running, however loaded the machine, until the 40 s wall clock.
WAITING = REFERENCE.replace(
    "def attend_step(x_t, cache, p):\n",
    "def attend_step(x_t, cache, p):\n    import time\n\n    while True:\n        time.sleep(0.05)\n",
    1,
)


def in_viewport(page: Page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box is not None and size is not None and 0 <= box["y"] < size["height"] and box["height"] > 0


def test_wide_layout_keeps_code_and_results_in_view_and_the_divider_is_remembered(
    page: Page, artifacts: Path, problems: Problems
) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    open_exercise(page)
    assert page.evaluate("() => document.documentElement.scrollHeight <= window.innerHeight + 1"), "the page scrolls"
    replace_code(page, NO_SCALING)
    run_with_keyboard(page)
    assert wait_finished(page) == "fail"
    assert in_viewport(page, '#checks li.check[data-status="fail"] >> nth=0') and in_viewport(page, "#editor")
    # The statement scrolls on its own; the code stays where it is.
    page.locator("#pane-statement").evaluate("(el) => el.scrollTo(0, 800)")
    assert page.locator("#pane-statement").evaluate("(el) => el.scrollTop") > 0
    assert in_viewport(page, "#editor")
    before = page.locator("#pane-statement").bounding_box()["width"]
    divider = page.locator("#split-divider").bounding_box()
    page.mouse.move(divider["x"] + 4, divider["y"] + 200)
    page.mouse.down()
    page.mouse.move(divider["x"] + 204, divider["y"] + 200, steps=5)
    page.mouse.up()
    after = page.locator("#pane-statement").bounding_box()["width"]
    assert after > before + 150
    page.locator("#split-divider").focus()
    page.keyboard.press("ArrowLeft")
    page.reload()
    expect(page.locator("#editor .cm-editor")).to_be_visible()
    assert abs(page.locator("#pane-statement").bounding_box()["width"] - after) < 40
    page.screenshot(path=artifacts / "workbench-wide.png")
    assert problems.messages == []


def test_phone_has_statement_code_results_tabs_and_a_run_bar_in_view(page: Page, artifacts: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/exercises/{SLUG}")
    tabs = page.get_by_role("tablist", name="Exercise views")
    expect(tabs.get_by_role("tab")).to_have_text(["Statement", "Code", re.compile("^Results")])
    expect(page.locator("#editor")).to_be_hidden()
    assert in_viewport(page, "#run-button")
    page.locator("#tab-code").click()
    expect(page.locator("#editor .cm-editor")).to_be_visible()
    editor_top = page.locator("#editor").bounding_box()["y"]
    assert editor_top < 300, f"the editor starts {editor_top}px down the page"
    replace_code(page, REFERENCE)
    page.locator("#run-button").click()  # a run opens the Results tab by itself
    expect(page.locator("#tab-results")).to_have_attribute("aria-selected", "true")
    assert wait_finished(page) == "pass"
    assert in_viewport(page, "#checks") and in_viewport(page, "#run-button")
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=artifacts / "workbench-phone.png")


def test_try_it_shows_each_value_with_type_shape_and_dtype(page: Page, artifacts: Path, problems: Problems) -> None:
    open_exercise(page)
    replace_code(page, REFERENCE)
    page.get_by_role("tab", name="Try it").click()
    expect(page.locator("#try-editor .cm-content")).to_contain_text("attend_step(")
    page.get_by_role("button", name="Try it", exact=True).click()
    expect(page.locator("#try-status")).to_have_attribute("data-state", "pass")
    values = page.locator("#try-values .try-value")
    expect(values).to_have_count(7)
    expect(values.filter(has_text="out, cache = attend_step").first.locator(".try-facts")).to_contain_text(
        "tuple of 2 (ndarray (2,) float64, dict)"
    )
    expect(values.filter(has_text='cache["k"].shape').locator(".try-text")).to_have_text("(3, 2)")
    expect(page.locator("#run-status")).to_have_attribute("data-state", "idle")  # graded by nothing
    page.screenshot(path=artifacts / "try-it.png")
    assert problems.messages == []


def test_the_last_result_survives_a_reload_and_the_history_opens_old_code_as_a_diff(
    page: Page, artifacts: Path
) -> None:
    open_exercise(page)
    replace_code(page, NO_SCALING)
    run_with_keyboard(page)
    assert wait_finished(page) == "fail"
    replace_code(page, REFERENCE)
    run_with_keyboard(page)
    assert wait_finished(page) == "pass"
    page.reload()
    expect(page.locator("#run-status")).to_have_attribute("data-state", "pass")
    expect(page.locator("#last-run")).to_contain_text("Your last run")
    expect(page.locator("#checks li.check")).to_have_count(12)
    page.get_by_role("tab", name="History").click()
    items = page.locator("#history .history-item")
    expect(items).to_have_count(2)
    expect(items.nth(0).locator(".status")).to_have_text("passed")
    expect(items.nth(1).locator(".status")).to_have_text("failed")
    items.nth(1).get_by_role("button", name="Compare code").click()
    expect(page.locator("#compare-bar")).to_be_visible()
    expect(page.locator("#compare-view .cm-deletedChunk, #compare-view .cm-changedLine").first).to_be_visible()
    page.screenshot(path=artifacts / "history-diff.png")
    page.get_by_role("button", name="Restore this code").click()
    assert "np.sqrt" not in editor_text(page).split("scores")[1][:40] or editor_text(page) != REFERENCE
    # Solved: next exercise, and the reference (this exercise allows it) as a diff.
    page.get_by_role("tab", name="Results", exact=True).last.click()
    expect(page.locator("#next-exercise")).to_be_visible()
    page.get_by_role("button", name="Compare with the reference solution").click()
    expect(page.locator("#compare-title")).to_contain_text("The reference solution")
    expect(page.get_by_role("button", name="Restore this code")).to_be_hidden()
    # A course page's "your runs" leads to the exercise with its History open.
    exercise_url = page.url.split("#")[0]
    page.goto("about:blank")
    page.goto(f"{exercise_url}#history")
    expect(page.get_by_role("tab", name="History")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#history .history-item")).to_have_count(2)


def test_a_run_in_progress_is_re_attached_after_a_reload(page: Page) -> None:
    open_exercise(page)
    replace_code(page, WAITING)
    run_with_keyboard(page)
    expect(page.locator("#run-status")).to_have_attribute("data-state", "running")
    page.reload()
    expect(page.locator("#run-status")).to_have_attribute("data-state", "running")
    expect(page.locator("#stop-button")).to_be_visible()
    page.locator("#stop-button").click()
    expect(page.locator("#run-status")).to_have_attribute("data-state", "stopped")
    expect(page.locator("#run-status")).to_have_text("stopped")


def test_the_editor_marks_errors_and_has_options_completion_and_dedent(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    replace_code(page, "import numpy as np\n\ndef attend_step(x_t, cache, p)\n    return None\n")
    run_with_keyboard(page)
    assert wait_finished(page) == "error"
    marker = page.locator("#editor .cm-lint-marker-error")
    expect(marker).to_have_count(1)
    expect(page.locator("#editor .cm-lintRange-error")).to_have_count(1)
    page.locator("#editor .cm-lintRange-error").hover()
    expect(page.locator(".cm-tooltip-lint")).to_contain_text("line 3")
    # Focus came back to the editor after a run started from it.
    assert page.evaluate("() => document.activeElement.classList.contains('cm-content')")
    page.screenshot(path=artifacts / "editor-marks.png")
    # A traceback line: raised inside attend_step, marked at that line.
    raising = REFERENCE.replace(
        "def attend_step(x_t, cache, p):\n", "def attend_step(x_t, cache, p):\n    raise ValueError('boom')\n", 1
    )
    replace_code(page, raising)
    run_with_keyboard(page)
    wait_finished(page)
    line = raising.splitlines().index("    raise ValueError('boom')") + 1
    # Every check raised there: the line is given once, with the failure they share, not under each check.
    expect(page.locator("#panel-results .go-to-line")).to_have_text([f"Go to line {line}"])
    expect(page.locator("#editor .cm-lint-marker-error")).to_have_count(1)
    # Options: wrap, font size and vim keys, remembered.
    page.locator("#editor-settings summary").click()
    page.get_by_label("Wrap long lines").check()
    expect(page.locator("#editor .cm-content")).to_have_class(re.compile("cm-lineWrapping"))
    page.get_by_role("button", name="Larger font").click()
    page.get_by_label("Vim keys").check()
    expect(page.locator("#editor .cm-vimMode, #editor .cm-fat-cursor").first).to_be_attached()
    page.reload()
    expect(page.locator("#editor .cm-content")).to_have_class(re.compile("cm-lineWrapping"))
    assert page.locator("#editor .cm-editor").evaluate("(el) => getComputedStyle(el).fontSize") == "15px"
    page.locator("#editor-settings summary").click()
    page.get_by_label("Vim keys").uncheck()
    page.locator("#editor-settings summary").click()
    # Completion and dedent.
    replace_code(page, "def f(x):\n    ")
    page.keyboard.type("ret")
    expect(page.locator(".cm-tooltip-autocomplete")).to_contain_text("return")
    page.keyboard.press("Escape")
    page.keyboard.type("urn x")
    page.keyboard.press("Enter")
    page.keyboard.type("y = np.zer")
    expect(page.locator(".cm-tooltip-autocomplete")).to_contain_text("zeros")
    page.keyboard.press("Escape")
    assert editor_text(page).splitlines()[-1] == "y = np.zer", editor_text(page)  # dedented after the return


def test_a_hanging_run_shows_time_and_check_and_stop_ends_it(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    replace_code(page, WAITING)
    run_with_keyboard(page)
    expect(page.locator("#run-progress")).to_contain_text("check 1 of 12: The worked example")
    expect(page.locator("#run-elapsed")).to_have_text(re.compile(r"^\d+\.\d s$"))
    expect(page.locator("#stop-button")).to_be_visible()
    page.screenshot(path=artifacts / "running.png")
    page.locator("#stop-button").click()
    expect(page.locator("#run-status")).to_have_attribute("data-state", "stopped")
    expect(page.locator("#run-status")).to_have_text("stopped")
    expect(page.locator('#checks li.check[data-reason="stopped"]')).to_have_count(1)
    expect(page.locator("#stop-button")).to_be_hidden()
    page.screenshot(path=artifacts / "stopped.png")


def test_hints_come_once_then_one_level_per_failed_run_that_gives_them(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    replace_code(page, NO_SCALING)
    run_with_keyboard(page)
    assert wait_finished(page) == "fail"
    mistake = page.locator("#run-message.mistake")
    expect(page.locator("#results-pane .check-hint, #checks .check-hint")).to_have_count(0)
    # No button for a level that is not open: the page says when it opens instead.
    expect(mistake.locator(".hint-closed")).to_have_text(
        "Level 2 of this hint opens after 1 more failed run that gives it (or once you solve the exercise)."
    )
    expect(mistake.get_by_role("button", name=re.compile("More help"))).to_have_count(0)
    run_with_keyboard(page)
    assert wait_finished(page) == "fail"
    mistake.get_by_role("button", name="More help (2 of 3)").click()
    expect(mistake.locator(".hint-formula")).to_contain_text("√d")
    expect(mistake.locator(".hint-closed")).to_contain_text("Level 3 of this hint opens after 1 more failed run")
    run_with_keyboard(page)
    assert wait_finished(page) == "fail"
    mistake.get_by_role("button", name="More help (2 of 3)").click()
    mistake.get_by_role("button", name="More help (3 of 3)").click()
    expect(mistake.locator(".hint-code code")).to_contain_text("np.sqrt")
    expect(mistake.get_by_role("button", name=re.compile("More help"))).to_have_count(0)
    expect(mistake.locator(".hint-closed")).to_have_count(0)
    page.screenshot(path=artifacts / "hints.png")


def test_the_page_is_light_and_axe_finds_no_violation(browser: Browser, base_url: str, artifacts: Path) -> None:
    lines = []
    for name, viewport, scheme in (
        ("light", {"width": 1440, "height": 900}, "light"),
        ("dark", {"width": 1440, "height": 900}, "dark"),
        ("phone", {"width": 390, "height": 844}, "light"),
    ):
        context = browser.new_context(base_url=base_url, viewport=viewport, color_scheme=scheme)
        page = context.new_page()
        page.goto(f"/exercises/{SLUG}")
        page.wait_for_load_state("networkidle")
        expect(page.locator("#editor .cm-editor")).to_be_attached()
        expect(page.locator(".statement [data-typeset]").first).to_be_attached()
        transferred = page.evaluate(
            "() => performance.getEntriesByType('navigation')[0].transferSize"
            " + performance.getEntriesByType('resource').reduce((sum, e) => sum + e.transferSize, 0)"
        )
        assert transferred < 350_000, f"the exercise page moved {transferred} bytes"
        page.evaluate(AXE.read_text(encoding="utf-8"))
        for tab in ("statement", "code", "results") if name == "phone" else ("",):
            if tab:
                page.locator(f"#tab-{tab}").click()
            result = page.evaluate(
                "async () => (await axe.run(document)).violations"
                ".map(v => [v.id, v.nodes.length, v.nodes[0].target.join(' ')])"
            )
            assert result == [], f"axe-core ({name} {tab}): {result}"
        lines.append(f"{name}: {transferred} bytes transferred, axe-core violations: 0")
        context.close()
    (artifacts / "weight-and-axe.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
