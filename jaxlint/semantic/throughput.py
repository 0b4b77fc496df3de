"""Timed windows that hold many steps: they measure throughput, whatever is still in flight at the end.

JAX dispatches asynchronously, but not without bound: the runtime admits a few dozen computations in
flight per device (XLA's PJRT clients default to `max_inflight_computations = 32` on GPU and TPU, and
bound the CPU client's queue likewise); a host that runs further ahead blocks in the dispatch of the
next one. An interval whose work is a loop of compiled steps that runs `THROUGHPUT_STEPS` iterations
or more between its stamps therefore leaves at most those few dozen computations unwaited at the end
stamp: the elapsed time is the loop's throughput, wrong by a few percent at most, not dispatch alone.

* `spans_many_steps(end_statement, start_statement, calls, scope, model)`: every unwaited work call of
  the interval (`calls`) lies in one loop of the scope that runs a compiled call on every iteration
  (not under a branch) and that the window spans for `THROUGHPUT_STEPS` iterations or more, where
  the source fixes the number:
  - the loop sits between the stamps (`t0 = time.time(); for i in range(5000): state = step(state,
    batch); rate = 5000 / (time.time() - t0)`), its iteration count known (semantic/loop_cost.py);
  - or the end stamp is inside it, under a periodic branch of its counter (`if step % 5000 == 0:`
    with a period that is a known constant), and the start stamp is taken before the loop or again
    under that same branch (a rate logged once per period, `last = time.time()`): each window spans a
    period of iterations.

A short loop (a hundred steps: a third of them may still be queued), a window of unknown length (a
`while`, a data loader, a period read from a configuration) and work after the loop are not covered.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.flow import LOOP_NODES
from jaxlint.semantic.model import FUNCTION_NODES, Scope, SemanticModel, is_within, parent_of
from jaxlint.semantic.syntax import walk

# Iterations a window must span for the computations left in flight (a few dozen) to be a small share.
THROUGHPUT_STEPS = 1000


def spans_many_steps(end_statement: ast.stmt, start_statement: ast.stmt, calls, scope: Scope, model: SemanticModel) -> bool:
    """The interval's unwaited work is a loop of compiled steps that the window spans for at least
    `THROUGHPUT_STEPS` iterations (module docstring)."""
    if not calls:
        return False
    from jaxlint.semantic.loop_cost import count_value, loop_iterations
    from jaxlint.semantic.training_loops import loop_body, runs_compiled, under_loop_branch

    for loop in _enclosing_loops(calls[0]):
        if not all(is_within(call, loop) for call in calls):
            continue
        if not any(isinstance(node, ast.Call) and not under_loop_branch(node, loop) and runs_compiled(node, model)
                   for node in loop_body(loop)):
            return False  # (the innermost loop holding the work runs no compiled step on every iteration)
        if is_within(end_statement, loop):
            period = _period(end_statement, loop, scope, model, count_value)
            if period is None or period < THROUGHPUT_STEPS:
                return False
            branch = period_branch(end_statement, loop)
            return not is_within(start_statement, loop) or (branch is not None and is_within(start_statement, branch))
        if is_within(start_statement, loop):
            return False
        iterations = loop_iterations(loop, scope, model)
        return iterations is not None and iterations >= THROUGHPUT_STEPS
    return False


def _enclosing_loops(node: ast.AST):
    parent = parent_of(node)
    while parent is not None and not isinstance(parent, (*FUNCTION_NODES, ast.ClassDef, ast.Module)):
        if isinstance(parent, LOOP_NODES):
            yield parent
        parent = parent_of(parent)


def period_branch(node: ast.AST, loop: ast.AST) -> ast.If | None:
    """The `if` between `node` and `loop` whose test is a periodic test of a counter (`i % n == 0`)."""
    child, parent = node, parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, ast.If) and child is not parent.test and _modulus(parent.test) is not None:
            return parent
        child, parent = parent, parent_of(parent)
    return None


def _period(node: ast.AST, loop: ast.AST, scope: Scope, model: SemanticModel, count_value) -> int | None:
    """The period of the periodic branch around `node` in `loop` (`if step % 5000 == 0:`, also
    `(step + 1) % n == 0`), where the modulus is a constant the source fixes and the counter is one the
    loop only increases (its `range` target, an `enumerate` index, a name it adds to)."""
    from jaxlint.semantic.warm_up import loop_counters

    branch = period_branch(node, loop)
    if branch is None:
        return None
    counter, modulus = _modulus(branch.test)
    names = {n.id for n in walk(counter) if isinstance(n, ast.Name)}
    if not names or not names <= loop_counters(loop):
        return None
    return count_value(modulus, scope, model)


def _modulus(test: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """(counter, modulus) of `counter % modulus == 0` (either side of `==`; `not counter % modulus`)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        operation = test.operand
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        sides = [test.left, test.comparators[0]]
        zero = [s for s in sides if isinstance(s, ast.Constant) and s.value == 0]
        if len(zero) != 1:
            return None
        operation = sides[1] if sides[0] is zero[0] else sides[0]
    else:
        return None
    if isinstance(operation, ast.BinOp) and isinstance(operation.op, ast.Mod):
        return operation.left, operation.right
    return None
