"""An exercise that does not load never stops the server: it is listed with its problems and refuses
submissions, while the others are served. With reloading, edited exercises are picked up without a restart,
by the pages and the graders alike (real servers, real sandbox)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from api_support import SLUG, RunningServer, assert_error, read_events, reference_code, submit

from app.settings import Settings

TOML = """\
title = "Add two numbers"
section = "Warm-ups"
difficulty = "easy"

[[functions]]
name = "add"
params = ["a", "b"]

[hints]
plus = "Use the + operator."
"""

CHECKS = """\
from grader.checks import check, expect_integer


@check("Adds small numbers", public=True, hint="plus")
def small_numbers(student):
    expect_integer(student.add(2, 3), 5, what="add(2, 3)")
"""

FILES = {
    "exercise.toml": TOML,
    "statement.md": "Write `add(a, b)`, returning $a + b$.\n",
    "starter.py": "def add(a, b):\n    raise NotImplementedError\n",
    "reference.py": "def add(a, b):\n    return a + b\n",
    "checks.py": CHECKS,
}
ADD = "def add(a, b):\n    return a + b\n"
TYPO = "checks.py, line 4: hint 'pluss' is not in [hints] (known: plus)"


def write_exercise(root: Path, slug: str, **files: str) -> Path:
    folder = root / slug
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in {**FILES, **files}.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def grades(client: httpx.Client, code: str, slug: str) -> list[dict]:  # type: ignore[type-arg]
    accepted = submit(client, code, slug=slug)
    assert accepted.status_code == 202, accepted.text
    return read_events(client, accepted.json()["events_url"])


def started(events: list[dict]) -> list[str]:  # type: ignore[type-arg]
    """The check titles the grader announced when it started."""
    return next(e["data"]["checks"] for e in events if e["event"] == "started")


def test_an_exercise_that_does_not_load_is_listed_with_its_problems_and_refuses_submissions(
    make_settings: Callable[..., Settings], start_server: Callable[..., RunningServer], exercises_dir: Path
) -> None:
    broken = write_exercise(exercises_dir, "half-done", **{"checks.py": CHECKS.replace('"plus"', '"pluss"')})
    (broken / "starter.py").unlink()
    server = start_server(make_settings())  # it starts
    with server.client() as client:
        roadmap = client.get("/")
        assert roadmap.status_code == 200
        assert 'data-slug="half-done" data-broken' in roadmap.text
        assert "Does not load: starter.py: file is missing" in roadmap.text
        assert "Decoding with a KV Cache" in roadmap.text and "Warm-ups" in roadmap.text

        page = client.get("/exercises/half-done")
        assert page.status_code == 409
        assert "Add two numbers" in page.text and "<pre>starter.py: file is missing</pre>" in page.text

        message = assert_error(client.get("/api/exercises/half-done"), 409)
        assert message.startswith("The exercise “half-done” does not load, so it cannot be graded")
        assert "starter.py: file is missing" in message
        refused = assert_error(submit(client, ADD, slug="half-done"), 409)
        assert refused == message
        assert [e["slug"] for e in client.get("/api/exercises").json()] == [SLUG]
        assert_error(submit(client, ADD, slug="never-was"), 404)

        # The others are graded as usual.
        assert grades(client, reference_code(), SLUG)[-1]["data"]["status"] == "pass"


def test_edited_exercises_are_reloaded_for_the_pages_and_the_graders(
    make_settings: Callable[..., Settings], start_server: Callable[..., RunningServer], exercises_dir: Path
) -> None:
    server = start_server(make_settings(), reload_exercises=True, reload_seconds=0.1)
    with server.client() as client:
        assert client.get("/exercises/adder").status_code == 404

        write_exercise(exercises_dir, "adder")  # a new exercise appears
        wait_for(lambda: client.get("/exercises/adder").status_code == 200, "the new exercise")
        events = grades(client, ADD, "adder")
        assert started(events) == ["Adds small numbers"] and events[-1]["data"]["status"] == "pass"

        # A changed check: the grader runs the new one.
        (exercises_dir / "adder" / "checks.py").write_text(
            CHECKS.replace("Adds small numbers", "Adds, edited").replace("), 5,", "), 6,")
        )
        wait_for(lambda: "Adds, edited" in client.get("/api/exercises/adder").text, "the edited check")
        events = grades(client, ADD, "adder")
        assert started(events) == ["Adds, edited"] and events[-1]["data"]["status"] == "fail"

        # Broken: shown with its problem, submissions refused; the other exercise still graded.
        (exercises_dir / "adder" / "checks.py").write_text(CHECKS.replace('"plus"', '"pluss"'))
        # Waited for by its problem, not its status: a reload may read the file half written (then it has
        # no check at all, also a 409) before the next reload reads it whole.
        shown = f"<pre>{TYPO.replace(chr(39), '&#39;')}</pre>"
        wait_for(lambda: shown in client.get("/exercises/adder").text, "the broken exercise's problem")
        assert client.get("/exercises/adder").status_code == 409
        assert TYPO in assert_error(submit(client, ADD, slug="adder"), 409)
        assert grades(client, reference_code(), SLUG)[-1]["data"]["status"] == "pass"

        # Fixed again, then removed.
        (exercises_dir / "adder" / "checks.py").write_text(CHECKS)
        wait_for(lambda: client.get("/exercises/adder").status_code == 200, "the fixed exercise")
        assert grades(client, ADD, "adder")[-1]["data"]["status"] == "pass"
        shutil.rmtree(exercises_dir / "adder")
        wait_for(lambda: client.get("/exercises/adder").status_code == 404, "the removed exercise")


def test_without_reload_an_edit_waits_for_a_restart(
    make_settings: Callable[..., Settings], start_server: Callable[..., RunningServer], exercises_dir: Path
) -> None:
    write_exercise(exercises_dir, "adder")
    server = start_server(make_settings())
    with server.client() as client:
        (exercises_dir / "adder" / "checks.py").write_text(CHECKS.replace("Adds small numbers", "Edited"))
        time.sleep(1.5)
        assert "Edited" not in client.get("/api/exercises/adder").text


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_mlkata_serve_reload_picks_up_an_edited_statement(tmp_path: Path, exercises_dir: Path) -> None:
    write_exercise(exercises_dir, "adder")
    write_exercise(exercises_dir, "half-done", **{"checks.py": "import nope_nope\n"})
    port = free_port()
    env = {name: value for name, value in os.environ.items() if not name.startswith("MLKATA_")}
    env |= {
        "MLKATA_DATA_DIR": str(tmp_path / "data"),
        "MLKATA_EXERCISES_DIR": str(exercises_dir),
        "MLKATA_WORKERS": "1",
    }
    command = [str(Path(sys.executable).with_name("mlkata")), "serve", "--reload", "--port", str(port)]
    # cwd: no .env there
    server = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:

            def page(slug: str) -> httpx.Response | None:
                try:
                    return client.get(f"/exercises/{slug}")
                except httpx.TransportError:
                    return None

            wait_for(lambda: page("adder") is not None, "the server", seconds=60)
            assert page("adder").status_code == 200  # type: ignore[union-attr]
            broken = page("half-done")
            assert broken is not None and broken.status_code == 409
            assert "checks.py: importing it raised ModuleNotFoundError" in broken.text

            (exercises_dir / "adder" / "statement.md").write_text("Now with $\\sqrt{a}$ and a new sentence.\n")
            wait_for(lambda: "a new sentence" in page("adder").text, "the edited statement")  # type: ignore[union-attr]
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0].decode()
    assert "watching" in output and "exercise adder reloaded" in output
