"""Loops paced by drawing (semantic/display_work.py): an iteration that draws a figure or a frame
on the host, or a loop that runs while a window stays open, is paced by the drawing. Its few eager
dispatches, the forward pass choosing what is shown and the reads of what is drawn are a small
share of it; a gradient beside it, or drawing under a branch, leaves it a step loop."""

from __future__ import annotations

import ast

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project
from jaxlint.semantic import display_work
from jaxlint.semantic.model import SemanticModel

PROJECT = FIXTURES / "project_drawing"


def _loops(source: str):
    model = SemanticModel(ast.parse(source))
    return model, [node for node in ast.walk(model.tree) if isinstance(node, (ast.For, ast.While))]


def test_drawing_loops_through_another_module():
    check_markers_in_project(PROJECT / "run.py", PROJECT, ["JAX203", "JAX201"])


def test_what_draws_on_every_iteration():
    source = (
        "import matplotlib.pyplot as plt\nimport jax.numpy as jnp\n"
        "def a(xs, fig):\n    for x in xs:\n        fig.savefig(str(x))\n"  # a figure's method
        "def b(xs):\n    for x in xs:\n        plt.scatter(x, x)\n"  # pyplot
        "def c(viewer):\n    while viewer.is_running():\n        pass\n"  # a window open
        "def d(env, xs):\n    for x in xs:\n        env.render()\n"  # a frame rendered
        "def panel(ax, y):\n    ax.plot(y)\n"
        "def e(axes, ys):\n    for ax, y in zip(axes, ys):\n        panel(ax, y)\n"  # a helper that draws
    )
    model, loops = _loops(source)
    assert all(display_work.draws_every_iteration(loop, model) is not None for loop in loops)


def test_what_does_not():
    source = (
        "import matplotlib.pyplot as plt\nimport jax.numpy as jnp\n"
        "def a(xs):\n    for i, x in enumerate(xs):\n        if i % 10 == 0:\n            plt.plot(x)\n"  # under a branch
        "def b(xs):\n    for x in xs:\n        y = jnp.step(x)\n"  # an array function, not a drawing method
        "def c(model, xs):\n    for x in xs:\n        rgb = model.render(x)\n"  # a network named for rendering
        "def d(env, xs):\n    for x in xs:\n        env.step(x)\n"  # an environment's step
    )
    model, loops = _loops(source)
    assert all(display_work.draws_every_iteration(loop, model) is None for loop in loops)


def test_axes_methods_need_matplotlib_in_the_module():
    source = "def a(xs, series):\n    for x in xs:\n        series.plot(x)\n"
    model, loops = _loops(source)
    assert display_work.draws_every_iteration(loops[0], model) is None

