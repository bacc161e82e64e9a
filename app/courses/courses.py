"""Courses in the database: creating and editing them, the join link, who is in which, and who may see what."""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.users import Account
from app.models import Course, CourseExercise, Enrollment, Role, User, as_utc, utcnow
from app.web import ApiError

MAX_TITLE = 200
STAFF_CANNOT_JOIN = "You teach this course, so you cannot join it as a student."
#: The range a due date must fall in (UTC): wide enough for any course, narrow enough that every
#: database and time zone can hold and convert it.
EARLIEST_DUE = datetime(2000, 1, 1, tzinfo=UTC)
LATEST_DUE = datetime(2200, 12, 31, 23, 59, 59, tzinfo=UTC)


@dataclass(frozen=True)
class CourseItem:
    """One exercise of a course: its slug, place and due date (UTC)."""

    slug: str
    position: int
    due_at: datetime | None


@dataclass(frozen=True)
class CourseInfo:
    id: str
    title: str
    owner_id: str
    join_code: str
    created_at: datetime
    items: tuple[CourseItem, ...]

    @property
    def slugs(self) -> list[str]:
        return [item.slug for item in self.items]

    def due(self, slug: str) -> datetime | None:
        return next((item.due_at for item in self.items if item.slug == slug), None)


@dataclass(frozen=True)
class Student:
    """A student of a course, as the instructor sees them."""

    user_id: str
    email: str
    learner_id: str
    joined_at: datetime


class CourseError(Exception):
    """Input a course cannot be made with; ``field`` names the form field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def parse_due(value: str, slug: str) -> datetime | None:
    """A due date from a ``datetime-local`` field (read as UTC, or at the offset it gives), or None when left empty.

    Raise :class:`CourseError` naming the field for text that is no date and time, or one outside
    :data:`EARLIEST_DUE` … :data:`LATEST_DUE`.
    """
    field, text = f"due:{slug}", value.strip()
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise CourseError(field, f"The due date of {slug} is not a date and time: {text[:40]!r}.") from None
    out_of_range = CourseError(
        field,
        f"The due date of {slug} must be between {EARLIEST_DUE:%Y-%m-%d} and {LATEST_DUE:%Y-%m-%d} (UTC): "
        f"{text[:40]!r} is not.",
    )
    # Checked before converting: near year 1 or 9999 the conversion to UTC itself overflows.
    if not EARLIEST_DUE.year - 1 <= moment.year <= LATEST_DUE.year + 1:
        raise out_of_range
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    if not EARLIEST_DUE <= utc <= LATEST_DUE:
        raise out_of_range
    return utc


class Courses:
    """Every course, and the checks of who may see or change one."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def create(self, owner: Account, title: str, items: list[CourseItem]) -> CourseInfo:
        course_id = str(uuid.uuid4())
        with self.sessions.begin() as session:
            session.add(Course(id=course_id, title=_title(title), owner_id=owner.id, join_code=new_join_code()))
            session.flush()
            _set_items(session, course_id, items)
        found = self.get(course_id)
        assert found is not None
        return found

    def update(self, course_id: str, title: str, items: list[CourseItem]) -> None:
        with self.sessions.begin() as session:
            course = session.get(Course, course_id)
            if course is None:
                raise ApiError(404, "There is no such course.")
            course.title = _title(title)
            _set_items(session, course_id, items)

    def new_join_code(self, course_id: str) -> None:
        """Replace the join link: the old one stops working (students already in stay in)."""
        with self.sessions.begin() as session:
            course = session.get(Course, course_id)
            if course is not None:
                course.join_code = new_join_code()

    def get(self, course_id: str) -> CourseInfo | None:
        with self.sessions() as session:
            course = session.get(Course, course_id)
            return _info(session, course) if course is not None else None

    def by_join_code(self, code: str) -> CourseInfo | None:
        with self.sessions() as session:
            course = session.scalars(select(Course).where(Course.join_code == code)).one_or_none()
            return _info(session, course) if course is not None else None

    def join(self, account: Account, course: CourseInfo) -> None:
        """Enrol the account (joining twice changes nothing); raise :class:`CourseError` for the course's staff."""
        if not may_enrol(account, course):
            raise CourseError("join", STAFF_CANNOT_JOIN)
        course_id = course.id
        try:
            with self.sessions.begin() as session:
                if session.get(Enrollment, (course_id, account.id)) is None:
                    session.add(Enrollment(course_id=course_id, user_id=account.id, joined_at=utcnow()))
        except IntegrityError:
            pass  # joined at the same moment from another tab

    def is_enrolled(self, account: Account, course_id: str) -> bool:
        with self.sessions() as session:
            return session.get(Enrollment, (course_id, account.id)) is not None

    def enrolled_in(self, account: Account) -> list[CourseInfo]:
        with self.sessions() as session:
            courses = session.scalars(
                select(Course)
                .join(Enrollment, Enrollment.course_id == Course.id)
                .where(Enrollment.user_id == account.id)
                .order_by(Course.created_at.desc())
            ).all()
            return [_info(session, course) for course in courses]

    def taught_by(self, account: Account) -> list[CourseInfo]:
        """The courses the account may teach now (:func:`may_teach`): its own, or for an admin, every course."""
        query = select(Course).order_by(Course.created_at.desc())
        if account.role is not Role.ADMIN:
            query = query.where(Course.owner_id == account.id)
        with self.sessions() as session:
            courses = [_info(session, course) for course in session.scalars(query).all()]
        return [course for course in courses if may_teach(account, course)]

    def students(self, course_id: str) -> list[Student]:
        """Who is enrolled, the course's owner never among them (an enrolment from before owners were refused)."""
        with self.sessions() as session:
            rows = session.execute(
                select(User.id, User.email, User.learner_id, Enrollment.joined_at)
                .join(Enrollment, Enrollment.user_id == User.id)
                .join(Course, Course.id == Enrollment.course_id)
                .where(Enrollment.course_id == course_id, User.id != Course.owner_id)
                .order_by(User.email)
            ).all()
        return [Student(row.id, row.email, row.learner_id, as_utc(row.joined_at)) for row in rows]

    def staff_course(self, account: Account, course_id: str) -> CourseInfo:
        """The course, if ``account`` may teach it now (:func:`may_teach`); else 404, as if it did not exist."""
        course = self.get(course_id)
        if course is None or not may_teach(account, course):
            raise ApiError(404, "There is no such course of yours.")
        return course

    def member_course(self, account: Account, course_id: str) -> CourseInfo:
        """The course, if ``account`` is in it or teaches it; else 404."""
        course = self.get(course_id)
        if course is None or not (may_teach(account, course) or self.is_enrolled(account, course_id)):
            raise ApiError(404, "There is no such course of yours.")
        return course


