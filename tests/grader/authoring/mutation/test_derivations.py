"""Derived mutants are cached per reference, and the cache gives exactly what deriving them again would."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.authoring.mutation import derivations, derive_mutants, derived_mutants

REFERENCE = "def add(a, b):\n    return a + b\n"


def test_a_cached_derivation_is_the_derivation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLKATA_CACHE_DIR", str(tmp_path))
    first = derived_mutants(REFERENCE)
    assert first == derive_mutants(REFERENCE)
    assert len(list((tmp_path / "mutants").glob("*.json"))) == 1

    def not_again(reference: str) -> None:
        raise AssertionError("derived again")

    monkeypatch.setattr(derivations, "derive_mutants", not_again)
    assert derived_mutants(REFERENCE) == first


def test_another_reference_or_an_unreadable_entry_is_derived_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLKATA_CACHE_DIR", str(tmp_path))
    derived_mutants(REFERENCE)
    other = REFERENCE.replace("+", "-")
    assert derivations.cache_key(other) != derivations.cache_key(REFERENCE)
    assert derived_mutants(other) == derive_mutants(other)
    (tmp_path / "mutants" / f"{derivations.cache_key(REFERENCE)}.json").write_text('{"mutants": 3}')
    assert derived_mutants(REFERENCE) == derive_mutants(REFERENCE)
