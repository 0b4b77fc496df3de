"""What a function draws from its key parameters includes what the code it runs draws
(semantic/effects.py): a function defined in its body that closes over the key and that the body
runs, a network given the key in `rngs=`, and a function run through a transform that hands it the
call's own arguments (`jax.value_and_grad(f)(params, key)`, inline or through a name). The rule's
fixture is fixtures/rules/JAX501_inner_draws.py; these ask the model directly."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jaxlint.semantic import effects
from jaxlint.semantic.model import SemanticModel


def _consumed(source: str, caller: str, callee: str) -> list[str]:
    """The arguments of the call of `callee` in `caller` that the model says are drawn from."""
    tree = ast.parse(textwrap.dedent(source))
    model = SemanticModel(tree)
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == caller)
    call = next(n for n in ast.walk(function) if isinstance(n, ast.Call) and ast.unparse(n.func) == callee)
    found = effects.call_effects(model, call, model.scope_for(call))
    return [ast.unparse(a) for a in found.consumed_arguments(call)]


_HEAD = "import jax\nimport jax.numpy as jnp\n"


@pytest.mark.parametrize("body", [
    # a nested function run through a transform bound to a name
    "def loss_fn(p):\n        return net.apply(p, x, rngs={'dropout': rng}).sum()\n"
    "    grad_fn = jax.value_and_grad(loss_fn, has_aux=False)\n    return grad_fn(params)",
    # run through a transform called at once
    "def loss_fn(p):\n        return (p * jax.random.normal(rng, x.shape)).sum()\n"
    "    return jax.grad(loss_fn)(params)",
    # called directly
    "def noise():\n        return jax.random.uniform(rng, x.shape)\n    return params + noise()",
    # handed to a lax loop
    "def body(i, p):\n        return p + jax.random.normal(rng, p.shape)\n"
    "    return jax.lax.fori_loop(0, 3, body, params)",
    # a network given the key in `rngs=`, in the body itself
    "return net.apply(params, x, rngs={'dropout': rng})",
])
def test_draws_in_the_code_a_function_runs_are_its_own(body):
    source = _HEAD + f"@jax.jit\ndef step(params, x, rng):\n    {body}\n\ndef loop(params, x, rng):\n    return step(params, x, rng)\n"
    assert _consumed(source, "loop", "step") == ["rng"]


@pytest.mark.parametrize("body", [
    # the inner function is returned: the caller runs it later
    "def loss_fn(p):\n        return (p * jax.random.normal(rng, x.shape)).sum()\n    return loss_fn",
    # a transform of it is returned
    "def loss_fn(p):\n        return (p * jax.random.normal(rng, x.shape)).sum()\n"
    "    grad_fn = jax.grad(loss_fn)\n    return grad_fn",
    # dropout switched off by a literal flag
    "return net.apply(params, x, train=False, rngs={'dropout': rng})",
    # the inner function draws from a key folded from the parameter
    "k = jax.random.fold_in(rng, 1)\n    def loss_fn(p):\n        return (p * jax.random.normal(k, x.shape)).sum()\n"
    "    return jax.grad(loss_fn)(params)",
    # defined, never run
    "def unused(p):\n        return jax.random.normal(rng, p.shape)\n    return params",
])
def test_code_that_does_not_run_or_draw_is_not_a_draw(body):
    source = _HEAD + f"@jax.jit\ndef step(params, x, rng):\n    {body}\n\ndef loop(params, x, rng):\n    return step(params, x, rng)\n"
    assert _consumed(source, "loop", "step") == []


def test_a_transform_hands_the_function_the_calls_arguments():
    source = _HEAD + (
        "def loss(params, x, noise_key):\n    return (params * x + jax.random.normal(noise_key, x.shape)).sum()\n\n"
        "def step(params, x, noise_key):\n    score = jax.value_and_grad(loss)\n    return score(params, x, noise_key)\n\n"
        "def other(params, x, noise_key):\n    return jax.grad(loss)(params, x, noise_key)\n"
    )
    assert _consumed(source, "step", "score") == ["noise_key"]
    assert _consumed(source, "other", "jax.grad(loss)") == ["noise_key"]
    # a transform that moves the arguments (vmap over a batch) is not read as a plain call
    vmapped = source + "\ndef mapped(params, xs, noise_key):\n    return jax.vmap(loss, in_axes=(None, 0, None))(params, xs, noise_key)\n"
    assert _consumed(vmapped, "mapped", "jax.vmap(loss, in_axes=(None, 0, None))") == []
