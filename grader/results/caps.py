"""Caps on what one run reports: each message, each check's output, the whole result.

A solution decides much of what its result says (exception messages, printed output, the values a
message describes), so every part of a result has a size cap, and the result as a whole too: a
small solution must not be able to make a large result, in memory, in the database or on the wire.
Cut text ends with a mark saying how much was left out.
"""

from __future__ import annotations

from grader.results.records import CheckResult, GradeResult

#: A message of a check or of the run (exception text and traceback included).
MESSAGE_CHARS = 4000
#: What a check's output, or the output printed while loading, shows.
OUTPUT_CHARS = 64 * 1024
#: The whole result as JSON; outputs, then messages, are cut further to fit.
RESULT_BYTES = 1 << 20


def cap_text(text: str | None, limit: int) -> str | None:
    """``text`` cut to ``limit`` characters, with a mark saying how many more there were."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}\n… {len(text) - limit:,} more characters not shown"


def fit_result(result: GradeResult, limit: int = RESULT_BYTES) -> GradeResult:
    """``result`` with its outputs, then its messages, cut until its JSON is at most ``limit`` bytes."""
    output_chars, message_chars = OUTPUT_CHARS, MESSAGE_CHARS
    while _size(result) > limit and message_chars > 64:
        if output_chars > 256:
            output_chars //= 4
        else:
            message_chars //= 4
        result = result.model_copy(
            update={
                "output": cap_text(result.output, output_chars),
                "message": cap_text(result.message, message_chars),
                "tests": [_cut_check(check, output_chars, message_chars) for check in result.tests],
            }
        )
    return result


def _cut_check(check: CheckResult, output_chars: int, message_chars: int) -> CheckResult:
    return check.model_copy(
        update={
            "output": cap_text(check.output, output_chars),
            "hidden_output": cap_text(check.hidden_output, output_chars),
            "message": cap_text(check.message, message_chars),
        }
    )


def _size(result: GradeResult) -> int:
    return len(result.model_dump_json())
