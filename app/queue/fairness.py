"""Whose run goes next: the waiting runs in round-robin order by learner, read from the database.

Each learner is a lane, and so is each regrade (one lane for all its runs, whoever they belong to).
Lanes take turns, one run each per round, so one learner's backlog never delays another learner's
first run, and a regrade of a whole class moves on at one run per round however many it holds. A
lane joins the line when its oldest waiting run arrived or, if the lane had a turn since, when that
turn began, whichever is later: a learner who was just served goes behind everyone already waiting.

Everything comes from the database (the runs waiting, and when each lane last had a run started), so
every web process and every worker sees the same order, and it survives restarts of any of them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session, sessionmaker

from app.models import Learner, Submission, SubmissionStatus

_QUEUED = SubmissionStatus.QUEUED.value
_REGRADE = "regrade:"


@dataclass(frozen=True)
class WaitingRun:
    id: str
    lane: str  # the learner's id, or "regrade:<batch>" for a regrade's runs
    created_at: datetime

    @property
    def regrade(self) -> bool:
        return self.lane.startswith(_REGRADE)


def round_robin(
    runs: Iterable[WaitingRun], last_turns: Mapping[str, datetime], just_served: Collection[str] = ()
) -> list[WaitingRun]:
    """``runs`` in the order they are to be taken, given when each lane's last turn began.

    ``just_served`` lanes had a run handed to a worker a moment ago, not yet started: back of the line.
    """
    lanes: dict[str, list[WaitingRun]] = {}
    for run in sorted(runs, key=lambda r: (r.created_at, r.id)):
        lanes.setdefault(run.lane, []).append(run)

    def joined(lane: str) -> tuple[bool, datetime, datetime, str]:
        first = lanes[lane][0]
        turn = last_turns.get(lane)
        since = max(turn, first.created_at) if turn is not None else first.created_at
        return (lane in just_served, since, first.created_at, first.id)

    line = sorted(lanes, key=joined)
    rounds = max((len(queued) for queued in lanes.values()), default=0)
    return [lanes[lane][turn] for turn in range(rounds) for lane in line if turn < len(lanes[lane])]


class WaitingRuns:
    """The runs waiting for a worker, in the order workers take them."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def in_order(
        self, within: Collection[str] | None = None, *, taken: Collection[str] = (), session: Session | None = None
    ) -> list[WaitingRun]:
        """Every waiting run (or those of ``within``), first first; in ``session`` to see what it has added.

        ``taken``: runs handed to a worker that has not started them yet, left out; their lanes just had a turn.
        """
        if session is None:
            with self.sessions() as own:
                return self.in_order(within, taken=taken, session=own)
        query = select(
            Submission.id, Submission.learner_id, Submission.regrade_of, Submission.regrade_batch, Submission.created_at
        ).where(Submission.status == _QUEUED)
        if within is not None:
            if not within:
                return []
            query = query.where(Submission.id.in_([*within, *taken]))
        runs = [
            WaitingRun(row.id, row.learner_id if row.regrade_of is None else f"{_REGRADE}{row.regrade_batch}",
                       row.created_at)
            for row in session.execute(query)
        ]  # fmt: skip
        served = {run.lane for run in runs if run.id in taken}
        waiting = [run for run in runs if run.id not in taken]
        return round_robin(waiting, _last_turns(session, {run.lane for run in waiting}), served)

    def position(
        self, submission_id: str, within: Collection[str] | None = None, *, session: Session | None = None
    ) -> int | None:
        """1-based place of a waiting run in the order; None when it is not waiting."""
        order = [run.id for run in self.in_order(within, session=session)]
        return order.index(submission_id) + 1 if submission_id in order else None

    def depth(self) -> int:
        """How many runs wait, regrades' included."""
        with self.sessions() as session:
            return int(session.scalar(select(func.count(Submission.id)).where(Submission.status == _QUEUED)) or 0)


def _last_turns(session: Session, lanes: set[str]) -> dict[str, datetime]:
    """When each lane's latest run to start started (lanes that never had one are left out).

    A lane's runs start in the order they arrived (its turn always goes to its oldest waiting run), so
    its latest start is that of its latest-created run that is no longer waiting: one step back along
    the (learner, created) index per learner, however long the learner's history.
    """
    learners = [lane for lane in lanes if not lane.startswith(_REGRADE)]
    batches = [lane.removeprefix(_REGRADE) for lane in lanes if lane.startswith(_REGRADE)]
    turns: dict[str, datetime] = {}
    if learners:
        latest = (
            select(Submission.started_at)
            .where(
                Submission.learner_id == Learner.id,
                Submission.regrade_of.is_(None),
                Submission.status != _QUEUED,
                Submission.started_at.is_not(None),
            )
            .order_by(Submission.created_at.desc())
            .limit(1)
            .correlate(Learner)
            .scalar_subquery()
        )
        for learner, started in session.execute(select(Learner.id, latest).where(Learner.id.in_(learners))):
            if started is not None:
                turns[learner] = started
    if batches:
        rows = session.execute(
            select(Submission.regrade_batch, func.max(Submission.started_at))
            .where(Submission.regrade_batch.in_(batches), Submission.status != _QUEUED)
            .group_by(Submission.regrade_batch)
        )
        for batch, started in rows:
            if started is not None:
                turns[f"{_REGRADE}{batch}"] = started
    return turns


def exclusive(session: Session, key: int) -> None:
    """Hold a PostgreSQL advisory lock until ``session``'s transaction ends, so processes take turns.

    SQLite needs none: a process has one writer at a time (app.events), and one process serves it.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
