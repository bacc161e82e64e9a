"""Accounts: signing up, checking a password, roles, and moving an anonymous learner's work to an account."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.identity import email_problem, fold
from app.accounts.passwords import Passwords, password_problem
from app.drafts import move_drafts
from app.models import AuthSession, Learner, Progress, Role, Submission, User, as_utc, utcnow


class AccountError(Exception):
    """Input an account cannot be made or changed with; ``field`` names the form field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


class AddressTaken(AccountError):
    """The address already has an account (the sign-up page answers as for a free one all the same)."""


@dataclass(frozen=True)
class Account:
    """What a request needs to know of an account."""

    id: str
    email: str
    role: Role
    learner_id: str

    @property
    def teaches(self) -> bool:
        """Instructors and admins may create courses."""
        return self.role in (Role.INSTRUCTOR, Role.ADMIN)

    @classmethod
    def of(cls, user: User) -> Account:
        return cls(user.id, user.email, Role(user.role), user.learner_id)


def normalize_email(email: str) -> str:
    """The address of a new account, folded (:func:`~app.accounts.identity.fold`); :class:`AccountError` if it
    is none, or could read as another."""
    folded = fold(email)
    problem = email_problem(email, folded)
    if problem:
        raise AccountError("email", problem)
    return folded


def _stored_forms(email: str) -> tuple[str, str]:
    """The forms an existing account's address may be stored in: folded, and as it was before folding (trimmed,
    in lower case) for the rare account the folding migration left alone because its folded form was taken."""
    return email.strip().lower(), fold(email)


def parse_role(value: str) -> Role:
    try:
        return Role(value.strip().lower())
    except ValueError:
        raise AccountError("role", f"{value!r} is not a role: use one of {', '.join(Role)}.") from None


class Accounts:
    """The accounts in the database."""

    def __init__(self, sessions: sessionmaker[Session], passwords: Passwords) -> None:
        self.sessions, self.passwords = sessions, passwords

    @staticmethod
    def check_new(email: str, password: str) -> str:
        """The folded address when an account could be made of these; :class:`AccountError` saying what to fix."""
        folded = normalize_email(email)
        problem = password_problem(password, folded)
        if problem:
            raise AccountError("password", problem)
        return folded

    def create(self, email: str, password: str, *, role: Role = Role.STUDENT) -> Account:
        """A new account with a learner of its own; raise :class:`AccountError` for bad input, :class:`AddressTaken`
        (after the same work) for a taken address."""
        folded = self.check_new(email, password)
        password_hash = self.passwords.hash(password)
        learner = str(uuid.uuid4())
        user = User(id=str(uuid.uuid4()), email=folded, password_hash=password_hash, role=role.value,
                    learner_id=learner)  # fmt: skip
        try:
            with self.sessions.begin() as session:
                session.add(Learner(id=learner))
                session.flush()
                session.add(user)
        except IntegrityError:
            raise AddressTaken("email", f"There is already an account for {folded}: sign in instead.") from None
        return Account.of(user)

    def authenticate(self, email: str, password: str) -> Account | None:
        """The account when ``password`` is its password; None otherwise (after the same work either way)."""
        with self.sessions() as session:
            user = _lookup(session, email)
        if not self.passwords.verify(user.password_hash if user else None, password) or user is None:
            return None
        if self.passwords.needs_rehash(user.password_hash):
            with self.sessions.begin() as session:
                session.execute(
                    update(User).where(User.id == user.id).values(password_hash=self.passwords.hash(password))
                )
        return Account.of(user)

    def find(self, email: str) -> Account | None:
        with self.sessions() as session:
            user = _lookup(session, email)
        return Account.of(user) if user else None

    def get(self, user_id: str) -> Account | None:
        with self.sessions() as session:
            user = session.get(User, user_id)
        return Account.of(user) if user else None

    def set_password(self, email: str, password: str) -> Account:
        """Change the password and sign the account out everywhere."""
        account = self._existing(email)
        problem = password_problem(password, account.email)
        if problem:
            raise AccountError("password", problem)
        password_hash = self.passwords.hash(password)
        with self.sessions.begin() as session:
            session.execute(update(User).where(User.id == account.id).values(password_hash=password_hash))
            session.execute(delete(AuthSession).where(AuthSession.user_id == account.id))
        return account

    def set_role(self, email: str, role: Role) -> Account:
        account = self._existing(email)
        with self.sessions.begin() as session:
            session.execute(update(User).where(User.id == account.id).values(role=role.value))
        return Account(account.id, account.email, role, account.learner_id)

    def _existing(self, email: str) -> Account:
        account = self.find(email)
        if account is None:
            raise AccountError("email", f"There is no account for {fold(email)}.")
        return account

    def adopt(self, anonymous: str, account: Account) -> int:
        """Move the anonymous learner's submissions, progress and drafts to the account; return how many submissions
        moved."""
        if anonymous == account.learner_id:
            return 0
        with self.sessions.begin() as session:
            return move_learner(session, anonymous, account.learner_id)


def _lookup(session: Session, email: str) -> User | None:
    """The account ``email`` names: the one stored exactly as typed (in lower case) if any, else the folded one."""
    exact, folded = _stored_forms(email)
    if not folded:
        return None
    found = {user.email: user for user in session.scalars(select(User).where(User.email.in_({exact, folded})))}
    return found.get(exact) or found.get(folded)


def move_learner(session: Session, source: str, target: str) -> int:
    """Give ``source``'s submissions, solved exercises and drafts to ``target``, keeping the earliest solve of each
    and the latest draft.

    ``source``'s learner row stays (a run it sends at this very moment must still find it); its cookie
    is replaced at sign-in, so nothing new reaches it.

    Refuses (moving nothing) when ``source`` is an account's learner: only anonymous work is ever moved.
    """
    if session.scalars(select(User.id).where(User.learner_id == source)).first() is not None:
        return 0
    # Credited at the move: for a course, a run counts from when it reached this account, not from when it
    # was made on a browser anyone may have used (a solve before a due date, moved in after it, is late).
    moved = session.execute(
        update(Submission).where(Submission.learner_id == source).values(learner_id=target, credited_at=utcnow())
    ).rowcount  # type: ignore[attr-defined]  # an UPDATE or DELETE gives a CursorResult
    theirs = {p.exercise: p for p in session.scalars(select(Progress).where(Progress.learner_id == target))}
    for mine in session.scalars(select(Progress).where(Progress.learner_id == source)).all():
        kept = theirs.get(mine.exercise)
        if kept is None:
            session.add(Progress(learner_id=target, exercise=mine.exercise, solved_at=mine.solved_at,
                                 submission_id=mine.submission_id))  # fmt: skip
        elif as_utc(mine.solved_at) < as_utc(kept.solved_at):
            kept.solved_at, kept.submission_id = mine.solved_at, mine.submission_id
    session.flush()
    session.execute(delete(Progress).where(Progress.learner_id == source))
    move_drafts(session, source, target)
    return int(moved or 0)
