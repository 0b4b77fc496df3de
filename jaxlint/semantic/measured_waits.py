"""Waits on purpose: which `block_until_ready` in a loop is there to wait.

`jax.block_until_ready(x)` (or `x.block_until_ready()`) blocks the host until the device has computed
`x`. In a loop, that wait is deliberate when the code says so:
- the call is a statement of its own (`jax.block_until_ready(out)`) or binds its result
  (`out = f(x).block_until_ready()`): the code asks to wait there (a benchmark loop timing finished
  work, a bound on how far the host runs ahead);
- or the wait is measured on every iteration: a timer stamp taken in the iteration before it and a timer
  read after it (`start = time.perf_counter()` ... `total += jax.block_until_ready(loss)` ...
  `times += time.perf_counter() - start`): a latency measurement needs the work finished.

A `block_until_ready` whose result feeds host arithmetic (`total += jax.block_until_ready(loss)`,
`total = total + jax.block_until_ready(loss)`) and that no stamp of the iteration measures is a per-iteration read like `float(loss)`: it stalls the loop on
every step for nothing the loop needs (a timer around the whole loop needs one wait after it, not one
per step).
"""

from __future__ import annotations

import ast

from jaxlint.semantic.flow import statement_list
from jaxlint.semantic.model import parent_of
from jaxlint.semantic.syntax import walk


def is_wait(call: ast.AST, qualified_name) -> bool:
    """`jax.block_until_ready(x)` or `x.block_until_ready()`."""
    if not isinstance(call, ast.Call):
        return False
    function = call.func
    if isinstance(function, ast.Attribute) and function.attr == "block_until_ready" and not call.args:
        return True
    return qualified_name(function) == "jax.block_until_ready" and len(call.args) == 1


def waited_value(call: ast.Call) -> ast.expr:
    """The value a wait blocks on."""
    return call.args[0] if call.args else call.func.value


def on_purpose(call: ast.Call, loop: ast.AST, qualified_name, timers) -> bool:
    """Whether a wait in `loop` is deliberate: anything but a value fetch feeding arithmetic, or measured by timer stamps
    of the same iteration (a stamp assigned before the wait's statement and a timer read after it, in
    the block that holds the statement)."""
    parent = parent_of(call)
    if not is_wait(call, qualified_name) or not isinstance(parent, (ast.AugAssign, ast.BinOp)):
        return True  # (a statement of its own, or a wait this module does not read as a value fetch)
    statement = call
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = parent_of(statement)
    while statement is not None and statement is not loop:
        located = statement_list(statement)
        if located is None:
            return False
        block, index = located
        if _stamped(block[:index], qualified_name, timers) and _timer_read(block[index + 1:], qualified_name, timers):
            return True
        statement = parent_of(statement)
        while statement is not None and not isinstance(statement, ast.stmt):
            statement = parent_of(statement)
    return False


def _stamped(statements: list[ast.stmt], qualified_name, timers) -> bool:
    return any(
        isinstance(s, ast.Assign) and any(isinstance(n, ast.Call) and qualified_name(n.func) in timers for n in walk(s.value))
        for s in statements
    )


def _timer_read(statements: list[ast.stmt], qualified_name, timers) -> bool:
    return any(isinstance(n, ast.Call) and qualified_name(n.func) in timers for s in statements for n in walk(s))
