"""The exercises a running app serves, kept in step with their folder.

:class:`LiveExercises` loads every exercise folder, keeping the ones that load (``exercises``) apart
from the ones that do not (``broken``, each with its problems), so one bad folder never stops the
app. Its ``exercises`` dict is the very one the pages, the API and the graders read: reloading
updates it in place, one key at a time, so a request or a grading sees an exercise's old version
or its new one, never none.

With ``mlkata serve --reload`` a :class:`Watcher` thread polls the folder (each file's size and
modification time, with the standard library) and reloads the exercises whose files changed,
adds new ones and drops removed ones. A grading already running keeps the version it started with.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from fastapi import Request

from grader.exercise import BrokenExercise, Exercise, exercise_folders, load_or_explain

log = logging.getLogger(__name__)

#: Seconds between two looks at the exercises folder.
POLL_SECONDS = 1.0

Stamp = frozenset[tuple[str, int, int]]  # (path in the folder, size, mtime in ns) of each file


class LiveExercises:
    """Every exercise folder under ``root``: the loaded exercises, and the broken ones with why."""

    def __init__(self, root: Path) -> None:
        self.root = root
        #: Shared with the graders (:class:`app.grading.jobs.GradingJobs`) and the pages: updated in place.
        self.exercises: dict[str, Exercise] = {}
        self.broken: dict[str, BrokenExercise] = {}
        self._stamps: dict[str, Stamp] = {}
        self._lock = threading.Lock()
        self.refresh()

    def refresh(self) -> list[str]:
        """Load the folders that are new or changed since the last look, drop the removed ones; return their slugs."""
        with self._lock:
            folders = {folder.name: folder for folder in exercise_folders(self.root)}
            changed = []
            for slug in sorted(set(self._stamps) - set(folders)):
                del self._stamps[slug]
                self.exercises.pop(slug, None)
                self.broken.pop(slug, None)
                log.info("exercise %s removed", slug)
                changed.append(slug)
            for slug, folder in folders.items():
                stamp = _stamp(folder)  # before loading: a change made while it loads is seen next time
                if self._stamps.get(slug) == stamp:
                    continue
                reloaded = slug in self._stamps
                self._stamps[slug] = stamp
                outcome = load_or_explain(folder)
                if isinstance(outcome, Exercise):
                    self.exercises[slug] = outcome
                    self.broken.pop(slug, None)
                    if reloaded:
                        log.info("exercise %s reloaded", slug)
                else:
                    self.broken[slug] = outcome
                    self.exercises.pop(slug, None)
                    log.warning("%s", outcome.error)
                changed.append(slug)
            return changed

    def watch(self, interval: float = POLL_SECONDS) -> Watcher:
        """A started thread that refreshes every ``interval`` seconds until stopped."""
        watcher = Watcher(self, interval)
        watcher.start()
        return watcher


class Watcher:
    """Polls an exercises folder and reloads what changed (``mlkata serve --reload``)."""

    def __init__(self, live: LiveExercises, interval: float) -> None:
        self.live, self.interval = live, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mlkata-exercise-watcher", daemon=True)

    def start(self) -> None:
        self._thread.start()
        log.info("watching %s: edited exercises are reloaded", self.live.root)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.live.refresh()
            except Exception:  # a folder vanishing mid-look, a permission error: try again next time
                log.exception("reloading the exercises failed")


def _stamp(folder: Path) -> Stamp:
    found = []
    for directory, subfolders, files in os.walk(folder):
        subfolders[:] = [name for name in subfolders if name != "__pycache__" and not name.startswith(".")]
        for name in files:
            path = Path(directory) / name
            try:
                info = path.stat()
            except OSError:
                continue  # removed since it was listed
            found.append((str(path.relative_to(folder)), info.st_size, info.st_mtime_ns))
    return frozenset(found)


def live_exercises(request: Request) -> LiveExercises | None:
    """FastAPI dependency: the app's live exercises (None for an app built without them)."""
    found = getattr(request.app.state, "live_exercises", None)
    return found if isinstance(found, LiveExercises) else None
