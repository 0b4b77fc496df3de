"""semantic/loop_cost: iterations per run, runs per program, and the nil-cost product JAX203 asks."""

import ast

import pytest

from jaxlint.semantic import loop_cost
from jaxlint.semantic.model import SemanticModel


def _first_loop(code: str, marker: str = "# loop"):
    tree = ast.parse(code)
    model = SemanticModel(tree)
    line = next(i for i, text in enumerate(code.splitlines(), start=1) if marker in text)
    loop = next(n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While)) and n.lineno == line)
    return loop, model.scope_for(loop), model


@pytest.mark.parametrize(("code", "count"), [
    ("import jax.numpy as jnp\nfor i in range(12):  # loop\n    pass", 12),
    ("n = 7\nfor i in range(2, n):  # loop\n    pass", 5),
    ("n = 900\nn = 30\nfor i in range(n):  # loop\n    pass\nn = 5000", 30),  # the binding above the loop
    ("import jax.numpy as jnp\nxs = jnp.array([1.0, 2.0, 3.0])\nfor k in range(len(xs)):  # loop\n    pass", 3),
    ("import jax.numpy as jnp\nT = jnp.array([[0, 1, 2, 3], [1, 1, 0, 0]])\nfor a, b in T.T:  # loop\n    pass", 4),
    ("rows = [1, 2]\nfor r in enumerate(rows):  # loop\n    pass", 2),
    ("for i in range(3):\n    for j in range(4):  # loop\n        pass", 12),  # times the loops around it
    ("import numpy as np\nts = np.linspace(800.0, 1000.0, 40) / 3.0\nfor t in ts:  # loop\n    pass", 40),
    ("import numpy as np\nfor t in np.linspace(0.0, 1.0):  # loop\n    pass", 50),  # numpy's default count
    ("import jax.numpy as jnp\nn = 6\nfor t in jnp.arange(n):  # loop\n    pass", 6),
    ("import tqdm\nfor t in tqdm.tqdm(range(30), desc='sweep'):  # loop\n    pass", 30),  # a progress bar: one pass
    ("def f(n):\n    for i in range(n):  # loop\n        pass\nf(3)\nf(10_000)", 10_000),  # the most any visible call passes
])
def test_known_iterations(code, count):
    loop, scope, model = _first_loop(code)
    assert loop_cost.iterations_per_run(loop, scope, model) == count


@pytest.mark.parametrize("code", [
    "while x > 0:  # loop\n    x = x - 1",
    "for batch in loader:  # loop\n    pass",
    "def f(n):\n    for i in range(n):  # loop\n        pass\nf(3)\nf(len(data))",  # a call passes what the source does not fix
    "n = 5\nif flag:\n    n = 50\nfor i in range(n):  # loop\n    pass",  # bound under a branch: unknown
    "for epoch in loader:\n    for j in range(4):  # loop\n        pass",  # an unknown loop around it
    "import numpy as np\nfor t in np.linspace(0.0, 1.0, steps):  # loop\n    pass",  # a count the source does not fix
    "import numpy as np\nfor t in np.arange(0.0, 1.0, 0.1):  # loop\n    pass",  # a float step: not read
])
def test_unknown_iterations(code):
    loop, scope, model = _first_loop(code)
    assert loop_cost.iterations_per_run(loop, scope, model) is None


def test_runs_once_at_module_level_and_in_a_function_called_once():
    code = "def prepare():\n    for i in range(10):  # loop\n        pass\n\ndata = prepare()\n"
    loop, scope, model = _first_loop(code)
    assert loop_cost.runs_once(scope, model)
    assert loop_cost.nil_cost(loop, 5, scope, model)


def test_a_function_called_in_a_loop_does_not_run_once():
    code = "def smooth():\n    for i in range(10):  # loop\n        pass\n\nfor step in range(1000):\n    smooth()\n"
    loop, scope, model = _first_loop(code)
    assert not loop_cost.runs_once(scope, model)
    assert not loop_cost.nil_cost(loop, 5, scope, model)


