"""The runs of one grading: the runner with the solution loaded (a new one after a crash), and stopping it.

A grading's runners share one clock (the solution's CPU and waiting time), one output allowance
and the checks' CPU budget; a fresh one after a timeout gets a clock of its own and refuses the
function that ran out of time.
"""

from __future__ import annotations

import threading

from grader.exercise import Exercise, KnownMistake
from grader.grading import verdicts
from grader.grading.budget import CheckBudget
from grader.grading.check_run import LoadFailed
from grader.grading.mistakes import derived_mistakes
from grader.grading.proxy import Call
from grader.grading.session import SolutionRaised, SolutionSession, SolutionSyntaxError
from grader.sandbox import Run, RunClock, RunnerDied

#: The grader's CPU time for naming one run's mistakes, over all its failing checks (replays of trusted code).
DIAGNOSIS_SECONDS = 2.0


class Stop:
    """Ends a grading from another thread: its sandbox run is killed at once and no further check starts.

    Only the run of this grading is touched (through its own channel, by the grading thread);
    every other run, and the warm pool, carry on.
    """

    def __init__(self) -> None:
        self._requested = threading.Event()
        self._lock = threading.Lock()
        self._run: Run | None = None

    @property
    def requested(self) -> bool:
        return self._requested.is_set()

    def request(self) -> None:
        self._requested.set()
        with self._lock:
            if self._run is not None:
                self._run.interrupt()

    def watch(self, run: Run | None) -> None:
        """The run to interrupt from now on (None once it is closed: it must never be interrupted after)."""
        with self._lock:
            self._run = run
            if run is not None and self.requested:
                run.interrupt()


class Runs:
    """The current runner with the solution loaded; a new one after a crash."""

    def __init__(
        self, exercise: Exercise, source: str, jailed: bool, warm: bool, stop: Stop, *, diagnose: bool = True
    ) -> None:
        self.exercise, self.source, self.jailed, self.warm, self.stop = exercise, source, jailed, warm, stop
        #: Whether a failing check's calls are replayed to name its mistake and symptom.
        self.diagnose = diagnose
        #: After a timeout: the function that ran out of time, and the check it did so in.
        self.refused: tuple[str, str] | None = None
        #: The time the solution may use: CPU time, and wall-clock time waiting for its answers (never the
        #: sandbox's start or the checks' own work). Runners started after a crash share it, and the output
        #: allowance too.
        self.clock = RunClock.of(exercise.limits)
        self._output_used = 0
        self._session: SolutionSession | None = None
        self.output_truncated = False
        #: Made here, in the grading thread, whose CPU time it counts.
        self.budget = CheckBudget(exercise.limits.checks_cpu_seconds)
        #: For each failing check, the known mistakes that reproduce its answers (``mistakes.leads`` decides).
        self.matches: dict[str, list[str]] = {}
        #: The calls the current runner has answered, in order: a mutant that keeps state replays them first.
        self.history: list[Call] = []
        #: The CPU time left for diagnosing the run's failing checks: their own, not the checks' (spent apart).
        self.diagnosis_left = DIAGNOSIS_SECONDS

    def suspects(self) -> list[KnownMistake]:
        """The mistakes that explain every failing check so far, known ones first: only those can still lead."""
        everyone = self.mistakes()
        if not self.matches:
            return everyone
        names = set.intersection(*(set(found) for found in self.matches.values()))
        return [m for m in everyone if m.name in names]

    def mistakes(self) -> list[KnownMistake]:
        """The exercise's known mistakes, then those derived from its reference (grader.grading.mistakes.derived)."""
        return [*self.exercise.known_mistakes, *derived_mistakes(self.exercise)]

    def current(self) -> SolutionSession:
        if self._session is not None and self._session.alive:
            return self._session
        self.close()
        limits = self.exercise.limits
        session = SolutionSession(limits, jailed=self.jailed, clock=self.clock, warm=self.warm)
        self.history = []  # a new runner: the solution's module starts afresh
        output = session.run.output
        output.limit = max(0, output.limit - self._output_used)
        self._session = session
        self.stop.watch(session.run)
        try:
            described = session.load(self.source, self.exercise.function_names)
        except (SolutionSyntaxError, SolutionRaised) as exc:
            raise LoadFailed(*verdicts.failed_to_load(exc)) from None
        except RunnerDied as died:
            verdict = verdicts.died(died, "while loading solution.py", limits)
            raise LoadFailed(verdict.reason, verdict.message) from None
        for spec in self.exercise.config.functions:
            problem = verdicts.signature_problem(spec, described.get(spec.name))
            if problem is not None:
                raise LoadFailed(*problem)
        return session

    def take_output(self) -> str:
        if self._session is None:
            return ""
        text = self._session.take_output()
        self.output_truncated = self.output_truncated or self._session.run.output.exceeded
        return text

    def refuse(self, function: str, check_title: str) -> None:
        """After a timeout in ``check_title``: a fresh run, with a time budget of its own, that refuses ``function``."""
        self.refused = (function, check_title)
        self.close()
        self.clock = RunClock.of(self.exercise.limits)

    def close(self) -> None:
        self.stop.watch(None)  # before closing: the run must never be interrupted once it is closed
        if self._session is not None:
            self._session.close(wait=False)  # the verdict need not wait for the run's tidying up
            self._output_used += self._session.run.output.size
            self._session = None
