"""The exercise model: an exercise folder read once, as plain data, without the grading engine.

``loading`` reads a folder (its ``exercise.toml`` through ``config``) into an :class:`Exercise`
(``model``: one version of the folder, its reference's text included), or says why it cannot;
``checks`` collects its checks, ``mistakes`` compiles its known mistakes, whose files ``mutants``
reads (a diff applied by ``patches``, or a whole file);
``statement`` renders its Markdown, ``hints`` its hints, ``versions`` names a folder's contents.
The web app reads exercises through this door alone.
"""

from grader.exercise.checks import (
    AnswerForm,
    Check,
    check,
    check_rng,
    collect_answer_forms,
    collect_checks,
    compared_as,
)
from grader.exercise.config import DIFFICULTIES, ExerciseConfig, FunctionSpec, MutantSpec, MutationSpec
from grader.exercise.loading import (
    DEFAULT_EXERCISES,
    SLUG_PATTERN,
    exercise_folders,
    load_each_exercise,
    load_exercise,
    load_exercises,
    load_or_explain,
)
from grader.exercise.mistakes import KnownMistake
from grader.exercise.model import BrokenExercise, Exercise, ExerciseError, roadmap_key
from grader.exercise.mutants import mutant_source
from grader.exercise.statement import markdown_parser

__all__ = [
    "DEFAULT_EXERCISES", "DIFFICULTIES", "SLUG_PATTERN", "AnswerForm", "BrokenExercise", "Check", "Exercise",
    "ExerciseConfig", "ExerciseError", "FunctionSpec", "KnownMistake", "MutantSpec", "MutationSpec", "check",
    "check_rng",
    "collect_answer_forms", "collect_checks", "compared_as", "exercise_folders", "load_each_exercise",
    "load_exercise", "load_exercises",
    "load_or_explain", "markdown_parser", "mutant_source", "roadmap_key",
]  # fmt: skip
