"""Exceptions that check their own premise (semantic/key_values.py, semantic/guards.py,
semantic/flow.py): facts the model computes instead of a syntactic sign of them."""
from __future__ import annotations

import ast

import pytest

from jaxlint.semantic import flow, guards, key_values
from jaxlint.semantic.syntax import PARENT


def _linked(code: str) -> ast.Module:
    tree = ast.parse(code)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            setattr(child, PARENT, node)
    return tree


class _Names:
    """A context whose names resolve as the imports below say (`jnp`, `np`, `math`)."""

    _MODULES = {"jnp": "jax.numpy", "np": "numpy", "math": "math"}

    def qualified_name(self, node):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self._MODULES:
            return f"{self._MODULES[node.value.id]}.{node.attr}"
        if isinstance(node, ast.Name):
            return f"builtins.{node.id}" if node.id in ("any", "all", "float") else node.id
        return None


def _loop(code: str):
    return next(node for node in ast.walk(_linked(code)) if isinstance(node, (ast.For, ast.While)))


@pytest.mark.parametrize(("code", "carried"), [
    ("for e in range(n):\n    params = update(params, g)", True),
    ("for e in range(n):\n    model, loss = run_epoch(model, data, key)", True),
    ("while i < n:\n    state = step(state)\n    i += 1", True),
    ("for x in loader:\n    out = f(g(out), x)", True),
    # look-alikes: settings compared, accumulators, appends
    ("for t in temps:\n    samples[t] = sample(key, t)", False),
    ("for t in temps:\n    total += evaluate(key, t)", False),
    ("for t in temps:\n    results.append(evaluate(params, t))", False),
    ("for t in temps:\n    params = init(key, t)", False),
])
def test_steps_carry_state(code, carried):
    assert key_values.steps_carry_state(_loop(code)) is carried


@pytest.mark.parametrize(("test", "guard"), [
    ("jnp.isnan(loss)", True),
    ("np.isnan(loss) or np.isinf(loss)", True),
    ("not jnp.all(jnp.isfinite(loss))", True),
    ("jnp.isnan(loss).any()", True),
    ("any(jnp.isnan(p).any() for p in leaves)", True),
    ("math.isnan(x)", True),
    # look-alikes: a test that decides the loop's length
    ("loss < tol", False),
    ("jnp.isnan(loss) or loss > limit", False),
    ("converged(loss)", False),
    ("done", False),
])
def test_nonfinite_guard(test, guard):
    assert guards.nonfinite_guard(ast.parse(test, mode="eval").body, _Names()) is guard


def _entries(code: str, call_text: str):
    tree = _linked(code)
    function = tree.body[0]
    call = next(n for n in ast.walk(function) if isinstance(n, ast.Call) and ast.unparse(n) == call_text)
    found = flow.entries_read(call, function)
    return None if found is None else (ast.unparse(found[0]), found[1])


@pytest.mark.parametrize(("code", "call", "expected"), [
    ("def f(m):\n    return {k: v.item() for k, v in m.items()}", "v.item()", ("m", {"v"})),
    ("def f(m):\n    return [float(v) for v in m.values()]", "float(v)", ("m", {"v"})),
    ("def f(self):\n    return {k: float(v) for k, v in self.metrics.items()}", "float(v)", ("self.metrics", {"v"})),
    # look-alikes: a loop of its own, a filter, keys only, nested loops, a lambda
    ("def f(xs):\n    return [float(x) for x in xs]", "float(x)", None),
    ("def f(m):\n    return {k: float(v) for k, v in m.items() if k != 'a'}", "float(v)", None),
    ("def f(m):\n    return [g(k) for k in m.keys()]", "g(k)", None),
    ("def f(m, xs):\n    for x in xs:\n        y = [float(v) for v in m.values()]", "float(v)", None),
    ("def f(m):\n    return [lambda: float(v) for v in m.values()]", "float(v)", None),
])
def test_entries_read(code, call, expected):
    assert _entries(code, call) == expected
