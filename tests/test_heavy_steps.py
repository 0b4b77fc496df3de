"""A compiled step whose program runs a solve or a time integration (semantic/heavy_steps.py)."""

from __future__ import annotations

import ast

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project, notebook_findings
from jaxlint.semantic import heavy_steps
from jaxlint.semantic.model import SemanticModel

PROJECT = FIXTURES / "project_heavy_steps"


def _function(model: SemanticModel, name: str):
    return next(scope for scope in model.scopes if isinstance(scope.node, ast.FunctionDef) and scope.node.name == name)


def test_another_modules_solver_and_simulation_make_the_step_heavy():
    check_markers_in_project(PROJECT / "run.py", PROJECT, ["JAX201"])


def test_the_loop_kinds_that_count():
    source = (
        "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.scipy.sparse.linalg import gmres, cg\n"
        "def solve(a, b):\n    return gmres(lambda v: a * v, b)[0]\n"
        "def settle(x):\n    return lax.while_loop(lambda c: c > 1.0, lambda c: c / 2, x)\n"
        "def integrate(x, n):\n    return lax.scan(lambda c, i: (c * 0.9, c), x, jnp.arange(0, n))[1]\n"
        "def counted(x):\n    return lax.fori_loop(0, 1000, lambda i, c: c * 0.9, x)\n"
        "def layers(x, stack):\n    return lax.scan(lambda h, w: (jnp.tanh(h @ w), None), x, stack)[0]\n"
        "def handful(x):\n    return lax.fori_loop(0, 3, lambda i, c: c * 0.9, x)\n"
        "def fixed_root(x):\n    return lax.custom_root(lambda z: z - x, x, lambda f, z: z, lambda g, y: y)\n"
    )
    model = SemanticModel(ast.parse(source))
    for name in ("solve", "settle", "integrate", "counted"):
        assert heavy_steps.program_device_loop(_function(model, name), model) is not None, name
    for name in ("layers", "handful", "fixed_root"):
        assert heavy_steps.program_device_loop(_function(model, name), model) is None, name


def test_a_loop_reached_through_a_gradient_is_inside_the_differentiated_function():
    source = (
        "import jax\nimport jax.numpy as jnp\nfrom jax.scipy.sparse.linalg import cg\n"
        "def loss(a, b):\n    return jnp.sum(cg(lambda v: a * v, b)[0])\n"
        "grad_fn = jax.grad(loss)\n"
        "def step(a, b):\n    return a - grad_fn(a, b)\n"
        "def direction(a, b):\n    g = jax.grad(lambda p: jnp.sum(p * b))(a)\n    return cg(lambda v: a * v, g)[0]\n"
    )
    model = SemanticModel(ast.parse(source))
    assert heavy_steps.program_device_loop(_function(model, "step"), model)[1] is True
    assert heavy_steps.program_device_loop(_function(model, "direction"), model)[1] is False


_CELLS = (
    "import jax\nimport jax.numpy as jnp\nfrom jax.scipy.sparse.linalg import gmres\nfrom tqdm import tqdm\n",
    "def loss(c, s):\n    return jnp.sum(c * s)\ngrad_fn = jax.value_and_grad(loss)\n",
    "def field(c, s):\n    return gmres(lambda v: v - 0.1 * c * v, s)[0]\n"
    "def loss(c, s):\n    return -jnp.abs(field(c, s)[0])\ngrad_fn = jax.value_and_grad(loss)\n",
    "@jax.jit\ndef update(c, s):\n    value, g = grad_fn(c, s)\n    return c - g, value\n"
    "bar = tqdm(range(100))\nfor k in bar:\n    c, value = update(c, s)\n    bar.set_description(f'{float(value):.3f}')\n",
)


def test_a_notebook_redefining_the_loss_uses_the_definition_standing_above_the_step():
    assert notebook_findings(_CELLS, "focus.ipynb", "JAX201") == []
    # Look-alike: the step defined below the first definition only, whose loss runs no solve.
    assert notebook_findings((_CELLS[0], _CELLS[1], _CELLS[3]), "focus.ipynb", "JAX201") != []
