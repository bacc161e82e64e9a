from grader.checks import check, expect_integer


@check("Adds small numbers", public=True, hint="plus")
def small_numbers(student):
    expect_integer(student.add(2, 3), 5, what="add(2, 3)")


@check("Adds a billion and one", hint="plus")
def a_billion(student):
    expect_integer(student.add(10**9, 1), 10**9 + 1, what="add(10**9, 1)")


@check("Adds zero", hint="plus")
def zero(student):
    expect_integer(student.add(0, 7), 7, what="add(0, 7)")
