"""A loop count passed by name: what every visible call passes, the name's binding standing at the call
(training_loops._int_where_read), also where a notebook binds the name in more than one cell."""

from __future__ import annotations

from rule_fixtures import notebook_findings

_HEAD = "import jax\nimport jax.numpy as jnp\n"
_SAMPLE = (
    "def sample(a, x, steps=15):\n"
    "    hist = jnp.zeros((steps, 4))\n"
    "    for t in range(1, steps):\n"
    "        x = a @ x + jnp.sin(x) * jnp.cos(x) - jnp.tanh(x)\n"
    "        hist = hist.at[t].set(x)\n"
    "    return hist\n"
)


def _findings(*cells: str) -> list[tuple[int, int]]:
    return notebook_findings((_HEAD, _SAMPLE, *cells), "demo.ipynb", "JAX203")


def test_a_name_bound_in_two_cells_to_a_small_count_is_that_count():
    assert _findings("steps = 15\nh = sample(jnp.eye(4), jnp.ones(4), steps=steps)\n",
                     "steps = 15\nh2 = sample(jnp.eye(4), jnp.zeros(4), steps=steps)\n") == []


def test_a_name_passed_by_position_and_rebound_above_the_call():
    assert _findings("n = 10\nn = 12\nh = sample(jnp.eye(4), jnp.ones(4), n)\n", "n = 20\nh = sample(jnp.eye(4), jnp.ones(4), n)\n") == []


def test_a_literal_and_a_name_bound_once():
    assert _findings("h = sample(jnp.eye(4), jnp.ones(4), 30)\n", "m = 25\nh = sample(jnp.eye(4), jnp.ones(4), steps=m)\n") == []


def test_look_alike_a_later_cell_binds_a_long_count():
    assert _findings("steps = 15\nh = sample(jnp.eye(4), jnp.ones(4), steps=steps)\n",
                     "steps = 200_000\nh2 = sample(jnp.eye(4), jnp.zeros(4), steps=steps)\n") != []


def test_look_alike_a_count_read_from_data():
    assert _findings("data = jnp.ones((100, 4))\nsteps = len(data)\nh = sample(jnp.eye(4), jnp.ones(4), steps=steps)\n") != []


_SIMULATE = (
    "def simulate(x, T):\n"
    "    path = jnp.zeros(T)\n"
    "    t = 0\n"
    "    while t < T:\n"
    "        x = jnp.sin(x) * 0.5 + jnp.cos(x)\n"
    "        path = path.at[t].set(x)\n"
    "        t += 1\n"
    "    return path\n"
)


def test_a_counted_while_bounded_by_a_parameter_every_call_fixes():
    cells = (_HEAD, _SIMULATE, "T = 250\npath = simulate(1.0, T)\n")
    assert notebook_findings(cells, "sim.ipynb", "JAX203") == []
    assert notebook_findings((_HEAD, _SIMULATE, "path = simulate(1.0, 300)\n"), "sim.ipynb", "JAX203") == []


def test_look_alike_a_counted_while_bounded_by_a_long_or_unknown_parameter():
    assert notebook_findings((_HEAD, _SIMULATE, "path = simulate(1.0, 1_000_000)\n"), "sim.ipynb", "JAX203") != []
    assert notebook_findings((_HEAD, _SIMULATE, "import sys\npath = simulate(1.0, int(sys.argv[1]))\n"), "sim.ipynb", "JAX203") != []
