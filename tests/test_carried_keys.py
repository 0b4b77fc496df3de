"""A lax loop started from a literal tuple hands its body that tuple as the first step's carry: where the
body unpacks its carry into names and draws from one of them, the loop draws from that element
(semantic/effects.py, Effects.consumed_parts). The rule's fixture is fixtures/rules/JAX501_carried_keys.py;
these ask the model directly."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jaxlint.semantic import effects
from jaxlint.semantic.model import SemanticModel


def _consumed(source: str, caller: str, callee: str) -> list[str]:
    tree = ast.parse(textwrap.dedent(source))
    model = SemanticModel(tree)
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == caller)
    call = next(n for n in ast.walk(function) if isinstance(n, ast.Call) and ast.unparse(n.func) == callee)
    return [ast.unparse(a) for a in effects.consumed_key_arguments(model, call, model.scope_for(call))]


_HEAD = "import jax\n"


@pytest.mark.parametrize("loop", [
    "jax.lax.scan(step, (x, key), None, length=4)",
    "jax.lax.fori_loop(0, 4, lambda i, c: step(c, i)[0], (x, key))",
])
def test_a_key_in_the_start_carry_is_drawn_from_by_the_body(loop):
    source = _HEAD + (
        "def run(x, key):\n"
        "    def step(carry, _):\n        y, k = carry\n        k, sub = jax.random.split(k)\n"
        "        return (y + jax.random.normal(sub, y.shape), k), None\n"
        f"    return {loop}\n"
    )
    found = _consumed(source, "run", loop.split("(")[0])
    assert found == (["key"] if "scan" in loop else [])  # (a lambda body is read where it stands, not through the carry)


def test_a_while_loop_body_draws_from_its_carry():
    source = _HEAD + (
        "def run(x, rng):\n"
        "    def cond(c):\n        y, r = c\n        return y.sum() < 1\n"
        "    def body(c):\n        y, r = c\n        r, sub = jax.random.split(r)\n        return y + jax.random.uniform(sub), r\n"
        "    return jax.lax.while_loop(cond, body, (x, rng))\n"
    )
    assert _consumed(source, "run", "jax.lax.while_loop") == ["rng"]


@pytest.mark.parametrize("body", [
    # the key carried through, never drawn from
    "y, k = carry\n        return (y + 1, k), None",
    # the carry not unpacked: what each part is for is not read
    "return carry, None",
    # the element drawn from is not the key
    "k, y = carry\n        return (k, y), None",
])
def test_a_body_that_draws_nothing_from_the_carried_key(body):
    source = _HEAD + f"def run(x, key):\n    def step(carry, _):\n        {body}\n    return jax.lax.scan(step, (x, key), None, length=4)\n"
    assert _consumed(source, "run", "jax.lax.scan") == []


def test_a_helper_running_the_loop_draws_from_its_key_parameter():
    source = _HEAD + (
        "def rollout(x, key):\n"
        "    def step(carry, _):\n        y, k = carry\n        k, sub = jax.random.split(k)\n"
        "        return (y + jax.random.normal(sub, y.shape), k), None\n"
        "    return jax.lax.scan(step, (x, key), None, length=4)\n\n"
        "def main(x, key):\n    return rollout(x, key)\n"
    )
    assert _consumed(source, "main", "rollout") == ["key"]
