"""A learner's browser: opens the exercise page (its cookie), posts JSON and follows the result.

The same requests the exercise page makes (``static/src/exercise.js``): ``POST
/api/exercises/{slug}/submissions`` with ``Content-Type: application/json`` and the learner cookie,
then ``GET /api/submissions/{id}`` until the status is a verdict.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

SLUG = "kv-cache-decoding"
FINISHED = frozenset({"pass", "fail", "error"})


@dataclass(frozen=True)
class Graded:
    id: str
    status: str
    reason: str
    seconds: float
    view: dict[str, Any]

    @property
    def output(self) -> str:
        result = self.view.get("result") or {}
        texts = [result.get("output") or ""]
        texts += [test.get("output") or "" for test in result.get("tests") or []]
        return "\n".join(texts)


class Learner:
    def __init__(self, url: str) -> None:
        self.client = httpx.Client(base_url=url, timeout=30, follow_redirects=True)
        page = self.client.get(f"/exercises/{SLUG}")
        page.raise_for_status()
        if not self.client.cookies:
            raise RuntimeError(f"GET /exercises/{SLUG} set no learner cookie")

    def close(self) -> None:
        self.client.close()

    def submit(self, code: str) -> str:
        response = self.client.post(
            f"/api/exercises/{SLUG}/submissions",
            json={"code": code},
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        if response.status_code != 202:
            raise RuntimeError(f"submitting: {response.status_code} {response.text[:300]}")
        return str(response.json()["id"])

    def view(self, submission_id: str) -> dict[str, Any]:
        response = self.client.get(f"/api/submissions/{submission_id}")
        response.raise_for_status()
        found: dict[str, Any] = response.json()
        return found

    def wait(self, submission_id: str, seconds: float = 180) -> Graded:
        started = time.monotonic()
        while True:
            view = self.view(submission_id)
            if view["status"] in FINISHED:
                reason = str((view.get("result") or {}).get("reason"))
                return Graded(submission_id, view["status"], reason, time.monotonic() - started, view)
            if time.monotonic() - started > seconds:
                raise RuntimeError(f"submission {submission_id} still {view['status']} after {seconds:.0f} s")
            time.sleep(0.25)

    def grade(self, code: str, seconds: float = 180) -> Graded:
        started = time.monotonic()
        graded = self.wait(self.submit(code), seconds)
        return Graded(graded.id, graded.status, graded.reason, time.monotonic() - started, graded.view)
