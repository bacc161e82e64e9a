"""Debian Chromium driven by Playwright against a real ``mlkata serve`` on a free loopback port."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from browser_support import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, REPO, SLUG, Problems, Server
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

# What the page must come to show, it is given this long: a grading on a loaded machine takes many
# times its quiet time, and a page that is already right passes at once (a verdict never waits on it).
expect.set_options(timeout=60_000)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def exercises_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the KV-cache exercise with a 2 s CPU limit, so the infinite-loop scenario is quick.

    Its wall-clock limit is 40 s: a run that waits (sleeps) stays running while a loaded machine
    reloads a page or clicks Stop.
    """
    root = tmp_path_factory.mktemp("exercises")
    shutil.copytree(REPO / "exercises" / SLUG, root / SLUG)
    toml = root / SLUG / "exercise.toml"
    text = toml.read_text(encoding="utf-8")
    assert "time_seconds = 10" in text
    toml.write_text(text.replace("time_seconds = 10", "time_seconds = 2\nwall_clock_factor = 20"), encoding="utf-8")
    return root


# Module scope: the server keeps a spare sandboxed run started between submissions, which later
# tests that look for leftover sandbox processes of this test process would otherwise see.
@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, exercises_dir: Path
) -> Iterator[Server]:
    """A uvicorn subprocess serving the app with a fresh data dir (the operator's CLI can reach it).

    A test module's ``SERVER_ENV`` (a dict) adds settings of its own.
    """
    if not (REPO / "static" / "dist" / "exercise.js").is_file():
        pytest.fail("the front end is not built: run `make frontend` (make test and make browser do it)")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make browser-packages` (apt-get install chromium)")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    data_dir = tmp_path_factory.mktemp("data")
    env = {**os.environ, "MLKATA_DATA_DIR": str(data_dir), "MLKATA_EXERCISES_DIR": str(exercises_dir),
           **getattr(request.module, "SERVER_ENV", {})}  # fmt: skip
    log = (tmp_path_factory.mktemp("log") / "server.log").open("w")
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "mlkata"),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(url + "/api/exercises", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            log.close()
            pytest.fail(f"the server did not start: {Path(log.name).read_text()}")
        time.sleep(0.1)
    yield Server(url, env, Path(sys.executable).parent / "mlkata")
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    log.close()


@pytest.fixture(scope="module")
def base_url(server: Server) -> str:
    return server.url


# Module scope, not session: Playwright's sync API keeps an event loop running in the main thread
# while it is open, and later tests that call asyncio.run() must not find one.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def problems() -> Problems:
    return Problems()


@pytest.fixture
def page(browser: Browser, base_url: str, problems: Problems) -> Iterator[Page]:
    """A fresh learner (new context: no cookie, no drafts) on a 1280×800 window."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.on("console", problems.on_console)
    page.on("pageerror", lambda error: problems.messages.append(f"page error: {error}"))
    yield page
    context.close()
