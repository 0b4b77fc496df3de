"""Sizes of lists a function builds by appending in loops (semantic/built_lists.py): the sum, over
each iteration, of what it appends there, with the loop's target bound to that iteration's item;
unknown where the items or the appends are not what the source fixes."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic.carried_state import element_count
from jaxlint.semantic.model import SemanticModel

SOURCE = textwrap.dedent("""
    import numpy as np
    import jax
    import jax.numpy as jnp

    SIZES = [3, 5, 7]

    def pairs(widths):
        out = []
        for a, b in zip(widths[:-1], widths[1:]):
            out.append({"w": np.random.normal(size=(a, b)) * np.sqrt(2 / a), "b": np.zeros(b)})
        return out

    def by_index(n):
        out = []
        for i in range(n):
            out.append(jnp.ones((i + 1, 2)))
        return out

    def nested():
        out = []
        for i in range(2):
            for j in range(3):
                out.append(jnp.zeros(4))
        return out

    def enumerated():
        out = []
        for i, width in enumerate(SIZES):
            out.append(jnp.zeros((width, 2)))
        return out

    def branchy(flag):
        out = []
        for i in range(3):
            if flag:
                out.append(jnp.zeros(4))
        return out

    def unknown_items(widths):
        out = []
        for w in widths:
            out.append(jnp.zeros(w))
        return out

    def extended():
        out = []
        for i in range(3):
            out.append(jnp.zeros(4))
        out.extend([jnp.zeros(9)])
        return out

    def rebound_target():
        out = []
        last = 2
        for w in SIZES:
            out.append(jnp.zeros((last, w)))
            last = w
        return out

    a = pairs((2, 16, 16, 2))
    b = by_index(3)
    c = nested()
    d = enumerated()
    e = branchy(True)
    f = unknown_items(load_widths())
    g = extended()
    h = rebound_target()
    i = jnp.zeros((3, 4)) + jnp.zeros((4,))
    j = jnp.zeros_like(jnp.ones((6, 2))) * 0.5
""")


def _counts():
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree)
    return {
        statement.targets[0].id: element_count(statement.value, model.module_scope, model)
        for statement in tree.body if isinstance(statement, ast.Assign) and len(statement.targets[0].id) == 1
    }


def test_lists_built_in_loops_have_the_sum_of_their_items():
    counts = _counts()
    assert counts["a"] == (2 * 16 + 16) + (16 * 16 + 16) + (16 * 2 + 2)
    assert counts["b"] == 2 + 4 + 6
    assert counts["c"] == 6 * 4
    assert counts["d"] == (3 + 5 + 7) * 2
    assert counts["j"] == 12


def test_lists_built_otherwise_stay_unknown():
    counts = _counts()
    # An append under a branch, items the source does not fix, another change, a rebound name read
    # by the append: the list is not what the loop alone says.
    assert counts["e"] is None
    assert counts["f"] is None
    assert counts["g"] is None
    assert counts["h"] is None
    # Two arrays broadcast together may be larger than either.
    assert counts["i"] is None
