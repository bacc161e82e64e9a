"""``mlkata user``: accounts for the operator, with no mail server: create, reset a password, set a role, API tokens."""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from app.accounts.identity import fold
from app.accounts.passwords import Passwords
from app.accounts.sessions import API, SignIns
from app.accounts.users import AccountError, Accounts, parse_role
from app.db import make_engine, make_sessionmaker, upgrade
from app.models import Role
from app.settings import Settings

app = typer.Typer(name="user", help="Accounts: create them, reset passwords, set roles, make API tokens.",
                  no_args_is_help=True)  # fmt: skip

StdinOption = Annotated[
    bool, typer.Option("--password-stdin", help="Read the password from the first line of standard input.")
]


@contextmanager
def _accounts() -> Iterator[tuple[Accounts, SignIns]]:
    settings = Settings()
    engine = make_engine(settings.resolved_database_url())
    try:
        upgrade(engine)
        sessions = make_sessionmaker(engine)
        yield Accounts(sessions, Passwords()), SignIns(sessions, days=settings.session_days)
    except AccountError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(2) from None
    finally:
        engine.dispose()


def _password(from_stdin: bool) -> tuple[str, bool]:
    """(the password, whether it was generated here and must be shown)."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n"), False
    return secrets.token_urlsafe(12), True


@app.command("create")
def create_command(
    email: Annotated[str, typer.Argument(help="The account's e-mail address (its sign-in name).")],
    role: Annotated[str, typer.Option(help="student, instructor or admin.")] = Role.STUDENT.value,
    password_stdin: StdinOption = False,
) -> None:
    """Create an account. Without --password-stdin a password is generated and printed once."""
    with _accounts() as (accounts, _):
        password, generated = _password(password_stdin)
        account = accounts.create(email, password, role=parse_role(role))
    typer.echo(f"created {account.email} ({account.role})")
    if generated:
        typer.echo(f"password: {password}")


@app.command("reset-password")
def reset_password_command(
    email: Annotated[str, typer.Argument(help="The account's e-mail address.")],
    password_stdin: StdinOption = False,
) -> None:
    """Set a new password (generated and printed unless --password-stdin) and sign the account out everywhere."""
    with _accounts() as (accounts, _):
        password, generated = _password(password_stdin)
        account = accounts.set_password(email, password)
    typer.echo(f"password of {account.email} reset; every session of it ended")
    if generated:
        typer.echo(f"password: {password}")


@app.command("set-role")
def set_role_command(
    email: Annotated[str, typer.Argument(help="The account's e-mail address.")],
    role: Annotated[str, typer.Argument(help="student, instructor or admin.")],
) -> None:
    """Change an account's role (it takes effect on its next request)."""
    with _accounts() as (accounts, _):
        account = accounts.set_role(email, parse_role(role))
    typer.echo(f"{account.email} is now {account.role}")


@app.command("token")
def token_command(email: Annotated[str, typer.Argument(help="The account's e-mail address.")]) -> None:
    """Print a new API token for the account (send it as Authorization: Bearer …; valid for a year)."""
    with _accounts() as (accounts, signins):
        account = accounts.find(email)
        if account is None:
            raise AccountError("email", f"There is no account for {fold(email)}.")
        token = signins.start(account, kind=API)
    typer.echo(token)
