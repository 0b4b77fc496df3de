"""A premise checked by the model: a periodic gate's last laps (semantic/branch_shares.py), the laps a
wait under `if i % N == 0:` leaves unwaited at an end stamp after the loop (JAX202)."""

import ast

import pytest

from jaxlint.semantic import branch_shares
from jaxlint.semantic.model import SemanticModel


def _gate(code: str):
    tree = ast.parse(code)
    model = SemanticModel(tree)
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    branch = next(n for n in ast.walk(loop) if isinstance(n, ast.If))
    return branch.test, loop, model


@pytest.mark.parametrize(("code", "laps"), [
    ("for i, b in enumerate(batches):\n    if i % 100 == 0:\n        pass", (99, False)),
    ("for i in range(n):\n    if (i + 1) % 50 == 0:\n        pass", (49, False)),
    ("for i in range(250):\n    if not i % 100:\n        pass", (49, True)),
    ("for i in range(201):\n    if i % 100 == 0:\n        pass", (0, True)),  # the last lap takes it
    ("for i in range(1, 101):\n    if i % 10 == 0:\n        pass", (0, True)),
    ("EVERY = 20\nfor i in range(n):\n    if i % EVERY == 0:\n        pass", (19, False)),
    ("for i, b in enumerate(batches, 1):\n    if i % 10 == 3:\n        pass", (9, False)),
])
def test_laps_after_last_gate(code, laps):
    assert branch_shares.laps_after_last_gate(*_gate(code)) == laps


@pytest.mark.parametrize("code", [
    "for i in range(n):\n    if i % 1 == 0:\n        pass",  # holds every lap: no gate
    "for i in range(n):\n    if i % every == 0:\n        pass",  # a period the source does not fix
    "for i in range(n):\n    if i % 100 == 0 or i == n - 1:\n        pass",  # also the last lap
    "for i in range(0, n, 5):\n    if i % 100 == 0:\n        pass",  # a stride: not followed
    "for b in batches:\n    if step % 100 == 0:\n        pass",  # not the loop's counter
    "for i in range(3):\n    if i % 100 == 5:\n        pass",  # never taken
])
def test_not_a_periodic_gate(code):
    assert branch_shares.laps_after_last_gate(*_gate(code)) is None
