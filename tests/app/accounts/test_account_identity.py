"""One account per address however it is typed, and no new address that reads as another."""

from __future__ import annotations

import pytest
from account_support import PASSWORD, count_users, make_account, post_form, sign_in
from alembic import command
from api_support import RunningServer
from sqlalchemy import text

from app.accounts.identity import email_problem, fold
from app.accounts.passwords import Passwords
from app.accounts.users import Accounts
from app.db import alembic_config, make_engine, make_sessionmaker, upgrade

LOOKALIKES = [
    ("ad\u200ba@example.org", "U+200B ZERO WIDTH SPACE"),
    ("ada\u2060@example.org", "U+2060 WORD JOINER"),
    ("a\u00adda@example.org", "U+00AD SOFT HYPHEN"),
    ("\u202eada@example.org", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("ada\ufe0f@example.org", "U+FE0F VARIATION SELECTOR-16"),
    ("\u3164ada@example.org", "U+3164 HANGUL FILLER"),
    ("\u0430da@example.org", "mixes Cyrillic and Latin letters in “аda”"),
    ("ada@ex\u0430mple.org", "mixes Latin and Cyrillic letters in “exаmple”"),
]


@pytest.mark.parametrize(("email", "said"), LOOKALIKES)
def test_an_address_that_reads_as_another_is_refused_saying_why(email: str, said: str) -> None:
    problem = email_problem(email, fold(email))
    assert problem is not None and said in problem


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        (" Ada@Example.ORG ", "ada@example.org"),
        ("\uff21\uff24\uff21@example.org", "ada@example.org"),  # full-width ＡＤＡ
        ("Straße@example.de", "strasse@example.de"),
        ("Ада@пример.рф", "ада@пример.рф"),  # one script throughout: fine
        ("山田たろう@example.jp", "山田たろう@example.jp"),  # Han with Hiragana: one writing system
        ("ada.lovelace+mlkata@example.org", "ada.lovelace+mlkata@example.org"),
    ],
)
def test_an_address_is_folded_once_to_the_form_it_is_stored_in(typed: str, stored: str) -> None:
    assert fold(typed) == stored and email_problem(typed, stored) is None


def test_signing_up_with_a_lookalike_is_refused_and_makes_no_account(server: RunningServer) -> None:
    make_account(server.settings, "ada@example.org")
    with server.client() as browser:
        for email, said in LOOKALIKES[:3] + LOOKALIKES[6:7]:
            response = post_form(browser, "/signup", {"email": email, "password": PASSWORD,
                                                      "password_again": PASSWORD})  # fmt: skip
            assert response.status_code == 400 and said in response.text
            assert 'aria-invalid="true"' in response.text
    assert count_users(server.settings) == 1
    with server.client() as owner:  # however the real owner types it
        assert sign_in(owner, "\uff21\uff24\uff21@Example.org").status_code == 303


def test_existing_addresses_are_folded_by_the_migration_and_every_account_still_signs_in(empty_database: str) -> None:
    url = empty_database
    engine = make_engine(url)
    command.upgrade(alembic_config(url), "0006")
    stored = Passwords().hash(PASSWORD)
    # As the previous revision stored them: trimmed and in lower case. The last two fold to one address.
    legacy = ["straße@example.de", "ada@example.org", "\ufb01nn@example.org", "finn@example.org"]
    with engine.begin() as connection:
        for n, email in enumerate(legacy):
            connection.execute(text("INSERT INTO learners (id, created_at) VALUES (:id, CURRENT_TIMESTAMP)"),
                               {"id": f"l{n}"})  # fmt: skip
            connection.execute(
                text("INSERT INTO users (id, email, password_hash, role, learner_id, created_at) "
                     "VALUES (:id, :email, :hash, 'student', :learner, CURRENT_TIMESTAMP)"),
                {"id": f"u{n}", "email": email, "hash": stored, "learner": f"l{n}"},
            )  # fmt: skip
    upgrade(engine)
    with engine.connect() as connection:
        emails = dict(connection.execute(text("SELECT id, email FROM users")).all())
    # ﬁnn's folded form is finn's, so it keeps its own: it still signs in typed as it is.
    assert emails == {"u0": "strasse@example.de", "u1": "ada@example.org", "u2": "\ufb01nn@example.org",
                      "u3": "finn@example.org"}  # fmt: skip
    accounts = Accounts(make_sessionmaker(engine), Passwords())
    signed_in = {typed: accounts.authenticate(typed, PASSWORD) for typed in
                 ("Straße@example.de", "STRASSE@example.de", "\ufb01nn@example.org", "Finn@example.org")}  # fmt: skip
    engine.dispose()
    assert {typed: account.id if account else None for typed, account in signed_in.items()} == {
        "Straße@example.de": "u0", "STRASSE@example.de": "u0", "\ufb01nn@example.org": "u2",
        "Finn@example.org": "u3",
    }  # fmt: skip