def may_teach(account: Account, course: CourseInfo) -> bool:
    """Whether ``account`` acts as the course's staff: any admin, or its owner while an instructor.

    By role and ownership together, read from the account of this very request: an owner demoted to
    student loses every staff page at once (an admin still sees the course), and has it back if made
    an instructor again.
    """
    if account.role is Role.ADMIN:
        return True
    return course.owner_id == account.id and account.role is Role.INSTRUCTOR


def may_enrol(account: Account, course: CourseInfo) -> bool:
    """Staff never enrol as students: not its owner (whatever their role now), nor an admin."""
    return course.owner_id != account.id and account.role is not Role.ADMIN


def new_join_code() -> str:
    return secrets.token_urlsafe(12)


def _title(title: str) -> str:
    cleaned = " ".join(title.split())
    if not cleaned:
        raise CourseError("title", "Give the course a title.")
    if len(cleaned) > MAX_TITLE:
        raise CourseError("title", f"A course title has at most {MAX_TITLE} characters.")
    return cleaned


def _set_items(session: Session, course_id: str, items: list[CourseItem]) -> None:
    session.execute(delete(CourseExercise).where(CourseExercise.course_id == course_id))
    for item in items:
        session.add(CourseExercise(course_id=course_id, exercise=item.slug, position=item.position, due_at=item.due_at))


def _info(session: Session, course: Course) -> CourseInfo:
    rows = session.scalars(
        select(CourseExercise).where(CourseExercise.course_id == course.id).order_by(CourseExercise.position)
    ).all()
    items = tuple(CourseItem(r.exercise, r.position, as_utc(r.due_at) if r.due_at else None) for r in rows)
    return CourseInfo(course.id, course.title, course.owner_id, course.join_code, as_utc(course.created_at), items)
