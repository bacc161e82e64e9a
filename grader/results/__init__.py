"""What a grading run produces, as plain data: the result, its events, and every sentence a student reads.

The bottom of the grader (above the sandbox alone): nothing here grades or loads an exercise.
``records`` holds the result (its JSON contract is ``results.schema.json``), ``events`` what a
run streams, ``tried`` a Try it's values, ``caps`` and ``display`` how long texts are cut and
values written, ``messages`` the sentences about a run, ``tracebacks`` a check's own bug for its
author, and ``reports`` the result in other tools' formats.
"""

from grader.results import messages, tracebacks
from grader.results.caps import MESSAGE_CHARS, OUTPUT_CHARS, cap_text, fit_result
from grader.results.display import describe_kind, show_keys, show_value
from grader.results.events import (
    CheckData,
    CheckFinished,
    DoneData,
    EventSink,
    EventType,
    Finished,
    OutputData,
    OutputProduced,
    QueuedData,
    Started,
    StartedData,
    Tried,
    TrySink,
    ValueData,
    ValueShown,
)
from grader.results.records import CheckResult, GradeResult, Location, Mistake, Reason, Status, student_document
from grader.results.reports import Case, cases_from_result, to_exercism, to_junit_xml
from grader.results.tried import TriedStatement, TriedValue, TryResult, described

__all__ = [
    "MESSAGE_CHARS", "OUTPUT_CHARS", "Case", "CheckData", "CheckFinished", "CheckResult", "DoneData", "EventSink",
    "EventType", "Finished", "GradeResult", "Location", "Mistake", "OutputData", "OutputProduced", "QueuedData",
    "Reason", "Started", "StartedData", "Status", "Tried", "TriedStatement", "TriedValue", "TryResult", "TrySink",
    "ValueData", "ValueShown", "cap_text", "cases_from_result", "describe_kind", "described", "fit_result",
    "messages", "show_keys", "show_value", "student_document", "to_exercism", "to_junit_xml", "tracebacks",
]  # fmt: skip
