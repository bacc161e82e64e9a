"""The roadmap's sections, in order, each with its short description: ``sections.toml`` beside the exercise folders.

::

    [[section]]
    title = "Foundations & Transformer Internals"
    summary = "How tensors sit in memory, how gradients flow, …"

An exercise names its section by title (``section`` in its ``exercise.toml``); the roadmap lists the
sections in this file's order, and each section's exercises from easy to hard, by their ``order``
within a difficulty. A section's page is at ``/sections/<slug>``, its slug made from its title. Where there is no
``sections.toml`` (a folder of one's own exercises), sections come in the order of their first
exercise. Where there is one, a section it does not list is a problem of the exercise that names it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

FILE = "sections.toml"


@dataclass(frozen=True)
class Section:
    """A section of the roadmap: its title, its place among the sections, and what it is about."""

    title: str
    #: Its place on the roadmap, counting from 0; every section ranks 0 without a ``sections.toml``.
    rank: int = 0
    summary: str = ""

    @property
    def slug(self) -> str:
        """Its name in URLs: the title's letters and digits in lower case, words joined by hyphens."""
        return section_slug(self.title)


def section_slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=1)
    summary: str = Field(min_length=1)


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    section: list[_Entry] = Field(min_length=1)


class RoadmapError(Exception):
    """``sections.toml`` cannot be read: what is wrong with it."""


def sections(root: Path) -> dict[str, Section] | None:
    """The sections listed in ``root/sections.toml`` by title, or None when there is no such file."""
    path = root / FILE
    if not path.is_file():
        return None
    try:
        data = _File.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except tomllib.TOMLDecodeError as exc:
        raise RoadmapError(f"{FILE}: {exc}") from None
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise RoadmapError(f"{FILE}: {where}") from None
    listed: dict[str, Section] = {}
    slugs: dict[str, str] = {}
    for rank, entry in enumerate(data.section):
        if entry.title in listed:
            raise RoadmapError(f"{FILE}: the section {entry.title!r} is listed twice")
        section = Section(entry.title, rank, entry.summary.strip())
        if section.slug in slugs:
            raise RoadmapError(
                f"{FILE}: the sections {slugs[section.slug]!r} and {entry.title!r} would share the address "
                f"/sections/{section.slug}: tell them apart by a letter or a digit"
            )
        listed[entry.title], slugs[section.slug] = section, entry.title
    return listed


def section_of(folder: Path, title: str, problems: list[str]) -> Section:
    """The section named ``title`` by the exercise in ``folder``, placed by the ``sections.toml`` beside it."""
    try:
        listed = sections(folder.parent)
    except RoadmapError as exc:
        problems.append(str(exc))
        return Section(title)
    if listed is None:
        return Section(title)
    if title not in listed:
        known = ", ".join(repr(t) for t in listed)
        problems.append(f"exercise.toml: section {title!r} is not a section of the roadmap ({FILE} lists {known})")
        return Section(title, len(listed))
    return listed[title]
