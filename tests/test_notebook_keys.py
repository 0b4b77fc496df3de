"""JAX501 in notebook cells: draws whose statistics nobody relies on (the inputs of `%timeit`, also through
a function of the cell computing with them; the inputs of a check that two computations agree) share
bits with nothing that matters. A cell that uses the same draws as data is still flagged."""

from __future__ import annotations

from rule_fixtures import notebook_findings

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import random\nkey = random.PRNGKey(0)\n"


def findings(*cells: str) -> list[tuple[int, int]]:
    return notebook_findings(cells, "demo.ipynb", "JAX501")


TIMED = (
    "big = random.normal(key, (300, 300))\nvectors = random.normal(key, (10, 300))\n\n"
    "def product(v):\n    return jnp.dot(big, v)\n\n"
    "%timeit jax.vmap(product)(vectors).block_until_ready()\n"
)
CHECKED = (
    "m = random.normal(key, (2, 3))\nv = random.normal(key, (3,))\nprint(m, v)\n"
    "assert jnp.allclose(jax.jacfwd(lambda u: m @ u)(v), m, atol=1e-6)\n"
)


def test_benchmark_inputs_through_a_function_of_the_cell_are_not_samples():
    assert findings(HEADER, TIMED) == []


def test_identity_check_inputs_are_not_samples():
    assert findings(HEADER, CHECKED) == []


def test_the_same_draws_used_as_data_are_flagged():
    # Look-alikes: the product is printed (not timed); the check has a statistical tolerance.
    assert findings(HEADER, TIMED.replace("%timeit ", "print(") .rstrip("\n") + ")\n") == [(2, 2)]
    assert findings(HEADER, CHECKED.replace("atol=1e-6", "atol=0.5")) == [(2, 2)]


SPLITS_ONLY = (
    "def features(key, n):\n    key, _ = random.split(key)\n    w = random.normal(key, (n,))\n"
    "    key, _ = random.split(key)\n    return w + random.uniform(key, (n,))\n"
)
DRAWS_DIRECTLY = "def features(key, n):\n    return random.normal(key, (n,))\n"
PLOT = (
    "def plot(mu, cov):\n    basis = features(key, 4)\n"
    "    samples = random.multivariate_normal(key, mu, cov, shape=(5,))\n    return basis, samples\n"
)


def test_a_function_of_another_cell_that_only_splits_the_key_shares_no_bits_with_a_direct_draw():
    """`features` reads `key` only as the key of `split`; `multivariate_normal(key)` reads `key`'s own bits."""
    assert findings(HEADER, SPLITS_ONLY, PLOT) == []


def test_a_function_of_another_cell_that_draws_from_the_key_itself_is_a_reuse():
    assert findings(HEADER, DRAWS_DIRECTLY, PLOT) == [(3, 3)]
