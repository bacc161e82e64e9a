"""The operator registry: every operator makes mutants, each named after it, and every mutant compiles."""

from __future__ import annotations

import textwrap

from grader.authoring.mutation import OPERATORS, derive_mutants

#: A little of everything the operators change.
SAMPLE = textwrap.dedent(
    '''\
    import numpy as np


    def softmax_rows(z, t, ok=True):
        """Row-wise softmax of the first t rows."""
        z = z[:t]
        shifted = z - np.max(z, axis=1, keepdims=True)
        e = np.exp(shifted)
        out = e / e.sum(axis=-1, keepdims=True)
        if t > 0 and ok:
            out = out @ np.eye(out.shape[1]).T
        scale = np.power(2.0, 1)
        return np.hstack([out, out]) * scale if ok else -out
    '''
)


def test_every_operator_makes_mutants_named_after_it() -> None:
    mutants = derive_mutants(SAMPLE).mutants
    made = {m.operator for m in mutants}
    assert made == set(OPERATORS)
    for mutant in mutants:
        assert mutant.id.startswith(f"{mutant.operator}@L{mutant.line}: ")


def test_every_mutant_compiles_and_differs_from_the_reference() -> None:
    derived = derive_mutants(SAMPLE)
    assert len(derived.mutants) > 40
    for mutant in derived.mutants:
        compile(mutant.source, "solution.py", "exec", dont_inherit=True)
        assert mutant.source != SAMPLE
    assert len({m.source for m in derived.mutants}) == len(derived.mutants)


def test_the_docstring_and_the_import_are_never_mutated() -> None:
    for mutant in derive_mutants(SAMPLE).mutants:
        lines = mutant.source.splitlines()
        assert lines[0] == "import numpy as np"
        assert lines[4] == '    """Row-wise softmax of the first t rows."""'
