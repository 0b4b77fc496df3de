"""Which side of a branch in a loop's body runs on (nearly) every step, beyond intervals and warm-ups.

A rule asking "does this run on every iteration?" treats a test that changes between iterations as a
gate: `if step % 100 == 0:` runs its body once in a hundred. Two kinds of test change between
iterations and still run their side on (nearly) every step that matters:

* `common_side(test, model)`: a test comparing a uniform draw made on the host with a rate
  (`if epsilon > random.random():` explore, `else:` exploit). Chance splits the iterations, it does
  not space them out: the side where the draw exceeds the rate runs on most of them. A rate the
  source leaves open is an exploration rate (small once training runs); a literal rate says which
  side is the larger. Returns True where the body is the common side, False where the `else` is, None
  where the test is not such a comparison.
* `paces_the_steps(branch, child, loop, model)`: the side of `branch` that holds `child` also holds
  every carried update the loop runs (`if len(buffer) > warmup and step % 4 == 0: loss =
  train_step(model, optimizer, batch)`, the compiled step rebinding what it takes, or an `nnx.jit`
  step updating the modules it is handed). The test spaces out the training steps themselves, so what
  sits beside the step under it runs once per step: a gate counts only where it spaces a read out
  against the device work it waits for (an evaluation under `if step % 100 == 0:` beside an ungated
  `state = train_step(state, batch)` stays gated).

* `side_after_first_lap(branch, loop, model)`: the side of a test of the loop's counter against its
  first value (`if epoch == 0: ... else: ...`, `if epoch > 0:`) that runs on every lap but the first.

And two questions about a periodic gate of a loop's counter (`i % 100 == 0`): `gate_period(test,
loop, model)`, one lap in how many takes it (what a wait under it leaves unwaited on the others: an
interval restarted every lap waits only on the laps that take it), and `laps_after_last_gate(test,
loop, model)`, how many laps of the loop may run after the last one that takes it: what a wait under
the gate leaves unwaited when the loop ends (JAX202's end stamp after the loop).
"""

from __future__ import annotations

import ast

from jaxlint.semantic.flow import rebinds_handed
from jaxlint.semantic.host_draws import common_side
from jaxlint.semantic.model import FUNCTION_NODES, SemanticModel

def on_common_side(branch: ast.AST, child: ast.AST, model: SemanticModel) -> bool:
    """`child` sits on the side of `if` `branch` that a draw test takes on most iterations."""
    if not isinstance(branch, ast.If) or child is branch.test:
        return False
    side = common_side(branch.test, model)
    if side is None:
        return False
    return any(child is statement for statement in (branch.body if side else branch.orelse))


def _carried_updates(statements, model: SemanticModel) -> list[ast.Call]:
    """Compiled calls among `statements` (not inside nested functions) that update what they are handed:
    `state = step(state, batch)` rebinding a name it passes, or an `nnx.jit` step handed modules."""
    found: list[ast.Call] = []
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, FUNCTION_NODES) or isinstance(node, ast.ClassDef):
            continue
        stack.extend(ast.iter_child_nodes(node))
        if not isinstance(node, ast.Assign) and not isinstance(node, ast.Expr):
            continue
        call = node.value
        if not isinstance(call, ast.Call):
            continue
        binding = model.jit_binding_for_call(call)
        if binding is None:
            continue
        # An `nnx.jit` step updates the modules it is handed in place, without rebinding them.
        handed_names = any(isinstance(a, ast.Name) for a in [*call.args, *(k.value for k in call.keywords)])
        if rebinds_handed(node, call) or (binding.transform == "flax.nnx.jit" and handed_names):
            found.append(call)
    return found


