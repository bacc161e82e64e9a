"""A learner's way through the pages in a real browser, with the real grader behind them."""

from __future__ import annotations

import re
from pathlib import Path

from browser_support import REPO, SLUG, Problems
from playwright.sync_api import Page, expect

from grader.exercise import mutant_source

KV = REPO / "exercises" / SLUG
REFERENCE = (KV / "reference.py").read_text(encoding="utf-8")
STARTER = (KV / "starter.py").read_text(encoding="utf-8")
NO_SCALING = mutant_source(KV, "no-scaling")  # a known mistake, named when run
FINISHED = re.compile(r"^(pass|fail|error|timeout|stopped)$")

# Records, from the Ctrl+Enter keydown, when finished check rows appear (a MutationObserver sees each change).
WATCH_CHECKS = """
() => {
  window.__runTimes = { start: null, rows: [] };
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      window.__runTimes = { start: performance.now(), rows: [] };
    }
  }, true);
  const list = document.getElementById("checks");
  new MutationObserver(() => {
    const done = list.querySelectorAll('li.check:not([data-status="pending"]):not([data-status="running"])').length;
    const rows = window.__runTimes.rows;
    if (done > 0 && (rows.length === 0 || rows[rows.length - 1].count !== done)) {
      rows.push({ t: performance.now(), count: done });
    }
  }).observe(list, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"] });
}
"""


def open_exercise(page: Page) -> None:
    page.goto(f"/exercises/{SLUG}")
    expect(page.locator("#editor .cm-editor")).to_be_visible()


def replace_code(page: Page, code: str) -> None:
    page.locator("#editor .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    assert editor_text(page) == code


def editor_text(page: Page) -> str:
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('#editor .cm-content .cm-line'), (l) => l.textContent).join('\\n')"
    )


def run_with_keyboard(page: Page) -> None:
    page.locator("#editor .cm-content").focus()
    page.keyboard.press("Control+Enter")


def wait_finished(page: Page, timeout: float = 60_000) -> str:
    status = page.locator("#run-status")
    expect(status).to_have_attribute("data-state", FINISHED, timeout=timeout)
    return status.get_attribute("data-state") or ""


def test_roadmap_lists_the_exercise(page: Page, artifacts: Path, problems: Problems) -> None:
    page.goto("/")
    expect(page.get_by_role("heading", name="Roadmap")).to_be_visible()
    expect(page.get_by_role("heading", name="Efficient Inference & Compression", exact=True)).to_be_visible()
    card = page.locator(f'a.exercise-card[data-slug="{SLUG}"]')
    expect(card).to_contain_text("Decoding with a KV Cache")
    expect(card.locator(".difficulty")).to_have_text("medium")
    expect(card.locator(".tag")).to_have_text(["inference", "attention"])
    expect(card.locator(".solved-mark")).to_have_count(0)
    page.screenshot(path=artifacts / "roadmap.png")
    card.click()
    expect(page).to_have_url(re.compile(f"/exercises/{SLUG}$"))
    assert problems.messages == []


def test_exercise_page_statement_math_hints_limits_editor(page: Page, artifacts: Path, problems: Problems) -> None:
    open_exercise(page)
    crumbs = page.get_by_role("navigation", name="Breadcrumb")
    expect(crumbs).to_contain_text("Roadmap")
    expect(crumbs).to_contain_text("Efficient Inference & Compression")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Decoding with a KV Cache")
    expect(page.locator("#solved-mark")).to_be_hidden()
    # KaTeX typeset every formula: its own markup is there and no TeX source is left as text.
    expect(page.locator(".statement .katex").first).to_be_visible()
    typeset = page.locator(".statement [data-typeset]").count()
    assert typeset == page.locator(".statement .math-inline, .statement .math-display").count() > 10
    assert page.locator(".statement .katex-display").count() >= 1
    assert page.locator(".statement .math-error").count() == 0
    # Hints stay folded until asked for.
    hint = page.locator("details.hint")
    expect(hint).not_to_have_attribute("open", "")
    expect(hint.locator("p")).to_be_hidden()
    hint.locator("summary").click()
    expect(hint.locator("p").first).to_be_visible()
    expect(page.locator(".limits")).to_contain_text("Time limit")
    expect(page.locator(".limits")).to_contain_text("2 s")
    expect(page.locator(".limits")).to_contain_text("512 MB")
    expect(page.locator(".filename")).to_have_text("solution.py")
    expect(page.locator("#run-status")).to_have_text("idle")
    expect(page.locator("#results-placeholder")).to_have_text("Press Run (⌘/Ctrl + Enter) to test your code.")
    assert editor_text(page) == STARTER.rstrip("\n") or editor_text(page) == STARTER
    # Python highlighting: the keyword "def" is styled by the highlighter.
    assert page.locator("#editor .cm-line span").count() > 5
    page.screenshot(path=artifacts / "exercise.png")
    assert problems.messages == []


