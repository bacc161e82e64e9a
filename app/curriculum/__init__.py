"""The exercises a running app serves and what learners may see of them.

``live`` keeps the loaded exercises in step with their folders, ``catalog`` says what a learner
sees (never checks, references or mutants) and in which order, ``hints`` which hint levels are open,
and ``pages`` serves the roadmap and each exercise's page.
"""

from app.curriculum import pages
from app.curriculum.catalog import ExerciseDetail, ExerciseSummary, detail, in_order, loading_error, roadmap, summary
from app.curriculum.hints import hint_access
from app.curriculum.live import LiveExercises, live_exercises

__all__ = [
    "ExerciseDetail", "ExerciseSummary", "LiveExercises", "detail", "hint_access", "in_order", "live_exercises",
    "loading_error", "pages", "roadmap", "summary",
]  # fmt: skip
