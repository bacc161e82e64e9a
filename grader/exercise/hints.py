"""Hints in levels: what an exercise says to a student who asks, one level at a time.

In ``exercise.toml`` a hint is a string (one level), a list of strings (levels in order), or a
table with any of ``concept``, ``formula`` and ``code``, which are its levels in that order::

    [hints]
    append = "Append the new key and value to the cache before attending."

    [hints.scaling]
    concept = "The scores are scaled so that their spread does not grow with the head size."
    formula = "scores = K q / √d, with d the number of columns of W_q."
    code = "scores = cache_k @ q / np.sqrt(q.shape[-1])"

The first level is the one a failed run shows; the page asks for the others one by one.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

Level = Annotated[str, Field(min_length=1)]

#: A table's levels, in the order they are given.
LEVEL_NAMES = ("concept", "formula", "code")


class HintLevels(BaseModel):
    """A hint as a table: the idea, then the formula, then the code."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    concept: Level | None = None
    formula: Level | None = None
    code: Level | None = None

    @model_validator(mode="after")
    def _one_level_at_least(self) -> HintLevels:
        if not self.levels():
            raise ValueError("a hint table needs at least one of concept, formula and code")
        return self

    def levels(self) -> list[tuple[str, str]]:
        return [(name, text) for name in LEVEL_NAMES if (text := getattr(self, name)) is not None]


Hint = Level | Annotated[list[Level], Field(min_length=1)] | HintLevels


def hint_levels(hint: Hint) -> list[tuple[str, str]]:
    """Every level of a hint as (kind, text): a string is one ``hint``, a list ``level 1``, ``level 2``…"""
    if isinstance(hint, HintLevels):
        return hint.levels()
    if isinstance(hint, str):
        return [("hint", hint)]
    return [(f"level {n}", text) for n, text in enumerate(hint, start=1)]
