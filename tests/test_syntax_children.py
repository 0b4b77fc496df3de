"""The child lists the semantic model keeps (syntax.CHILDREN) say what a fresh read of the tree says,
and stay so after the analyses that walk them have run."""

from __future__ import annotations

import ast

from jaxlint.semantic import bindings
from jaxlint.semantic.model import SemanticModel
from jaxlint.semantic.syntax import child_nodes, fresh_child_nodes, walk

SOURCE = '''
import jax
import jax.numpy as jnp

class Trainer:
    def __init__(self, key):
        self.key = key

    @jax.jit
    def step(self, params, batch):
        total = 0.0
        for x, y in batch:
            total += jnp.sum((x @ params - y) ** 2)
        return {"loss": total, "values": [v for v in batch if v is not None]}

def run(trainer, params, data, steps=10):
    losses = []
    while steps > 0:
        out = trainer.step(params, data)
        losses.append(float(out["loss"]))
        steps -= 1
        del out
    return lambda k=1: losses[-k:]
'''


def _without_markers(node: ast.AST) -> list[ast.AST]:
    return [child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr_context)]


def test_kept_lists_match_a_fresh_read_of_every_node():
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree)
    every = [tree, *model.nodes]
    kept = [node for node in every if "_jaxlint_children" in node.__dict__]
    assert len(kept) > 20  # the model keeps lists for the nodes it visited
    for node in every:
        assert child_nodes(node) == fresh_child_nodes(node) == _without_markers(node)


def test_walks_and_model_questions_leave_the_kept_lists_unchanged():
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree)
    before = {id(node): list(child_nodes(node)) for node in [tree, *model.nodes]}
    for scope in model.scopes:
        bindings.bound_values(model, "out", scope)
        bindings.bound_values(model, "total", scope)
    assert [type(n) for n in walk(tree)] == [type(n) for n in ast.walk(tree) if not isinstance(n, ast.expr_context)]
    assert {id(node): list(child_nodes(node)) for node in [tree, *model.nodes]} == before


def test_a_tree_without_a_model_is_read_afresh():
    tree = ast.parse("f(x, *ys, k=1)\n")
    call = tree.body[0].value
    assert child_nodes(call) == _without_markers(call)
    assert child_nodes(tree.body[0]) == [call]
    assert child_nodes(ast.Name("x", ast.Load())) == []
