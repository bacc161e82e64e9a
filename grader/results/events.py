"""The events of a submission's stream: every name, and the data each carries, defined once.

A run reaches its page as server-sent events: ``queued`` (sent by the app, again whenever the place
in the queue moves), then ``started``, ``check`` and ``output`` events, and ``done`` last.
:class:`EventType` names them; the ``…Data`` models are the data of each, as stored and streamed
(``EVENT_DATA``). The app (``app/events/log.py``, ``app/grading/jobs.py``, the API's description of the stream)
takes the names from here, and ``static/src/runs.js`` keeps a copy that tests/grader/results/test_events.py
holds equal to this one.

The grader's own progress events, for live pages and logs, are the last four models (``Started`` …
``Finished``): the same names but ``queued``, which the grader never emits. The app turns each into
its stream event, keeping only what the student may see.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from grader.results.records import CheckResult, GradeResult, Status
from grader.results.tried import TriedValue, TryResult


class EventType(StrEnum):
    """Every event a submission's stream can carry, in the order a run sends them."""

    QUEUED = "queued"  # the app's alone: waiting for a worker
    STARTED = "started"
    CHECK = "check"
    VALUE = "value"  # a try's: what one line of the learner's inputs gave
    OUTPUT = "output"
    DONE = "done"


class QueuedData(BaseModel):
    """Waiting for a worker."""

    model_config = ConfigDict(extra="forbid")

    position: int | None = Field(description="1-based place in the queue, or null when it is not known.")


class StartedData(BaseModel):
    """A worker took the run; these checks will run, in this order."""

    model_config = ConfigDict(extra="forbid")

    checks: list[str] = Field(description="The checks' titles.")


class CheckData(BaseModel):
    """One check finished."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(description="0-based, in the order of ``started``'s checks.")
    check: CheckResult = Field(description="As the student may see it (no hidden check's output).")


class ValueData(BaseModel):
    """A try: what one line of the learner's inputs gave."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(description="0-based, in the order of the lines.")
    value: TriedValue


class OutputData(BaseModel):
    """The solution printed something."""

    model_config = ConfigDict(extra="forbid")

    text: str


class DoneData(BaseModel):
    """The verdict: the last event of every stream."""

    model_config = ConfigDict(extra="forbid")

    status: Status
    result: GradeResult | TryResult = Field(
        description="The results contract, as the student may see it; for a try, what its lines gave."
    )


#: The data of each event type. An event too large to keep is stored shortened instead (``app/events/log.py``).
EVENT_DATA: dict[EventType, type[BaseModel]] = {
    EventType.QUEUED: QueuedData,
    EventType.STARTED: StartedData,
    EventType.CHECK: CheckData,
    EventType.VALUE: ValueData,
    EventType.OUTPUT: OutputData,
    EventType.DONE: DoneData,
}


class Started(BaseModel):
    """The solution loaded; these checks will run, in this order."""

    type: Literal[EventType.STARTED] = EventType.STARTED
    checks: list[str]


class CheckFinished(BaseModel):
    type: Literal[EventType.CHECK] = EventType.CHECK
    index: int
    check: CheckResult


class OutputProduced(BaseModel):
    type: Literal[EventType.OUTPUT] = EventType.OUTPUT
    text: str


class ValueShown(BaseModel):
    type: Literal[EventType.VALUE] = EventType.VALUE
    index: int
    value: TriedValue


class Finished(BaseModel):
    type: Literal[EventType.DONE] = EventType.DONE
    result: GradeResult


class Tried(BaseModel):
    """A try is over."""

    type: Literal[EventType.DONE] = EventType.DONE
    result: TryResult


GradeEvent = Annotated[Started | CheckFinished | OutputProduced | Finished, Field(discriminator="type")]
EventSink = Callable[[Started | CheckFinished | OutputProduced | Finished], None]
TrySink = Callable[[Started | ValueShown | OutputProduced | Tried], None]
