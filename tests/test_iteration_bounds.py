"""How many times a loop over `range(parameter)` runs at most: the parameter's default, if any, and
the constant each visible call passes (training_loops.iteration_count through _int_in_scope)."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic.model import SemanticModel
from jaxlint.semantic.training_loops import iteration_count

SOURCE = textwrap.dedent("""
    def optimize(graph, num_steps):
        for step in range(num_steps):
            pass

    def noise(shape, octaves=1):
        for _ in range(octaves):
            pass

    class Trainer:
        def fit(self, data, epochs):
            for epoch in range(epochs):
                pass

    def train(cfg, steps_per_epoch=1000):
        for step in range(steps_per_epoch):
            pass

    def unknown(xs, count):
        for i in range(count):
            pass

    optimize(None, num_steps=15)
    optimize(None, 12)
    noise((8, 8), octaves=4)
    noise((8, 8))
    Trainer().fit(None, 3)
    train(None, steps_per_epoch=10)
    unknown([], 5)
    unknown([], len(data))
""")


def _counts() -> dict[str, int | None]:
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree)
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
            scope = model.scope_for(node)
            found[scope.name] = iteration_count(node.iter, scope, model)
    return found


def test_constants_passed_by_every_call_bound_the_loop():
    counts = _counts()
    assert counts["optimize"] == 15  # keyword and positional, the larger
    assert counts["noise"] == 4  # a call's constant and the default
    assert counts["fit"] == 3  # a method: `self` is not a position of the call


def test_a_default_counts_whatever_a_smoke_call_passes():
    assert _counts()["train"] == 1000


def test_a_call_passing_something_unknown_leaves_it_unknown():
    assert _counts()["unknown"] is None


def test_a_container_parameter_is_as_long_as_what_the_calls_pass():
    source = textwrap.dedent("""
        def show(indices):
            for i in indices:
                pass

        def walk(items):
            for item in items:
                walk(items)

        show([0, 500, 600, 1000, 1800, 2000])
        show((1, 2))
        walk([1, 2, 3])
    """)
    tree = ast.parse(source)
    model = SemanticModel(tree)
    counts = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.For):
            scope = model.scope_for(node)
            counts[scope.name] = iteration_count(node.iter, scope, model)
    assert counts == {"show": 6, "walk": None}
