"""A notebook's cells are one program run in cell order (semantic/cell_order.py): a key drawn from in
one cell and drawn from again in a later cell repeats its bits (JAX501), one finding per key and cell;
a cell that rebinds or splits the key first starts from a fresh one."""

from __future__ import annotations

from rule_fixtures import notebook_findings

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import random\n"


def findings(*cells: str) -> list[tuple[int, int]]:
    return notebook_findings(cells, "lesson.ipynb", "JAX501")


def test_a_key_drawn_in_an_earlier_cell_and_drawn_again_is_flagged():
    cells = (HEADER, "seed = random.PRNGKey(3)\ninputs = random.normal(seed, (64, 2))\n", "print(inputs.mean())\n",
             "weights = random.normal(seed, (2,))\nprint(inputs @ weights)\n")
    assert findings(*cells) == [(4, 1)]


def test_a_key_split_in_an_earlier_cell_and_split_again_is_flagged():
    cells = (HEADER, "root = random.key(7)\na, b = random.split(root)\nprint(random.uniform(a))\n",
             "c, d = random.split(root)\nprint(random.uniform(c), random.uniform(d))\n")
    assert findings(*cells) == [(3, 1)]


def test_a_key_drawn_from_then_split_in_a_later_loop_is_flagged_once_per_cell():
    # `permutation` splits its key and draws from the keys `split` hands out (`uniform` would not).
    cells = (HEADER, "rng = random.PRNGKey(0)\nstart = random.permutation(rng, 5) * 1.0\n",
             "state = start\nfor _ in range(100):\n    rng, step = random.split(rng)\n    state = state + random.normal(step, (5,))\n",
             "noise = random.normal(rng, (5,))\n")
    assert findings(*cells) == [(3, 3)]


def test_a_later_cell_that_rebinds_or_splits_the_key_first_is_not_flagged():
    # Look-alikes: the later cell starts again from a new key; the key is advanced before every draw.
    fresh = (HEADER, "seed = random.PRNGKey(3)\ninputs = random.normal(seed, (64, 2))\n",
             "seed = random.PRNGKey(4)\nweights = random.normal(seed, (2,))\n")
    advanced = (HEADER, "key = random.PRNGKey(0)\nkey, sub = random.split(key)\nx = random.normal(sub, (8,))\n",
                "key, sub = random.split(key)\nw = random.normal(sub, (8,))\n", "key, sub = random.split(key)\nb = random.normal(sub)\n")
    assert findings(*fresh) == []
    assert findings(*advanced) == []