def test_correct_solution_checks_arrive_one_by_one_and_mark_solved(
    page: Page, artifacts: Path, problems: Problems
) -> None:
    open_exercise(page)
    page.evaluate(WATCH_CHECKS)
    expect(page.locator("#next-exercise")).to_be_hidden()
    replace_code(page, REFERENCE)
    run_with_keyboard(page)
    expect(page.locator("#run-status")).not_to_have_attribute("data-state", "idle")
    assert wait_finished(page) == "pass"
    # The only exercise here: what comes next is the roadmap itself.
    expect(page.locator("#next-exercise")).to_be_visible()
    expect(page.locator("#next-exercise")).to_contain_text("the last exercise you had left")
    rows = page.locator("#checks li.check")
    expect(rows).to_have_count(12)
    expect(page.locator('#checks li.check[data-status="pass"]')).to_have_count(12)
    expect(page.locator("#run-status")).to_have_text("passed")
    expect(page.locator("#run-summary")).to_contain_text("All 12 checks passed")
    expect(page.locator("#run-summary")).to_contain_text("total")
    expect(page.locator("#solved-mark")).to_be_visible()

    times = page.evaluate("() => window.__runTimes")
    observed = times["rows"]
    assert times["start"] is not None and observed
    first, last = observed[0], observed[-1]
    assert last["count"] == 12
    assert first["count"] < 12, f"all checks appeared at once: {observed}"
    assert first["t"] < last["t"]
    to_first, to_last = first["t"] - times["start"], last["t"] - times["start"]
    (artifacts / "timings.txt").write_text(
        f"Ctrl+Enter to first check row: {to_first:.0f} ms\n"
        f"Ctrl+Enter to last check row: {to_last:.0f} ms\n"
        f"observations (count of finished rows): {[o['count'] for o in observed]}\n",
        encoding="utf-8",
    )
    page.screenshot(path=artifacts / "passed.png")

    page.goto("/")
    card = page.locator(f'a.exercise-card[data-slug="{SLUG}"]')
    expect(card.locator(".solved-mark")).to_have_text("✓")
    expect(page.locator(".progress")).to_contain_text("1 of 1 solved")
    expect(page.locator(".section-progress")).to_contain_text("1 of 1 solved")
    expect(page.locator(".difficulty-path .step[data-solved]")).to_have_count(1)
    page.screenshot(path=artifacts / "roadmap-solved.png")
    page.goto(f"/exercises/{SLUG}")
    expect(page.locator("#solved-mark")).to_be_visible()
    assert problems.messages == []


