"""Sizes through normalizing and masking (semantic/carried_state.py): a full reduction is one number,
an elementwise comparison with a number is as big as the array, and, read only to show a state small,
an element of an array holds at most the array and a broadcast of arrays at most the product of their
sizes (vectors broadcast exactly, to the longest). The rule's fixture is fixtures/rules/JAX401_normalized_sizes.py."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic.carried_state import element_count, known_large, known_small
from jaxlint.semantic.model import SemanticModel

SOURCE = textwrap.dedent("""
    import jax
    import jax.numpy as jnp

    def unit(seed):
        w = jax.random.normal(jax.random.PRNGKey(seed), (64,))
        w = w / jnp.linalg.norm(w)
        return w

    def masked(seed):
        w = jax.random.normal(jax.random.PRNGKey(seed), (48,))
        signs = jnp.sign(w)
        return jnp.where(jnp.arange(48) >= 8, w / signs[-1], 0.0)

    def outer(seed):
        key = jax.random.PRNGKey(seed)
        return jax.random.normal(key, (2048, 1)) * jax.random.normal(key, (1, 2048))

    a = unit(0)
    b = masked(1)
    c = outer(2)
    d = jnp.arange(48) >= 8
    e = jnp.sum(jnp.zeros((512, 512)))
""")


def _values():
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree)
    values = {s.targets[0].id: s.value for s in tree.body if isinstance(s, ast.Assign)}
    return model, values


def test_reductions_and_comparisons_keep_exact_sizes():
    model, values = _values()
    assert element_count(values["a"], model.module_scope, model) == 64
    assert element_count(values["d"], model.module_scope, model) == 48
    assert element_count(values["e"], model.module_scope, model) == 1


def test_broadcasts_are_bounded_only_to_show_a_state_small():
    model, values = _values()
    # vectors (one axis) broadcast to the longest and one entry of a vector is a number: exact
    assert element_count(values["b"], model.module_scope, model) == 48
    assert known_small(values["b"], model.module_scope, model)
    assert not known_small(values["c"], model.module_scope, model)  # bounded at 2048 x 2048
    assert not known_large(values["c"], model.module_scope, model)  # a bound never shows a state large
