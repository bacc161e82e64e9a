"""The queue flood of issue 18, measured against real processes with the default limits: what it achieves.

Three cookies from one address (127.0.0.2) send slow runs at once — each sleeps in every call of
``attend_step``, so it runs into the 2 s time limit — 40 each on two connections per cookie, then
keep the queue topped up as fast as the limits let them. Meanwhile another learner, from another
address (127.0.0.3), presses Run once with a correct solution and, when refused, tries again after
the ``Retry-After`` it was given, as a person told "try again in a minute" would. Reported: the
attack's answers, the other learner's refusals, when their run was admitted and at which place, when
its verdict came, and how many of the attacker's runs were still waiting then.

    .venv/bin/python bench/queue_flood.py            # mlkata serve grading in-process (2 graders)
    .venv/bin/python bench/queue_flood.py --redis    # mlkata serve and 2 mlkata workers, PostgreSQL, Redis
    .venv/bin/python bench/queue_flood.py --json

Needs bubblewrap (and for --redis, PostgreSQL at 127.0.0.1:5432 and redis-server). Times are
wall-clock on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadtest.stack import FreshDatabase, MlkataProcess, PrivateRedis, free_port, wait_until  # noqa: E402

SLUG = "kv-cache-decoding"
URL = f"/api/exercises/{SLUG}/submissions"
REFERENCE = (ROOT / "exercises" / SLUG / "reference.py").read_text(encoding="utf-8")
SLOW = f"{REFERENCE}\n\nimport time as _time\n_real = attend_step\n\n\ndef attend_step(*args):\n    _time.sleep(60)\n"
SLOW += "    return _real(*args)\n"
FLOODER, HONEST = "127.0.0.2", "127.0.0.3"


class Site:
    """``mlkata serve`` (grading in-process, or with ``mlkata worker``s on Redis) on fresh storage."""

    def __init__(self, workdir: Path, *, redis: bool) -> None:
        exercises = workdir / "exercises"
        shutil.copytree(ROOT / "exercises" / SLUG, exercises / SLUG)
        toml = exercises / SLUG / "exercise.toml"
        toml.write_text(toml.read_text(encoding="utf-8").replace("time_seconds = 10", "time_seconds = 2"), "utf-8")
        env = {key: value for key, value in os.environ.items() if not key.startswith("MLKATA_")}
        env.update(MLKATA_DATA_DIR=str(workdir / "data"), MLKATA_EXERCISES_DIR=str(exercises), MLKATA_WORKERS="2")
        self.database = FreshDatabase() if redis else None
        self.redis = PrivateRedis(workdir) if redis else None
        self.processes: list[MlkataProcess] = []
        if self.database is not None and self.redis is not None:
            self.redis.start()
            env.update(MLKATA_DATABASE_URL=self.database.url, MLKATA_REDIS_URL=self.redis.url, MLKATA_WORKERS="0")
            for index in range(2):
                self.processes.append(MlkataProcess(f"worker-{index + 1}", ["worker", "--concurrency", "1"], env,
                                                    workdir / f"worker-{index + 1}.log"))  # fmt: skip
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.processes.append(MlkataProcess("web", ["serve", "--port", str(port), "--log-level", "warning"], env,
                                            workdir / "web.log"))  # fmt: skip
        for process in self.processes:
            process.start()
        wait_until(self._answers, "mlkata serve", seconds=120)
        time.sleep(5)  # the graders' warm pools

    def _answers(self) -> bool:
        try:
            return httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def learner(self, address: str) -> httpx.Client:
        client = httpx.Client(base_url=self.url, timeout=120, transport=httpx.HTTPTransport(local_address=address))
        client.get("/")  # the cookie
        return client

    def close(self) -> None:
        for process in self.processes:
            process.stop(timeout=20)
        if self.redis is not None:
            self.redis.stop()
        if self.database is not None:
            self.database.drop()


def flood(site: Site) -> dict[str, Any]:
    cookies = [site.learner(FLOODER) for _ in range(3)]
    burst: list[int] = []
    later: list[int] = []
    accepted: list[tuple[httpx.Client, str]] = []
    lock = threading.Lock()
    burst_over, done = threading.Barrier(len(cookies) * 2 + 1), threading.Event()

    def send(client: httpx.Client, into: list[int]) -> httpx.Response:
        answer = client.post(URL, json={"code": SLOW})
        with lock:
            into.append(answer.status_code)
            if answer.status_code == 202:
                accepted.append((client, answer.json()["result_url"]))
        return answer

    def attack(client: httpx.Client) -> None:
        for _ in range(20):
            send(client, burst)
        burst_over.wait()
        while not done.is_set():
            answer = send(client, later)
            if answer.status_code != 202:
                done.wait(min(float(answer.headers.get("retry-after", "1")), 1.0))

    threads = [threading.Thread(target=attack, args=(client,)) for client in cookies for _ in range(2)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    burst_over.wait()
    burst_seconds = time.monotonic() - started
    honest = site.learner(HONEST)
    refused: Counter[int] = Counter()
    sent = time.monotonic()
    while (answer := honest.post(URL, json={"code": REFERENCE})).status_code != 202:
        refused[answer.status_code] += 1
        time.sleep(float(answer.headers.get("retry-after", "1")))
    admitted = time.monotonic() - sent
    result_url = answer.json()["result_url"]
    position = honest.get(result_url).json()["position"]
    while (view := honest.get(result_url).json())["status"] in ("queued", "running"):
        time.sleep(0.2)
    graded = time.monotonic() - sent
    done.set()
    for thread in threads:
        thread.join()
    with lock:
        mine = list(accepted)
    still_waiting = sum(1 for client, url in mine if client.get(url).json()["status"] == "queued")
    for client in [*cookies, honest]:
        client.close()
    return {
        "burst": {"sent": len(burst), "seconds": round(burst_seconds, 2), "answers": dict(Counter(burst))},
        "flood_while_waiting": dict(Counter(later)),
        "honest": {
            "refused": dict(refused),
            "admitted_after_s": round(admitted, 1),
            "position": position,
            "verdict": view["status"],
            "verdict_after_s": round(graded, 1),
        },
        "flood_runs_waiting_at_verdict": still_waiting,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", action="store_true", help="mlkata serve and two mlkata workers on Redis")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = Site(Path(tmp), redis=options.redis)
        try:
            report = flood(site)
        finally:
            site.close()
    if options.json:
        print(json.dumps(report, indent=2))
        return
    honest = report["honest"]
    print(f"flood: {report['burst']['sent']} runs in {report['burst']['seconds']} s -> {report['burst']['answers']}; "
          f"then, while the other learner waited: {report['flood_while_waiting']}")  # fmt: skip
    print(f"other learner: refused {honest['refused'] or 'never'}; admitted after {honest['admitted_after_s']} s "
          f"at place {honest['position']}; {honest['verdict']} after {honest['verdict_after_s']} s, with "
          f"{report['flood_runs_waiting_at_verdict']} of the flood's runs still waiting")  # fmt: skip


if __name__ == "__main__":
    main()
