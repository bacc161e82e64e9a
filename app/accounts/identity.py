"""Who an e-mail address names: one form per address, and the addresses refused because they read as another.

Every address is folded once, the same way for signing up, signing in and every lookup: Unicode's
NFKC and case folding (``Ada@Example.org``, ``ＡＤＡ@example.org`` and ``ada@example.org`` are one
account). A new account's address must also read as itself: no invisible or direction-changing
character (a zero-width space, a word joiner, a soft hyphen, a right-to-left override…) and no
local part or domain label that mixes scripts (a Latin name with one Cyrillic "а"), since either
shows a stranger as the same row as someone else in a course.
"""

from __future__ import annotations

import re
import unicodedata

import regex
from fontTools import unicodedata as scripts

MAX_EMAIL = 254
#: Deliberately loose: the address only has to look like one (there is no mail server to confirm it).
_SHAPE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
#: Not shown, or shown as something else: default-ignorable and bidi controls, and every other control,
#: format, private-use, surrogate or unassigned code point and separator but the plain space (a typo, said so).
_UNSEEN = regex.compile(r"(?V1)[[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\p{C}\p{Z}]--[\x20]]")
#: Scripts that stand for no script of their own: digits, punctuation, combining marks.
_ANY_SCRIPT = {"Zyyy", "Zinh"}
#: UTS #39's augmented script sets: Japanese and Korean text mix Han with their own scripts.
_WRITING_SYSTEMS = {"Hani": {"Hanb", "Jpan", "Kore"}, "Hira": {"Jpan"}, "Kana": {"Jpan"}, "Hang": {"Kore"},
                    "Bopo": {"Hanb"}}  # fmt: skip


def fold(email: str) -> str:
    """The one form of an address (trimmed, NFKC_Casefold): what is stored, looked up and rate-limited."""
    nfkc = unicodedata.normalize("NFKC", email.strip())
    return unicodedata.normalize("NFKC", nfkc.casefold())


def email_problem(typed: str, folded: str) -> str | None:
    """Why the folded address cannot name a new account, for the person typing it; None when it can."""
    shown = typed.strip()[:80]
    if not folded:
        return "Enter your e-mail address."
    unseen = _UNSEEN.search(typed.strip()) or _UNSEEN.search(folded)
    if unseen:
        return f"“{shown}” contains {_describe(unseen.group())}, which does not show on screen: type the address " \
               "without it."  # fmt: skip
    if len(folded) > MAX_EMAIL or not _SHAPE.match(folded):
        return f"“{shown}” is not an e-mail address."
    local, _, domain = folded.rpartition("@")
    for part in (local, *domain.split(".")):
        mixed = _mixed_scripts(part)
        if mixed:
            return f"“{shown}” mixes {' and '.join(mixed)} letters in “{part}”, so it could read as another " \
                   "address: write it in one script."  # fmt: skip
    return None


def _describe(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}{f' {name}' if name else ''}"


def _mixed_scripts(text: str) -> list[str]:
    """The scripts ``text`` mixes (UTS #39: no script is shared by all its letters); empty when it has one."""
    common: set[str] | None = None
    seen: list[str] = []
    for char in text:
        own = scripts.script_extension(char) - _ANY_SCRIPT
        if not own:
            continue
        augmented = own.union(*(_WRITING_SYSTEMS.get(code, set()) for code in own))
        common = augmented if common is None else common & augmented
        name = scripts.script_name(min(own))
        if name not in seen:
            seen.append(name)
        if not common:
            return seen
    return []