def paces_the_steps(branch: ast.AST, child: ast.AST, loop: ast.AST, model: SemanticModel) -> bool:
    """The side of `if` `branch` holding `child` runs every carried update of `loop` (at least one)."""
    if not isinstance(branch, ast.If) or child is branch.test:
        return False
    side = branch.body if any(child is s for s in branch.body) else branch.orelse
    gated = _carried_updates(side, model)
    if not gated:
        return False
    inside = {id(call) for call in gated}
    return all(id(call) in inside for call in _carried_updates(loop.body, model))



def laps_after_last_gate(test: ast.expr, loop: ast.AST, model: SemanticModel) -> tuple[int, bool] | None:
    """How many laps of `loop` may run after the last one that takes `test`, where `test` is a periodic
    gate on the loop's own counter: `i % 100 == 0`, `(step + 1) % N == 0`, `not i % N`, with a period
    the source fixes at 2 or more, the counter being a `for` over `range(...)` (also under a progress
    bar) or the index of `enumerate(...)`. Returned with whether the count is exact: where the source
    fixes the loop's count, the laps after the last gated one are known (none when the last lap takes
    the gate: `for i in range(101): if i % 100 == 0:`); otherwise at most the period less one. None:
    not such a gate (or one the loop never takes). A wait under such a gate waits for the work of the
    laps up to it, not for the laps after it. A test joining such a gate to conditions that hold for the
    whole loop (`if debug and i % 10 == 0:`, `debug` never rebound in it) is that gate: where they hold
    it is the gate, and where they do not no lap takes it."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    gate = _periodic_gate(_flagged_gate(test, loop, model), model)
    if gate is None:
        return None
    name, offset, period, remainder = gate
    bounds = _counter_bounds(name, loop, model)
    if bounds is None:
        return None
    first, last = bounds
    if last is None:
        return period - 1, False
    value = last
    while value >= first and (value + offset) % period != remainder:
        value -= 1
    if value < first:
        return None  # never taken: no wait at all under it (left to the caller's other reasoning)
    return last - value, True


def gate_period(test: ast.expr, loop: ast.AST, model: SemanticModel) -> int | None:
    """The period of `test` where it is a periodic gate on `loop`'s own counter (`i % 100 == 0` in `for
    i, batch in enumerate(loader)`): its side runs on one lap in that many, and the others skip it.
    None: not such a gate."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    gate = _periodic_gate(_flagged_gate(test, loop, model), model)
    if gate is None or _counter_bounds(gate[0], loop, model) is None:
        return None
    return gate[2]


def _flagged_gate(test: ast.expr, loop: ast.AST, model: SemanticModel) -> ast.expr:
    """The periodic operand of `flag and i % N == 0` where every other operand holds for the whole loop
    (training_loops.loop_varying: a parameter or setting the loop never rebinds); `test` itself otherwise."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return test
    from jaxlint.semantic.training_loops import loop_varying

    periodic = [value for value in test.values if _periodic_gate(value, model) is not None]
    if len(periodic) != 1 or any(loop_varying(value, loop, model) for value in test.values if value is not periodic[0]):
        return test
    return periodic[0]


def _periodic_gate(test: ast.expr, model: SemanticModel) -> tuple[str, int, int, int] | None:
    """(counter name, offset, period, remainder) of `(counter + offset) % period == remainder` or
    `not (counter + offset) % period` (remainder 0), with a constant period of 2 or more."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        modulo, remainder = test.operand, 0
    elif (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant) and type(test.comparators[0].value) is int
    ):
        modulo, remainder = test.left, test.comparators[0].value
    else:
        return None
    if not (isinstance(modulo, ast.BinOp) and isinstance(modulo.op, ast.Mod)):
        return None
    counter, offset = modulo.left, 0
    if isinstance(counter, ast.BinOp) and isinstance(counter.op, (ast.Add, ast.Sub)) and isinstance(counter.right, ast.Constant) and type(counter.right.value) is int:
        offset = counter.right.value if isinstance(counter.op, ast.Add) else -counter.right.value
        counter = counter.left
    if not isinstance(counter, ast.Name):
        return None
    period = model.constant_evaluator().int_value(modulo.right, model.scope_for(test))
    if period is None or period < 2 or not 0 <= remainder < period:
        return None
    return counter.id, offset, period, remainder


def _counter_bounds(name: str, loop: ast.For, model: SemanticModel) -> tuple[int, int | None] | None:
    """The first and last values of the loop's counter `name` (the last None where the source does not
    fix the count): `for name in range(...)`, also under a progress bar, or `for name, x in
    enumerate(xs)`. None: `name` is not such a counter."""
    from jaxlint.semantic.training_loops import PROGRESS_BARS, iteration_count

    iterable, target = loop.iter, loop.target
    scope = model.scope_for(loop)
    evaluator = model.constant_evaluator()
    while isinstance(iterable, ast.Call) and iterable.args and model.qualified_name(iterable.func) in PROGRESS_BARS:
        iterable = iterable.args[0]
    if not isinstance(iterable, ast.Call):
        return None
    qualified = model.qualified_name(iterable.func)
    if qualified == "builtins.enumerate":
        if not (isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name):
            return None
        if not iterable.args or len(iterable.args) > 2:
            return None
        start_node = iterable.args[1] if len(iterable.args) == 2 else next((k.value for k in iterable.keywords if k.arg == "start"), None)
        start = 0 if start_node is None else evaluator.int_value(start_node, scope)
        if start is None:
            return None
        count = iteration_count(iterable.args[0], scope, model)
        return start, None if count is None else start + count - 1
    if not (isinstance(target, ast.Name) and target.id == name) or iterable.keywords:
        return None
    if qualified not in ("builtins.range", "tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange") or not 1 <= len(iterable.args) <= 2:
        return None  # (a stride may skip the gate's values: not followed)
    start = 0 if len(iterable.args) == 1 else evaluator.int_value(iterable.args[0], scope)
    if start is None:
        return None
    stop = evaluator.int_value(iterable.args[-1], scope)
    return start, None if stop is None else stop - 1


def side_after_first_lap(branch: ast.AST, loop: ast.AST, model: SemanticModel) -> list[ast.stmt] | None:
    """The side of `if` `branch` that runs on every lap of `loop` but the first, or None: the `else` of
    a test that the loop's counter still holds its first value (`if epoch == 0:`, `if not epoch:`,
    `epoch < 1`), the body of one that it has moved past it (`if epoch > 0:`, `epoch != 0`, `epoch >=
    1`, `if epoch:`). The counter is a `for` over `range` (its start, 0 where left out) or the index of
    `enumerate`. A first lap spent otherwise (showing the untrained model) leaves the other side
    the loop's work on all the others."""
    if not isinstance(branch, ast.If) or not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    test = branch.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        bounds = _counter_bounds(test.operand.id, loop, model)
        return branch.orelse if bounds is not None and bounds[0] == 0 else None
    if isinstance(test, ast.Name):
        bounds = _counter_bounds(test.id, loop, model)
        return branch.body if bounds is not None and bounds[0] == 0 else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(right, ast.Name) and not isinstance(left, ast.Name):
        flipped = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}
        if op.__class__ not in flipped:
            return None
        left, right, op = right, left, flipped[op.__class__]()
    if not isinstance(left, ast.Name):
        return None
    bounds = _counter_bounds(left.id, loop, model)
    value = model.constant_evaluator().int_value(right, model.scope_for(test))
    if bounds is None or value is None:
        return None
    start = bounds[0]
    # (the test holds on the first lap alone: the `else` is every other lap; it fails there alone: the body)
    first_only = {ast.Eq: start, ast.LtE: start, ast.Lt: start + 1}
    after_first = {ast.NotEq: start, ast.Gt: start, ast.GtE: start + 1}
    if first_only.get(op.__class__) == value:
        return branch.orelse or None
    if after_first.get(op.__class__) == value:
        return branch.body
    return None
