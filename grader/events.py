"""Progress events a grading run emits as it goes, for live pages and logs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from grader.results import CheckResult, GradeResult


class Started(BaseModel):
    """The solution loaded; these checks will run, in this order."""

    type: Literal["started"] = "started"
    checks: list[str]


class CheckFinished(BaseModel):
    type: Literal["check"] = "check"
    index: int
    check: CheckResult


class OutputProduced(BaseModel):
    type: Literal["output"] = "output"
    text: str


class Finished(BaseModel):
    type: Literal["done"] = "done"
    result: GradeResult


GradeEvent = Annotated[Started | CheckFinished | OutputProduced | Finished, Field(discriminator="type")]
EventSink = Callable[[Started | CheckFinished | OutputProduced | Finished], None]
