"""How close two numbers must be to count as equal, for each question the grader asks: one place for each.

``expect_*`` (what a check calls) read a default a check may change; the naming of known mistakes
reads a stricter one of its own, so that what a check finds wrong is wrong there too. Symptoms fit a
relationship more loosely, since the mistake may be computed
in float32 or in another order, yet far too tightly for chance to meet it on many values.
"""

from __future__ import annotations

import numpy as np

#: A check's default closeness (``expect_array`` and friends).
DEFAULT_RTOL, DEFAULT_ATOL = 1e-6, 1e-9
#: Two float64 answers counting as the same when a known mistake is matched (the solution's and a
#: mistake's, or the solution's and the reference's), the absolute part scaled by the larger of 1 and
#: the answer's largest magnitude. At least as strict as any check (the sections' specs compare at 1e-9),
#: so that every call a check finds wrong is evidence; loose enough for the same computation done in
#: another order. Lower precisions match within ``EPS_UNITS`` of their own epsilon instead.
ALIKE_RTOL, ALIKE_ATOL = 1e-9, 1e-12
#: Values in a lower precision match within this many of its units (a float16 mistake, computed in
#: another order, still matches a float16 mutant).
EPS_UNITS = 10
#: A symptom's relationship fits when every value is within this of it, plus ``SYMPTOM_ATOL`` times
#: the data's largest value.
SYMPTOM_RTOL, SYMPTOM_ATOL = 1e-5, 1e-6
#: A factor is named when it equals a candidate (2, a size, its square root, a product of two) this closely.
NAMING_RTOL = 1e-6


def scaled_tolerance(expected: object, rtol: float = 1e-9) -> dict[str, float]:
    """``rtol``, and an absolute floor of ``rtol`` times the largest expected magnitude (at least 1).

    For values that reach far above 1 (gradients of 10³, sums of many terms), where a fixed ``atol``
    would be either meaningless or stricter than float64 can be; pass it on as ``**scaled_tolerance(want)``.
    """
    values = np.abs(np.asarray(expected, dtype=float))
    finite = values[np.isfinite(values)]
    return {"rtol": rtol, "atol": rtol * max(1.0, float(finite.max()) if finite.size else 1.0)}
