"""Plain project functions read at their call sites (semantic/call_summaries.py): in another module,
through `functools.partial`, with the branches a literal argument decides and the kinds the caller's
arguments hold."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import FIXTURES
from rule_fixtures import check_in_project, check_markers_in_project
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic.training_loops import call_returns_device_at, call_runs_compiled
from jaxlint.semantic.model import SemanticModel

PROJECT = FIXTURES / "project_summaries"


def _check(path: Path):
    return check_in_project(path, PROJECT, ["JAX203", "JAX201"])


def test_markers_match_findings():
    path = PROJECT / "run.py"
    check_markers_in_project(path, PROJECT, ["JAX203", "JAX201"])


def test_message_names_the_update_inside_the_callee():
    result = _check(PROJECT / "run.py")
    messages = [d.message for d in result.diagnostics if d.code == "JAX203"]
    assert messages and all("through `tx.update` in `step" in message and "training.py:15" in message for message in messages)


def test_the_defining_module_is_a_dependency():
    result = _check(PROJECT / "run.py")
    assert "training.py" in {Path(path).name for path in result.dependencies}


def test_the_module_alone_says_nothing():
    path = PROJECT / "run.py"
    result = check_source(path.read_text(), "<stdin>", Settings(), [RULES_BY_CODE["JAX203"], RULES_BY_CODE["JAX201"]])
    assert result.diagnostics == []


_LOCAL = '''
from functools import partial
import jax
import jax.numpy as jnp

grad_fn = jax.jit(jax.grad(lambda w, x: jnp.sum(w * x)))


def step(w, x, training=True, verbose=False):
    if training and not verbose:
        w = w - grad_fn(w, x)
    elif verbose:
        print("no update")
    return w, 0


def run(w, xs):
    fit = partial(step, training=True)
    check = partial(step, training=False)
    for x in xs:
        w, n = fit(w, x)
        v, n = check(w, x)
        u, n = step(w, x, True, True)
'''


def _calls(text: str):
    tree = ast.parse(text)
    model = SemanticModel(tree, (), None)
    calls = {ast.unparse(node): node for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return model, calls


def test_a_literal_argument_decides_the_branches_it_tests():
    model, calls = _calls(_LOCAL)
    assert call_runs_compiled(calls["fit(w, x)"], model)
    assert not call_runs_compiled(calls["check(w, x)"], model)
    assert not call_runs_compiled(calls["step(w, x, True, True)"], model)  # (positional literals: `verbose` takes the elif)


def test_returned_positions_are_read_one_by_one():
    model, calls = _calls(_LOCAL)
    call = calls["fit(w, x)"]
    assert call_returns_device_at(call, model, 0, 2)
    assert not call_returns_device_at(call, model, 1, 2)  # (a literal 0)
    assert not call_returns_device_at(call, model, 0, 3)  # (another width)


def test_the_original_module_model_is_left_as_it_was():
    # A specialised copy is a model of its own: the caller's model still sees both sides.
    model, calls = _calls(_LOCAL)
    call_runs_compiled(calls["check(w, x)"], model)
    step = next(s for s in model.module_scope.children if getattr(s.node, "name", "") == "step")
    assert any(isinstance(n, ast.If) for n in ast.walk(step.node))
    assert model.scope_for(calls["fit(w, x)"]).node.name == "run"


def test_a_module_the_callee_imports_from_is_a_dependency_too():
    # `score` of steps/scoring.py calls `mean_error`, compiled in steps/losses.py: both are read.
    result = _check(PROJECT / "run.py")
    assert {"scoring.py", "losses.py"} <= {Path(path).name for path in result.dependencies}


def test_methods_of_another_modules_class_are_read_as_functions():
    # `learner.step(...)`, `learner.epoch(..., single=True)`: a method of a class of steps/learners.py through
    # an instance bound to its constructor, with `self` the instance and the flags the call fixes.
    path = PROJECT / "run_methods.py"
    result = check_markers_in_project(path, PROJECT, ["JAX203", "JAX201"])
    assert "learners.py" in {Path(p).name for p in result.dependencies}
    messages = [d.message for d in result.diagnostics if d.code == "JAX203"]
    assert messages and all("in `Learner.step`" in message for message in messages)
