"""semantic/device_indices.host_sequence and training_loops.yields_every_iteration: a Python list or
tuple indexed by a device scalar reads the index on the host (`__index__`); a generator's loop that
yields every iteration runs once per item its consumer takes."""

import ast

import pytest

from jaxlint.semantic import device_indices
from jaxlint.semantic.model import SemanticModel
from jaxlint.semantic.training_loops import yields_every_iteration


def _indexed(code: str):
    """(the container of the subscript on the line marked `# here`, its scope, the model)."""
    tree = ast.parse(code)
    model = SemanticModel(tree)
    line = next(i for i, text in enumerate(code.splitlines(), start=1) if "# here" in text)
    subscript = next(n for n in ast.walk(tree) if isinstance(n, ast.Subscript) and n.lineno == line)
    return subscript.value, model.scope_for(subscript), model


@pytest.mark.parametrize("code", [
    "def f(k):\n    xs = [1, 2, 3]\n    return xs[k]  # here",
    "def f(k):\n    xs = []\n    xs += [k]\n    return xs[k]  # here",
    "ROWS = (1, 2)\ndef f(k):\n    return ROWS[k]  # here",
    "def f(src, k):\n    xs = list(src)\n    return xs[k]  # here",
    "def main(g):\n    def pick(xs, k):\n        return xs[k]  # here\n    return pick([next(g) for _ in range(4)], 0)",
])
def test_python_sequences(code):
    assert device_indices.host_sequence(*_indexed(code))


@pytest.mark.parametrize("code", [
    "import jax.numpy as jnp\ndef f(k):\n    xs = jnp.arange(4)\n    return xs[k]  # here",
    "def f(xs, k):\n    return xs[k]  # here",
    "import jax.numpy as jnp\ndef main():\n    def pick(xs, k):\n        return xs[k]  # here\n    return pick([1], 0) + pick(jnp.ones(3), 0)",
    "def pick(xs, k):\n    return xs[k]  # here\ndef main():\n    return pick([1], 0)",  # (another module may call it: no project to ask)
    "class A:\n    def pick(self, xs, k):\n        return xs[k]  # here\ndef main(a):\n    return a.pick([1], 0)",
])
def test_not_shown_to_be_python_sequences(code):
    assert not device_indices.host_sequence(*_indexed(code))


@pytest.mark.parametrize(("code", "expected"), [
    ("def g(xs):\n    while True:\n        yield xs\n", True),
    ("def g(xs):\n    for x in xs:\n        y = x + 1\n        yield y\n", True),
    ("def g(xs):\n    for x in xs:\n        if x:\n            yield x\n", False),
    ("def g(xs):\n    for x in xs:\n        print(x)\n", False),
])
def test_yields_every_iteration(code, expected):
    loop = next(n for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.For, ast.While)))
    assert yields_every_iteration(loop) is expected
