"""semantic/iteration.counted_while: a `while` that counts up to a bound is the Iteration `for j in
range(0, n)`; any other `while` is not a count."""

from __future__ import annotations

import ast

from jaxlint.semantic.iteration import counted_while
from jaxlint.semantic.model import SemanticModel


def _loop(body: str):
    tree = ast.parse(body)
    SemanticModel(tree)  # parent links
    return next(node for node in ast.walk(tree) if isinstance(node, ast.While))


def test_a_plain_count_is_a_range():
    found = counted_while(_loop("def f(x):\n    j = 0\n    while j < x.shape[0]:\n        y = x[j]\n        j += 1\n"))
    assert found is not None and found.target.id == "j"
    assert ast.unparse(found.iterable) == "range(0, x.shape[0])"
    found = counted_while(_loop("def f(n):\n    k = 2\n    while k < n:\n        k += 1\n"))
    assert ast.unparse(found.iterable) == "range(2, n)"


def test_other_whiles_are_not_counts():
    for source in (
        "def f(n):\n    j = 0\n    while j <= n:\n        j += 1\n",  # another comparison
        "def f(n):\n    j = 0\n    while j < n:\n        j += 2\n",  # another step
        "def f(n):\n    j = 0\n    while j < n:\n        if n:\n            break\n        j += 1\n",  # an exit
        "def f(n):\n    j = 0\n    while j < n:\n        j += 1\n        j = j * 2\n",  # bound again
        "def f(n, j):\n    while j < n:\n        j += 1\n",  # no start before the loop
        "def f(n):\n    j = 0\n    print(j)\n    while j < n:\n        j += 1\n",  # not the statement just before
        "def f(n):\n    j = 0\n    while j < n:\n        j += 1\n    else:\n        pass\n",
    ):
        assert counted_while(_loop(source)) is None, source
