"""Golden cases: a solution and the exact results it must produce, through the real CLI.

Each folder under ``golden/`` holds ``solution.py`` and ``expected.json`` (timings zeroed).
Regenerate after an intended change with ``MLKATA_UPDATE_GOLDEN=1 pytest tests/grader/test_golden.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

GOLDEN = Path(__file__).parent / "golden"
MLKATA = str(Path(sys.executable).with_name("mlkata"))


def normalised(document: dict[str, Any]) -> dict[str, Any]:
    document["duration_ms"] = 0
    for test in document["tests"]:
        test["duration_ms"] = 0
    return document


@pytest.mark.parametrize("case", sorted(p.name for p in GOLDEN.iterdir()))
def test_golden_case(case: str) -> None:
    folder = GOLDEN / case
    completed = subprocess.run(
        [MLKATA, "grade", str(folder / "solution.py"), "--exercise", "kv-cache-decoding", "--json"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    document = normalised(json.loads(completed.stdout))
    expected_file = folder / "expected.json"
    if os.environ.get("MLKATA_UPDATE_GOLDEN"):
        expected_file.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    assert document == json.loads(expected_file.read_text())
    assert completed.returncode == (0 if document["status"] == "pass" else 1)
