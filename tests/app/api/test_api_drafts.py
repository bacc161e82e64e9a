"""Drafts over HTTP: saved and read per learner, refused for a page opened for another, moved at sign-in, and the
exercise page opening with them (or with the passing code)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import Any

import httpx
from account_support import make_account, run_to_the_end, sign_in, sign_up
from api_support import REPO, SLUG, RunningServer, assert_error, reference_code

from app.settings import Settings

STARTER = (REPO / "exercises" / SLUG / "starter.py").read_text(encoding="utf-8")
DRAFTS = f"/api/exercises/{SLUG}/drafts"
_PAGE_DATA = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.S)
_FALLBACK = re.compile(r'<pre class="editor-fallback">(.*?)</pre>', re.S)


def page_drafts(client: httpx.Client) -> dict[str, Any]:
    """The exercise page's drafts (its page data), checked against the code the page shows before its script runs."""
    page = client.get(f"/exercises/{SLUG}")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    found = _PAGE_DATA.search(page.text)
    shown = _FALLBACK.search(page.text)
    assert found and shown
    drafts: dict[str, Any] = json.loads(found.group(1))["drafts"]
    assert html.unescape(shown.group(1)) == drafts["code"]["text"]
    return drafts


def save(client: httpx.Client, field: str, text: str, base: int = 0, **extra: Any) -> httpx.Response:
    return client.put(f"{DRAFTS}/{field}", json={"text": text, "base": base, **extra})


def test_a_draft_is_its_learners_alone_and_the_last_save_wins(server: RunningServer) -> None:
    with server.client() as laptop, server.client() as stranger:
        opened = page_drafts(laptop)
        assert opened["code"] == {"text": STARTER, "source": "given", "revision": 0, "saved_at": None}
        assert opened["anonymous"] is True
        saved = save(laptop, "code", "# mine\n", owner=opened["owner"])
        assert saved.status_code == 200 and saved.headers["cache-control"] == "no-store"
        assert (saved.json()["revision"], saved.json()["replaced"]) == (1, None)
        assert save(laptop, "inputs", "attend_step(1)", owner=opened["owner"]).json()["revision"] == 1
        read = laptop.get(DRAFTS, params={"owner": opened["owner"]})
        assert read.headers["cache-control"] == "no-store"
        assert (read.json()["code"]["text"], read.json()["inputs"]["text"]) == ("# mine\n", "attend_step(1)")
        again = page_drafts(laptop)
        assert (again["code"]["text"], again["code"]["source"], again["code"]["revision"]) == ("# mine\n", "draft", 1)
        assert again["inputs"]["text"] == "attend_step(1)"
        # A page still on revision 0 saves all the same, and hears what it replaced.
        late = save(laptop, "code", "# from the other tab\n").json()
        assert late["revision"] == 2 and late["replaced"]["text"] == "# mine\n"

        # Another learner sees none of it, and a page opened for this learner cannot write into theirs.
        assert stranger.get(DRAFTS).json() == {"exercise": SLUG, "code": None, "inputs": None}
        assert page_drafts(stranger)["code"]["text"] == STARTER
        message = assert_error(save(stranger, "code", "# not yours", owner=opened["owner"]), 409)
        assert "signed in or out in another tab" in message
        assert_error(stranger.get(DRAFTS, params={"owner": opened["owner"]}), 409)
        assert stranger.get(DRAFTS).json()["code"] is None


def test_a_draft_is_refused_what_a_run_would_be(server: RunningServer) -> None:
    with server.client() as client:
        assert_error(save(client, "code", "x", base=-1), 422)
        assert_error(client.put(f"{DRAFTS}/code", json={"text": "x", "base": True}), 422)
        assert_error(client.put(f"{DRAFTS}/code", json={"base": 0}), 422)
        assert_error(client.put(f"{DRAFTS}/code", json=["x"]), 422)
        assert_error(client.put(f"{DRAFTS}/code", json={"text": "x\x00"}), 422)
        assert_error(save(client, "notes", "x"), 422)
        plain = {"content-type": "text/plain"}
        assert_error(client.put(f"{DRAFTS}/code", content=b'{"text": "x"}', headers=plain), 415)
        assert "solution.py is" in assert_error(save(client, "code", "x" * 65 * 1024), 413)
        assert "Your inputs" in assert_error(save(client, "inputs", "x" * 17 * 1024), 413)
        assert_error(client.put("/api/exercises/nope/drafts/code", json={"text": "x"}), 404)
        assert_error(client.get("/api/exercises/nope/drafts"), 404)
        assert client.get(DRAFTS).json() == {"exercise": SLUG, "code": None, "inputs": None}  # nothing was kept


def test_an_address_starts_only_so_many_drafts_an_hour(
    make_settings: Callable[..., Settings], start_server: Callable[..., RunningServer]
) -> None:
    server = start_server(make_settings(drafts_per_address=2))
    with server.client() as one, server.client() as two:
        assert save(one, "code", "a").status_code == 200
        assert save(one, "inputs", "b").status_code == 200
        refused = save(two, "code", "c")
        assert "Too many new drafts" in assert_error(refused, 429)
        assert 0 < int(refused.headers["retry-after"]) <= 3600
        assert save(one, "code", "a again", base=1).status_code == 200  # saving again is not a new draft


def test_signing_in_takes_the_browsers_drafts_along_and_signing_out_leaves_the_browser_none(
    server: RunningServer,
) -> None:
    make_account(server.settings, "grace@example.org")
    with server.client() as lab, server.client() as home:
        owner = page_drafts(lab)["owner"]
        assert save(lab, "code", "# typed before signing in\n", owner=owner).status_code == 200
        assert sign_in(lab, "grace@example.org").status_code == 303
        signed_in = page_drafts(lab)
        assert signed_in["anonymous"] is False and signed_in["owner"] != owner
        assert signed_in["code"]["text"] == "# typed before signing in\n"
        # The anonymous page's owner no longer writes anywhere: this browser is the account's now.
        assert_error(save(lab, "code", "# stale tab", owner=owner), 409)
        # Another browser signed in to the account has it too; its save is the lab's next read.
        assert sign_in(home, "grace@example.org").status_code == 303
        at_home = page_drafts(home)
        assert at_home["code"]["text"] == "# typed before signing in\n"
        assert save(home, "code", "# typed at home\n", base=at_home["code"]["revision"],
                    owner=at_home["owner"]).json()["replaced"] is None  # fmt: skip
        assert lab.get(DRAFTS).json()["code"]["text"] == "# typed at home\n"

        signed_out = lab.post("/signout", data={"csrf_token": _token(lab)})
        assert signed_out.status_code == 303
        after = page_drafts(lab)
        assert after["anonymous"] is True and after["code"]["text"] == STARTER
        assert lab.get(DRAFTS).json()["code"] is None


def test_an_exercise_solved_opens_with_the_passing_code_until_a_draft_is_saved(server: RunningServer) -> None:
    with server.client() as laptop:
        sign_up(laptop, "ada@example.org")
        assert run_to_the_end(laptop, reference_code(), SLUG)["status"] == "pass"
    with server.client() as library:
        sign_in(library, "ada@example.org")
        opened = page_drafts(library)
        assert (opened["code"]["text"], opened["code"]["source"]) == (reference_code(), "solved")


def _token(client: httpx.Client) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/account").text)
    assert found
    return found.group(1)
