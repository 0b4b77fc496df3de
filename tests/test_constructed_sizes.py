"""Sizes an object's state takes from what builds it (semantic/constructed_sizes.py): constructor
arguments, attributes `__init__` binds, configuration records handed in, and array builders whose
size their operands fix. The rule-level variants and look-alikes are in
fixtures/rules/JAX401_constructed_sizes.py."""
from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic.carried_state import element_count
from jaxlint.semantic.model import SemanticModel

BUILDERS = textwrap.dedent("""
    import jax.numpy as jnp
    import numpy as np

    N = 20
    M = 12

    a = jnp.tile(jnp.array([1.0, 2.0, 3.0]), (N, 2))
    b = jnp.concatenate([jnp.zeros(N), jnp.ones((2, M))])
    c = np.vstack((np.zeros(M), np.zeros(M), np.zeros(M)))
    d = jnp.arange(2, N, 3)
    e = jnp.linspace(0.0, 1.0, num=N + 1)
    f = jnp.linspace(0.0, 1.0)
    g = jnp.repeat(jnp.zeros((1, M)), N, axis=0)
    h = jnp.zeros((N, M)).reshape(-1).astype(jnp.float16).copy()
    i = jnp.zeros((N, M))[None, :, ...]
    j = jnp.zeros((N, M)).T
    k = jnp.zeros(N).at[0].set(1.0)
    p = jnp.tile(load(), (N, 1))
    q = jnp.concatenate(parts)
    r = jnp.zeros((N, M))[:3]
    s = jnp.arange(N * 0.5)
    t = jnp.concatenate([jnp.zeros(N), *parts])
    u = jnp.linspace(jnp.zeros(M), jnp.ones(M), N)
    v = jnp.repeat(jnp.zeros(M), 2, total_repeat_length=10 ** 9)
""")

CONSTRUCTED = textwrap.dedent("""
    import dataclasses
    import jax.numpy as jnp


    @dataclasses.dataclass
    class Settings:
        horizon: int = 30
        controls: int = 8


    class Plain:
        def __init__(self, horizon, controls=6):
            self.horizon = horizon
            self.controls = controls
            self.a = jnp.zeros((horizon, controls))

        def later(self):
            self.b = jnp.zeros(self.horizon * self.controls)


    class Configured:
        def __init__(self, settings):
            self.c = jnp.zeros((settings.horizon, settings.controls))


    class Escaping:
        def __init__(self, horizon):
            self.d = jnp.zeros(horizon)


    class Reset:
        def __init__(self, horizon):
            self.horizon = horizon
            self.e = jnp.zeros(self.horizon)

        def resize(self):
            self.horizon = 10 ** 9


    class Unrelated:
        def __init__(self):
            self.horizon = 10 ** 9  # another class's attribute of the same name: not Plain's


    TABLE = [Escaping]


    def build(n):
        Plain(20)
        Plain(5, controls=9)
        Configured(Settings())
        Configured(Settings(horizon=40))
        Escaping(3)
        Reset(3)
        Unrelated()
""")


def _module_counts(source: str) -> dict[str, int | None]:
    tree = ast.parse(source)
    model = SemanticModel(tree)
    return {
        statement.targets[0].id: element_count(statement.value, model.module_scope, model)
        for statement in tree.body if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name)
        and len(statement.targets[0].id) == 1
    }


def _attribute_counts(source: str) -> dict[str, int | None]:
    tree = ast.parse(source)
    model = SemanticModel(tree)
    counts = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute) and len(node.targets[0].attr) == 1:
            counts[node.targets[0].attr] = element_count(node.value, model.scope_for(node), model)
    return counts


def test_array_builders_have_the_size_their_operands_fix():
    counts = _module_counts(BUILDERS)
    assert counts["a"] == 3 * 20 * 2
    assert counts["b"] == 20 + 2 * 12
    assert counts["c"] == 3 * 12
    assert counts["d"] == len(range(2, 20, 3))
    assert counts["e"] == 21
    assert counts["f"] == 50
    assert counts["g"] == 20 * 12
    assert counts["h"] == 20 * 12
    assert counts["i"] == 20 * 12
    assert counts["j"] == 20 * 12
    assert counts["k"] == 20


def test_array_builders_of_unknown_operands_stay_unknown():
    counts = _module_counts(BUILDERS)
    # An operand loaded or handed in, a list the source does not spell, a slice with bounds, a
    # float count, a spread list, end points that are arrays, a total length the call sets.
    for name in ("p", "q", "r", "s", "t", "u", "v"):
        assert counts[name] is None, name


def test_constructor_arguments_size_the_object_state():
    counts = _attribute_counts(CONSTRUCTED)
    assert counts["a"] == 20 * 9  # the largest each call passes: Plain(20) and Plain(5, controls=9)
    assert counts["b"] == 20 * 9  # `self.horizon` is what `__init__` binds
    assert counts["c"] == 40 * 8  # a record's field: its default, or the keyword a call gives


def test_constructors_the_module_does_not_show_stay_unknown():
    counts = _attribute_counts(CONSTRUCTED)
    assert counts["d"] is None  # the class is handed around as a value: calls not seen
    assert counts["e"] is None  # `self.horizon` stored again in another method