def test_wrong_solution_shows_the_failing_checks_message(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    replace_code(page, NO_SCALING)
    page.get_by_role("button", name=re.compile("^Run")).click()
    assert wait_finished(page) == "fail"
    expect(page.locator("#run-status")).to_have_text("failed")
    failing = page.locator('#checks li.check[data-status="fail"]')
    assert failing.count() >= 1
    worked = page.locator("#checks li.check", has_text="The worked example from the statement")
    expect(worked).to_have_attribute("data-status", "fail")
    # The check says what differs; the mistake is named once, for the run, in place of the check's own guess.
    expect(worked.locator(".check-message")).to_contain_text("differs from the expected values")
    expect(worked.locator(".check-message")).not_to_contain_text("Right on the first call")
    expect(worked.locator(".check-message")).not_to_contain_text("known mistake")
    # The mistake and its hint are said once, above the checks, not under each check they explain.
    mistake = page.locator("#run-message.mistake")
    expect(mistake).to_contain_text("Most likely mistake: Scores are not divided by √d.")
    expect(mistake.locator(".check-hint")).to_contain_text("√d")
    expect(worked.locator(".check-hint")).to_have_count(0)
    expect(worked.locator(".check-details dt")).to_have_text(["call", "expected", "got"])
    hidden_failing = page.locator('#checks li.check[data-status="fail"]', has_text="many shapes")
    expect(hidden_failing.locator(".check-message")).not_to_be_empty()
    expect(hidden_failing.locator(".check-details")).to_have_count(0)
    expect(page.locator("#solved-mark")).to_be_hidden()
    page.screenshot(path=artifacts / "failed.png", full_page=True)


def test_what_a_hidden_check_printed_is_counted_on_the_page_but_not_shown(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    # Prints its inputs (a hidden check's data) on every call.
    printing = REFERENCE.replace(
        "def attend_step(x_t, cache, p):\n", "def attend_step(x_t, cache, p):\n    print('SECRET', x_t.tolist())\n", 1
    )
    replace_code(page, printing)
    run_with_keyboard(page)
    assert wait_finished(page) == "pass"
    public = page.locator("#checks li.check", has_text="The worked example from the statement")
    expect(public.locator(".check-output pre")).to_contain_text("SECRET [1.0, 0.0]")
    hidden = page.locator("#checks li.check", has_text="many shapes")
    expect(hidden.locator(".check-output-hidden")).to_contain_text("not shown: the check is hidden")
    expect(hidden.locator(".check-output")).to_have_count(0)
    assert page.locator("#output").inner_text().count("SECRET") == 3  # the worked example's three calls
    page.screenshot(path=artifacts / "hidden-output.png", full_page=True)


def test_syntax_error_shows_its_line(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    replace_code(page, "import numpy as np\n\ndef attend_step(x_t, cache, p)\n    return None\n")
    run_with_keyboard(page)
    assert wait_finished(page) == "error"
    message = page.locator("#run-message")
    expect(message).to_be_visible()
    expect(message).to_contain_text("line 3")
    expect(page.locator("#checks li")).to_have_count(0)
    message.get_by_role("button", name="Go to line 3").click()
    expect(page.locator("#editor .cm-activeLine")).to_have_text("def attend_step(x_t, cache, p)")
    page.screenshot(path=artifacts / "syntax-error.png")


def test_infinite_loop_times_out_and_the_page_stays_usable(page: Page, artifacts: Path) -> None:
    open_exercise(page)
    looping = REFERENCE.replace(
        "def attend_step(x_t, cache, p):\n", "def attend_step(x_t, cache, p):\n    while True:\n        pass\n", 1
    )
    assert "while True" in looping
    replace_code(page, looping)
    run_with_keyboard(page)
    expect(page.locator("#run-status")).to_have_attribute("data-state", "running")
    expect(page.get_by_role("button", name=re.compile("^Run"))).to_be_disabled()
    wait_finished(page)
    timed_out = page.locator('#checks li.check[data-reason="timeout"]')
    expect(timed_out).to_have_count(1)
    expect(page.locator("#run-status")).to_have_text(re.compile("^timed out in “"))
    expect(timed_out.locator(".check-message")).to_contain_text("Time limit exceeded")
    page.screenshot(path=artifacts / "timeout.png")
    # Still usable: edit and run again.
    run_button = page.get_by_role("button", name=re.compile("^Run"))
    expect(run_button).to_be_enabled()
    replace_code(page, REFERENCE)
    run_button.click()
    assert wait_finished(page) == "pass"


def test_draft_is_kept_per_exercise_and_reset_restores_the_starter(page: Page) -> None:
    open_exercise(page)
    status = page.locator("#draft-status")
    expect(status).to_have_text("")  # the starter, nothing of yours yet
    replace_code(page, "# my draft\n" + STARTER)
    # Drafts are saved on the server a moment after the last change, and the page says when they are.
    expect(status).to_have_text("Saved")
    page.reload()
    expect(page.locator("#editor .cm-editor")).to_be_visible()
    assert editor_text(page).startswith("# my draft")
    expect(status).to_have_text("Saved")
    page.get_by_role("button", name="Reset to starter").click()
    assert editor_text(page).rstrip("\n") == STARTER.rstrip("\n")
    page.keyboard.press("Control+z")
    assert editor_text(page).startswith("# my draft")
    page.get_by_role("button", name="Reset to starter").click()
    expect(status).to_have_text("Saved")
    page.reload()  # the reset is kept: the starter, not the draft before it
    expect(page.locator("#editor .cm-editor")).to_be_visible()
    assert editor_text(page).rstrip("\n") == STARTER.rstrip("\n")


def test_tab_indents_in_the_editor(page: Page) -> None:
    open_exercise(page)
    replace_code(page, "x = 1")
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert editor_text(page) == "    x = 1"


def test_student_output_is_shown_as_text_never_as_html(page: Page) -> None:
    open_exercise(page)
    replace_code(page, 'print("<img src=x onerror=alert(1)><b>bold</b>")\n' + REFERENCE)
    run_with_keyboard(page)
    assert wait_finished(page) == "pass"
    output = page.locator("#output")
    expect(output).to_contain_text("<img src=x onerror=alert(1)><b>bold</b>")
    expect(page.locator("#output img, #output b")).to_have_count(0)


def test_phone_and_dark_mode(page: Page, artifacts: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(color_scheme="dark")
    page.goto(f"/exercises/{SLUG}")
    page.get_by_role("tab", name="Code").click()
    expect(page.locator("#editor .cm-editor")).to_be_visible()
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px on a phone"
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    channels = [int(c) for c in re.findall(r"\d+", background)[:3]]
    assert sum(channels) < 120, f"dark mode background is {background}"
    page.screenshot(path=artifacts / "phone-dark.png")
    page.emulate_media(color_scheme="light")
    light = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert sum(int(c) for c in re.findall(r"\d+", light)[:3]) > 600


def test_docs_page_loads_offline_without_policy_violations(page: Page, problems: Problems) -> None:
    page.goto("/docs")
    expect(page.locator(".swagger-ui .title").first).to_contain_text("mlkata")
    assert problems.messages == []


def test_keyboard_only_run(page: Page) -> None:
    open_exercise(page)
    replace_code(page, REFERENCE)
    page.get_by_role("button", name=re.compile("^Run")).focus()
    page.keyboard.press("Enter")
    assert wait_finished(page) == "pass"
