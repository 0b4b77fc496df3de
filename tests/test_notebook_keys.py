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


# A function of the notebook that splits its key before it draws hands out the keys `split(key)`
# returns wherever it runs: beside a `jax.random.split` of the same key in the notebook's body, both
# hand out one set of keys (the initial weight equals the first data point). Two such functions on
# one key stay a comparison on common random numbers, and a sampler reading the key's own bits shares
# nothing with the split's keys. Only in that order: the split's keys drew in the body before the
# function hands them out again.
SPLITTING_INIT = (
    "def init(rng):\n    w_key, b_key = random.split(rng)\n"
    "    return random.normal(w_key, ()), random.normal(b_key, ())\n"
)
WIDER_INIT = (
    "def init(rng):\n    w_key, b_key, c_key = random.split(rng, 3)\n"
    "    return random.normal(w_key, ()), random.normal(b_key, ()) + random.normal(c_key, ())\n"
)
DATA = (
    "x_key, noise_key = random.split(key)\nxs = random.normal(x_key, (64, 1))\n"
    "ys = 2 * xs + random.normal(noise_key, (64, 1))\n"
)
FIT = "params = init(key)\nprint(params, xs, ys)\n"


def test_a_split_in_the_body_and_a_function_splitting_the_same_key_hand_out_the_same_keys():
    assert findings(HEADER, SPLITTING_INIT, DATA + FIT) == [(3, 4)]
    assert findings(HEADER, SPLITTING_INIT, DATA, FIT) == [(4, 1)]  # the call in a later cell
    assert findings(HEADER, WIDER_INIT, DATA + FIT) == [(3, 4)]  # `split(k, 3)[:2]` equals `split(k)`


def test_the_function_first_and_the_key_split_afterwards_is_left_to_the_notebook_policy():
    # (a helper run on the key, then the key split for what the notebook does next)
    assert findings(HEADER, SPLITTING_INIT, FIT.replace("xs, ys", "") + DATA + "print(xs, ys)\n") == []


def test_a_loop_handing_the_key_to_a_splitting_function_stays_with_the_loop_policy():
    # Not a reuse per iteration here: the notebook's loop policy (a key handed unchanged to a helper
    # each step of a loop that carries state) decides; a comparison over settings stays silent.
    settings = "for scale in (0.1, 1.0):\n    print(scale * init(key)[0])\n"
    assert findings(HEADER, SPLITTING_INIT, settings) == []
    compared = "results = {scale: scale * init(key)[0] for scale in (0.1, 1.0)}\nprint(results)\n"
    assert findings(HEADER, SPLITTING_INIT, compared) == []


def test_keys_that_reach_different_consumers_are_a_notebook_experiment():
    # The body's split keys drawn with `normal`, the function's with `randint` and a further split:
    # no key both read the same way.
    other = (
        "def run(rng):\n    step_key, eval_key = random.split(rng)\n"
        "    return random.randint(step_key, (3,), 0, 9), random.split(eval_key, 4)\n"
    )
    assert findings(HEADER, other, DATA + "out = run(key)\nprint(out, xs, ys)\n") == []


def test_two_functions_on_one_key_or_a_fresh_key_or_an_own_bits_draw_are_not_flagged():
    twice = "a = init(key)\nb = init(key)\nprint(a, b)\n"
    assert findings(HEADER, SPLITTING_INIT, twice) == []
    fresh = DATA.replace("random.split(key)", "random.split(key, 3)").replace("x_key, noise_key", "x_key, noise_key, init_key")
    assert findings(HEADER, SPLITTING_INIT, fresh + FIT.replace("init(key)", "init(init_key)")) == []
    own_bits = "xs = random.normal(key, (64, 1))\nparams = init(key)\nprint(params, xs)\n"
    assert findings(HEADER, SPLITTING_INIT, own_bits) == []
