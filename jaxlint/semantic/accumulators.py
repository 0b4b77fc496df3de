"""Accumulators: calls that keep what they are handed for later, in a loop.

`stats.add(jax.device_get(metrics))`, `meter.update(loss=np.asarray(loss))`, `totals.record(v)`: a
method that accumulates (its name says it adds to the object: `add`, `update`, `accumulate`,
`record`, `push`), called as a statement of its own (its result is dropped), on an object
that outlives the iteration (a name or `self` attribute the loop does not rebind), whose other reads
in the loop all sit under a condition (`if should_log(step): logger.add(stats.result())`). The host
keeps the value for a report made now and then, and needs nothing of it in this iteration: an
explicit transfer handed to such a call (`jax.device_get`, `np.asarray`) is a wait every iteration
whose only use is that later report, not host code that needs the value now (host_sync_in_loop's
'the host needs the value anyway' does not hold). An object the loop reads every iteration (`if s in
seen:` after `seen.add(int(s))`) needs what it holds now, and is not one.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.flow import assigned_in
from jaxlint.semantic.model import parent_of
from jaxlint.semantic.syntax import walk

# (Not `append`/`extend` of a list: a list gathers outputs, which host_sync_in_loop reads as such.)
ACCUMULATING_METHODS = frozenset({"add", "update", "accumulate", "record", "push"})


def keeps_for_later(call: ast.AST, loop: ast.AST) -> bool:
    """`call`, in `loop`, is an accumulator's method: it keeps what it is handed for a later read."""
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return False
    if call.func.attr not in ACCUMULATING_METHODS or not isinstance(parent_of(call), ast.Expr):
        return False
    receiver = _receiver(call.func.value)
    if receiver is None:
        return False
    if isinstance(receiver, str) and receiver in assigned_in(loop):
        return False  # made afresh in the iteration: nothing outlives it
    for node in walk(loop):
        if node is call.func.value or not _same_receiver(node, receiver):
            continue
        holder = parent_of(node)
        if isinstance(holder, ast.Attribute) and holder.attr in ACCUMULATING_METHODS and isinstance(parent_of(holder), ast.Call):
            if isinstance(parent_of(parent_of(holder)), ast.Expr):
                continue  # another accumulation into it
        if isinstance(getattr(node, "ctx", None), ast.Store):
            return False  # rebound in the loop
        if not _under_condition(node, loop):
            return False  # read every iteration: the host needs what it holds now
    return True


def _receiver(node: ast.AST):
    """The object a method is called on: a name (`stats`), or `self`'s attribute (("self", "stats"))."""
    if isinstance(node, ast.Name) and node.id not in ("self", "cls"):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return ("self", node.attr)
    return None


def _same_receiver(node: ast.AST, receiver) -> bool:
    if isinstance(receiver, str):
        return isinstance(node, ast.Name) and node.id == receiver
    return (
        isinstance(node, ast.Attribute) and node.attr == receiver[1]
        and isinstance(node.value, ast.Name) and node.value.id == receiver[0]
    )


def _under_condition(node: ast.AST, loop: ast.AST) -> bool:
    """`node` sits in a branch of an `if` (not its test) inside `loop`."""
    child, parent = node, parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
            return True
        child, parent = parent, parent_of(parent)
    return False
