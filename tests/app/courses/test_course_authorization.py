"""Who may see what of a course: every instructor page and export, for every kind of visitor.

The course's owner and admins get the data; a student of the course, a student of no course,
another instructor get 404 (the course does not exist for them); an anonymous visitor is sent to
sign in (pages) or gets 401 (the API). No refused answer holds any of the course's data.
"""

from __future__ import annotations

import httpx
from account_support import create_course, csrf_token, join, join_url, make_account, run_to_the_end, sign_in, sign_up
from api_support import SLUG, RunningServer, mutant_code, reference_code

from app.accounts.passwords import Passwords
from app.accounts.users import Accounts
from app.db import make_engine, make_sessionmaker
from app.models import Role

ROLES = ("anonymous", "enrolled student", "other student", "other instructor", "owner", "admin")
#: What each role gets from the instructor's pages and exports.
STAFF = {"anonymous": 303, "enrolled student": 404, "other student": 404, "other instructor": 404,
         "owner": 200, "admin": 200}  # fmt: skip
STAFF_API = {**STAFF, "anonymous": 401}
MEMBER = {**STAFF, "enrolled student": 200}
#: Forms that change a course: the owner is sent on (303) once it is done.
STAFF_FORM = {**STAFF, "owner": 303, "admin": 303}
SECRET = "Secret course 7f3a"


def test_every_instructor_page_and_export_answers_each_role_as_the_matrix_says(server: RunningServer) -> None:
    make_account(server.settings, "owner@example.org", Role.INSTRUCTOR)
    make_account(server.settings, "rival@example.org", Role.INSTRUCTOR)
    make_account(server.settings, "admin@example.org", Role.ADMIN)
    clients = {role: server.client() for role in ROLES}
    try:
        sign_in(clients["owner"], "owner@example.org")
        sign_in(clients["other instructor"], "rival@example.org")
        sign_in(clients["admin"], "admin@example.org")
        course = create_course(clients["owner"], SECRET, [SLUG])
        # The rival has a course of their own with a student: their run must not be readable through it either.
        rival_course = create_course(clients["other instructor"], "Rival course", [SLUG])
        sign_up(clients["enrolled student"], "enrolled@example.org")
        join(clients["enrolled student"], join_url(clients["owner"], course))
        sign_up(clients["other student"], "other@example.org")
        join(clients["other student"], join_url(clients["other instructor"], rival_course))
        run = run_to_the_end(clients["enrolled student"], mutant_code("no-scaling"), SLUG)
        student_id = _student_id(clients["owner"], course)

        reads = {
            f"/courses/{course}": MEMBER,
            f"/courses/{course}/dashboard": STAFF,
            f"/courses/{course}/exercises/{SLUG}": STAFF,
            f"/courses/{course}/students/{student_id}": STAFF,
            f"/courses/{course}/submissions/{run['id']}": STAFF,
            f"/courses/{course}/gradebook.csv": STAFF,
            f"/courses/{course}/edit": STAFF,
            f"/api/courses/{course}/gradebook": STAFF_API,
            f"/api/courses/{course}/gradebook?format=csv": STAFF_API,
        }
        writes = {f"/courses/{course}/edit": STAFF_FORM, f"/courses/{course}/join-code": STAFF_FORM}
        got: dict[tuple[str, str], int] = {}
        for path in reads:
            for role in ROLES:
                response = clients[role].get(path, follow_redirects=False)
                got[(path, role)] = response.status_code
                if response.status_code != 200:
                    _holds_no_data(response, path, role)
                if role == "anonymous" and path.startswith("/courses"):
                    assert response.headers["location"].startswith("/signin?next="), path
        for path in writes:
            for role in ROLES:
                token = csrf_token(clients[role], "/signin" if role == "anonymous" else "/")
                data = {"csrf_token": token, "title": SECRET, "exercise": SLUG}
                response = clients[role].post(path, data=data, follow_redirects=False)
                got[(f"POST {path}", role)] = response.status_code
                if response.status_code not in (200, 303) or role in ("anonymous",):
                    _holds_no_data(response, path, role)
        expected_table = {(path, role): want[role] for path, want in reads.items() for role in ROLES}
        expected_table |= {(f"POST {path}", role): want[role] for path, want in writes.items() for role in ROLES}
        wrong = {key: (got[key], want) for key, want in expected_table.items() if got[key] != want}
        assert not wrong, f"(path, role): (got, expected): {wrong}"

        # A course is no window onto other runs: the rival cannot read the owner's student's run through
        # their own course, nor the owner the rival's student's through theirs.
        leak = clients["other instructor"].get(f"/courses/{rival_course}/submissions/{run['id']}")
        assert leak.status_code == 404 and "def attend_step" not in leak.text
        other_run = run_to_the_end(clients["other student"], mutant_code("no-scaling"), SLUG)
        assert clients["owner"].get(f"/courses/{course}/submissions/{other_run['id']}").status_code == 404
        # Students read only their own runs through the API.
        assert clients["other student"].get(f"/api/submissions/{run['id']}").status_code == 404
    finally:
        for client in clients.values():
            client.close()


