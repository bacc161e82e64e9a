"""/healthz, /metrics and JSON logs."""

from __future__ import annotations

import json
import logging
import socket
import time

import httpx
from api_support import read_events, reference_code, submit

from app.db import make_engine, make_sessionmaker
from app.monitoring.health import check_queue, health_report
from app.monitoring.logs import JsonFormatter, submission_context
from app.queue import RedisQueue, redis_client


def test_healthz_reports_each_component(client: httpx.Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    components = body["components"]
    assert components["database"]["status"] == "ok"
    assert components["queue"] == {"status": "ok", "backend": "embedded", "depth": 0}
    assert components["sandbox"]["status"] == "ok" and components["sandbox"]["graders"] == 2
    assert components["sandbox"]["warm_pool"] in {"starting", "started"}


def test_an_unreachable_component_makes_healthz_fail() -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    queue = RedisQueue(redis_client(f"redis://127.0.0.1:{port}"), make_sessionmaker(make_engine("sqlite://")),
                       prefix="mlkata-test", lease_seconds=30)  # fmt: skip
    status, body = health_report({"database": {"status": "ok"}, "queue": check_queue(queue)})
    assert status == 503 and body["status"] == "fail"
    assert body["components"]["queue"]["status"] == "fail" and "refused" in body["components"]["queue"]["error"]


def test_metrics_count_submissions_verdicts_and_grading_time(client: httpx.Client) -> None:
    accepted = submit(client, reference_code()).json()
    assert read_events(client, accepted["events_url"])[-1]["data"]["status"] == "pass"
    # The verdict is counted just after its done event is stored: a scrape may come between the two.
    deadline = time.monotonic() + 30
    while True:
        response = client.get("/metrics")
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
        lines = set(response.text.splitlines())
        if 'mlkata_verdicts_total{reason="passed",status="pass"} 1.0' in lines or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert "mlkata_submissions_total 1.0" in lines
    assert 'mlkata_verdicts_total{reason="passed",status="pass"} 1.0' in lines
    assert "mlkata_grading_seconds_count 1.0" in lines
    assert "mlkata_queue_depth 0.0" in lines
    assert "mlkata_sandbox_failures_total 0.0" in lines


def test_json_logs_carry_the_submission_being_handled() -> None:
    formatter = JsonFormatter()
    record = logging.LogRecord("app.grading.jobs", logging.INFO, __file__, 1, "grading (attempt %d)", (2,), None)
    with submission_context("abc-123"):
        inside = json.loads(formatter.format(record))
    outside = json.loads(formatter.format(record))
    assert inside["message"] == "grading (attempt 2)" and inside["submission_id"] == "abc-123"
    assert inside["level"] == "info" and inside["logger"] == "app.grading.jobs"
    assert "submission_id" not in outside
