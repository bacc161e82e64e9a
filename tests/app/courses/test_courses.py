"""Courses over HTTP with the real grader: an instructor makes one, three students join and submit, the
dashboard, the exercise's analytics and the gradebook show exactly what they did."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from urllib.parse import quote

import httpx
import pytest
from account_support import create_course, join, join_url, make_account, post_form, run_to_the_end, sign_in, sign_up
from api_support import KV, SLUG, RunningServer, mutant_code, read_events, reference_code
from sqlalchemy import select

from app.db import make_engine, make_sessionmaker
from app.models import Course, Role
from app.settings import Settings

STARTER = (KV / "starter.py").read_text(encoding="utf-8")


def cell_state(dashboard: str, email: str) -> tuple[str, str]:
    row = re.search(rf'<tr data-student="{re.escape(email)}">(.*?)</tr>', dashboard, re.S)
    assert row, f"no row for {email}"
    found = re.search(rf'data-slug="{SLUG}" data-state="(\w+)" data-attempts="(\d+)"', row.group(1))
    assert found
    return found.group(1), found.group(2)


@pytest.fixture
def course_with_three_students(server: RunningServer) -> Iterator[tuple[RunningServer, httpx.Client, str]]:
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    instructor = server.client()
    sign_in(instructor, "prof@example.org")
    course_id = create_course(instructor, "Inference 101", [SLUG], due={SLUG: "2099-01-01T12:00"})
    link = join_url(instructor, course_id)
    for email, code in [
        ("right@example.org", reference_code()),
        ("sqrt@example.org", mutant_code("no-scaling")),
        ("stuck@example.org", STARTER),
    ]:
        with server.client() as student:
            sign_up(student, email)
            assert "Join “Inference 101”" in student.get(link).text
            join(student, link)
            run_to_the_end(student, code, SLUG)
    yield server, instructor, course_id
    instructor.close()


def test_the_dashboard_shows_who_solved_what_and_the_exercise_page_names_the_mistake(
    course_with_three_students: tuple[RunningServer, httpx.Client, str],
) -> None:
    _, instructor, course_id = course_with_three_students
    dashboard = instructor.get(f"/courses/{course_id}/dashboard").text
    assert '<span class="value" data-stat="students">3</span>' in dashboard
    assert cell_state(dashboard, "right@example.org") == ("solved", "1")
    assert cell_state(dashboard, "sqrt@example.org") == ("tried", "1")
    assert cell_state(dashboard, "stuck@example.org") == ("tried", "1")
    assert '<svg class="chart chart-solved"' in dashboard and 'data-fraction="0.3333"' in dashboard

    page = instructor.get(f"/courses/{course_id}/exercises/{SLUG}").text
    assert 'data-stat="solve-rate">33%' in page
    assert 'data-stat="median-attempts">1<' in page
    mistake = re.search(r'<tr data-mistake="no-scaling">(.*?)</tr>', page, re.S)
    assert mistake, "the named mistake is missing"
    assert "Scores are not divided by √d." in mistake.group(1)
    assert '<td class="num">1</td><td class="num">33%</td>' in mistake.group(1)
    assert "sqrt@example.org" in mistake.group(1) and "stuck@example.org" not in mistake.group(1)
    assert page.count("<tr data-mistake=") - page.count('<tr data-mistake="symptom/') == 1
    assert '<tr data-mistake="symptom/' in page  # and what the wrong answers showed, beside it
    # A bar per check: the ones the two wrong runs failed have a failure rate of 2 in 3.
    assert re.search(r'<tr data-check="\w+"><td>[^<]+</td><td class="num">3</td><td class="num">2</td>', page)
    assert 'class="chart chart-mistake"' in page and 'class="chart chart-check"' in page


def test_one_click_from_the_matrix_to_a_students_code_result_and_events(
    course_with_three_students: tuple[RunningServer, httpx.Client, str],
) -> None:
    _, instructor, course_id = course_with_three_students
    dashboard = instructor.get(f"/courses/{course_id}/dashboard").text
    student_url = re.search(r'href="(/courses/[^"]+/students/[^"#]+)">sqrt@example.org', dashboard).group(1)
    student_page = instructor.get(student_url).text
    run_url = re.search(r'<a href="(/courses/[^"]+/submissions/[^"]+)">', student_page).group(1)
    run = instructor.get(run_url).text
    assert "def attend_step" in run and "Named mistake: Scores are not divided by √d." in run
    assert ">done</td>" in run and ">started</td>" in run


def test_the_gradebook_csv_has_a_row_per_student_with_points_solved_and_late(
    course_with_three_students: tuple[RunningServer, httpx.Client, str],
) -> None:
    _, instructor, course_id = course_with_three_students
    response = instructor.get(f"/courses/{course_id}/gradebook.csv")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert 'filename="inference-101-gradebook.csv"' in response.headers["content-disposition"]
    assert response.content.startswith("\ufeff".encode())
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    by_email = {row["Email"]: row for row in rows}
    assert set(by_email) == {"right@example.org", "sqrt@example.org", "stuck@example.org"}
    points_column = next(name for name in rows[0] if name.startswith(f"{SLUG} points"))
    assert by_email["right@example.org"][f"{SLUG} solved"] == "yes"
    assert by_email["right@example.org"][f"{SLUG} late"] == "no"
    assert by_email["right@example.org"][points_column] == points_column.split("(of ")[1].rstrip(")")
    assert by_email["sqrt@example.org"][f"{SLUG} solved"] == "no"
    assert by_email["stuck@example.org"][f"{SLUG} solved"] == "no" and by_email["stuck@example.org"]["Points"] == "0"
    assert "\r\n" in response.text

    api = instructor.get(f"/api/courses/{course_id}/gradebook").json()
    assert [s["email"] for s in api["students"]] == sorted(by_email)
    assert api["students"][0]["exercises"][SLUG]["solved"] is True


def test_a_try_it_is_not_a_run_in_the_dashboard_or_the_gradebook(
    course_with_three_students: tuple[RunningServer, httpx.Client, str],
) -> None:
    server, instructor, course_id = course_with_three_students
    with server.client() as stuck:
        sign_in(stuck, "stuck@example.org")
        tried = stuck.post(f"/api/exercises/{SLUG}/tries", json={"code": reference_code(), "inputs": "1 + 1\n"})
        assert read_events(stuck, tried.json()["events_url"])[-1]["data"]["result"]["status"] == "pass"
    assert cell_state(instructor.get(f"/courses/{course_id}/dashboard").text, "stuck@example.org") == ("tried", "1")
    students = {s["email"]: s for s in instructor.get(f"/api/courses/{course_id}/gradebook").json()["students"]}
    assert students["stuck@example.org"]["exercises"][SLUG]["solved"] is False


def test_a_solve_after_the_due_date_is_late(server: RunningServer) -> None:
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor, server.client() as student:
        sign_in(instructor, "prof@example.org")
        course_id = create_course(instructor, "Past due", [SLUG], due={SLUG: "2020-01-01T00:00"})
        sign_up(student, "late@example.org")
        join(student, join_url(instructor, course_id))
        run_to_the_end(student, reference_code(), SLUG)
        mine = student.get(f"/courses/{course_id}").text
        assert "✓ solved" in mine and '<span class="late">late</span>' in mine
        rows = list(csv.DictReader(io.StringIO(instructor.get(f"/courses/{course_id}/gradebook.csv").text[1:])))
        assert rows[0][f"{SLUG} late"] == "yes" and rows[0][f"{SLUG} solved"] == "yes"


def test_a_student_sees_their_courses_and_what_is_due(server: RunningServer) -> None:
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor, server.client() as student:
        sign_in(instructor, "prof@example.org")
        course_id = create_course(instructor, "Due soon", [SLUG], due={SLUG: "2099-06-01T09:30"})
        sign_up(student, "due@example.org")
        join(student, join_url(instructor, course_id))
        page = student.get("/courses").text
        assert f'data-course="{course_id}"' in page and f'data-due="{SLUG}"' in page and "2099-06-01 09:30" in page
        courses = student.get("/api/courses").json()
        assert courses == [{"id": course_id, "title": "Due soon", "teaching": False,
                            "exercises": [{"slug": SLUG, "due_at": "2099-06-01T09:30:00+00:00"}]}]  # fmt: skip


def test_a_replaced_join_link_stops_working(server: RunningServer) -> None:
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor, server.client() as student:
        sign_in(instructor, "prof@example.org")
        course_id = create_course(instructor, "Links", [SLUG])
        old = join_url(instructor, course_id)
        post_form(instructor, f"/courses/{course_id}/join-code", {}, page=f"/courses/{course_id}")
        assert join_url(instructor, course_id) != old
        sign_up(student, "s@example.org")
        assert student.get(old).status_code == 404


def test_bad_course_input_says_what_to_fix(server: RunningServer) -> None:
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor:
        sign_in(instructor, "prof@example.org")
        for data, message in [
            ({"title": "  ", "exercise": [SLUG]}, "Give the course a title."),
            ({"title": "T", "exercise": ["no-such-thing"]}, "There is no exercise &#39;no-such-thing&#39;."),
            ({"title": "T", "exercise": [SLUG], f"due:{SLUG}": "next tuesday"}, "is not a date and time"),
        ]:
            response = post_form(instructor, "/courses/new", data)
            assert response.status_code == 422 and message in response.text


def test_students_cannot_create_courses(client: httpx.Client) -> None:
    sign_up(client, "student@example.org")
    assert client.get("/courses/new").status_code == 403
    assert post_form(client, "/courses/new", {"title": "Mine"}, page="/courses").status_code == 403


def test_instructors_edit_title_exercises_and_due_dates(
    make_settings: Callable[..., Settings], start_server: Callable[..., RunningServer]
) -> None:
    server = start_server(make_settings())
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor:
        sign_in(instructor, "prof@example.org")
        course_id = create_course(instructor, "Draft", [SLUG])
        response = post_form(instructor, f"/courses/{course_id}/edit",
                             {"title": "Final", "exercise": [SLUG], f"due:{SLUG}": "2030-05-05T10:00"})  # fmt: skip
        assert response.status_code == 303
        page = instructor.get(f"/courses/{course_id}").text
        assert '<h1 id="course-title">Final</h1>' in page and "2030-05-05 10:00" in page


@pytest.mark.parametrize(
    ("title", "name", "ascii_name"),
    [
        ("Машинное обучение", "машинное-обучение-gradebook.csv", "gradebook.csv"),
        ("Μηχανική μάθηση", "μηχανική-μάθηση-gradebook.csv", "gradebook.csv"),
        ("机器学习", "机器学习-gradebook.csv", "gradebook.csv"),
        ('Café "quoted" \\ back', "café-quoted-back-gradebook.csv", "cafe-quoted-back-gradebook.csv"),
    ],
)
def test_the_gradebook_of_a_course_titled_in_any_script_downloads_with_its_name(
    server: RunningServer, title: str, name: str, ascii_name: str
) -> None:
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor:
        sign_in(instructor, "prof@example.org")
        course_id = create_course(instructor, title, [SLUG])
        for path in (f"/courses/{course_id}/gradebook.csv", f"/api/courses/{course_id}/gradebook?format=csv"):
            response = instructor.get(path)
            assert response.status_code == 200, path
            # RFC 6266: an ASCII filename for clients that read only that, and the real one in UTF-8 (RFC 5987).
            disposition = response.headers["content-disposition"]
            assert disposition == f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name)}"
            assert response.content.decode("utf-8-sig").startswith("Email,")


@pytest.mark.parametrize(
    "due", ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00", "1999-12-31T23:59", "2201-01-01T00:00"]
)
def test_a_due_date_out_of_range_is_refused_naming_the_field_and_keeping_the_input(
    server: RunningServer, due: str
) -> None:
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor:
        sign_in(instructor, "prof@example.org")
        response = post_form(instructor, "/courses/new", {"title": "Far away", "exercise": [SLUG], f"due:{SLUG}": due})
        assert response.status_code == 422
        assert f"The due date of {SLUG} must be between 2000-01-01 and 2200-12-31 (UTC)" in response.text
        # Nothing typed is lost: the title, the ticked exercise and the date are in the form again.
        assert 'value="Far away"' in response.text
        assert re.search(rf'value="{SLUG}" id="ex-{SLUG}" checked', response.text)
        assert f'name="due:{SLUG}"' in response.text and f'value="{due}"' in response.text
        assert 'aria-invalid="true"' in response.text
        course_id = create_course(instructor, "Near", [SLUG])
        edited = post_form(instructor, f"/courses/{course_id}/edit",
                           {"title": "Near", "exercise": [SLUG], f"due:{SLUG}": due})  # fmt: skip
        assert edited.status_code == 422 and f"The due date of {SLUG} must be between" in edited.text
        assert instructor.get("/api/courses").json()[0]["exercises"] == [{"slug": SLUG, "due_at": None}]
    assert _courses(server.settings) == ["Near"]


def test_due_dates_at_the_ends_of_the_range_are_kept_in_utc(server: RunningServer) -> None:
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor:
        sign_in(instructor, "prof@example.org")
        course_id = create_course(instructor, "Ends", [SLUG], due={SLUG: "2200-12-31T20:00:00-03:00"})
        assert instructor.get("/api/courses").json()[0]["exercises"][0]["due_at"] == "2200-12-31T23:00:00+00:00"
        response = post_form(instructor, f"/courses/{course_id}/edit",
                             {"title": "Ends", "exercise": [SLUG], f"due:{SLUG}": "2000-01-01T00:00"})  # fmt: skip
        assert response.status_code == 303


def _courses(settings: Settings) -> list[str]:
    engine = make_engine(settings.resolved_database_url())
    try:
        with make_sessionmaker(engine)() as session:
            return list(session.scalars(select(Course.title)))
    finally:
        engine.dispose()