def test_a_function_nothing_visible_calls_does_not_run_once():
    code = "def library_step():\n    for i in range(10):  # loop\n        pass\n"
    loop, scope, model = _first_loop(code)
    assert not loop_cost.runs_once(scope, model)


@pytest.mark.parametrize(("count", "dispatches", "nil"), [
    (1000, 5, True),     # 5,000 dispatches: a tenth of a second
    (30, loop_cost.WHOLE_COMPUTATION_DISPATCHES, True),
    (100, loop_cost.WHOLE_COMPUTATION_DISPATCHES, False),  # a hundred whole steps: a second or more
    (200_000, 5, False),
])
def test_nil_cost_is_the_product(count, dispatches, nil):
    loop, scope, model = _first_loop(f"for i in range({count}):  # loop\n    pass")
    assert loop_cost.nil_cost(loop, dispatches, scope, model) is nil


def test_a_whole_run_nobody_visibly_calls_is_not_known_to_run_once():
    # A library's sampler: its loop calls a compiled step, but it may be called once per request.
    code = (
        "import jax\n\n@jax.jit\ndef step(x):\n    return x\n\n"
        "def generate(x, steps=50):\n    for i in range(steps):  # loop\n        x = step(x)\n    return x\n"
    )
    loop, scope, model = _first_loop(code)
    assert loop_cost.iterations_per_run(loop, scope, model) == 50
    assert not loop_cost.runs_once(scope, model)


def test_an_entry_point_runs_once():
    loop, scope, model = _first_loop("def main(steps=40):\n    for i in range(steps):  # loop\n        pass\n")
    assert loop_cost.runs_once(scope, model)


def test_a_function_reading_a_rebound_global_has_no_known_count():
    code = "n = 30\ndef run():\n    for i in range(n):  # loop\n        pass\nn = 100_000\nrun()\n"
    loop, scope, model = _first_loop(code)
    assert loop_cost.iterations_per_run(loop, scope, model) is None


@pytest.mark.parametrize(("code", "count"), [
    ("settings = {'steps': 25, 'rate': 0.1}\nfor i in range(settings['steps']):  # loop\n    pass", 25),
    ("def main():\n    cfg = dict(rounds=12)\n    for i in range(cfg['rounds']):  # loop\n        pass", 12),
    ("cfg = {'n': 40}\nfor i in range(cfg.get('n')):  # loop\n    pass", 40),
    ("cfg = {'n': 40}\nprint(cfg.items())\nfor i in range(1, cfg['n']):  # loop\n    pass", 39),  # a read leaves it as written
])
def test_a_settings_table_entry_is_a_known_count(code, count):
    loop, scope, model = _first_loop(code)
    assert loop_cost.iterations_per_run(loop, scope, model) == count


@pytest.mark.parametrize("code", [
    "cfg = {'n': 40}\ncfg.update(overrides)\nfor i in range(cfg['n']):  # loop\n    pass",  # changed after it is written
    "cfg = {'n': 40}\ncfg['n'] = read_steps()\nfor i in range(cfg['n']):  # loop\n    pass",
    "cfg = {**defaults, 'n': 40}\nfor i in range(cfg['n']):  # loop\n    pass",  # merged from a table not shown
    "cfg = {'n': 40}\ncfg |= extra\nfor i in range(cfg['n']):  # loop\n    pass",
    "cfg = {'n': 40}\nfor i in range(cfg[key]):  # loop\n    pass",  # a key the source does not fix
    "cfg = {'n': 40}\nfor i in range(cfg['m']):  # loop\n    pass",  # a key the literal does not hold
])
def test_a_changed_or_unknown_settings_entry_is_no_count(code):
    loop, scope, model = _first_loop(code)
    assert loop_cost.iterations_per_run(loop, scope, model) is None
