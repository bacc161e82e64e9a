"""The array operators: reductions, axis=, keepdims= and transposes."""

from __future__ import annotations

from tests.grader.authoring.mutation.mutation_support import changed_lines, lines_of


def test_reductions_swap_max_min_and_sum_mean_as_functions_methods_and_builtins() -> None:
    source = "def f(x, a, b):\n    return np.max(x) + x.sum() + max(a, b) + np.argmin(x) + sum(x) + x.total()\n"
    found = changed_lines(source, "reduction")
    assert set(found) == {
        "reduction@L2: np.max -> np.min",
        "reduction@L2: x.sum -> x.mean",
        "reduction@L2: max -> min",
        "reduction@L2: np.argmin -> np.argmax",
    }
    assert found["reduction@L2: max -> min"] == (
        "return np.max(x) + x.sum() + min(a, b) + np.argmin(x) + sum(x) + x.total()"
    )


def test_axis_values_change_and_the_argument_is_dropped() -> None:
    assert lines_of("def f(x):\n    return x.sum(axis=0)\n", "axis") == {
        "return x.sum(axis=1)",
        "return x.sum(axis=-1)",
        "return x.sum()",
    }
    assert lines_of("def f(x):\n    return np.max(x, axis=-1)\n", "axis") == {
        "return np.max(x, axis=0)",
        "return np.max(x)",
    }
    assert lines_of("def f(x):\n    return np.max(x, axis=1, keepdims=True)\n", "axis") == {
        "return np.max(x, axis=0, keepdims=True)",
        "return np.max(x, keepdims=True)",
    }
    assert lines_of("def f(x, a):\n    return x.sum(axis=a)\n", "axis") == {"return x.sum()"}


def test_keepdims_flips_and_is_dropped() -> None:
    found = changed_lines("def f(x):\n    return x.max(axis=1, keepdims=True)\n", "keepdims")
    assert found == {
        "keepdims@L2: keepdims=True -> keepdims=False": "return x.max(axis=1, keepdims=False)",
        "keepdims@L2: keepdims=True -> dropped": "return x.max(axis=1)",
    }


def test_transposes_are_dropped_and_added_to_the_operands_of_matrix_products() -> None:
    assert lines_of("def f(a, b):\n    return a.T + np.transpose(b) + b.transpose()\n", "transpose") == {
        "return a + np.transpose(b) + b.transpose()",
        "return a.T + b + b.transpose()",
        "return a.T + np.transpose(b) + b",
    }
    assert lines_of("def f(a, b, c):\n    return (a + b) @ c.T\n", "transpose") == {
        "return (a + b).T @ c.T",
        "return (a + b) @ c",
    }
