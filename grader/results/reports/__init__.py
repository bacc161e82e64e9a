"""A grading result in other tools' formats: Exercism's ``results.json`` and JUnit XML for CI."""

from grader.results.reports.exercism import to_exercism
from grader.results.reports.junit import Case, cases_from_result, to_junit_xml

__all__ = ["Case", "cases_from_result", "to_exercism", "to_junit_xml"]
