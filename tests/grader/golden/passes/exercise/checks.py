import numpy as np

from grader.checks import check, expect_array


@check("The example from the statement", public=True, hint="multiply")
def worked_example(student):
    expect_array(student.scale(np.array([1.0, 2.0, 3.0]), 2.0), [2.0, 4.0, 6.0], what="scale([1, 2, 3], 2)")


@check("Random vectors and factors", hint="multiply")
def random_vectors(student):
    rng = np.random.default_rng(3)
    calls = [(rng.normal(size=n), float(rng.normal())) for n in (1, 4, 50)]
    for (v, k), got in zip(calls, student.scale.each(calls), strict=True):
        expect_array(got, [x * k for x in v], what=f"scale of {len(v)} values")
