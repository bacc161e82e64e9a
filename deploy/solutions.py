"""What the deploy test submits, and the verdicts each may get.

The reference and a known mistake come from the exercise folder; the fork bomb and the infinite
loop from the red-team suite; the memory bombs and the network probe are written here, the network
one aimed at what a container on the compose network could reach (the other services by name, the
gateway, the outside). No hostile submission may end in ``internal_error``: that would be the
sandbox failing, not the solution.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.exercise import mutant_source

REPO = Path(__file__).resolve().parent.parent
EXERCISE = REPO / "exercises" / "kv-cache-decoding"
REDTEAM = REPO / "tests" / "redteam" / "submissions"


@dataclass(frozen=True)
class Solution:
    name: str
    code: str
    status: frozenset[str]
    reasons: frozenset[str] | None = None  # None: any reason but internal_error
    #: Text whose presence in what the run printed fails the check (an escape that worked).
    forbidden_output: str | None = None

    def accepts(self, status: str, reason: str) -> bool:
        if reason == "internal_error" or status not in self.status:
            return False
        return self.reasons is None or reason in self.reasons


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def reference() -> str:
    return _read(EXERCISE / "reference.py")


def slow_reference(seconds: float) -> str:
    """The reference, sleeping at import: a grading long enough to kill its worker in the middle."""
    return f"import time\ntime.sleep({seconds})\n" + reference()


NETWORK_PROBE = """
import socket

REPORT = []
TARGETS = [("redis", 6379), ("postgres", 5432), ("web", 8000), ("10.88.0.1", 53), ("1.1.1.1", 443),
           ("127.0.0.1", 9100)]
for host, port in TARGETS:
    try:
        with socket.create_connection((host, port), timeout=1):
            REPORT.append(f"CONNECTED {host}:{port}")
    except OSError as exc:
        REPORT.append(f"no connection to {host}:{port}: {type(exc).__name__}")
print("\\n".join(REPORT))
"""

TREE_MEMORY_BOMB = """
import os, time

def attend_step(x_t, cache, p):
    # Twelve processes, each under the per-process address-space limit, together far above any
    # one run's share: only a cgroup (the run's, or the container's) caps the tree as a whole.
    children = []
    for _ in range(12):
        pid = os.fork()
        if pid == 0:
            try:
                block = bytearray(300 * 1024 * 1024)
                for offset in range(0, len(block), 4096):
                    block[offset] = 1
                time.sleep(60)
            finally:
                os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)

def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return attend_step(None, None, None)
"""

FAILS = frozenset({"fail", "error"})
PASS, PASSED = frozenset({"pass"}), frozenset({"passed"})
WRONG, WRONG_ANSWER = frozenset({"fail"}), frozenset({"wrong_answer"})


def graded_solutions() -> list[Solution]:
    """Graded in order through the compose stack, each through HTTP."""
    return [
        Solution("reference", reference(), PASS, PASSED),
        Solution("wrong (no-scaling mistake)", mutant_source(EXERCISE, "no-scaling"), WRONG, WRONG_ANSWER),
        Solution("fork bomb", _read(REDTEAM / "fork_bomb.py"), FAILS),
        Solution("memory bomb (one numpy array)", _read(REDTEAM / "numpy_memory_bomb.py"), FAILS),
        Solution("memory bomb (a tree of 12 × 300 MB)", TREE_MEMORY_BOMB, FAILS),
        Solution("network (services, gateway, outside)", NETWORK_PROBE + reference(), PASS, PASSED, "CONNECTED"),
        Solution("infinite loop", _read(REDTEAM / "infinite_loop_in_call.py"), FAILS, frozenset({"timeout"})),
    ]
