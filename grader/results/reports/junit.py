"""JUnit XML from grading results, for CI systems that show test reports."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass

from grader.results.records import GradeResult, Status


@dataclass(frozen=True)
class Case:
    """One test case of a JUnit report."""

    name: str
    classname: str
    seconds: float
    failure: str | None = None
    error: str | None = None
    output: str | None = None


def cases_from_result(result: GradeResult, classname: str) -> list[Case]:
    if result.status is Status.ERROR and not result.tests:
        return [Case(name="load solution", classname=classname, seconds=0, error=result.message)]
    return [
        Case(
            name=test.name,
            classname=classname,
            seconds=test.duration_ms / 1000,
            failure=test.message if test.status is Status.FAIL else None,
            error=test.message if test.status is Status.ERROR else None,
            output=test.output or test.hidden_output,  # a report for instructors and CI: everything printed
        )
        for test in result.tests
    ]


def to_junit_xml(suite_name: str, cases: Iterable[Case]) -> str:
    cases = list(cases)
    suite = ET.Element(
        "testsuite",
        name=suite_name,
        tests=str(len(cases)),
        failures=str(sum(c.failure is not None for c in cases)),
        errors=str(sum(c.error is not None for c in cases)),
        time=f"{sum(c.seconds for c in cases):.3f}",
    )
    for case in cases:
        element = ET.SubElement(suite, "testcase", name=case.name, classname=case.classname, time=f"{case.seconds:.3f}")
        if case.failure is not None:
            ET.SubElement(
                element, "failure", message=case.failure.splitlines()[0] if case.failure else ""
            ).text = case.failure
        if case.error is not None:
            ET.SubElement(
                element, "error", message=(case.error or "").splitlines()[0] if case.error else ""
            ).text = case.error
        if case.output:
            ET.SubElement(element, "system-out").text = case.output
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
