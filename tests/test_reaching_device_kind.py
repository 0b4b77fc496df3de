"""A name bound to values of several kinds is read flow-sensitively: where one binding surely
reaches the read (semantic/reaching.py), its kind is the name's kind there (values.device_kind)."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic.model import SemanticModel


def _kinds(source: str) -> dict[int, str | None]:
    """The device kind of every read of `x`, by line."""
    tree = ast.parse(textwrap.dedent(source))
    model = SemanticModel(tree)
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "x" and isinstance(node.ctx, ast.Load):
            found[node.lineno] = model.device_kind(node, model.scope_for(node))
    return found


def test_script_rebinding_a_name_reads_the_binding_above():
    kinds = _kinds("""
        import jax.numpy as jnp
        import numpy as np
        x = jnp.arange(10.0)
        y = x ** 2
        x = np.arange(10.0)
        z = x ** 2
    """)
    assert kinds == {5: "device", 7: None}


def test_function_rebinding_a_name_reads_the_binding_above():
    kinds = _kinds("""
        import jax
        import numpy as np
        def run(n):
            x = np.zeros(n)
            a = x.sum()
            x = jax.device_put(x)
            b = x.sum()
            return a, b
    """)
    assert kinds == {6: None, 7: None, 8: "device"}


def test_branches_and_loops_leave_it_unknown():
    kinds = _kinds("""
        import jax.numpy as jnp
        import numpy as np
        def run(flag, n):
            x = np.zeros(n)
            if flag:
                x = jnp.zeros(n)
            a = x.sum()
            for i in range(n):
                b = x + 1
                x = jnp.ones(n)
            return a, b
    """)
    assert kinds == {8: None, 10: None}


def test_an_unpacking_that_reaches_the_read_gives_its_element_kind():
    kinds = _kinds("""
        import jax
        import jax.numpy as jnp
        def body(i, carry):
            return carry
        def run(n, y):
            x = {"total": 0.0}
            y, x = jax.lax.fori_loop(0, n, body, (y, x))
            return x
        def run_host(n, y):
            x, y = {"total": 0.0}, y
            x = jnp.zeros(n)
            x, z = {"a": 1}, x
            return x
    """)
    assert kinds == {8: None, 9: "device", 13: "device", 14: None}


def test_an_unpacking_under_a_branch_leaves_it_unknown():
    kinds = _kinds("""
        import jax
        def body(i, carry):
            return carry
        def run(n, y, warm):
            x = {"total": 0.0}
            if warm:
                y, x = jax.lax.fori_loop(0, n, body, (y, x))
            return x
    """)
    assert kinds == {8: None, 9: None}
