"""Calls that only compute with or hold device values (semantic/held_values.py), and Python's `and`/`or`
of device arrays (values.device_kind): what the model says of each call, and what JAX does with it."""

from __future__ import annotations

import ast
import textwrap

import jax.numpy as jnp

from jaxlint.semantic import held_values
from jaxlint.semantic.model import SemanticModel

_SOURCE = textwrap.dedent('''
    import collections
    from dataclasses import dataclass
    from typing import NamedTuple
    import jax
    import jax.numpy as jnp

    class Pair(NamedTuple):
        first: object
        second: object

    @dataclass
    class Record:
        value: object

    class Checked:
        def __init__(self, value):
            self.value = float(value)

    Point = collections.namedtuple("Point", "x y")

    def objective(w, x):
        return jnp.mean((x @ w) ** 2)

    def host_test(v):
        return float(v) < 1.0

    def both(a, b):
        return jnp.all(a > 0) and jnp.all(b > 0)

    def loop(w, x, history, unknown):
        v = objective(w, x)
        Pair(w, v)
        Record(v)
        Point(w, v)
        tuple(w)
        history.append(v)
        Checked(v)
        host_test(v)
        unknown(v)
        history.update(v)
        history.put(v)
        both(w, v)
''')


def _calls():
    tree = ast.parse(_SOURCE)
    model = SemanticModel(tree)
    loop = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "loop")
    calls = [s.value for s in loop.body if isinstance(s, ast.Expr)]
    return model, {ast.unparse(c.func): c for c in calls}


def test_array_work_records_containers_and_bookkeeping_hold_or_compute():
    model, calls = _calls()
    for name in ("Pair", "Record", "Point", "tuple", "history.append", "both"):
        assert held_values.holds_or_computes(calls[name], model), name


def test_host_reads_unknown_callables_and_deciding_methods_do_not():
    model, calls = _calls()
    # `Checked` converts in `__init__`; `host_test` reads its argument; `unknown` is a parameter;
    # `update` may be an early stopper's, `put` a process queue's (it pickles)
    for name in ("Checked", "host_test", "unknown", "history.update", "history.put"):
        assert not held_values.holds_or_computes(calls[name], model), name


def test_and_of_device_arrays_is_a_device_array():
    tree = ast.parse("import jax.numpy as jnp\na = jnp.ones(2)\nb = jnp.zeros(2)\nc = (a > 0).all() and (b > 0).all()\nd = 1 and 2\n")
    model = SemanticModel(tree)
    c, d = tree.body[3].value, tree.body[4].value
    assert model.device_kind(c, model.module_scope) == "device"
    assert model.device_kind(d, model.module_scope) == "host"
    # JAX: `and` takes the truth of its first operand and returns the second one, an array
    left, right = (jnp.ones(2) > 0).all(), (jnp.zeros(2) > 0).all()
    result = left and right
    assert result is right
