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


# ----- a notebook's loop that hands one key to a project function every step ----------------------

from rule_fixtures import notebook_findings  # noqa: E402

_CELLS = (
    "import jax\nimport jax.numpy as jnp\nrng = jax.random.PRNGKey(0)\n",
    "def loss(params, rng, x):\n    return net.apply(params, x, train=True, rngs={'dropout': rng}).mean()\n\n"
    "@jax.jit\ndef update(params, rng, x):\n    value, grads = jax.value_and_grad(loss)(params, rng, x)\n"
    "    return params - 0.1 * grads, value\n",
)


def _loop(body: str) -> str:
    return "for step, x in enumerate(batches):\n" + "".join(f"    {line}\n" for line in body.splitlines())


@pytest.mark.parametrize("body", [
    "params, value = update(params, rng, x)",
    "if step % 10 == 0:\n    print(step)\nparams, value = update(params, rng, x)",
    "x = x / 255.0\nparams, value = update(params, rng=rng, x=x)",
])
def test_a_cell_loop_handing_one_key_to_a_drawing_function_is_flagged(body):
    assert len(notebook_findings((*_CELLS, _loop(body)), "demo.ipynb", "JAX501")) == 1


@pytest.mark.parametrize("body", [
    "rng, step_rng = jax.random.split(rng)\nparams, value = update(params, step_rng, x)",
    "params, value = update(params, jax.random.fold_in(rng, step), x)",
])
def test_a_cell_loop_with_a_fresh_key_per_step_is_not(body):
    assert notebook_findings((*_CELLS, _loop(body)), "demo.ipynb", "JAX501") == []


def test_two_methods_compared_on_one_key_in_a_cell_are_not():
    # common random numbers, side by side, outside a loop: the notebook's documented exception
    cell = "a, _ = update(params, rng, x0)\nb, _ = update(other, rng, x0)\n"
    assert notebook_findings((*_CELLS, cell), "demo.ipynb", "JAX501") == []


def test_a_cell_loop_over_settings_on_one_key_is_not():
    # a sweep: each iteration a separate run, nothing carried, one key for a fair comparison
    cell = "results = []\nfor lr in [0.1, 0.01]:\n    fitted, value = update(params0, rng, lr * x0)\n    results.append(value)\n"
    assert notebook_findings((*_CELLS, cell), "demo.ipynb", "JAX501") == []
