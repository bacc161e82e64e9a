import numpy as np

from grader.checks import check, expect_array


@check("The example from the statement", public=True, points=2, hint="any-factor")
def worked_example(student):
    got = student.scale(np.array([1.0, 2.0, 3.0]), 1.5)
    expect_array(got, [1.5, 3.0, 4.5], what="scale([1, 2, 3], 1.5)")


@check("Whole factors", hint="any-factor")
def whole_factors(student):
    v = np.array([0.5, -1.0, 4.0, 2.25])
    for n, (k, got) in enumerate(zip((3, -2), student.scale.each([(v, 3), (v, -2)]), strict=True)):
        expect_array(got, [x * k for x in v], what=f"scale of 4 values by a whole factor (case {n + 1} of 2)")


@check("Fractional factors", hint="any-factor")
def fractional_factors(student):
    v = np.array([0.5, -1.0, 4.0, 2.25])
    for n, (k, got) in enumerate(zip((0.25, -0.5), student.scale.each([(v, 0.25), (v, -0.5)]), strict=True)):
        expect_array(got, [x * k for x in v], what=f"scale of 4 values by a fraction (case {n + 1} of 2)")


@check("The input is left unchanged", hint="no-mutation")
def input_unchanged(student):
    v = np.array([1.0, 2.0, 3.0])
    # One v for both calls: a first call that changes it changes what the second one scales.
    _, again = student.scale.each([(v, 2), (v, 1)])
    expect_array(again, [1.0, 2.0, 3.0], what="the second of two calls on the same array")
