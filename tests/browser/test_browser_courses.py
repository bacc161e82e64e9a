"""Courses in Chromium: an instructor makes one, three students join with its link and run their code, and the
instructor's dashboard, analytics, runs and gradebook show what they did; nobody else sees any of it."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from browser_support import REPO, SLUG, Problems, Server
from playwright.sync_api import Browser, BrowserContext, Page, expect
from test_browser_accounts import PASSWORD, axe_violations, fill_sign_in, fill_sign_up, finish_sign_up, header
from test_browser_exercise import NO_SCALING, REFERENCE, STARTER, replace_code, run_with_keyboard, wait_finished

DOCS = REPO / "docs"
#: MLKATA_DOCS_SCREENSHOTS=1 also copies the dashboard's screenshots to docs/ (otherwise a run changes no file).
UPDATE_DOCS = os.environ.get("MLKATA_DOCS_SCREENSHOTS") == "1"
INT8, ROPE = "int8-quantization", "rope"
INT8_TITLE, ROPE_TITLE = "Int8 Weight Quantization", "Rotary Position Embeddings"
INT8_REFERENCE = (REPO / "exercises" / INT8 / "reference.py").read_text(encoding="utf-8")
INSTRUCTOR = "katherine@example.org"
OTHER_INSTRUCTOR = "grace@example.org"
TITLE = "Efficient Inference, spring 2031"
DUE = "2031-06-01T17:00"
INT8_DUE = "2031-06-08T17:00"
EXERCISE = "Decoding with a KV Cache"
MISTAKE_ID = "no-scaling"
MUTANT = NO_SCALING
MISTAKE = "Scores are not divided by √d."
# Who sends what on the KV cache: one right, one with a named mistake, one the starter (every check fails, no
# mistake named). Ada then solves the course's second exercise too; nobody has started the third.
STUDENTS = {"ada@example.org": REFERENCE, "alan@example.org": MUTANT, "emmy@example.org": STARTER}
VERDICTS = {"ada@example.org": "pass", "alan@example.org": "fail", "emmy@example.org": "fail"}
WIDE = {"width": 1440, "height": 900}
# The outermost elements that stick out of the screen on the right (a scrolling box's insides do not count).
WIDER_THAN_THE_SCREEN = """
() => Array.from(document.querySelectorAll("body *"))
  .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
  .filter((el) => !el.parentElement.closest(".table-scroll, .chart-scroll"))
  .filter((el, _, all) => !all.includes(el.parentElement))
  .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} ${el.getBoundingClientRect().right}`)
"""
# The bar labels of the page's charts that stick out of their chart or into their bar.
LABELS_OUTSIDE = """
() => Array.from(document.querySelectorAll("svg.chart .bar-row"), (row) => {
  const label = row.querySelector("text").getBBox(), bar = row.querySelector("rect.bar-track").getBBox();
  return label.x >= 0 && label.x + label.width <= bar.x ? null : row.dataset.label;
}).filter(Boolean)
"""


@pytest.fixture(scope="module")
def exercises_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The KV-cache exercise and two more of the roadmap's, for a course of three."""
    root = tmp_path_factory.mktemp("course-exercises")
    for slug in (SLUG, INT8, ROPE):
        shutil.copytree(REPO / "exercises" / slug, root / slug)
    return root


@dataclass
class Course:
    """The course the instructor made through the pages, and who is signed in where."""

    id: str
    join_link: str
    instructor: dict  # the instructor's browser state (its session cookie)
    students: dict[str, dict] = field(default_factory=dict)  # email → browser state
    problems: Problems = field(default_factory=Problems)

    @property
    def path(self) -> str:
        return f"/courses/{self.id}"


def open_context(browser: Browser, base_url: str, problems: Problems, state: dict | None = None) -> BrowserContext:
    context = browser.new_context(base_url=base_url, viewport=WIDE, color_scheme="light", storage_state=state)
    context.on("console", problems.on_console)
    context.on("weberror", lambda error: problems.messages.append(f"page error: {error.error}"))
    return context


def instructor_creates_the_course(page: Page, artifacts: Path) -> tuple[str, str]:
    """Sign in, New course, the form, Create; then copy the join link. Returns (course id, join link)."""
    page.goto("/")
    header(page).get_by_role("link", name="Sign in").click()
    fill_sign_in(page, INSTRUCTOR)
    header(page).get_by_role("link", name="Courses").click()
    expect(page.get_by_role("heading", name="Courses you teach")).to_be_visible()
    page.get_by_role("link", name="New course").click()
    expect(page.get_by_role("heading", name="New course", level=1)).to_be_visible()
    page.get_by_label("Title").fill(TITLE)
    for title in (EXERCISE, INT8_TITLE, ROPE_TITLE):
        page.get_by_label(title, exact=True).check()
    page.get_by_label(f"Due date of {EXERCISE}").fill(DUE)
    page.get_by_label(f"Due date of {INT8_TITLE}").fill(INT8_DUE)
    page.screenshot(path=artifacts / "course-form.png")
    page.get_by_role("button", name="Create course").click()
    expect(page.get_by_role("heading", name=TITLE, level=1)).to_be_visible()
    course_id = page.url.rsplit("/", 1)[1]
    rows = page.get_by_role("table", name="Exercises of the course").locator("tbody tr")
    # In the roadmap's order: its section's easy exercises before the medium KV cache.
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text(INT8_TITLE)
    expect(rows.nth(0)).to_contain_text("2031-06-08 17:00")
    expect(rows.nth(1)).to_contain_text(ROPE_TITLE)
    expect(rows.nth(1).locator("td").nth(1)).to_have_text("—")
    expect(rows.nth(2)).to_contain_text(EXERCISE)
    expect(rows.nth(2)).to_contain_text("2031-06-01 17:00")
    # The link is selected whole by one click; copied with the keyboard as anyone would.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator("code[data-join-url]").click()
    page.keyboard.press("Control+c")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == page.locator("code[data-join-url]").inner_text()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/join/[\w-]{16}", copied), copied
    page.screenshot(path=artifacts / "course-instructor.png")
    return course_id, copied


def student_joins_and_runs(page: Page, email: str, join_link: str, code: str) -> None:
    """Open the join link, sign up on the way, join, open the exercise from the course and send ``code``."""
    page.goto(join_link)
    expect(page).to_have_url(re.compile(r"/signin\?next=%2Fjoin%2F"))
    page.get_by_role("link", name="Sign up").click()
    fill_sign_up(page, email)
    finish_sign_up(page, email)
    expect(page.get_by_role("heading", name=f"Join “{TITLE}”")).to_be_visible()
    page.get_by_role("button", name="Join the course").click()
    expect(page.get_by_role("heading", name=TITLE, level=1)).to_be_visible()
    expect(page.locator("code[data-join-url]")).to_have_count(0)  # the link and the dashboard are the instructor's
    expect(page.get_by_role("link", name="Dashboard")).to_have_count(0)
    expect(page.locator(f'tr[data-slug="{SLUG}"]')).to_contain_text("not started")
    page.get_by_role("link", name=EXERCISE).click()
    expect(page.locator("#editor .cm-editor")).to_be_visible()
    replace_code(page, code)
    run_with_keyboard(page)  # not awaited here: the three students run at about the same time


@pytest.fixture(scope="module")
def course(browser: Browser, base_url: str, server: Server, artifacts: Path) -> Course:
    # The instructor is made as the operator makes one, with the server's own command.
    printed = server.cli("user", "create", INSTRUCTOR, "--role", "instructor", "--password-stdin", stdin=PASSWORD)
    assert printed.strip() == f"created {INSTRUCTOR} (instructor)"
    problems = Problems()
    context = open_context(browser, base_url, problems)
    course_id, join_link = instructor_creates_the_course(context.new_page(), artifacts)
    made = Course(course_id, join_link, context.storage_state(), problems=problems)
    context.close()

    pages = {}
    for email, code in STUDENTS.items():
        page = open_context(browser, base_url, problems).new_page()
        student_joins_and_runs(page, email, join_link, code)
        pages[email] = page
    ada = pages["ada@example.org"]
    assert wait_finished(ada) == "pass"
    ada.goto(made.path)
    ada.get_by_role("link", name=INT8_TITLE).click()
    expect(ada.locator("#editor .cm-editor")).to_be_visible()
    replace_code(ada, INT8_REFERENCE)
    run_with_keyboard(ada)
    for email, page in pages.items():
        assert wait_finished(page) == VERDICTS[email], email
        made.students[email] = page.context.storage_state()
        page.context.close()
    return made


def test_a_student_sees_the_course_with_its_due_date_and_their_solve(
    browser: Browser, base_url: str, course: Course, artifacts: Path
) -> None:
    context = open_context(browser, base_url, course.problems, course.students["ada@example.org"])
    page = context.new_page()
    page.goto("/courses")
    listed = page.locator(f'li[data-course="{course.id}"]')
    expect(listed).to_contain_text(TITLE)
    expect(listed).to_contain_text("2 of 3 solved")
    expect(page.locator("[data-due]")).to_have_count(0)  # both dated exercises solved: nothing left due
    expect(page.get_by_role("link", name="New course")).to_have_count(0)
    listed.get_by_role("link", name=TITLE).click()
    crumbs = page.get_by_role("navigation", name="Breadcrumb")
    expect(crumbs.get_by_role("link")).to_have_text(["Courses"])
    expect(crumbs).to_contain_text(TITLE)
    row = page.locator(f'tr[data-slug="{SLUG}"]')
    expect(row.locator("[data-solved]")).to_have_text("✓ solved")
    expect(row).to_contain_text("2031-06-01 17:00")
    expect(page.locator(f'tr[data-slug="{INT8}"] [data-solved]')).to_have_text("✓ solved")
    expect(page.locator(f'tr[data-slug="{ROPE}"]')).to_contain_text("not started")
    page.screenshot(path=artifacts / "course-student.png")
    assert axe_violations(page) == [], "axe-core on the course page (student)"
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate(WIDER_THAN_THE_SCREEN) == []
    page.screenshot(path=artifacts / "course-student-phone.png", full_page=True)
    # Alan has solved neither: the list shows both as due, soonest first, and the course his one run.
    context.close()
    context = open_context(browser, base_url, course.problems, course.students["alan@example.org"])
    page = context.new_page()
    page.goto("/courses")
    expect(page.locator("tr[data-due]")).to_have_text([
        re.compile(f"{EXERCISE}.*2031-06-01 17:00"), re.compile(f"{INT8_TITLE}.*2031-06-08 17:00")
    ])  # fmt: skip
    page.goto(course.path)
    expect(page.locator(f'tr[data-slug="{SLUG}"]')).to_contain_text("1 run")
    expect(page.locator(f'tr[data-slug="{INT8}"]')).to_contain_text("not started")
    context.close()
    assert course.problems.messages == []


def test_the_dashboard_matrix_shows_who_solved_what_in_how_many_runs(
    browser: Browser, base_url: str, course: Course, artifacts: Path
) -> None:
    context = open_context(browser, base_url, course.problems, course.instructor)
    page = context.new_page()
    page.goto("/courses")
    page.locator(f'li[data-teaching="{course.id}"]').get_by_role("link", name="Dashboard").click()
    expect(page.get_by_role("heading", name=f"{TITLE}: dashboard")).to_be_visible()
    expect(page.locator('[data-stat="students"]')).to_have_text("3")
    matrix = page.get_by_role("table", name="Students and exercises")
    expect(matrix.locator("tbody tr")).to_have_count(3)
    assert [row.get_attribute("data-student") for row in matrix.locator("tbody tr").all()] == list(STUDENTS)
    cells = {email: matrix.locator(f'tr[data-student="{email}"] td.cell[data-slug="{SLUG}"]') for email in STUDENTS}
    expect(cells["ada@example.org"]).to_have_attribute("data-state", "solved")
    expect(cells["ada@example.org"]).to_have_text("✓ 1")
    for email in ("alan@example.org", "emmy@example.org"):
        expect(cells[email]).to_have_attribute("data-state", "tried")
        expect(cells[email]).to_have_text("✗ 1")
    expect(matrix.locator(f'tr[data-student="ada@example.org"] td.cell[data-slug="{INT8}"]')).to_have_text("✓ 1")
    for email in STUDENTS:
        expect(matrix.locator(f'tr[data-student="{email}"] td.cell[data-slug="{ROPE}"]')).to_have_text("–")
    expect(matrix.locator("thead th")).to_contain_text(
        ["Student", f"{INT8_TITLE}33% solved", f"{ROPE_TITLE}0% solved", f"{EXERCISE}33% solved", "Last activity"]
    )
    expect(page.locator('[data-stat="solves"]')).to_have_text("2")
    bars = page.locator("#solved-chart .bar-row")
    expect(bars).to_have_count(3)
    assert [bar.get_attribute("data-fraction") for bar in bars.all()] == ["0.3333", "0.0000", "0.3333"]
    page.screenshot(path=artifacts / "dashboard-matrix.png")
    if UPDATE_DOCS:
        shutil.copyfile(artifacts / "dashboard-matrix.png", DOCS / "dashboard-matrix.png")
    assert axe_violations(page) == [], "axe-core on the dashboard"
    context.close()
    assert course.problems.messages == []


def test_the_exercise_analytics_name_the_mistake_and_who_made_it(
    browser: Browser, base_url: str, course: Course, artifacts: Path
) -> None:
    context = open_context(browser, base_url, course.problems, course.instructor)
    page = context.new_page()
    page.goto(f"{course.path}/dashboard")
    page.get_by_role("table", name="Students and exercises").get_by_role("link", name=EXERCISE).click()
    expect(page.get_by_role("heading", name=EXERCISE, level=1)).to_be_visible()
    expect(page.locator('[data-stat="solve-rate"]')).to_have_text("33%")
    expect(page.get_by_role("list", name="The exercise in numbers")).to_contain_text("solved (1 of 3)")
    expect(page.locator('[data-stat="median-attempts"]')).to_have_text("1")
    expect(page.locator('[data-stat="runs"]')).to_have_text("3")
    # The named mistake: once, by Alan, with the exercise's own words for it; beside it the symptom his
    # failing check was told (right on the first call only). Emmy's starter raises: neither.
    mistakes = page.get_by_role("table", name="Mistakes and symptoms")
    expect(mistakes.locator("tbody tr")).to_have_count(2)
    symptom = mistakes.locator('tr[data-mistake^="symptom/"]')
    expect(symptom.locator(".student-list li")).to_have_text(["alan@example.org"])
    row = mistakes.locator(f'tr[data-mistake="{MISTAKE_ID}"]')
    expect(row.locator("td").nth(0)).to_contain_text(MISTAKE)
    expect(row.locator("td").nth(1)).to_have_text("1")
    expect(row.locator("td").nth(2)).to_have_text("33%")
    expect(row.locator(".student-list li")).to_have_text(["alan@example.org"])
    bar = page.locator(f'#mistakes-chart .bar-row[data-label="{MISTAKE}"]')
    expect(bar).to_have_attribute("data-fraction", "0.3333")
    expect(bar.locator("text.value")).to_have_text("33% (1)")
    # Check failures, as bars: the worked example failed for Alan and Emmy, the byte count only for Emmy.
    checks = page.locator("#checks-chart .bar-row")
    expect(checks).to_have_count(12)
    worked = page.locator('#checks-chart .bar-row[data-label="The worked example from the statement"]')
    expect(worked).to_have_attribute("data-fraction", "0.6667")
    expect(worked.locator("text.value")).to_have_text("67% of 3")
    exact = page.locator('#checks-chart .bar-row[data-label="kv_cache_bytes on the statement\'s examples"]')
    expect(exact).to_have_attribute("data-fraction", "0.3333")
    table = page.get_by_role("table", name="Checks")
    expect(table.locator('tr[data-check="worked_example"] td')).to_have_text(
        ["The worked example from the statement", "3", "2", "67%", "2"]
    )
    # Every label is drawn whole inside the chart, left of its bar (a long one ends in "…").
    overflow = page.evaluate(LABELS_OUTSIDE)
    assert overflow == [], overflow
    expect(page.locator('#checks-chart .bar-row[data-label^="The new cache holds"] text').first).to_have_text(
        re.compile("…$")
    )
    page.screenshot(path=artifacts / "dashboard-exercise.png")
    if UPDATE_DOCS:
        shutil.copyfile(artifacts / "dashboard-exercise.png", DOCS / "dashboard-exercise.png")
    page.screenshot(path=artifacts / "dashboard-exercise-full.png", full_page=True)
    assert axe_violations(page) == [], "axe-core on the exercise analytics"
    context.close()
    assert course.problems.messages == []


def test_one_click_leads_from_the_matrix_to_a_students_code(
    browser: Browser, base_url: str, course: Course, artifacts: Path
) -> None:
    context = open_context(browser, base_url, course.problems, course.instructor)
    page = context.new_page()
    page.goto(f"{course.path}/dashboard")
    page.locator(f'tr[data-student="alan@example.org"] td.cell[data-slug="{SLUG}"] a').click()
    expect(page).to_have_url(re.compile(rf"/courses/{course.id}/students/[\w-]+#ex-{SLUG}$"))
    expect(page.get_by_role("heading", name="alan@example.org", level=1)).to_be_visible()
    runs = page.get_by_role("table", name=f"Runs on {SLUG}").locator("tbody tr")
    expect(runs).to_have_count(1)
    expect(runs.locator("td").nth(1)).to_have_text("fail")
    runs.get_by_role("link").click()
    expect(page.get_by_role("heading", name=f"{EXERCISE}: a run of alan@example.org")).to_be_visible()
    assert page.locator("pre[data-code]").inner_text() == MUTANT
    expect(page.get_by_text(f"Named mistake: {MISTAKE}")).to_be_visible()
    expect(page.locator('tr[data-check="worked_example"] td').nth(1)).to_have_text("fail")
    page.screenshot(path=artifacts / "dashboard-submission.png")
    assert axe_violations(page) == [], "axe-core on a student's run"
    # The breadcrumb goes back to the student, then to the dashboard.
    page.get_by_role("navigation", name="Breadcrumb").get_by_role("link", name="alan@example.org").click()
    assert axe_violations(page) == [], "axe-core on a student's runs"
    page.get_by_role("navigation", name="Breadcrumb").get_by_role("link", name=TITLE).click()
    expect(page.get_by_role("heading", name=f"{TITLE}: dashboard")).to_be_visible()
    context.close()
    assert course.problems.messages == []


def test_the_gradebook_downloads_from_the_dashboard_with_one_row_per_student(
    browser: Browser, base_url: str, course: Course, artifacts: Path
) -> None:
    context = open_context(browser, base_url, course.problems, course.instructor)
    page = context.new_page()
    page.goto(f"{course.path}/dashboard")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Gradebook (CSV)").click()
    download = download_info.value
    assert download.suggested_filename == "efficient-inference-spring-2031-gradebook.csv"
    download.save_as(artifacts / download.suggested_filename)
    raw = (artifacts / download.suggested_filename).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert [row["Email"] for row in rows] == list(STUDENTS)
    assert {row["Email"]: row[f"{SLUG} solved"] for row in rows} == {
        "ada@example.org": "yes",
        "alan@example.org": "no",
        "emmy@example.org": "no",
    }
    assert {row["Email"]: row[f"{INT8} solved"] for row in rows} == {
        "ada@example.org": "yes",
        "alan@example.org": "no",
        "emmy@example.org": "no",
    }
    assert [row[f"{ROPE} solved"] for row in rows] == ["no", "no", "no"]
    assert [row["Solved"] for row in rows] == ["2", "0", "0"]
    assert all(row[f"{slug} late"] == "no" for row in rows for slug in (SLUG, INT8, ROPE))
    points = next(name for name in rows[0] if name.startswith(f"{SLUG} points (of "))
    assert rows[0][points] == points.removeprefix(f"{SLUG} points (of ").removesuffix(")")  # Ada has them all
    assert all(int(row[points]) < int(rows[0][points]) for row in rows[1:])
    context.close()
    assert course.problems.messages == []


STAFF_PAGES = ("/dashboard", f"/exercises/{SLUG}", "/gradebook.csv", "/edit")


def test_a_student_or_another_instructor_gets_404_and_nothing_of_the_course(
    browser: Browser, base_url: str, server: Server, course: Course
) -> None:
    problems = Problems()
    # The instructor's own links to a student and a run, which outsiders then try.
    context = open_context(browser, base_url, problems, course.instructor)
    page = context.new_page()
    page.goto(f"{course.path}/dashboard")
    page.locator('tr[data-student="ada@example.org"] th a').click()
    student_page = page.url.removeprefix(base_url)
    page.get_by_role("table", name=f"Runs on {SLUG}").get_by_role("link").click()
    run_page = page.url.removeprefix(base_url)
    context.close()
    paths = [course.path + suffix for suffix in STAFF_PAGES] + [student_page, run_page]

    server.create_account(OTHER_INSTRUCTOR, PASSWORD, role="instructor")
    other = open_context(browser, base_url, problems)
    other.new_page().goto("/signin")
    fill_sign_in(other.pages[0], OTHER_INSTRUCTOR)
    expect(header(other.pages[0]).locator(".account-link")).to_have_text(OTHER_INSTRUCTOR)
    student = open_context(browser, base_url, problems, course.students["alan@example.org"])
    for who, context, me in (
        ("a student of the course", student, "alan@example.org"),
        ("another instructor", other, OTHER_INSTRUCTOR),
    ):
        others = [email for email in STUDENTS if email != me]
        page = context.pages[0] if context.pages else context.new_page()
        response = page.goto(f"{course.path}/dashboard")
        assert response is not None and response.status == 404, f"{who}: {response and response.status}"
        expect(page.get_by_role("heading", level=1)).to_have_text("404")
        expect(page.locator("main")).to_contain_text("There is no such course of yours.")
        expect(page.locator("main")).not_to_contain_text("@example.org")
        expect(page.get_by_role("navigation", name="Site").locator(".account-link")).to_have_text(me)
        # Every other page of the instructor's view, and the gradebook: the same, with the same cookies.
        for path in paths:
            answer = context.request.get(path, max_redirects=0)
            assert answer.status == 404, f"{who} on {path}: {answer.status}"
            assert not any(email in answer.text() for email in others) and MISTAKE not in answer.text(), path
        context.close()
    # Not signed in: sent to sign in, and then, as a student, still 404.
    anonymous = open_context(browser, base_url, problems)
    page = anonymous.new_page()
    page.goto(f"{course.path}/dashboard")
    expect(page).to_have_url(re.compile(r"/signin\?next=%2Fcourses%2F[\w-]+%2Fdashboard$"))
    fill_sign_in(page, "emmy@example.org")
    expect(page.get_by_role("heading", level=1)).to_have_text("404")
    # A student may not make a course either.
    response = page.goto("/courses/new")
    assert response is not None and response.status == 403
    anonymous.close()
    assert [m for m in problems.messages if not re.search(r"status of 40[34]", m)] == []


def test_editing_the_course_starts_from_what_it_is_and_saving_keeps_it(
    browser: Browser, base_url: str, course: Course
) -> None:
    context = open_context(browser, base_url, course.problems, course.instructor)
    page = context.new_page()
    page.goto(course.path)
    page.get_by_role("link", name="Edit the course").click()
    expect(page.get_by_role("heading", name=f"Edit {TITLE}", level=1)).to_be_visible()
    expect(page.get_by_label("Title")).to_have_value(TITLE)
    for title in (EXERCISE, INT8_TITLE, ROPE_TITLE):
        expect(page.get_by_label(title, exact=True)).to_be_checked()
    expect(page.get_by_label(f"Due date of {EXERCISE}")).to_have_value(DUE)
    expect(page.get_by_label(f"Due date of {INT8_TITLE}")).to_have_value(INT8_DUE)
    expect(page.get_by_label(f"Due date of {ROPE_TITLE}")).to_have_value("")
    page.get_by_role("button", name="Save").click()
    expect(page).to_have_url(re.compile(f"{course.path}$"))
    rows = page.get_by_role("table", name="Exercises of the course").locator("tbody tr")
    expect(rows.locator("td:nth-child(2)")).to_have_text(["2031-06-08 17:00", "—", "2031-06-01 17:00"])
    context.close()
    assert course.problems.messages == []


def test_the_instructors_course_pages_pass_axe_and_fit_a_phone(
    browser: Browser, base_url: str, course: Course, artifacts: Path
) -> None:
    # Light: the pages no other test here checks. Dark: the dashboard and its analytics, for the charts' colours.
    context = open_context(browser, base_url, course.problems, course.instructor)
    page = context.new_page()
    for path in ("/courses", course.path, f"{course.path}/edit"):
        page.goto(path)
        assert axe_violations(page) == [], f"axe-core on {path}"
    page.emulate_media(color_scheme="dark")
    for path in (f"{course.path}/dashboard", f"{course.path}/exercises/{SLUG}"):
        page.goto(path)
        assert axe_violations(page) == [], f"axe-core on {path} (dark)"
    page.screenshot(path=artifacts / "dashboard-exercise-dark.png")
    context.close()
    # On a phone: nothing wider than the screen but the tables and charts that scroll on their own.
    context = browser.new_context(
        base_url=base_url, viewport={"width": 390, "height": 844}, color_scheme="light", storage_state=course.instructor
    )
    page = context.new_page()
    page.goto(f"{course.path}/dashboard")
    page.locator('tr[data-student="alan@example.org"] th a').click()
    student_page = page.url
    page.get_by_role("table", name=f"Runs on {SLUG}").get_by_role("link").click()
    for name, path in (
        ("course", course.path),
        ("dashboard", f"{course.path}/dashboard"),
        ("dashboard-exercise", f"{course.path}/exercises/{SLUG}"),
        ("dashboard-student", student_page),
        ("dashboard-submission", page.url),
    ):
        page.goto(path)
        page.screenshot(path=artifacts / f"{name}-phone.png", full_page=True)
        wide = page.evaluate(WIDER_THAN_THE_SCREEN)
        assert wide == [], f"{path}: {wide}"
        assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0, path
    context.close()
    assert course.problems.messages == []
