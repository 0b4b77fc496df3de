"""What a draw's value reaches (semantic/key_values.py): draws whose values reach only a measurement,
their types, a summary traced for shapes, an agreement check, or nothing at all when the later draw
runs, share bits with nothing that matters (JAX501 stays silent); look-alikes where a value reaches a
result stay reported. The markers of fixtures/rules/JAX501_measured_inputs.py are checked by
tests/test_rules.py; these cases pin each fact on its own."""
from __future__ import annotations

import textwrap

import pytest

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE


def _rows(source: str) -> set[int]:
    result = check_source(textwrap.dedent(source), "draws.py", Settings(), [RULES_BY_CODE["JAX501"]])
    assert not result.errors, result.errors
    return {d.location.row for d in result.diagnostics if d.code == "JAX501"}


_HEADER = "import time\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\n\n\n"

SILENT = {
    "timed_compiled_runs": """
        def bench(f, n):
            key = jax.random.PRNGKey(0)
            a = jax.random.normal(key, (n,))
            b = jax.random.normal(key, (n,))
            g = jax.jit(f)
            g(a, b).block_until_ready()
            t = time.perf_counter()
            for _ in range(5):
                out = g(a, b).block_until_ready()
            return time.perf_counter() - t
    """,
    "profiled_runs": """
        def profile(f):
            with jax.profiler.trace("/tmp/t"):
                key = jax.random.PRNGKey(0)
                a = jax.random.uniform(key, (8,))
                b = jax.random.normal(key, (8,))
                jax.jit(f)(a, b).block_until_ready()
    """,
    "shapes_through_tree_map": """
        def shapes(dist):
            key = jax.random.PRNGKey(0)
            a = dist.sample(key)
            b = dist.sample(key, shape=(3,))
            print(jax.tree.map(jnp.shape, a), jax.tree.map(lambda v: v.dtype, b))
    """,
    "types_in_asserts": """
        def types(dist):
            key = jax.random.PRNGKey(0)
            a = dist.sample(key)
            b = dist.sample(key, shape=(3,))
            assert isinstance(a, tuple)
            assert jnp.ndim(b) == 1
    """,
    "summary_keys": """
        def summary(model, x, key):
            k1, k2 = jax.random.split(key)
            variables = model.init({"params": k1, "dropout": k2}, x)
            s1, s2 = jax.random.split(key)
            print(model.tabulate({"params": s1, "dropout": s2}, x))
            return variables
    """,
    "dead_on_return": """
        def draw(key, n, scale=None):
            if scale is None:
                scale = jax.random.uniform(key)
            if n == 0:
                return jax.random.uniform(key)
            return scale * jnp.ones(n)
    """,
}

REPORTED = {
    "discarded_without_clock": """
        def warm(f, key):
            a = jax.random.normal(key, (8,))
            b = jax.random.normal(key, (8,))
            jax.jit(f)(a, b)
            return a * b
    """,
    "timed_results_returned": """
        def bench(f, key):
            a = jax.random.normal(key, (8,))
            b = jax.random.normal(key, (8,))
            t = time.time()
            out = jax.jit(f)(a, b)
            print(time.time() - t)
            return out
    """,
    "values_through_tree_map": """
        def means(dist):
            key = jax.random.PRNGKey(0)
            a = dist.sample(key)
            b = dist.sample(key, shape=(3,))
            print(jax.tree.map(jnp.mean, a), jax.tree.map(lambda v: v.sum(), b))
    """,
    "read_before_return": """
        def draw(key, n):
            scale = jax.random.uniform(key)
            if n == 0:
                return scale * jax.random.uniform(key)
            return scale
    """,
    "summary_beside_init": """
        def both(model, x, key):
            k1, k2 = jax.random.split(key)
            a = model.init(k1, x)
            s1, s2 = jax.random.split(key)
            b = model.init(s1, x)
            return a, b
    """,
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_draws_reaching_nothing_used_are_silent(name):
    assert _rows(_HEADER + textwrap.dedent(SILENT[name])) == set()


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_draws_reaching_a_result_are_reported(name):
    assert _rows(_HEADER + textwrap.dedent(REPORTED[name])) != set()
