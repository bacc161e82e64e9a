"""`mlkata user`: the operator makes accounts, resets passwords, sets roles and makes API tokens (no mail server)."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest
from account_support import sign_in
from api_support import RunningServer
from typer.testing import CliRunner

from app.cli import app
from app.settings import Settings


@pytest.fixture
def mlkata(make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch) -> Callable[..., tuple[int, str]]:
    """Run ``mlkata`` with this test's settings in the environment; (exit code, output)."""
    settings = make_settings()
    monkeypatch.setenv("MLKATA_DATA_DIR", str(settings.data_dir))
    if settings.database_url:
        monkeypatch.setenv("MLKATA_DATABASE_URL", settings.database_url)
    monkeypatch.delenv("MLKATA_SETTINGS_FILE", raising=False)

    def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
        result = CliRunner().invoke(app, list(args), input=stdin)
        return result.exit_code, result.output

    return run


def printed_password(output: str) -> str:
    found = re.search(r"^password: (\S+)$", output, re.MULTILINE)
    assert found, output
    return found.group(1)


def test_an_admin_created_on_the_command_line_signs_in_with_the_printed_password(
    mlkata: Callable[..., tuple[int, str]], server: RunningServer
) -> None:
    code, output = mlkata("user", "create", "Boss@Example.org", "--role", "admin")
    assert code == 0 and "created boss@example.org (admin)" in output
    with server.client() as browser:
        assert sign_in(browser, "boss@example.org", printed_password(output)).status_code == 303
        assert 'data-role="admin"' in browser.get("/account").text


def test_reset_password_sets_a_new_one_and_signs_the_account_out_everywhere(
    mlkata: Callable[..., tuple[int, str]], server: RunningServer
) -> None:
    _, output = mlkata("user", "create", "forgot@example.org")
    with server.client() as browser:
        sign_in(browser, "forgot@example.org", printed_password(output))
        code, output = mlkata(
            "user", "reset-password", "forgot@example.org", "--password-stdin", stdin="my new password\n"
        )
        assert code == 0 and "every session of it ended" in output and "password:" not in output
        assert browser.get("/account", follow_redirects=False).status_code == 303
        assert sign_in(browser, "forgot@example.org", "my new password").status_code == 303


def test_set_role_takes_effect_on_the_next_request(
    mlkata: Callable[..., tuple[int, str]], server: RunningServer
) -> None:
    _, output = mlkata("user", "create", "teacher@example.org")
    with server.client() as browser:
        sign_in(browser, "teacher@example.org", printed_password(output))
        assert mlkata("user", "set-role", "teacher@example.org", "instructor") == (
            0, "teacher@example.org is now instructor\n"
        )  # fmt: skip
        assert 'data-role="instructor"' in browser.get("/account").text


def test_an_api_token_signs_in_api_requests_but_not_pages(
    mlkata: Callable[..., tuple[int, str]], server: RunningServer
) -> None:
    mlkata("user", "create", "script@example.org")
    code, token = mlkata("user", "token", "script@example.org")
    assert code == 0
    headers = {"Authorization": f"Bearer {token.strip()}"}
    with httpx.Client(base_url=server.url) as script:
        assert script.get("/api/exercises", headers=headers).status_code == 200
        assert script.get("/account", headers=headers, follow_redirects=False).status_code == 303


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("user", "create", "nobody"), "is not an e-mail address"),
        (("user", "create", "x@example.org", "--role", "boss"), "'boss' is not a role: use one of student, instructor"),
        (("user", "reset-password", "ghost@example.org"), "There is no account for ghost@example.org"),
        (("user", "token", "ghost@example.org"), "There is no account for ghost@example.org"),
    ],
)
def test_bad_input_exits_2_with_what_is_wrong(
    mlkata: Callable[..., tuple[int, str]], args: tuple[str, ...], message: str
) -> None:
    code, output = mlkata(*args)
    assert code == 2 and message in output


def test_a_taken_address_is_refused(mlkata: Callable[..., tuple[int, str]]) -> None:
    assert mlkata("user", "create", "one@example.org")[0] == 0
    code, output = mlkata("user", "create", "ONE@example.org")
    assert code == 2 and "already an account for one@example.org" in output
