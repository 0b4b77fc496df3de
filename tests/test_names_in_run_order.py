"""Which function a name means where the module binds it more than once (semantic/cell_order.py:
reaching_top_bindings; model.resolve_function, model.possible_functions): the binding that reaches the
use in run order. A notebook's cells run in their order, so a training function run in one cell calls
the helper defined above it, not the one a later cell defines under the same name for another model;
a function run both before and after the redefinition calls each in turn."""

from __future__ import annotations

import ast

from rule_fixtures import notebook_findings
from jaxlint.semantic.model import SemanticModel

HEADER = ("import jax\nimport jax.numpy as jnp\nimport numpy as np\n\n\ndef forward(params, x):\n    for w, b in params:\n"
          "        x = jnp.tanh(x @ w + b)\n    return x\n\n\nbatched = jax.vmap(forward, in_axes=(None, 0))\n\n\n"
          "def one_hot(y, k):\n    return jnp.array(y[:, None] == jnp.arange(k), jnp.float32)\n")
FIRST = ("def accuracy(params, loader):\n    total = 0\n    for x, y in loader:\n"  # the loop: row 3 of its cell
         "        target = jnp.argmax(one_hot(np.array(y), 10), axis=1)\n"
         "        predicted = jnp.argmax(batched(params, jnp.array(x)), axis=1)\n"
         "        total += jnp.sum(predicted == target)\n    return total / len(loader)\n")
SECOND = "def accuracy(params, loader):\n    return sum(len(x) for x, _ in loader)\n"
TRAIN = ("@jax.jit\ndef update(params, x, y):\n    return params\n\n\n"
         "def train(params, loader, epochs):\n    for epoch in range(epochs):\n        for x, y in loader:\n"
         "            params = update(params, x, y)\n        print(accuracy(params, loader))\n    return params\n")
RUN = "params = train(params, loader, 10)\n"


def eager(*cells: str) -> list[tuple[int, int]]:
    return notebook_findings(cells, "lesson.ipynb", "JAX203")


def test_a_helper_redefined_after_the_cell_that_runs_it_is_still_what_that_run_calls():
    # Run between the two definitions, and again after the second: both are called.
    assert eager(HEADER, FIRST, TRAIN, RUN, SECOND, RUN) == [(2, 3)]
    assert eager(HEADER, FIRST, TRAIN, RUN, SECOND) == [(2, 3)]


def test_a_helper_unique_by_name_is_flagged_as_before():
    assert eager(HEADER, FIRST, TRAIN, RUN) == [(2, 3)]


def test_a_helper_redefined_before_any_run_is_not_what_the_runs_call():
    # Look-alike: the training function runs only after the redefinition; the first helper never runs.
    assert eager(HEADER, FIRST, SECOND, TRAIN, RUN) == []


def _resolved(source: str, line: int) -> str | None:
    tree = ast.parse(source)
    model = SemanticModel(tree)
    read = next(node for node in model.nodes if isinstance(node, ast.Name) and node.lineno == line and node.id == "g" and isinstance(node.ctx, ast.Load))
    found = model.resolve_function(read, model.scope_for(read))
    if found is None:
        return None
    node = found[0].node
    return getattr(node, "name", "<lambda>")


def test_a_name_means_the_binding_that_reaches_the_use():
    source = (
        "from functools import partial\n"  # 1
        "def f(x):\n    return x\n"  # 2-3
        "def h(x, a):\n    return x * a\n"  # 4-5
        "g = partial(h, a=1)\n"  # 6
        "g(1)\n"  # 7: the partial of h
        "g = f\n"  # 8
        "g(2)\n"  # 9: f
        "def run():\n    return g(3)\n"  # 10-11: run is called at 12 (after g = f) only
        "run()\n"  # 12
        "def g(x):\n    return -x\n"  # 13-14
        "g(4)\n"  # 15: the def
    )
    assert _resolved(source, 7) == "h"
    assert _resolved(source, 9) == "f"
    assert _resolved(source, 11) == "f"
    assert _resolved(source, 15) == "g"


def test_a_function_that_runs_under_two_bindings_or_is_handed_on_resolves_to_none():
    two_runs = "def f(x):\n    return x\ndef run():\n    return g(3)\ng = f\nrun()\ndef g(x):\n    return -x\nrun()\n"
    assert _resolved(two_runs, 4) is None
    handed = "def f(x):\n    return x\ndef run():\n    return g(3)\ng = f\ncallbacks = [run]\ng = abs\n"
    assert _resolved(handed, 4) is None
    conditional = "import os\ndef f(x):\n    return x\nif os.environ.get('A'):\n    g = f\nelse:\n    g = abs\ng(1)\n"
    assert _resolved(conditional, 8) is None


SOLVER = """import jax
import jax.numpy as jnp


@jax.jit
def advance(q, t):
    return q + 0.1 * jnp.sin(q), t + 0.1


batched = jax.vmap(advance)
twice = jax.vmap(advance)
twice = len
"""
DRIVER = """import sys

import jax
import jax.numpy as jnp

sys.path.append('..')
from solver import *


@jax.jit
def correct(q):
    return 0.5 * q


def roll(q, t, t_max):
    t = jnp.round(t, 2)
    while t[0] <= t_max:
        q, t = {callee}(q, t)
        t = jnp.round(t, 2)
        q = correct(q)
    return q
"""


def test_a_star_imported_name_bound_to_a_transform_is_device_work(tmp_path, capsys):
    # Another module's top-level name bound once to `jax.vmap` of a jitted function: the loop runs
    # only device work, so its `while` test is a per-step read. A name that module binds twice is unknown.
    from jaxlint.cli import run

    (tmp_path / "solver.py").write_text(SOLVER)
    (tmp_path / "runs").mkdir()
    for callee in ("batched", "twice"):
        (tmp_path / "runs" / f"{callee}.py").write_text(DRIVER.format(callee=callee))
    run(["check", "--no-cache", "--select", "JAX201", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert [line.split("/runs/")[1].split(":")[0] for line in out.splitlines() if ": JAX201" in line] == ["batched.py"]


def test_a_name_rebound_to_a_transform_result_in_a_later_cell_is_not_the_earlier_def():
    # A NumPy `def deriv` plotted on a NumPy grid, then `deriv = jax.grad(g)` and a vmap of it: the
    # vmap reaches the grad, not the def. With the def standing again before the vmap, it is the def.
    plain = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n\ndef deriv(x):\n    return 2 * np.exp(2 * x)\n"
    plot = "grid = np.linspace(-2, 1, 200)\nprint(deriv(grid))\n"
    smooth = "def g(x):\n    return jnp.sin(x)\n"
    rebind = "deriv = jax.grad(g)\n"
    mapped = "print(jax.vmap(deriv)(jnp.ones(3)))\n"
    assert notebook_findings((plain, plot, smooth, rebind, mapped), "lesson.ipynb", "JAX103") == []
    assert notebook_findings((plain, plot, smooth, rebind, plain, mapped), "lesson.ipynb", "JAX103") == [(5, 6)]
