"""The run-mode facts of semantic/host_code.py: a body traced only by transforms that run op by op
outside `jit`, applied on the spot by host code, runs eagerly (`runs_eagerly_transformed`); a body that
cannot be traced runs eagerly wherever it is called (`untraceable`)."""

from __future__ import annotations

import ast

from jaxlint.semantic import host_code
from jaxlint.semantic.model import SemanticModel

HEADER = "import time\nimport jax\nimport jax.numpy as jnp\n\n"


def _facts(source: str) -> dict[str, tuple[bool, bool, bool]]:
    model = SemanticModel(ast.parse(HEADER + source))
    return {
        scope.name: (host_code.runs_on_host(scope, model), host_code.runs_eagerly_transformed(scope, model), host_code.untraceable(scope, model))
        for scope in model.scopes if scope.is_function and scope.name != "<lambda>"
    }


def test_vmap_grad_and_bound_jacobian_applied_in_host_code_run_eagerly():
    facts = _facts(
        "def f(x):\n    return jnp.sin(x)\n\ndef g(x):\n    return jnp.sum(x * x)\n\ndef h(x):\n    return jnp.tanh(x)\n\n"
        "def run(xs):\n    t = time.time()\n    a = jax.vmap(f)(xs)\n    b = jax.vmap(jax.grad(g))(xs)\n"
        "    jac = jax.jacfwd(h)\n    c = jac(xs[0])\n    print(time.time() - t)\n    return a, b, c\n"
    )
    assert facts["f"][:2] == (True, True)
    assert facts["g"][:2] == (True, True)
    assert facts["h"][:2] == (True, True)


def test_compiled_returned_or_unknown_sites_do_not_run_eagerly():
    facts = _facts(
        "def f(x):\n    return jnp.sin(x)\n\ndef g(x):\n    return jnp.cos(x)\n\ndef h(x):\n    return jnp.tanh(x)\n\n"
        "def run(xs):\n    t = time.time()\n    a = jax.jit(jax.vmap(f))(xs)\n    print(time.time() - t)\n    return a, jax.vmap(g)\n\n"
        "def elsewhere(xs):\n    return jax.vmap(h)(xs)\n"
    )
    assert facts["f"][:2] == (False, False)  # compiled by the jit around the vmap
    assert facts["g"][:2] == (False, False)  # handed back: the receiver may compile it
    assert facts["h"][:2] == (False, False)  # applied in code not known to run on the host


def test_a_body_that_needs_concrete_device_values_is_untraceable():
    facts = _facts(
        "def solve(f, x, tol=1e-6):\n    while True:\n        r = f(x)\n        if jnp.linalg.norm(r) < tol:\n            return x\n        x = x - r\n\n"
        "def report(x):\n    return float(jnp.max(x))\n\n"
        "def helper(x):\n    return jnp.sin(x)\n\n"
        "def settle(x):\n    y = helper(x)\n    change = jnp.max(jnp.abs(y - x))\n    if change > 1e-3:\n        return settle(y)\n    return y\n"
    )
    assert facts["solve"] == (True, False, True)
    assert facts["report"] == (True, False, True)
    assert facts["settle"] == (True, False, True)
    assert facts["helper"][0]  # called by an untraceable function: it runs eagerly too


def test_static_tests_and_parameters_are_no_evidence():
    facts = _facts(
        "def by_rank(u):\n    if jnp.ndim(u) == 2 and u.shape[0] > 1:\n        u = u.mean(axis=0)\n    return jnp.sin(u)\n\n"
        "def by_flag(u, centred):\n    if centred:\n        u = u - jnp.mean(u)\n    return u\n\n"
        "def by_argument(u):\n    if u > 0:\n        return u\n    return -u\n\n"
        "@jax.jit\ndef traced(u):\n    if jnp.sum(u) > 0:\n        return u\n    return -u\n"
    )
    assert not any(facts[name][2] or facts[name][0] for name in ("by_rank", "by_flag", "by_argument", "traced"))
