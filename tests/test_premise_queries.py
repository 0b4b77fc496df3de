"""Premises the model checks before an exception applies (round 17, helper "premise"):
- branch_shares.gate_period: one lap in how many takes a periodic gate of the loop's counter;
- training_loops.solve_inside_step: an iterative solve in a program that takes a loss gradient is part
  of one optimizer step, not many device steps (JAX201's loops of heavy compiled calls);
- accumulators.keeps_for_later: a method that keeps what it is handed for a later report does not need
  the value now (JAX201's 'the host needs the value anyway');
- timed_work's reaching binding: in top-level code, a name rebound from an unknown call below the
  read is not what the read sees (JAX202's 'eager operations on an unknown call's result')."""

import ast

import pytest

from jaxlint.semantic import accumulators, branch_shares, training_loops
from jaxlint.semantic.model import SemanticModel


def _loop_and_branch(code: str):
    tree = ast.parse(code)
    model = SemanticModel(tree)
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    branch = next(n for n in ast.walk(loop) if isinstance(n, ast.If))
    return branch.test, loop, model


@pytest.mark.parametrize(("code", "period"), [
    ("for i, b in enumerate(batches):\n    if i % 100 == 0:\n        pass", 100),
    ("for i in range(n):\n    if (i + 1) % 50 == 0:\n        pass", 50),
    ("EVERY = 20\nfor step in range(n):\n    if not step % EVERY:\n        pass", 20),
    ("for i in range(n):\n    if i % every == 0:\n        pass", None),  # a period the source leaves open
    ("for b in batches:\n    if step % 100 == 0:\n        pass", None),  # not the loop's counter
    ("for i in range(n):\n    if i > 100:\n        pass", None),  # not periodic
])
def test_gate_period(code, period):
    assert branch_shares.gate_period(*_loop_and_branch(code)) == period


_SOLVES = '''
import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy.sparse.linalg import cg, gmres

def loss(w, x):
    return jnp.mean((x @ w) ** 2)

@jax.jit
def natural(w, x):
    value, g = jax.value_and_grad(loss)(w, x)
    d, _ = cg(lambda v: x.T @ (x @ v), g, maxiter=20)
    return w - d, value

def _direction(w, x):
    g = jax.grad(loss)(w, x)
    return gmres(lambda v: v + x.T @ (x @ v), g)[0]

@jax.jit
def preconditioned(w, x):
    return w - _direction(w, x)

@jax.jit
def relax(field, source):
    field, _ = cg(lambda v: v - 0.1 * jnp.roll(v, 1), source, x0=field)
    return field

@jax.jit
def scanned(w, xs):
    def one(w, x):
        return w - jax.grad(loss)(w, x), None
    return lax.scan(one, w, xs)[0]

def run(w, x, field, source, xs):
    natural(w, x)
    preconditioned(w, x)
    relax(field, source)
    scanned(w, xs)
'''


@pytest.mark.parametrize(("callee", "heavy"), [
    ("natural", False),  # a bounded solve for a natural-gradient direction: one step
    ("preconditioned", False),  # the solve in a helper the step calls, beside `jax.grad`
    ("relax", True),  # the solve is the call's whole work
    ("scanned", True),  # a `lax.scan` of gradient steps: many steps per call, solve or not
])
def test_solve_inside_step(callee, heavy):
    tree = ast.parse(_SOLVES)
    model = SemanticModel(tree)
    call = next(
        n for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == callee and isinstance(n.args[0], ast.Name) and n.args[0].id in ("w", "field")
        and model.jit_binding_for_call(n) is not None
    )
    assert training_loops.compiled_call_loops_on_device(call, model) is heavy


def _accumulating(code: str) -> bool:
    tree = ast.parse(code)
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    call = next(n for n in ast.walk(loop) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in accumulators.ACCUMULATING_METHODS)
    SemanticModel(tree)  # (parents)
    return accumulators.keeps_for_later(call, loop)


@pytest.mark.parametrize("code", [
    "stats = Agg()\nfor i, b in enumerate(bs):\n    stats.add(jax.device_get(m))\n    if i % 100 == 0:\n        log(stats.result())",
    "for b in bs:\n    meter.update(loss=np.asarray(l))",
    "class T:\n    def fit(self, bs):\n        for b in bs:\n            self.totals.record(float(l))\n            if done(b):\n                print(self.totals)",
])
def test_keeps_for_later(code):
    assert _accumulating(code)


@pytest.mark.parametrize("code", [
    "seen = set()\nfor b in bs:\n    seen.add(int(a))\n    if len(seen) > 3:\n        break",  # read every lap
    "for b in bs:\n    total = counter.add(float(l))",  # its result is used
    "for b in bs:\n    stats = Agg()\n    stats.add(jax.device_get(m))",  # made afresh each lap
    "for b in bs:\n    sim.push(np.asarray(a))\n    obs = sim.observation()",  # the object is read every lap
])
def test_not_kept_for_later(code):
    assert not _accumulating(code)
