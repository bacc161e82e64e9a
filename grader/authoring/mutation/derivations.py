"""Mutants derived once per reference: kept in the user's cache (:mod:`~grader.authoring.user_cache`),
keyed by a hash of the reference, of the code that derives them (this package) and of libcst's version,
so a cached set is always the set :func:`derive_mutants` would make now.
"""

from __future__ import annotations

import functools
from importlib import metadata
from pathlib import Path

from grader.authoring import user_cache
from grader.authoring.mutation.mutants import Derived, Mutant, derive_mutants

KIND = "mutants"


@functools.cache
def _deriver_hash() -> str:
    return user_cache.files_hash([Path(__file__).resolve().parent], f"libcst {metadata.version('libcst')}")


def cache_key(reference: str) -> str:
    return user_cache.files_hash([], _deriver_hash(), reference)


def derived_mutants(reference: str) -> Derived:
    """:func:`derive_mutants` of ``reference``, from the cache when it was derived before."""
    key = cache_key(reference)
    found = user_cache.load(KIND, key)
    if isinstance(found, dict):
        try:
            mutants = tuple(Mutant(m["id"], m["operator"], m["line"], m["source"]) for m in found["mutants"])
            return Derived(mutants, found["not_compiling"], found["duplicates"])
        except (KeyError, TypeError):
            pass  # not a document this version wrote: derive again
    derived = derive_mutants(reference)
    document = {
        "mutants": [{"id": m.id, "operator": m.operator, "line": m.line, "source": m.source} for m in derived.mutants],
        "not_compiling": derived.not_compiling,
        "duplicates": derived.duplicates,
    }
    user_cache.store(KIND, key, document)
    return derived
