import numpy as np

from grader.checks import check, expect_array


@check("Scales a vector", public=True)
def scales(student):
    expect_array(student.scale(np.array([1.0, 2.0, 3.0]), 2.0), [2.0, 4.0, 6.0], what="scale([1, 2, 3], 2)")


@check("Shifts a vector", public=True)
def shifts(student):
    expect_array(student.shift(np.array([1.0, 2.0, 3.0]), 0.5), [1.5, 2.5, 3.5], what="shift([1, 2, 3], 0.5)")