def _student_id(owner: httpx.Client, course: str) -> str:
    page = owner.get(f"/courses/{course}/dashboard").text
    return page.split(f"/courses/{course}/students/", 1)[1].split('"', 1)[0]


def _holds_no_data(response: httpx.Response, path: str, role: str) -> None:
    # The page's own content: the header names the visitor's own account, which is theirs to see.
    body = response.text.split("<main", 1)[-1].split("</main>", 1)[0]
    for secret in (SECRET, "enrolled@example.org", "def attend_step", "no-scaling"):
        assert secret not in body, f"{role} got {secret!r} from {path}"


def test_a_demoted_owner_loses_every_staff_page_at_once_and_regains_them_when_promoted(server: RunningServer) -> None:
    make_account(server.settings, "owner@example.org", Role.INSTRUCTOR)
    make_account(server.settings, "admin@example.org", Role.ADMIN)
    with server.client() as owner, server.client() as student, server.client() as admin:
        sign_in(owner, "owner@example.org")
        sign_in(admin, "admin@example.org")
        course = create_course(owner, SECRET, [SLUG])
        sign_up(student, "enrolled@example.org")
        join(student, join_url(owner, course))
        run = run_to_the_end(student, mutant_code("no-scaling"), SLUG)
        student_id = _student_id(owner, course)
        reads = [
            f"/courses/{course}",
            f"/courses/{course}/dashboard",
            f"/courses/{course}/exercises/{SLUG}",
            f"/courses/{course}/students/{student_id}",
            f"/courses/{course}/submissions/{run['id']}",  # with the hidden checks' output
            f"/courses/{course}/gradebook.csv",
            f"/courses/{course}/edit",
            f"/api/courses/{course}/gradebook",
            f"/api/courses/{course}/gradebook?format=csv",
        ]

        def staff_answers(client: httpx.Client) -> dict[str, int]:
            got = {path: client.get(path, follow_redirects=False).status_code for path in reads}
            for path in (f"/courses/{course}/join-code", f"/courses/{course}/edit"):
                data = {"csrf_token": csrf_token(client, "/"), "title": SECRET, "exercise": SLUG}
                got[f"POST {path}"] = client.post(path, data=data, follow_redirects=False).status_code
            return got

        assert set(staff_answers(owner).values()) <= {200, 303}
        set_role(server, "owner@example.org", Role.STUDENT)  # as `mlkata user set-role` does
        # The same session, the very next request: nothing of the course is theirs any more.
        demoted = staff_answers(owner)
        assert set(demoted.values()) == {404}, demoted
        for path in reads:
            _holds_no_data(owner.get(path), path, "demoted owner")
        assert f'data-course="{course}"' not in owner.get("/courses").text
        assert owner.get("/api/courses").json() == []
        # An admin still sees the course and everything in it.
        assert admin.get(f"/courses/{course}/dashboard").status_code == 200
        assert admin.get(f"/api/courses/{course}/gradebook").json()["students"][0]["email"] == "enrolled@example.org"
        # Made an instructor again, the owner has the course back.
        set_role(server, "owner@example.org", Role.INSTRUCTOR)
        assert set(staff_answers(owner).values()) <= {200, 303}


def test_a_course_s_staff_cannot_join_it_as_students(server: RunningServer) -> None:
    make_account(server.settings, "owner@example.org", Role.INSTRUCTOR)
    make_account(server.settings, "admin@example.org", Role.ADMIN)
    with server.client() as owner, server.client() as admin:
        sign_in(owner, "owner@example.org")
        sign_in(admin, "admin@example.org")
        course = create_course(owner, SECRET, [SLUG])
        link = join_url(owner, course)
        for client in (owner, admin):
            refused = client.post(link, data={"csrf_token": csrf_token(client, "/")}, follow_redirects=False)
            assert refused.status_code == 409
            assert "You teach this course, so you cannot join it as a student." in refused.text
        # A demoted owner is still its owner: they cannot enrol in their own course either.
        set_role(server, "owner@example.org", Role.STUDENT)
        assert owner.get(link).status_code == 409
        refused = owner.post(link, data={"csrf_token": csrf_token(owner, "/")}, follow_redirects=False)
        assert refused.status_code == 409 and "cannot join it as a student" in refused.text
        set_role(server, "owner@example.org", Role.INSTRUCTOR)
        run_to_the_end(owner, reference_code(), SLUG)
        book = owner.get(f"/api/courses/{course}/gradebook").json()
        assert book["students"] == []  # nobody enrolled, and the owner's own pass counts for no student
        assert 'data-stat="students">0<' in owner.get(f"/courses/{course}/dashboard").text


def set_role(server: RunningServer, email: str, role: Role) -> None:
    engine = make_engine(server.settings.resolved_database_url())
    try:
        Accounts(make_sessionmaker(engine), Passwords()).set_role(email, role)
    finally:
        engine.dispose()
