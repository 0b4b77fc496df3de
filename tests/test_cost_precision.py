"""Cost facts the rules share: callables wrapping a compiled one (semantic/compiled_wrappers.py), the
message for a gradient of a jitted function (JAX203), and timed windows of many steps
(semantic/throughput.py)."""

from __future__ import annotations

import ast

from conftest import FIXTURES
from rule_fixtures import actual_findings
from jaxlint.semantic.compiled_wrappers import wraps_compiled
from jaxlint.semantic.model import SemanticModel

SOURCE = '''
import jax
from functools import partial

@jax.jit
def step(w, x):
    return w @ x

def plain(w, x):
    return w @ x

a = jax.vmap(step, in_axes=(None, 0))
b = partial(jax.vmap(partial(step)), 1.0)
c = jax.vmap(plain)
d = jax.vmap(jax.jit(plain))
'''


def _name(model: SemanticModel, tree: ast.Module, name: str) -> tuple[ast.expr, object]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.targets[0].id == name:
            return node.value, model.scope_for(node)
    raise AssertionError(name)


def test_wrappers_of_compiled_callables_run_compiled():
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree, ())
    answers = {name: wraps_compiled(*_name(model, tree, name), model) for name in "abcd"}
    assert answers == {"a": True, "b": True, "c": False, "d": True}


def test_gradient_of_a_jitted_function_says_what_runs_eagerly():
    path = FIXTURES / "rules" / "JAX203_differentiated_compiled.py"
    _, diagnostics = actual_findings(path.read_text(), path.name, {"JAX203"})
    messages = {d.location.row: d.message for d in diagnostics}
    assert "differentiates the jitted `loss`" in messages[29]
    assert "forward and backward passes run compiled" in messages[29]
    assert "differentiates the jitted `fast_loss`" in messages[30]
    assert "each operation dispatched on its own" in messages[31]
    assert "differentiates" not in messages[31]
