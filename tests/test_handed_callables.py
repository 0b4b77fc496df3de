"""The functions a call runs where it stands, with what it hands them (semantic/handed_callables.py)."""

from __future__ import annotations

import ast

from jaxlint.semantic import handed_callables
from jaxlint.semantic.model import SemanticModel


def _calls(source: str):
    model = SemanticModel(ast.parse(source))
    calls = [n for n in ast.walk(model.tree) if isinstance(n, ast.Call) and handed_callables.runner(n, model.qualified_name)]
    return model, calls


def test_cond_runs_its_branches_with_its_operands():
    model, (call,) = _calls("from jax import lax\nlax.cond(p, lambda x: x, g, a, b)\n")
    handed = handed_callables.handed(call, model.qualified_name)
    assert [type(h.function).__name__ for h in handed] == ["Lambda", "Name"]
    assert all([ast.unparse(a) for a in h.arguments] == ["a", "b"] for h in handed)
    assert handed_callables.alternatives(call, model.qualified_name)


def test_the_operand_keyword_of_the_older_cond():
    model, (call,) = _calls("import jax\njax.lax.cond(p, f, g, operand=None)\n")
    assert [ast.unparse(a) for a in handed_callables.handed(call, model.qualified_name)[0].arguments] == ["None"]


def test_switch_runs_each_listed_branch():
    model, (call,) = _calls("from jax import lax\nlax.switch(i, [f, lambda x: x, h], x)\n")
    assert len(handed_callables.handed(call, model.qualified_name)) == 3


def test_loops_hand_the_carry_and_make_the_rest():
    model, calls = _calls("from jax import lax\nlax.fori_loop(0, n, body, init)\nlax.scan(step, carry, xs)\n")
    fori, scan = (handed_callables.handed(c, model.qualified_name)[0] for c in calls)
    assert fori.arguments[0] is None and ast.unparse(fori.arguments[1]) == "init"
    assert ast.unparse(scan.arguments[0]) == "carry" and scan.arguments[1] is None
    assert not handed_callables.alternatives(calls[0], model.qualified_name)


def test_callbacks_hand_their_arguments_in_order():
    model, calls = _calls(
        "import jax\njax.debug.callback(report, step, loss, ordered=True)\n"
        "jax.pure_callback(f, shape, x, vmap_method='sequential')\n"
    )
    debug, pure = (handed_callables.handed(c, model.qualified_name)[0] for c in calls)
    assert [ast.unparse(a) for a in debug.arguments] == ["step", "loss"] and debug.keywords == ()
    assert [ast.unparse(a) for a in pure.arguments] == ["x"]
    made, positions = handed_callables.as_call(calls[0], debug)
    assert ast.unparse(made) == "report(step, loss)" and positions == [1, 2]


def test_other_calls_run_nothing_here():
    model, calls = _calls("import jax\njax.jit(f)\nsorted(xs, key=lambda x: x)\njax.lax.cond(p, *fs)\n")
    assert calls == [c for c in calls if handed_callables.runner(c, model.qualified_name)]
    assert all(handed_callables.handed(c, model.qualified_name) == [] for c in calls)


def test_a_lambda_is_run_where_the_call_stands():
    model, (call,) = _calls("from jax import lax\nkeep = lambda: 1\nlax.cond(p, lambda _: f(k), lambda _: 0, None)\n")
    lambdas = [n for n in ast.walk(model.tree) if isinstance(n, ast.Lambda)]
    assert handed_callables.run_at(lambdas[0], model.qualified_name) is None
    assert all(handed_callables.run_at(n, model.qualified_name) is call for n in lambdas[1:])
