"""The account attacks of a hostile client, measured against a real ``mlkata serve``: what each one achieves.

    race        16 concurrent wrong passwords for one account (limit 10): how many were evaluated;
                23 concurrent sign-ups from one address (limit 20): how many accounts were made
    enumerate   22 sign-ups with addresses that have accounts: how many answers differ from a new
                address's answer, how many were limited; and the median time of each kind of answer
    flood       8 connections sending sign-ups of taken addresses for 12 s (from one address, then each
                from an address of its own): the argon2 hashes they forced, and an honest sign-in's time
                from another address, quiet and during the flood
    oracle      wrong current passwords sent to POST /account/password: how many were evaluated
    lookalike   sign-ups of ada@example.org with U+200B, U+2060, U+00AD or a Cyrillic "а": how many were made

Each attack comes from its own client address (X-Forwarded-For, believed from 127.0.0.1 only), so
their limits do not interfere. The server is started with default settings otherwise (and no
graders: grading is not measured here).

    .venv/bin/python bench/account_attacks.py [--flood-seconds 12] [--json]

Numbers are wall-clock on this machine; the flood's are worth comparing only within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.accounts.passwords import Passwords  # noqa: E402
from app.accounts.users import Accounts  # noqa: E402
from app.db import make_engine, make_sessionmaker, upgrade  # noqa: E402
from app.models import User  # noqa: E402

PASSWORD = "correct horse battery"
_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


class Server:
    """``mlkata serve`` of this checkout in a child process, on a fresh data directory."""

    def __init__(self, data_dir: Path, exercises_dir: Path) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "MLKATA_DATA_DIR": str(data_dir),
            "MLKATA_EXERCISES_DIR": str(exercises_dir),
            "MLKATA_WORKERS": "0",
            "MLKATA_FORWARDED_ALLOW_IPS": "127.0.0.1",
            "MLKATA_LOG_FORMAT": "text",
        }
        env.pop("MLKATA_SETTINGS_FILE", None)
        start = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from app.entry import main; main()"
        command = [sys.executable, "-c", start, "serve", "--port", str(self.port), "--log-level", "warning"]
        self.process = subprocess.Popen(command, env=env, cwd=data_dir)
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{self.url}/signin", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.2)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


class Bench:
    def __init__(self, server: Server, database_url: str) -> None:
        self.server = server
        self.engine = make_engine(database_url)
        upgrade(self.engine)
        self.accounts = Accounts(make_sessionmaker(self.engine), Passwords())

    def client(self, address: str) -> httpx.Client:
        """A new browser (its own cookies) at ``address``."""
        return httpx.Client(base_url=self.server.url, timeout=120, headers={"X-Forwarded-For": address})

    def users(self, like: str) -> int:
        with make_sessionmaker(self.engine)() as session:
            return sum(1 for email in session.query(User.email) if like in email[0])

    def post(self, client: httpx.Client, page: str, path: str, data: dict[str, str]) -> httpx.Response:
        return client.post(path, data={"csrf_token": form_token(client, page), **data})


def form_token(client: httpx.Client, page: str) -> str:
    """The CSRF token of the form on ``page``."""
    found = _TOKEN.search(client.get(page).text)
    assert found, f"no form on {page}"
    return found.group(1)


def together(count: int, setup: Callable[[int], Any], act: Callable[[Any], httpx.Response]) -> list[httpx.Response]:
    """``count`` requests sent at the same moment, each from its own client prepared by ``setup``."""
    prepared = [setup(i) for i in range(count)]
    barrier = threading.Barrier(count)
    answers: list[httpx.Response | None] = [None] * count

    def run(i: int) -> None:
        barrier.wait()
        answers[i] = act(prepared[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [answer for answer in answers if answer is not None]


def race(bench: Bench) -> dict[str, Any]:
    bench.accounts.create("victim@example.org", PASSWORD)
    stack: list[Any] = []

    def signin_form(i: int) -> tuple[httpx.Client, str]:
        client = bench.client("10.1.0.1")
        stack.append(client)
        return client, form_token(client, "/signin")

    def wrong_password(prepared: tuple[httpx.Client, str]) -> httpx.Response:
        client, token = prepared
        return client.post("/signin", data={"csrf_token": token, "email": "victim@example.org",
                                            "password": "guess-guess"})  # fmt: skip

    signins = Counter(r.status_code for r in together(16, signin_form, wrong_password))

    def signup_form(i: int) -> tuple[httpx.Client, str, int]:
        client = bench.client("10.1.0.2")
        stack.append(client)
        return client, form_token(client, "/signup"), i

    def sign_up(prepared: tuple[httpx.Client, str, int]) -> httpx.Response:
        client, token, i = prepared
        return client.post("/signup", data={"csrf_token": token, "email": f"race{i}@example.org",
                                            "password": PASSWORD, "password_again": PASSWORD})  # fmt: skip

    signups = Counter(r.status_code for r in together(23, signup_form, sign_up))
    for client in stack:
        client.close()
    return {
        "wrong passwords evaluated of 16 (limit 10)": signins[400],
        "wrong passwords refused (429)": signins[429],
        "accounts made by 23 concurrent sign-ups (limit 20)": bench.users("race"),
        "sign-ups answered": dict(signups),
    }


def _shape(response: httpx.Response, email: str) -> tuple[Any, ...]:
    """What an answer tells: its status, where it leads, which cookies it sets, and its text bar the address."""
    body = _TOKEN.sub("", response.text).replace(email, "EMAIL")
    cookies = sorted(c.split("=", 1)[0] for c in response.headers.get_list("set-cookie"))
    return response.status_code, response.headers.get("location"), cookies, body


def enumerate_(bench: Bench) -> dict[str, Any]:
    taken = [f"known{i}@example.org" for i in range(22)]
    for email in taken:
        bench.accounts.create(email, PASSWORD)

    def probe(address: str, email: str, password: str = PASSWORD + "!") -> tuple[tuple[Any, ...], float]:
        with bench.client(address) as client:
            token = form_token(client, "/signup")
            started = time.perf_counter()
            response = client.post("/signup", data={"csrf_token": token, "email": email, "password": password,
                                                    "password_again": password})  # fmt: skip
            return _shape(response, email), time.perf_counter() - started

    fresh, _ = probe("10.2.0.1", "fresh@example.org")
    shapes = [probe("10.2.0.2", email)[0] for email in taken]
    revealing = sum(1 for s in shapes if s[0] != 429 and s != fresh)
    # Timing, alternating: taken and new addresses, from an address of their own (within its sign-up limit).
    times: dict[str, list[float]] = {"taken": [], "new": []}
    for i in range(9):
        times["taken"].append(probe("10.2.0.3", taken[i])[1])
        times["new"].append(probe("10.2.0.3", f"new{i}@example.org")[1])
    return {
        "probes answered differently from a new address, of 22": revealing,
        "probes limited (429)": sum(1 for s in shapes if s[0] == 429),
        "median answer, taken address (ms)": round(1000 * statistics.median(times["taken"])),
        "median answer, new address (ms)": round(1000 * statistics.median(times["new"])),
    }


def honest_signin(bench: Bench, address: str) -> float:
    with bench.client(address) as client:
        token = form_token(client, "/signin")
        started = time.perf_counter()
        response = client.post("/signin", data={"csrf_token": token, "email": "honest@example.org",
                                                "password": PASSWORD})  # fmt: skip
        took = time.perf_counter() - started
    assert response.status_code == 303, (response.status_code, response.text[:300])
    return took


def flood(bench: Bench, seconds: float, *, spread: bool) -> dict[str, Any]:
    """8 connections of sign-ups of a taken address; ``spread``: each request from an address of its own."""
    tag = "spread" if spread else "one"
    victim = f"flooded-{tag}@example.org"
    bench.accounts.create(victim, PASSWORD)
    if bench.accounts.find("honest@example.org") is None:
        bench.accounts.create("honest@example.org", PASSWORD)
    quiet = [honest_signin(bench, "10.3.0.1") for _ in range(5)]
    stop = time.monotonic() + seconds
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    counter = iter(range(10**9))

    def attacker(n: int) -> None:
        with bench.client("10.3.1.1") as client:
            while time.monotonic() < stop:
                address = f"10.4.{n}.{next(counter) % 250 + 1}" if spread else "10.3.1.1"
                client.headers["X-Forwarded-For"] = address
                try:
                    answer = bench.post(client, "/signup", "/signup", {"email": victim, "password": "x" * 12,
                                                                        "password_again": "x" * 12})  # fmt: skip
                except httpx.HTTPError:
                    continue
                with lock:
                    statuses[answer.status_code] += 1

    threads = [threading.Thread(target=attacker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(min(1.0, seconds / 4))
    loaded = []
    while time.monotonic() < stop - 0.5:
        loaded.append(honest_signin(bench, "10.3.0.1"))
    for thread in threads:
        thread.join()
    refused = statuses[429] + statuses[503]
    return {
        f"flood ({'an address per request' if spread else 'one address'}): hashes forced in {seconds:g} s":
            sum(statuses.values()) - refused,
        "requests refused unhashed (429/503)": refused,
        "answers": dict(statuses),
        "honest sign-in, quiet, median (ms)": round(1000 * statistics.median(quiet)),
        "honest sign-in during the flood, median / max (ms)":
            f"{round(1000 * statistics.median(loaded))} / {round(1000 * max(loaded))} (n={len(loaded)})",
        "ratio of medians": round(statistics.median(loaded) / statistics.median(quiet), 2),
    }  # fmt: skip


def oracle(bench: Bench) -> dict[str, Any]:
    bench.accounts.create("owner@example.org", PASSWORD)
    with bench.client("10.5.0.1") as client:
        signed = bench.post(client, "/signin", "/signin", {"email": "owner@example.org", "password": PASSWORD})
        assert signed.status_code == 303
        statuses = Counter(
            bench.post(client, "/account", "/account/password", {"current": f"guess-{i:04d}",
                                                                   "password": "a new long password"}).status_code
            for i in range(15)
        )  # fmt: skip
    return {"wrong current passwords evaluated, of 15 (limit 10)": statuses[400], "answers": dict(statuses)}


def lookalike(bench: Bench) -> dict[str, Any]:
    bench.accounts.create("ada@example.org", PASSWORD)
    variants = ["ad\u200ba@example.org", "ada\u2060@example.org", "a\u00adda@example.org", "\u0430da@example.org"]
    before = bench.users("@example.org")
    answers = []
    for email in variants:
        with bench.client("10.6.0.1") as client:
            response = bench.post(client, "/signup", "/signup", {"email": email, "password": PASSWORD,
                                                                  "password_again": PASSWORD})  # fmt: skip
            answers.append(response.status_code)
    return {"lookalikes of ada@example.org made, of 4": bench.users("@example.org") - before, "answers": answers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flood-seconds", type=float, default=12.0)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data, exercises = Path(tmp) / "data", Path(tmp) / "exercises"
        data.mkdir()
        exercises.mkdir()
        server = Server(data, exercises)
        try:
            bench = Bench(server, f"sqlite:///{data / 'mlkata.db'}")
            results: dict[str, Any] = {
                "race": race(bench),
                "enumerate": enumerate_(bench),
                "flood, one address": flood(bench, args.flood_seconds, spread=False),
                "flood, many addresses": flood(bench, args.flood_seconds, spread=True),
                "oracle": oracle(bench),
                "lookalike": lookalike(bench),
            }
        finally:
            server.stop()
    results["load average at the end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for part, numbers in results.items():
        print(f"{part}: {numbers}" if not isinstance(numbers, dict) else part)
        for name, value in numbers.items() if isinstance(numbers, dict) else ():
            print(f"  {name}: {value}")


if __name__ == "__main__":
    main()
