"""The exercise model: an exercise folder read once, as plain data, without the grading engine.

``loading`` reads a folder (its ``exercise.toml`` through ``config``) into an :class:`Exercise`
(``model``), or says why it cannot; ``checks`` collects its checks, ``mistakes`` compiles its known
mistakes, whose files ``mutants`` reads (a whole file, or a diff applied by ``patches``);
``statement`` renders its Markdown, ``hints`` its hints, ``versions`` names a folder's contents.
The web app reads exercises through this door alone.
"""

from grader.exercise.checks import Check, check, check_rng, collect_checks
from grader.exercise.mistakes import KnownMistake
from grader.exercise.model import (
    DEFAULT_EXERCISES,
    SLUG_PATTERN,
    BrokenExercise,
    Exercise,
    ExerciseError,
    FunctionSpec,
    exercise_folders,
    load_each_exercise,
    load_exercise,
    load_or_explain,
)
from grader.exercise.statement import markdown_parser

__all__ = [
    "DEFAULT_EXERCISES", "SLUG_PATTERN", "BrokenExercise", "Check", "Exercise", "ExerciseError", "FunctionSpec",
    "KnownMistake", "check", "check_rng", "collect_checks", "exercise_folders", "load_each_exercise", "load_exercise",
    "load_or_explain", "markdown_parser",
]  # fmt: skip
