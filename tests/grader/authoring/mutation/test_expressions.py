"""The expression operators: arithmetic, comparisons, logic, numbers, slices and argument order."""

from __future__ import annotations

from tests.grader.authoring.mutation.mutation_support import changed_lines, lines_of


def test_arithmetic_swaps_each_operator_and_keeps_the_trees_grouping() -> None:
    found = changed_lines("def f(a, b, c):\n    return a * b - c\n", "arithmetic")
    assert found == {
        "arithmetic@L2: b - c -> b + c": "return a * b + c",
        "arithmetic@L2: b - c -> b / c": "return a * b / c",
        "arithmetic@L2: a * b -> a / b": "return a / b - c",
        "arithmetic@L2: a * b -> a + b": "return a + b - c",
        "arithmetic@L2: a * b -> a ** b": "return a ** b - c",
        "arithmetic@L2: a * b -> a @ b": "return a @ b - c",
    }


def test_arithmetic_parenthesizes_an_operand_that_binds_more_loosely_than_the_new_operator() -> None:
    # The tree of `a - b * c` is a - (b * c): its `*` made `+` is a - (b + c), not a - b + c.
    assert "return a - (b + c)" in lines_of("def f(a, b, c):\n    return a - b * c\n", "arithmetic")
    # Its `-` made `/` is a / (b * c), not a / b * c.
    assert "return a / (b * c)" in lines_of("def f(a, b, c):\n    return a - b * c\n", "arithmetic")
    # The tree of `a * b * c` with its second `*` made `**` is (a * b) ** c, not a * b ** c.
    assert "return (a * b) ** c" in lines_of("def f(a, b, c):\n    return a * b * c\n", "arithmetic")
    # `-x ** 2` is -(x ** 2): with `**` made `*` it is -(x * 2).
    assert lines_of("def f(x):\n    return -x ** 2\n", "arithmetic") >= {"return -(x * 2)", "return -(x / 2)"}


def test_matrix_products_become_elementwise_and_swap_their_operands() -> None:
    assert lines_of("def f(a, b):\n    return a @ b\n", "arithmetic") == {"return a * b", "return b @ a"}


def test_augmented_assignments_and_unary_minus() -> None:
    assert lines_of("def f(w):\n    w /= 2\n    return w\n", "arithmetic") == {"w *= 2", "w //= 2", "w -= 2"}
    assert lines_of("def f(x):\n    return -x\n", "arithmetic") == {"return x"}
    assert lines_of("def f(x):\n    return -1\n", "arithmetic") == set()  # a negative number: the number operator's


def test_comparisons_become_their_boundary_shift_reverse_and_negation() -> None:
    assert lines_of("def f(a, b):\n    return a < b\n", "comparison") == {
        "return a <= b",
        "return a > b",
        "return a >= b",
    }
    assert lines_of("def f(a, b):\n    return a == b\n", "comparison") == {"return a != b"}
    assert lines_of("def f(a, b):\n    return a is not b\n", "comparison") == {"return a is b"}
    assert lines_of("def f(a, b):\n    return a not in b\n", "comparison") == {"return a in b"}
    found = changed_lines("def f(a, b, c):\n    return a < b <= c\n", "comparison")
    assert found["comparison@L2: b <= c -> b < c"] == "return a < b < c"


def test_logic_swaps_and_or_and_the_booleans() -> None:
    assert lines_of("def f(a, b):\n    return a and b\n", "logic") == {"return a or b"}
    assert lines_of("def f(a, b, c):\n    return a or b and c\n", "logic") == {
        "return a and (b and c)",
        "return a or (b or c)",
    }
    assert lines_of("def f():\n    return True\n", "logic") == {"return False"}


def test_numbers_become_one_more_one_less_zero_one_and_two() -> None:
    assert lines_of("def f(x):\n    return x * 3\n", "number") == {
        "return x * 4",
        "return x * 2",
        "return x * 0",
        "return x * 1",
    }
    assert lines_of("def f(x):\n    return x + 0\n", "number") == {"return x + 1", "return x + -1", "return x + 2"}
    assert lines_of("def f(x):\n    return x * 0.5\n", "number") == {
        "return x * 1.5",
        "return x * -0.5",
        "return x * 0.0",
        "return x * 1.0",
        "return x * 2.0",
    }


def test_numbers_leave_axis_and_keepdims_to_the_array_operators() -> None:
    assert lines_of("def f(x):\n    return x.sum(axis=1)\n", "number") == set()


def test_slice_bounds_move_by_one() -> None:
    assert lines_of("def f(x, t):\n    return x[1:t]\n", "slice") == {
        "return x[2:t]",
        "return x[0:t]",
        "return x[1:t + 1]",
        "return x[1:t - 1]",
    }
    assert lines_of("def f(x):\n    return x[:-1]\n", "slice") == {"return x[:0]", "return x[:-2]"}


def test_two_arguments_swap_and_so_do_the_two_items_of_a_list_passed_to_a_call() -> None:
    assert lines_of("def f(a, b):\n    return g(a, b)\n", "arguments") == {"return g(b, a)"}
    found = changed_lines("def f(a, b):\n    return np.vstack([a, b[None]])\n", "arguments")
    assert found == {"arguments@L2: a, b[None] -> b[None], a": "return np.vstack([b[None], a])"}
    assert lines_of("def f(a, b, c):\n    return g(a, b, c) + g(a, b=b) + g(*a, b)\n", "arguments") == set()
    assert lines_of("def f(a, b):\n    return [a, b]\n", "arguments") == set()  # not passed to a call
