"""What ``exercise.toml`` may say, as validated models: the functions, limits, hints, mutants and mutation score."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from grader.exercise.hints import Hint
from grader.sandbox import Limits

Difficulty = Literal["easy", "medium", "hard"]
#: The difficulties, easiest first: the roadmap orders each section's exercises by them.
DIFFICULTIES: tuple[str, ...] = get_args(Difficulty)


class FunctionSpec(BaseModel):
    """A function the student implements."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    params: list[str]
    returns: str = ""

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


class MutantSpec(BaseModel):
    """A known-wrong solution: the mistake it makes and the hint a student making it must get."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mistake: str = Field(min_length=1)
    hint: str = Field(min_length=1, description="An id from the [hints] table.")
    caught_by: list[str] = Field(default_factory=list, description="Checks that must fail for it.")
    unnamed: str = Field(
        default="",
        description="Why no run can name it reliably (its answers depend on choices the machine's linear algebra "
        "makes, such as the signs of singular vectors): it must still fail, but it is never named.",
    )


class MutationSpec(BaseModel):
    """How strong the checks must be: the score ``mlkata check --mutation`` requires, and its accepted survivors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    minimum: float = Field(default=0.0, ge=0, le=1, description="The lowest mutation score that passes.")
    equivalent: dict[Annotated[str, Field(min_length=1)], Annotated[str, Field(min_length=1)]] = Field(
        default_factory=dict, description="Mutant ids accepted as equivalent to the reference, each with why."
    )


class ExerciseConfig(BaseModel):
    """The contents of ``exercise.toml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=1)
    section: str = Field(min_length=1)
    difficulty: Difficulty
    #: Lowercase words joined by "-", so that one tag is spelt one way (the roadmap filters by tag).
    tags: list[Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]] = Field(default_factory=list)
    order: int = 0
    summary: str = ""
    functions: list[FunctionSpec] = Field(min_length=1)
    limits: Limits = Field(default_factory=Limits)
    hints: dict[str, Hint] = Field(default_factory=dict)
    mutants: dict[str, MutantSpec] = Field(default_factory=dict)
    mutation: MutationSpec = Field(default_factory=MutationSpec)
    #: Whether a learner who solved the exercise may read reference.py.
    show_reference_after_solving: bool = False
    #: What the "Try it" panel starts with: Python that calls the student's functions (the worked example).
    try_it: str = ""
