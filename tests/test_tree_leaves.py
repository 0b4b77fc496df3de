"""The leaves of a tree the source spells out (semantic/tree_leaves.py), and what per-leaf work over
a handful of them costs: JAX203 counts it as a few eager operations (fixtures JAX203_few_leaves,
JAX203_few_leaf_updates)."""

from __future__ import annotations

import ast

from jaxlint.semantic.model import SemanticModel
from jaxlint.semantic.tree_leaves import known_leaves

SOURCE = '''
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np


class Pair(nn.Module):
    @nn.compact
    def __call__(self, x):
        scale = self.param("scale", nn.initializers.ones, ())
        return nn.Dense(3, use_bias=False)(nn.Dense(4)(x)) * scale


class Stack(nn.Module):
    @nn.compact
    def __call__(self, x):
        for width in (8, 8, 8):
            x = nn.Dense(width)(x)
        return x


class Nested(nn.Module):
    def setup(self):
        self.inner = Pair()
        self.norm = nn.LayerNorm()

    def __call__(self, x):
        return self.norm(self.inner(x))


def setup(n):
    xs = jnp.linspace(0, 1, n)
    return xs, {"w": jnp.zeros(()), "b": 0.0}


display = {"w": jnp.zeros((3,)), "b": [1.0, np.ones(2)]}
keywords = dict(w=jnp.zeros(()), b=jnp.zeros(()) + 1.0)
_, returned = setup(10)
pair = Pair().init(jax.random.PRNGKey(0), jnp.ones((1, 2)))
nested = Nested().init(jax.random.PRNGKey(0), jnp.ones((1, 2)))
stack = Stack().init(jax.random.PRNGKey(0), jnp.ones((1, 2)))
loaded = np.load("weights.npz")
halves = jax.random.split(jax.random.PRNGKey(0))
several = {"a": jnp.zeros(()), "rest": loaded}
'''


def _leaves(name: str):
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree, ())
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name:
            return known_leaves(node.value, model.scope_for(node), model)
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
            names = [e.id for e in node.targets[0].elts if isinstance(e, ast.Name)]
            if name in names:
                return known_leaves(ast.Name(id=name, ctx=ast.Load(), lineno=node.lineno + 1, col_offset=0), model.module_scope, model)
    raise AssertionError(name)


def test_displays_count_their_arrays():
    assert _leaves("display") == 3
    assert _leaves("keywords") == 2


def test_linen_init_counts_parameters_of_known_layers():
    assert _leaves("pair") == 4  # self.param, a Dense with its bias (2), one without (1)
    assert _leaves("nested") == 4 + 4  # a module of the module's, and a norm (scale, bias, and its statistics bound)


def test_unknown_trees_are_not_counted():
    assert _leaves("stack") is None  # (a loop over layers)
    assert _leaves("loaded") is None  # (a file's contents)
    assert _leaves("halves") is None  # (a split: several keys)
    assert _leaves("several") is None  # (one element of unknown size)


def test_project_classes_outside_linen_create_no_parameters():
    from conftest import FIXTURES
    from rule_fixtures import check_markers_in_project

    project = FIXTURES / "project_leaves"
    path = project / "fit.py"
    check_markers_in_project(path, project, ["JAX203"])
