"""Bad input and overload: each gets its status and one canonical error body."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from api_support import SLUG, RunningServer, reference_code, submit

from app.settings import Settings

URL = f"/api/exercises/{SLUG}/submissions"


def assert_error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    # The canonical error body, pinned: exactly these keys.
    assert body == {"error": {"status": status, "message": body["error"]["message"]}}
    message = body["error"]["message"]
    assert isinstance(message, str) and len(message) > 10
    return message


def test_code_over_64_kib_is_413(client: httpx.Client) -> None:
    message = assert_error(submit(client, "x = 1\n" * 11_000), 413)
    assert "64 KiB" in message


def test_a_huge_body_is_refused_before_it_is_read(client: httpx.Client) -> None:
    message = assert_error(client.post(URL, content=b'{"code": "' + b"a" * 2_000_000 + b'"}'), 413)
    assert "64 KiB" in message


def test_non_utf8_body_is_422_with_a_clear_message(client: httpx.Client) -> None:
    body = b'{"code": "x = \xff\xfe"}'
    response = client.post(URL, content=body, headers={"content-type": "application/json"})
    assert "not valid UTF-8" in assert_error(response, 422)


def test_lone_surrogate_is_422(client: httpx.Client) -> None:
    response = client.post(
        URL, content=b'{"code": "x = 1\\ny = \\"\\ud800\\""}', headers={"content-type": "application/json"}
    )
    message = assert_error(response, 422)
    assert "UTF-8" in message and "line 2" in message


def test_nul_byte_is_422_with_its_line(client: httpx.Client) -> None:
    message = assert_error(submit(client, "x = 1\ny = 2\x00\n"), 422)
    assert "NUL" in message and "line 2" in message


@pytest.mark.parametrize("body", [b"not json", b"[]", b'{"code": 3}', b'{"source": "x = 1"}'])
def test_malformed_requests_are_422(client: httpx.Client, body: bytes) -> None:
    assert_error(client.post(URL, content=body, headers={"content-type": "application/json"}), 422)


def test_unknown_exercise_is_404(client: httpx.Client) -> None:
    assert "no-such-thing" in assert_error(submit(client, "x = 1", slug="no-such-thing"), 404)
    assert_error(client.get("/api/exercises/no-such-thing"), 404)
    assert_error(client.get("/api/submissions/nope"), 404)
    assert_error(client.get("/api/nothing-here"), 404)


def test_rate_limit_is_429_with_retry_after(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(make_settings(workers=0, rate_limit=2, rate_limit_window=60))
    with server.client() as learner, server.client() as other:
        assert submit(learner, "x = 1").status_code == 202
        assert submit(learner, "x = 1").status_code == 202
        response = submit(learner, "x = 1")
        assert "wait" in assert_error(response, 429)
        assert 1 <= int(response.headers["retry-after"]) <= 60
        assert submit(other, "x = 1").status_code == 202  # the limit is per learner


def test_full_queue_is_503(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(make_settings(workers=0, max_queue=2))
    with server.client() as learner:
        first, second = submit(learner, "x = 1").json(), submit(learner, "x = 2").json()
        assert learner.get(second["result_url"]).json()["position"] == 2
        assert first["id"] != second["id"]
        assert "busy" in assert_error(submit(learner, "x = 3"), 503)


def test_error_body_for_an_unknown_page_is_html(client: httpx.Client) -> None:
    response = client.get("/exercises/no-such-thing")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "no-such-thing" in response.text


def test_reference_is_accepted_at_the_boundary(client: httpx.Client) -> None:
    code = reference_code()
    padded = code + "#" * (64 * 1024 - len(code.encode()) - 1) + "\n"
    assert len(padded.encode()) == 64 * 1024
    assert submit(client, padded).status_code == 202
    assert_error(submit(client, padded + "#"), 413)
