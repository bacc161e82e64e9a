"""Bad input and overload: each gets its status and one canonical error body."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from api_support import SLUG, RunningServer, assert_error, reference_code, submit
from sqlalchemy import func, select

from app.models import Learner
from app.settings import Settings

URL = f"/api/exercises/{SLUG}/submissions"


def test_code_over_64_kib_is_413(client: httpx.Client) -> None:
    message = assert_error(submit(client, "x = 1\n" * 11_000), 413)
    assert "64 KiB" in message


def test_a_huge_body_is_refused_before_it_is_read(client: httpx.Client) -> None:
    body = b'{"code": "' + b"a" * 2_000_000 + b'"}'
    message = assert_error(client.post(URL, content=body, headers={"content-type": "application/json"}), 413)
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


def test_a_body_nested_50000_arrays_deep_is_refused_with_422_not_500(client: httpx.Client) -> None:
    body = b'{"code": "x = 1", "deep": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    response = client.post(URL, content=body, headers={"content-type": "application/json"})
    assert "nested" in assert_error(response, 422)


def test_a_body_holding_a_5000_digit_number_is_refused_with_422_not_500(client: httpx.Client) -> None:
    body = b'{"code": "x = 1", "n": ' + b"9" * 5000 + b"}"
    response = client.post(URL, content=body, headers={"content-type": "application/json"})
    assert "5000 digits" in assert_error(response, 422)


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz",
        "application/json; charset=latin-1",
        "application/jsonp",
        None,
    ],
)
def test_a_body_that_is_not_declared_json_is_refused_with_415_so_cross_site_forms_cannot_submit(
    client: httpx.Client, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    response = client.post(URL, content=b'{"code": "x = 1"}', headers=headers)
    assert "application/json" in assert_error(response, 415)


@pytest.mark.parametrize(
    "content_type", ["application/json", "Application/JSON; charset=UTF-8", 'application/json;charset="utf-8"']
)
def test_a_json_body_with_or_without_a_utf8_charset_is_accepted(client: httpx.Client, content_type: str) -> None:
    response = client.post(URL, content=b'{"code": "x = 1"}', headers={"content-type": content_type})
    assert response.status_code == 202, response.text


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


def test_a_cookieless_flood_is_stopped_with_429_per_address_and_creates_no_more_learners(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(make_settings(workers=0, rate_limit=2, rate_limit_per_address=5, max_queue=100))
    statuses = []
    for _ in range(20):
        # No cookie jar: every request is a learner never seen before.
        response = httpx.post(server.url + URL, json={"code": "x = 1"}, timeout=30)
        statuses.append(response.status_code)
    assert statuses == [202] * 5 + [429] * 15
    assert "wait" in assert_error(response, 429)
    assert 1 <= int(response.headers["retry-after"]) <= 60
    with server.app.state.services.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Learner)) == 5


def test_a_forged_x_forwarded_for_does_not_escape_the_per_address_limit(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(make_settings(workers=0, rate_limit_per_address=3, max_queue=100))
    statuses = [
        httpx.post(server.url + URL, json={"code": "x = 1"}, headers={"x-forwarded-for": f"203.0.113.{n}"}).status_code
        for n in range(6)
    ]
    assert statuses == [202] * 3 + [429] * 3


def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_limit(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(
        make_settings(workers=0, rate_limit_per_address=2, max_queue=100, forwarded_allow_ips="127.0.0.1")
    )

    def post(address: str) -> int:
        headers = {"x-forwarded-for": address}
        return httpx.post(server.url + URL, json={"code": "x = 1"}, headers=headers).status_code

    assert [post("203.0.113.1") for _ in range(3)] == [202, 202, 429]
    assert [post("203.0.113.2") for _ in range(2)] == [202, 202]


def test_full_queue_is_503(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(make_settings(workers=0, max_queue=2))

    def client_from(address: str) -> httpx.Client:  # three machines, each under its share
        return httpx.Client(base_url=server.url, transport=httpx.HTTPTransport(local_address=address))

    with client_from("127.0.0.2") as learner, client_from("127.0.0.3") as other, client_from("127.0.0.4") as third:
        first, second = submit(learner, "x = 1").json(), submit(other, "x = 2").json()
        assert other.get(second["result_url"]).json()["position"] == 2
        assert first["id"] != second["id"]
        assert "busy" in assert_error(submit(third, "x = 3"), 503)


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
