"""semantic/iteration: one loop model for every iteration construct, with trip counts from shapes."""

import ast

import pytest

from jaxlint.semantic import iteration, loop_cost
from jaxlint.semantic.iteration import SIZE
from jaxlint.semantic.model import SemanticModel

_LOOPS = (ast.For, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _loop(code: str, marker: str = "# loop"):
    tree = ast.parse(code)
    model = SemanticModel(tree)
    line = next(i for i, text in enumerate(code.splitlines(), start=1) if marker in text)
    loop = next(n for n in ast.walk(tree) if isinstance(n, _LOOPS) and n.lineno == line)
    return loop, model.scope_for(loop), model


@pytest.mark.parametrize("code", [
    "for r in xs:  # loop\n    pass",
    "ys = [f(r) for r in xs]  # loop",
    "ys = {r: f(r) for r in xs}  # loop",
    "total = sum(f(r) for r in xs)  # loop",
])
def test_every_construct_is_one_iteration(code):
    loop, _, _ = _loop(code)
    (found,) = iteration.iterations(loop)
    assert isinstance(found.iterable, ast.Name) and found.iterable.id == "xs"
    assert found.comprehension == (not isinstance(loop, ast.For))


@pytest.mark.parametrize(("code", "axis"), [
    ("for k in range(len(x)):  # loop\n    pass", 0),
    ("for k in range(x.shape[0]):  # loop\n    pass", 0),
    ("import jax.numpy as jnp\nn = jnp.size(x)\nfor k in range(n):  # loop\n    pass", SIZE),
    ("for k in range(x.size):  # loop\n    pass", SIZE),
    ("n, d = x.shape\nfor k in range(n):  # loop\n    pass", 0),
    ("n, = x.shape\nys = [k for k in range(n)]  # loop", 0),
    ("import jax.numpy as jnp\nfor k in jnp.arange(jnp.shape(x)[0]):  # loop\n    pass", 0),
    ("for k in range(x.shape[0] - 1, -1, -1):  # loop\n    pass", 0),
    ("for k in reversed(range(len(x) - 1)):  # loop\n    pass", 0),
    ("for r in enumerate(x):  # loop\n    pass", 0),
    ("for k in range(x.shape[1]):  # loop\n    pass", 1),
    ("for j in x[i]:  # loop\n    pass", 1),
])
def test_rows_walked(code, axis):
    loop, scope, model = _loop(code)
    rows = iteration.rows_walked(iteration.iterations(loop)[0].iterable, scope, model)
    assert rows is not None and isinstance(rows.array, ast.Name) and rows.array.id == "x" and rows.axis == axis


@pytest.mark.parametrize("code", [
    "for k in range(n):  # loop\n    pass",  # a bound nobody measured
    "n = len(x)\nn = 4\nfor k in range(n):  # loop\n    pass",  # bound twice: unknown
    "for k in range(0, len(x), step):  # loop\n    pass",  # a stride the source does not fix
    "for k in zip(x, y):  # loop\n    pass",
])
def test_rows_not_claimed(code):
    loop, scope, model = _loop(code)
    assert iteration.rows_walked(iteration.iterations(loop)[0].iterable, scope, model) is None


@pytest.mark.parametrize(("code", "count"), [
    ("import jax.numpy as jnp\nfor t in jnp.arange(2, 40, 2):  # loop\n    pass", 19),
    ("import numpy as np\nys = [t for t in np.arange(start=0, stop=12)]  # loop", 12),
    ("ys = [a * b for a in range(3) for b in range(5)]  # loop", 15),
    ("for i in range(4):\n    ys = [i * b for b in range(5)]  # loop", 20),  # times the loops around it
])
def test_trip_counts_of_any_spelling(code, count):
    loop, scope, model = _loop(code)
    assert loop_cost.iterations_per_run(loop, scope, model) == count


def test_list_built_by_iteration():
    code = "def f(xs):\n    ys = [g(x) for x in xs]\n    k = 2\n    return stack(ys)\n"
    tree = ast.parse(code)
    model = SemanticModel(tree)
    function = tree.body[0]
    use = function.body[-1]
    name = use.value.args[0]
    found = iteration.list_built_by_iteration(name, use, model.scope_for(use))
    assert isinstance(found, ast.ListComp)


@pytest.mark.parametrize("between", ["ys.append(0)", "ys = ys + [1]", "print(ys)"])
def test_list_touched_in_between_is_not_the_loop(between):
    code = f"def f(xs):\n    ys = [g(x) for x in xs]\n    {between}\n    return stack(ys)\n"
    tree = ast.parse(code)
    model = SemanticModel(tree)
    use = tree.body[0].body[-1]
    assert iteration.list_built_by_iteration(use.value.args[0], use, model.scope_for(use)) is None


def _use_and_loop(code: str):
    tree = ast.parse(code)
    model = SemanticModel(tree)
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    use = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "use")
    return use, loop, model


@pytest.mark.parametrize("code, expected", [
    ("for n in (0, 1):\n    if n == 1:\n        use()\n", "n == 1"),
    ("for i in range(k):\n    y = use() if 0 == i else y\n", "i == 0"),
    ("for i, w in enumerate(ws):\n    if i != len(ws) - 1:\n        pass\n    else:\n        use()\n", "i == len(ws) - 1"),
    ("for i in range(k):\n    if i == 2 and flag:\n        use()\n", "i == 2"),
    ("for i in range(k):\n    if i == 0:\n        pass\n    elif i == last:\n        use()\n", "i == last"),
])
def test_code_on_one_pass(code, expected):
    use, loop, model = _use_and_loop(code)
    assert iteration.one_pass(use, loop, model) == expected


@pytest.mark.parametrize("code", [
    "for n in (0, 1):\n    use()\n",
    "for i in range(k):\n    if i % 2 == 0:\n        use()\n",
    "for n in [1, 1, 2]:\n    if n == 1:\n        use()\n",
    "for i in range(k):\n    i = i % 3\n    if i == 0:\n        use()\n",
    "for label in labels:\n    if label == 1:\n        use()\n",
    "for i in range(k):\n    if i == 1 or late:\n        use()\n",
    "for i in range(k):\n    if i != 1:\n        use()\n",
    "for i in range(k):\n    last = i\n    if i == last:\n        use()\n",
])
def test_code_on_several_passes(code):
    use, loop, model = _use_and_loop(code)
    assert iteration.one_pass(use, loop, model) is None
