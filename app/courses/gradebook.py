"""The gradebook: one row per student, for each exercise the best points, whether it is solved and whether late.

As CSV that spreadsheets open as they are (UTF-8 with a byte-order mark, CRLF line ends, one header
row) and LMS gradebooks import, and as JSON for scripts. A cell that a spreadsheet would run as a
formula (starting with =, +, - or @) is quoted with a leading apostrophe.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from app.courses.courses import CourseInfo
from app.courses.dashboard import Matrix
from grader.exercise import Exercise

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def max_points(exercise: Exercise | None) -> float:
    return float(sum(c.points for c in exercise.checks)) if exercise is not None else 0.0


def gradebook(course: CourseInfo, grid: Matrix, exercises: dict[str, Exercise]) -> dict[str, Any]:
    """The gradebook as plain data (the JSON API's answer)."""
    columns = [
        {
            "slug": slug,
            "title": exercises[slug].config.title if slug in exercises else slug,
            "max_points": max_points(exercises.get(slug)),
            "due_at": due.isoformat() if (due := course.due(slug)) else None,
        }
        for slug in grid.slugs
    ]
    students = []
    for student in grid.students:
        cells: dict[str, dict[str, Any]] = {}
        for slug in grid.slugs:
            c = grid.at(student, slug)
            cells[slug] = {
                "points": c.best_points,
                "solved": c.solved,
                "late": c.late,
                "attempts": c.attempts,
                "solved_at": c.solved_at.isoformat() if c.solved_at else None,
            }
        students.append(
            {
                "email": student.email,
                "solved": grid.solved_count(student),
                "points": sum(cell["points"] for cell in cells.values()),
                "exercises": cells,
            }
        )
    return {"course": {"id": course.id, "title": course.title}, "exercises": columns, "students": students}


def gradebook_csv(book: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    header = ["Email", "Solved", "Points"]
    for column in book["exercises"]:
        slug = column["slug"]
        header += [f"{slug} points (of {_number(column['max_points'])})", f"{slug} solved", f"{slug} late"]
    writer.writerow(header)
    for student in book["students"]:
        row = [_cell(student["email"]), student["solved"], _number(student["points"])]
        for column in book["exercises"]:
            cell = student["exercises"][column["slug"]]
            row += [_number(cell["points"]), "yes" if cell["solved"] else "no", "yes" if cell["late"] else "no"]
        writer.writerow(row)
    return "\ufeff" + out.getvalue()


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _cell(text: str) -> str:
    return "'" + text if text.startswith(_FORMULA_START) else text
