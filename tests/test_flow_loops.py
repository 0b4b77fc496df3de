"""semantic/flow.spells_out_few_iterations: the one test of "a handful of iterations" that JAX203,
JAX204 and JAX205 share, each with its own limit."""

import ast

import pytest

from jaxlint.semantic import flow


def _loop_and_resolver(code: str):
    tree = ast.parse(code)
    loop = next(node for node in ast.walk(tree) if isinstance(node, (ast.For, ast.AsyncFor, ast.While)))
    shadowed = any(isinstance(node, ast.FunctionDef) and node.name == "range" for node in tree.body)

    def qualified_name(node):
        if isinstance(node, ast.Name) and node.id == "range" and not shadowed:
            return "builtins.range"
        return None

    return loop, qualified_name


@pytest.mark.parametrize(("code", "limit", "few"), [
    ("for x in (a, b):\n    pass", 4, True),
    ("for x in [a, b, c, d, e, f]:\n    pass", 4, True),  # a display: as many as the source spells out
    ("for k in {'a': 1}:\n    pass", 4, True),
    ("for i in range(3):\n    pass", 4, True),
    ("for i in range(2, 12, 5):\n    pass", 4, True),
    ("for i in range(0, 10, 0):\n    pass", 4, True),  # raises before the first iteration
    ("for i in range(9):\n    pass", 10, True),
    # look-alikes: many or unknown iterations
    ("for i in range(4):\n    pass", 4, False),
    ("for i in range(10):\n    pass", 10, False),
    ("for i in range(steps):\n    pass", 4, False),
    ("for batch in loader:\n    pass", 4, False),
    ("while True:\n    pass", 4, False),
    ("def range(n):\n    return [n]\nfor i in range(2):\n    pass", 4, False),  # not the builtin
])
def test_spells_out_few_iterations(code, limit, few):
    loop, qualified_name = _loop_and_resolver(code)
    assert flow.spells_out_few_iterations(loop, qualified_name, limit) is few
