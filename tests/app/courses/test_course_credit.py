"""When a run counts for a course: when it reached the server for that account, not when it was made anonymously.

A solve made without an account and moved into one (at sign-up or sign-in) is credited at the move, so a
solve on a shared browser before the due date, moved in after it, is late everywhere "late" is said.
"""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from account_support import create_course, join, join_url, make_account, post_form, run_to_the_end, sign_in, sign_up
from api_support import RunningServer

from app.models import Role
from app.settings import Settings

RIGHT = "def add(a, b):\n    return a + b\n"


def test_an_anonymous_solve_moved_into_an_account_after_the_due_date_is_late(
    make_settings: Callable[..., Settings],
    start_server: Callable[..., RunningServer],
    make_exercise: Callable[..., Path],
) -> None:
    make_exercise("adder")
    server = start_server(make_settings())
    make_account(server.settings, "prof@example.org", Role.INSTRUCTOR)
    with server.client() as instructor, server.client() as shared, server.client() as prompt:
        sign_in(instructor, "prof@example.org")
        course_id = create_course(instructor, "Arithmetic", ["adder"])
        link = join_url(instructor, course_id)
        # Two solves without an account, both before the due date.
        run_to_the_end(shared, RIGHT, "adder")
        run_to_the_end(prompt, RIGHT, "adder")
        sign_up(prompt, "prompt@example.org")  # moved in before the due date: on time
        join(prompt, link)
        due = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=2)
        edited = post_form(instructor, f"/courses/{course_id}/edit",
                           {"title": "Arithmetic", "exercise": ["adder"], "due:adder": due.isoformat()})  # fmt: skip
        assert edited.status_code == 303
        while datetime.now(UTC) <= due + timedelta(milliseconds=50):
            time.sleep(0.1)
        sign_up(shared, "shared@example.org")  # moved in after it: late
        join(shared, link)

        rows = list(csv.DictReader(io.StringIO(instructor.get(f"/courses/{course_id}/gradebook.csv").text[1:])))
        late = {row["Email"]: (row["adder solved"], row["adder late"]) for row in rows}
        assert late == {"shared@example.org": ("yes", "yes"), "prompt@example.org": ("yes", "no")}
        book = instructor.get(f"/api/courses/{course_id}/gradebook").json()
        cells = {s["email"]: s["exercises"]["adder"] for s in book["students"]}
        assert cells["shared@example.org"]["late"] is True and cells["prompt@example.org"]["late"] is False
        assert datetime.fromisoformat(cells["shared@example.org"]["solved_at"]) > due
        assert datetime.fromisoformat(cells["prompt@example.org"]["solved_at"]) < due
        dashboard = instructor.get(f"/courses/{course_id}/dashboard").text
        assert _late_in_row(dashboard, "shared@example.org") and not _late_in_row(dashboard, "prompt@example.org")
        student_url = re.search(r'href="(/courses/[^"]+/students/[^"#]+)">shared@example.org', dashboard).group(1)
        assert "credited after the due date" in instructor.get(student_url).text
        assert '<span class="late">late</span>' in shared.get(f"/courses/{course_id}").text
        assert '<span class="late">late</span>' not in prompt.get(f"/courses/{course_id}").text


def _late_in_row(dashboard: str, email: str) -> bool:
    row = re.search(rf'<tr data-student="{re.escape(email)}">(.*?)</tr>', dashboard, re.S)
    assert row, f"no row for {email}"
    return '<span class="late">late</span>' in row.group(1)
