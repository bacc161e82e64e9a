"""The roadmap of the whole curriculum in Chromium: search and filters on every exercise, without reloading and kept
in the URL; a failed run makes an exercise attempted and the one to pick up; section pages; the profile; axe and a
phone on each of them."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_support import REPO, Problems
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from test_browser_accounts import axe_violations
from test_browser_exercise import replace_code, run_with_keyboard, wait_finished

from grader.exercise import Exercise, load_each_exercise

CURRICULUM = REPO / "exercises"
WIDE = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
ATTEMPTED = "cross-entropy"  # an easy one of the first section, run once with its starter: every check fails
SOLVED = "model-accounting"  # the first exercise of the roadmap, solved with its reference
# The outermost elements that stick out of the screen on the right (a box that scrolls on its own does not count).
WIDER_THAN_THE_SCREEN = """
() => Array.from(document.querySelectorAll("body *"))
  .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
  .filter((el) => !el.parentElement.closest(".table-scroll, .calendar-scroll"))
  .filter((el, _, all) => !all.includes(el.parentElement))
  .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} ${el.getBoundingClientRect().right}`)
"""


@pytest.fixture(scope="module")
def exercises_dir() -> Path:
    """The real curriculum, every section of it."""
    return CURRICULUM


@pytest.fixture(scope="module")
def curriculum() -> dict[str, Exercise]:
    loaded, broken = load_each_exercise(CURRICULUM)
    assert not broken and len(loaded) >= 69
    return loaded


@dataclass
class Learner:
    """A learner who solved the first exercise and failed the starter of another: their browser's cookie."""

    state: dict
    problems: Problems


def open_context(browser: Browser, base_url: str, problems: Problems, *, state: dict | None = None,
                 viewport: dict | None = None, scheme: str = "light") -> BrowserContext:  # fmt: skip
    context = browser.new_context(
        base_url=base_url,
        viewport=viewport or WIDE,
        color_scheme=scheme,
        storage_state=state,  # type: ignore[arg-type]
    )
    context.on("console", problems.on_console)
    context.on("weberror", lambda error: problems.messages.append(f"page error: {error.error}"))
    return context


def run_on_the_page(page: Page, slug: str, file: str) -> str:
    """Open the exercise, put ``file`` of its folder in the editor, run it with Ctrl+Enter; the verdict."""
    page.goto(f"/exercises/{slug}")
    expect(page.locator("#editor .cm-editor")).to_be_visible()
    replace_code(page, (CURRICULUM / slug / file).read_text(encoding="utf-8"))
    run_with_keyboard(page)
    return wait_finished(page)


@pytest.fixture(scope="module")
def learner(browser: Browser, base_url: str) -> Learner:
    problems = Problems()
    context = open_context(browser, base_url, problems)
    page = context.new_page()
    assert run_on_the_page(page, SOLVED, "reference.py") == "pass"
    assert run_on_the_page(page, ATTEMPTED, "starter.py") == "fail"
    learner = Learner(context.storage_state(), problems)  # type: ignore[arg-type]
    context.close()
    return learner


def shown(page: Page) -> list[str]:
    """The slugs the roadmap's list shows, in order."""
    return page.locator("[data-finder-item]:visible").evaluate_all("(items) => items.map((li) => li.dataset.slug)")


def expect_list(page: Page, slugs: list[str], total: int) -> None:
    expect(page.locator("[data-finder-item]:visible")).to_have_count(len(slugs))
    assert shown(page) == slugs
    said = f"{len(slugs)} of {total} exercises" if len(slugs) < total else f"{total} exercises"
    expect(page.get_by_role("status").filter(has_text="exercises")).to_have_text(said)


def in_roadmap_order(curriculum: dict[str, Exercise], keep: Callable[[Exercise], bool]) -> list[str]:
    return [slug for slug, exercise in curriculum.items() if keep(exercise)]  # load_each_exercise keeps the order


def searched(curriculum: dict[str, Exercise], word: str) -> list[str]:
    """What a search of one word finds: its title, slug, tags or function names hold it, case aside."""
    return in_roadmap_order(
        curriculum,
        lambda e: any(word in text.lower() for text in (e.config.title, e.slug, *e.config.tags, *e.function_names)),
    )


def query(page: Page) -> dict[str, str]:
    found = re.search(r"\?(.*)$", page.url)
    return dict(pair.split("=", 1) for pair in found[1].split("&")) if found else {}


def test_search_and_filters_narrow_the_whole_curriculum_without_reloading_and_live_in_the_url(
    page: Page, curriculum: dict[str, Exercise], artifacts: Path, problems: Problems
) -> None:
    total = len(curriculum)
    page.goto("/")
    expect_list(page, list(curriculum), total)
    sections = page.locator(".section-card")
    expect(sections).to_have_count(5)
    expect(sections.locator("h3")).to_have_text(
        [re.compile(title) for title in ("Foundations", "Efficient Inference", "Serving", "Training", "Kernels")]
    )
    page.evaluate("() => { window.__sameDocument = true; }")  # gone if anything reloads the page

    search = page.get_by_role("searchbox", name="Search")
    search.fill("attention")
    word = searched(curriculum, "attention")
    assert 8 < len(word) < total
    expect_list(page, word, total)
    assert query(page) == {"q": "attention"}

    page.get_by_label("Difficulty", exact=True).select_option("hard")
    hard = [slug for slug in word if curriculum[slug].config.difficulty == "hard"]
    assert 0 < len(hard) < len(word)
    expect_list(page, hard, total)
    assert query(page) == {"q": "attention", "difficulty": "hard"}
    # Sections with nothing left to show are hidden with their heading.
    groups = page.locator(".exercise-group:visible h3")
    expect(groups).to_have_count(len({curriculum[slug].section.title for slug in hard}))

    search.fill("")
    page.get_by_label("Section", exact=True).select_option(label="Serving Systems")
    page.get_by_label("Tag", exact=True).select_option("kv-cache")
    serving = in_roadmap_order(
        curriculum,
        lambda e: (e.section.title, e.config.difficulty) == ("Serving Systems", "hard") and "kv-cache" in e.config.tags,
    )
    assert serving == ["block-cow", "radix-cache-lru"]
    expect_list(page, serving, total)
    assert query(page) == {"section": "serving-systems", "difficulty": "hard", "tag": "kv-cache"}
    page.screenshot(path=artifacts / "roadmap-filtered.png")

    # Another visit of that address opens the roadmap filtered, its controls set, scrolled to the list.
    address = page.url
    page.goto("about:blank")
    page.goto(address)
    expect_list(page, serving, total)
    expect(page.get_by_label("Section", exact=True)).to_have_value("serving-systems")
    expect(page.get_by_label("Tag", exact=True)).to_have_value("kv-cache")
    expect(page.get_by_role("heading", name="Exercises", exact=True)).to_be_in_viewport()
    page.evaluate("() => { window.__sameDocument = true; }")

    # A function's name finds the exercise that asks for it, and the card says so.
    page.get_by_role("button", name="Clear filters").click()
    expect_list(page, list(curriculum), total)
    assert query(page) == {}
    expect(search).to_be_focused()
    page.keyboard.type("attend_step")
    steps = searched(curriculum, "attend_step")
    assert steps == ["kv-cache-decoding", "gqa-kv-cache", "sliding-window-cache"]
    expect_list(page, steps, total)
    expect(page.locator('[data-slug="kv-cache-decoding"] .match-note')).to_have_text("Asks for attend_step()")
    expect(page.locator('[data-slug="gqa-kv-cache"] .match-note')).to_have_text("Asks for gqa_attend_step()")

    # Nothing left: said so, with a way back.
    search.fill("no such exercise")
    expect_list(page, [], total)
    empty = page.locator("#finder-empty")
    expect(empty).to_contain_text("No exercise matches these filters.")
    empty.get_by_role("button", name="Clear filters").click()
    expect_list(page, list(curriculum), total)
    expect(empty).to_be_hidden()

    # "/" goes to the search box from anywhere on the page.
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("/")
    expect(search).to_be_focused()
    assert page.evaluate("() => window.__sameDocument") is True
    assert problems.messages == []


def test_a_failed_run_makes_an_exercise_attempted_and_the_one_to_pick_up(
    browser: Browser, base_url: str, learner: Learner, curriculum: dict[str, Exercise], artifacts: Path
) -> None:
    total = len(curriculum)
    context = open_context(browser, base_url, learner.problems, state=learner.state)
    page = context.new_page()
    page.goto("/")
    expect(page.locator("#progress-label")).to_have_text(f"1 of {total} solved · 1 attempted")
    # The next exercise at a glance: the one last run, not solved yet.
    panel = page.locator("section.next-up")
    expect(panel).to_have_attribute("data-slug", ATTEMPTED)
    expect(panel.get_by_role("heading", level=2)).to_have_text(
        f"Pick up where you left off {curriculum[ATTEMPTED].config.title}"
    )
    expect(panel).to_contain_text("1 run so far")
    expect(panel).to_be_in_viewport()
    card = page.locator(f'a.exercise-card[data-slug="{ATTEMPTED}"]')
    expect(card).to_have_attribute("data-status", "attempted")
    expect(card).to_have_attribute("data-next", "")
    expect(card.locator(".next-badge")).to_have_text("Next up")
    expect(card.locator(".card-runs")).to_have_text("Attempted · 1 run")
    expect(card.get_by_role("heading")).to_contain_text("Attempted:")
    solved = page.locator(f'a.exercise-card[data-slug="{SOLVED}"]')
    expect(solved).to_have_attribute("data-status", "solved")
    expect(solved.locator(".solved-mark")).to_be_visible()
    expect(page.locator('.section-card[data-section="foundations-transformer-internals"] .count')).to_have_text(
        "1 of 14 solved · 1 attempted"
    )
    page.screenshot(path=artifacts / "roadmap-attempted.png")

    status = page.get_by_label("Status", exact=True)
    status.select_option("attempted")
    expect_list(page, [ATTEMPTED], total)
    status.select_option("solved")
    expect_list(page, [SOLVED], total)
    status.select_option("not-started")
    expect_list(page, [slug for slug in curriculum if slug not in (ATTEMPTED, SOLVED)], total)
    # Another learner in another browser: nothing attempted, and the first exercise is where to start.
    other = open_context(browser, base_url, learner.problems).new_page()
    other.goto("/?status=attempted")
    expect_list(other, [], total)
    other.goto("/")
    expect(other.locator("section.next-up")).to_have_attribute("data-why", "start")
    expect(other.locator("section.next-up")).to_have_attribute("data-slug", SOLVED)
    other.context.close()
    context.close()
    assert learner.problems.messages == []


def test_a_section_card_opens_its_page_with_its_description_and_its_exercises_easy_to_hard(
    browser: Browser, base_url: str, learner: Learner, curriculum: dict[str, Exercise], artifacts: Path
) -> None:
    context = open_context(browser, base_url, learner.problems, state=learner.state)
    page = context.new_page()
    page.goto("/")
    page.locator('.section-card[data-section="efficient-inference-compression"]').click()  # anywhere on the card
    expect(page).to_have_url(re.compile("/sections/efficient-inference-compression$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Efficient Inference & Compression")
    section = [e for e in curriculum.values() if e.section.title == "Efficient Inference & Compression"]
    expect(page.locator(".section-description")).to_have_text(section[0].section.summary)
    cards = page.locator("a.exercise-card")
    expect(cards).to_have_count(len(section))
    difficulties = cards.locator(".difficulty").all_text_contents()
    assert difficulties == sorted(difficulties, key=["easy", "medium", "hard"].index)
    assert difficulties[0] == "easy"  # the KV cache exercise's order is 10, but it is medium
    expect(page.get_by_role("navigation", name="Breadcrumb")).to_contain_text("Section 2 of 5")
    # Nothing run here yet: start with its first.
    expect(page.locator("section.next-up")).to_have_attribute("data-why", "start")
    expect(page.locator("section.next-up")).to_have_attribute("data-slug", section[0].slug)
    page.screenshot(path=artifacts / "section.png", full_page=True)
    page.get_by_role("link", name=re.compile("Serving Systems")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Serving Systems")
    # An exercise's breadcrumb leads back to its section.
    page.goto("/exercises/rope")
    crumbs = page.get_by_role("navigation", name="Breadcrumb")
    crumbs.get_by_role("link", name="Efficient Inference & Compression").click()
    expect(page).to_have_url(re.compile("/sections/efficient-inference-compression$"))
    context.close()
    assert learner.problems.messages == []


def test_the_profile_shows_solved_per_section_and_difficulty_runs_and_a_calendar(
    browser: Browser, base_url: str, learner: Learner, curriculum: dict[str, Exercise]
) -> None:
    context = open_context(browser, base_url, learner.problems, state=learner.state)
    page = context.new_page()
    page.goto("/")
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Profile").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your profile")
    stats = page.get_by_role("list", name="In numbers")
    expect(stats.locator('[data-stat="solved"]')).to_have_text(f"1 solved of {len(curriculum)}")
    expect(stats.get_by_role("progressbar", name=f"1 solved of {len(curriculum)}")).to_have_attribute("value", "1")
    expect(stats.locator('[data-stat="attempted"]')).to_have_text("1 attempted, not solved yet")
    expect(stats.locator('[data-stat="runs"]')).to_have_text("2 runs, 1 passing")
    expect(stats.locator('[data-stat="streak"]')).to_have_text("1 day in a row, longest 1")
    table = page.get_by_role("table", name="Solved by section and difficulty")
    row = table.locator('tr[data-section="foundations-transformer-internals"]')
    expect(row.locator("td")).to_have_text(["1 / 3", "0 / 6", "0 / 5", "1 / 14"])
    expect(table.locator("tbody tr")).to_have_count(5)
    calendar = page.get_by_role("table", name="Runs and tries per day, the last year")
    active = calendar.locator('td[data-level]:not([data-level="0"])')
    expect(active).to_have_count(1)
    expect(active).to_have_attribute("title", re.compile(r": 2 runs$"))
    days_this_week = page.evaluate("() => new Date().getUTCDay() || 7")  # Monday to today, in UTC
    expect(calendar.locator("td[data-level]")).to_have_count(7 * 52 + days_this_week)
    runs = page.get_by_role("heading", name="Latest runs").locator("xpath=..").locator("li")
    expect(runs).to_have_count(2)
    expect(runs.first.locator(".status")).to_have_text("failed")
    runs.first.get_by_role("link").click()
    expect(page).to_have_url(re.compile(f"/exercises/{ATTEMPTED}#history$"))
    expect(page.locator("#ctab-history")).to_have_attribute("aria-selected", "true")
    context.close()
    assert learner.problems.messages == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_of_the_roadmap_passes_axe(
    browser: Browser, base_url: str, learner: Learner, artifacts: Path, scheme: str
) -> None:
    context = open_context(browser, base_url, learner.problems, state=learner.state, scheme=scheme)
    page = context.new_page()
    for name, path in (
        ("roadmap", "/"),
        ("roadmap-filtered", "/?q=cache&difficulty=medium"),
        ("roadmap-empty", "/?q=nothing+at+all"),
        ("section", "/sections/foundations-transformer-internals"),
        ("profile", "/profile"),
    ):
        page.goto(path)
        expect(page.locator("main")).to_be_visible()
        assert axe_violations(page) == [], f"axe-core on {path} ({scheme})"
        page.screenshot(path=artifacts / f"{name}-{scheme}.png")
    context.close()
    assert learner.problems.messages == []


def test_on_a_phone_every_page_fits_and_the_filters_work(
    browser: Browser, base_url: str, learner: Learner, curriculum: dict[str, Exercise], artifacts: Path
) -> None:
    context = open_context(browser, base_url, learner.problems, state=learner.state, viewport=PHONE)
    page = context.new_page()
    for name, path in (("roadmap", "/"), ("section", "/sections/serving-systems"), ("profile", "/profile")):
        page.goto(path)
        page.screenshot(path=artifacts / f"{name}-phone.png")
        wide = page.evaluate(WIDER_THAN_THE_SCREEN)
        assert wide == [], f"{path}: {wide}"
        assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0, path
        assert axe_violations(page) == [], f"axe-core on {path} (phone)"
    # The calendar scrolls on its own, showing its latest weeks first.
    scroller = page.locator(".calendar-scroll")
    scroller.scroll_into_view_if_needed()
    today = page.locator("td[data-level]").last
    expect(today).to_be_in_viewport()
    assert scroller.evaluate("(box) => box.scrollWidth > box.clientWidth")
    # The filters, by touch.
    page.goto("/")
    next_up: Locator = page.locator("section.next-up")
    expect(next_up.get_by_role("link", name="Continue")).to_be_in_viewport()
    page.get_by_label("Difficulty", exact=True).select_option("easy")
    page.get_by_role("searchbox", name="Search").fill("loss")
    easy_loss = [slug for slug in searched(curriculum, "loss") if curriculum[slug].config.difficulty == "easy"]
    assert easy_loss
    expect_list(page, easy_loss, len(curriculum))
    page.screenshot(path=artifacts / "roadmap-filtered-phone.png", full_page=True)
    context.close()
    assert learner.problems.messages == []
