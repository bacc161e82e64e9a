"""``mlkata new``: a new exercise folder that loads and passes ``mlkata check`` as it is.

The folder is a small, complete example (normalising a vector) for the author to replace file by
file: a statement with a worked example and math, that example as what "Try it" starts with, a
starter, a reference, a public and a hidden check, and one known mistake written as a diff against
the reference.
"""

from __future__ import annotations

import difflib
import json
import shutil
import tempfile
from pathlib import Path

from grader.exercise import SLUG_PATTERN, load_exercise


class ScaffoldError(ValueError):
    """The exercise cannot be created as asked (a bad slug, a folder that exists)."""


MUTANT = "no-sqrt"

_TOML = """\
title = {title}
section = {section}
difficulty = "easy"
tags = []
summary = "One line for the roadmap: say what the student builds."

# What "Try it" starts with: the statement's worked example as Python (np is there), checked by mlkata check.
try_it = \"\"\"
normalize(np.array([3.0, 4.0]))
\"\"\"

# The functions the student writes: checks call them as student.<name>(...).
[[functions]]
name = "normalize"
params = ["x"]
returns = "an array of the same shape as x, whose norm is 1"

[limits]
time_seconds = 5
memory_mb = 256

# Shown to a student when a check fails with this hint id (or makes the mistake of a mutant naming it).
[hints]
shape = "Return a numpy array of the same shape as x: one value for each value of x."
norm = "Divide by the norm itself, the square root of the sum of squares: ‖x‖ = √(Σ xᵢ²)."

# A mistake students make, proved caught by the checks: mutants/{mutant}.diff is reference.py with it.
[mutants.{mutant}]
mistake = "Divides by the sum of squares instead of its square root."
hint = "norm"
caught_by = ["worked_example", "random_vectors"]
"""

_STATEMENT = """\
## The problem

The Euclidean norm of a vector $x$ of $n$ numbers is its length:

$$
\\|x\\| = \\sqrt{\\sum_{i=1}^{n} x_i^2}
$$

Dividing $x$ by its norm gives a vector of length 1 that points the same way.

### A worked example

For $x = (3, 4)$ the norm is $\\sqrt{3^2 + 4^2} = 5$, so the answer is $(0.6, 0.8)$.

## What to write

`normalize(x)`, where `x` is a numpy array of shape $(n,)$ with at least one value that is not
zero. Return $x / \\|x\\|$, an array of the same shape, and leave `x` unchanged.

::: hint
`np.sum(x ** 2)` is the sum of the squares.
:::
"""

_STARTER = '''\
import numpy as np  # noqa: F401  (you will need it)


def normalize(x):
    """x divided by its Euclidean norm.

    x: a numpy array of shape (n,), not all zeros.
    Returns an array of shape (n,) whose norm is 1.
    """
    raise NotImplementedError
'''

_REFERENCE = """\
import numpy as np


def normalize(x):
    norm = np.sqrt(np.sum(x**2))
    return x / norm
"""

_MUTANT = _REFERENCE.replace("np.sqrt(np.sum(x**2))", "np.sum(x**2)")

_CHECKS = '''\
"""The checks of this exercise.

Expected values take another route than reference.py (np.linalg.norm here), so that a bug the
reference shared with the checks could not hide. A wrong answer is named by the grader when it
matches a mutant's, with that mutant's hint.
"""

from __future__ import annotations

import numpy as np

from grader.checks import Student, check, expect_array


def expected_normalize(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x)


@check("The worked example from the statement", public=True, hint="shape")
def worked_example(student: Student) -> None:
    expect_array(student.normalize(np.array([3.0, 4.0])), [0.6, 0.8], what="normalize([3, 4])")


@check("Random vectors of many lengths", hint="shape")
def random_vectors(student: Student, rng: np.random.Generator) -> None:
    # rng is seeded from the exercise and the check: every run draws the same vectors.
    inputs = [rng.normal(size=n) for n in (1, 2, 5, 100)]
    results = student.normalize.each([(x,) for x in inputs])  # one crossing of the sandbox for all four
    for x, got in zip(inputs, results, strict=True):
        expect_array(got, expected_normalize(x), what=f"normalize of {len(x)} random values")
'''


def new_exercise(exercises: Path, slug: str, *, title: str, section: str) -> Path:
    """Write ``exercises/<slug>/``; raise :class:`ScaffoldError` (a bad slug, title or section, an existing folder)."""
    if not SLUG_PATTERN.match(slug):
        raise ScaffoldError(
            f"{slug!r} is not a valid slug: use lowercase letters and digits, in words joined by '-' "
            "(for example stable-softmax)"
        )
    for name, value in (("title", title), ("section", section)):
        if not value.strip() or "\n" in value or "\r" in value:
            raise ScaffoldError(f"the {name} must be one line of text, not {value!r}")
    folder = exercises / slug
    if folder.exists():
        raise ScaffoldError(f"{folder} already exists: choose another slug, or edit that exercise")
    files = {
        "exercise.toml": _TOML.format(title=_toml_string(title), section=_toml_string(section), mutant=MUTANT),
        "statement.md": _STATEMENT,
        "starter.py": _STARTER,
        "reference.py": _REFERENCE,
        "checks.py": _CHECKS,
        f"mutants/{MUTANT}.diff": "".join(
            difflib.unified_diff(
                _REFERENCE.splitlines(keepends=True),
                _MUTANT.splitlines(keepends=True),
                "reference.py",
                f"mutants/{MUTANT}.py",
            )
        ),
    }
    exercises.mkdir(parents=True, exist_ok=True)
    # Written in a hidden folder, then renamed: a server watching the folder never sees half of it.
    staging = Path(tempfile.mkdtemp(prefix=f".new-{slug}-", dir=exercises))
    try:
        for name, text in files.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        staging.chmod(0o755)
        staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    load_exercise(folder)  # it must load as written; an ExerciseError here is a bug of this module
    return folder


def next_steps(folder: Path, *, program: str = "mlkata", default_folder: bool = True) -> str:
    """What to do with the new folder: which file to edit, which command to run.

    ``default_folder``: whether the exercises folder is the one the commands read without being told.
    """
    slug = folder.name
    where = "" if default_folder else f" --exercises {folder.parent}"
    serve = (
        f"{program} serve --reload"
        if default_folder
        else f"MLKATA_EXERCISES_DIR={folder.parent} {program} serve --reload"
    )
    return f"""\
Created {folder}/, a working example (normalising a vector) to replace with your exercise:
  exercise.toml         title, section, the functions to write, hints, and the mutants' mistakes
  statement.md          what students read (Markdown, with $…$ and $$…$$ math)
  starter.py            what their editor starts with
  reference.py          a correct solution
  checks.py             the checks: one public (the worked example), one hidden (random inputs)
  mutants/{MUTANT}.diff  a known mistake: reference.py with one change, as a unified diff

Next:
  1. Write statement.md, starter.py and reference.py, and declare the functions in exercise.toml.
  2. Write checks.py, then run:
       {program} check {slug} --reference-only{where}
  3. Replace mutants/{MUTANT}.diff and its [mutants.{MUTANT}] table with the mistakes students make, then run:
       {program} check {slug}{where}
  4. See it as a student sees it (edits show without a restart):
       {serve}    and open /exercises/{slug}
The guide: docs/exercises.md"""


def _toml_string(value: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's."""
    return json.dumps(value, ensure_ascii=False)
