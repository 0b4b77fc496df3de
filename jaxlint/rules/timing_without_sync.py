"""## What it does
Flags a wall-clock interval, `t0 = time.time()` ... `time.time() - t0` (also `perf_counter`,
`monotonic`, `timeit.default_timer`), around JAX work (a jitted call or a `jnp`/`lax`/`jax.random`
operation) when nothing between the two stamps waits for the result. The finding is on the end
stamp (`t1 = time.time()` or the `time.time()` of `time.time() - t0`) and names the work that was
timed: the last compiled call of the interval (a jitted function that returns a parameter it
rebinds computes a result), else the last array operation that is not key bookkeeping, never a
`random.fold_in` or `random.split` beside it. The difference may be read under a branch or a
`with` after the stamps (`if i % 100 == 0: print(t1 - t0)`): every interval it reports is dispatch.

Not flagged, as principles:
- intervals that wait: they block (`.block_until_ready()`, `jax.block_until_ready`), read a result
  on the host (`float`, `.item()`, `np.asarray`, `jax.device_get`, `print`), call anything jaxlint
  does not know (it may sync), or branch on a value;
- intervals whose work is not asynchronous device work: no JAX work, or only host copies
  (`jnp.array(host_data)` and `jnp.asarray` copy from the host before they return, so timing them
  measures the copy; `jnp.load` reads the file on the host), or jitted calls that hand back their
  inputs unchanged (measuring dispatch is the point);
- code in traced functions.

Test code is flagged like any other: an interval timed in a test is there to be read, and the
number it prints is wrong the same way (the test-code policy of semantic/test_code.py skips costs
that reach no one, and this measurement reaches its reader).

## Why is this bad?
JAX dispatches asynchronously: a jitted call or an eager `jnp` operation returns as soon as the work
is queued. The interval then measures dispatch, not computation, and the cost shows up later, in
whatever line first reads the result. See "Asynchronous dispatch"
(https://docs.jax.dev/en/latest/async_dispatch.html) and the benchmarking FAQ
(https://docs.jax.dev/en/latest/faq.html#benchmarking-jax-code).

## Example
```python
start = time.perf_counter()
out = step(params, batch)
elapsed = time.perf_counter() - start
```

## Use instead
```python
start = time.perf_counter()
out = jax.block_until_ready(step(params, batch))
elapsed = time.perf_counter() - start
```

## Fix safety
Safe: `jax.block_until_ready` returns its argument unchanged, so the program computes the same
values; only the measured interval changes, to the one that was meant. The fix waits once, for the
last result computed in the interval, inserting `jax.block_until_ready(name)` before the end stamp
when the name it is bound to (directly, or through arithmetic: `x = x + step(x) * lr`) is surely bound there (or the end stamp's own statement reads it first, as in
`return y, time.time() - t0`), and wrapping the call otherwise. It never waits inside a loop of the
interval: a wait there would sync every iteration and time something else, so a result bound only
in the loop and not surely bound at the end stamp gets no fix, as does a project that supports a
JAX older than 0.2.27, which lacks `jax.block_until_ready`.

## How the runtime mode confirms it
It times the interval as written and with the result blocked on: on an accelerator the unblocked
interval is a small fraction of the blocked one (dispatch only).
"""

from __future__ import annotations

import ast

from jaxlint import fixes
from jaxlint.fixes import versions
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import flow, jaxapi
from jaxlint.semantic.model import parent_of

TIMERS = frozenset({
    "time.time", "time.perf_counter", "time.monotonic", "time.time_ns", "time.perf_counter_ns",
    "time.monotonic_ns", "timeit.default_timer",
})
_BENIGN = frozenset({"builtins.range", "builtins.enumerate", "builtins.zip", "builtins.len", "builtins.reversed"})


class TimingWithoutSync(Rule):
    code = "JAX202"
    name = "timing-without-sync"
    summary = "Wall-clock interval around JAX work that never waits for the result"
    node_types = (ast.BinOp,)
    fix_availability = "sometimes"

    def check(self, node: ast.BinOp, context) -> None:
        if not isinstance(node.op, ast.Sub) or context.scope(node).in_traced:
            return
        end_statement = self._stamp_statement(node.left, node, context, end=True)
        if end_statement is None:
            return
        start_statement = self._stamp_statement(node.right, end_statement, context, end=False)
        if start_statement is None:
            return
        located = flow.statement_list(end_statement)
        if located is None:
            return
        block, end_index = located
        start_index = next((i for i, s in enumerate(block) if s is start_statement), None)
        if start_index is None or start_index >= end_index:
            return
        interval = block[start_index + 1 : end_index]
        work = _device_work(interval, context)
        if not work:
            return
        last = _timed_call(work, context)
        context.report(
            _end_stamp(node, end_statement, context),
            f"this interval times `{snippet(context.text(last.func))}` without waiting for its result: JAX dispatches "
            f"asynchronously, so it measures dispatch only; call `jax.block_until_ready(...)` on the result before "
            f"the end stamp",
            fix=_fix(last, interval, block, start_index, end_statement, context),
        )

    def _stamp_statement(self, expression: ast.expr, anchor: ast.AST, context, end: bool) -> ast.stmt | None:
        """The statement that takes the stamp `expression` reads: a timer call, or `name = timer()`."""
        if isinstance(expression, ast.Call):
            if context.qualified_name(expression.func) not in TIMERS or not end:
                return None
            return flow.enclosing_statement(expression)
        if not isinstance(expression, ast.Name):
            return None
        current = flow.enclosing_statement(anchor)
        while current is not None:
            located = flow.statement_list(current)
            if located is None:
                return None
            block, index = located
            # The closest `name = timer()` before the anchor in the same block, with no other binding between.
            for statement in reversed(block[:index]):
                if _is_stamp(statement, expression.id, context):
                    return statement
                if expression.id in flow.assigned_in(statement):
                    return None
            # Read under a branch (`if i % N == 0: print(t1 - t0)`): the stamps are before the `if`.
            parent = parent_of(current)
            current = parent if isinstance(parent, (ast.If, ast.With)) else None
        return None


def _end_stamp(difference: ast.BinOp, end_statement: ast.stmt, context) -> ast.AST:
    """Where the interval ends: the timer call of `time.time() - t0`, or of `t1 = time.time()` read later."""
    if isinstance(difference.left, ast.Call):
        return difference.left
    value = getattr(end_statement, "value", None)
    return value if isinstance(value, ast.Call) else difference


def _is_stamp(statement: ast.stmt, name: str, context) -> bool:
    return (
        isinstance(statement, ast.Assign) and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name
        and isinstance(statement.value, ast.Call) and context.qualified_name(statement.value.func) in TIMERS
    )


# `jnp.array(host_data)` copies from host memory before it returns (measured on an H100 with jax
# 0.11.2: 0.58 s of a 0.60 s transfer inside the call); only `jax.device_put` returns at once.
# `jnp.load` reads the file on the host (an `.npz` stays NumPy's lazy archive): host I/O, not dispatch.
_HOST_COPIES = frozenset({"jax.numpy.array", "jax.numpy.asarray", "jax.numpy.load"})


def _device_work(interval: list[ast.stmt], context) -> list[ast.Call] | None:
    """The JAX calls of the interval in order, or None when it syncs, branches or calls the unknown."""
    model = context.model
    work: list[ast.Call] = []
    for statement in interval:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        for child in flow.walk_same_scope(statement):
            if isinstance(child, (ast.If, ast.While, ast.Assert, ast.IfExp, ast.BoolOp, ast.With, ast.Try, ast.Return, ast.Yield, ast.Await)):
                return None
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                return None
            if not isinstance(child, ast.Call):
                continue
            qualified = context.qualified_name(child.func)
            if qualified in _BENIGN or qualified in _HOST_COPIES:
                continue
            binding = model.jit_binding_for_call(child)
            if binding is not None:
                if binding.function is not None and _computes_nothing(binding.function):
                    continue  # returns nothing or its own inputs: measuring dispatch is the point
                work.append(child)
                continue
            if qualified is not None and qualified.startswith(jaxapi.ARRAY_NAMESPACES) and not qualified.startswith("jax.random.PRNGKey") and qualified != "jax.random.key":
                work.append(child)
                continue
            return None
    work.sort(key=lambda call: (call.lineno, call.col_offset))
    return work


# Key bookkeeping: cheap, and never the work an interval is meant to time.
_KEY_BOOKKEEPING = frozenset({
    "jax.random.fold_in", "jax.random.split", "jax.random.PRNGKey", "jax.random.key", "jax.random.key_data",
    "jax.random.wrap_key_data", "jax.random.clone",
})


def _timed_call(work: list[ast.Call], context) -> ast.Call:
    """The call the interval is about, to name and wait for: the last compiled call, else the last
    array operation that is not key bookkeeping (`random.fold_in` beside a `jnp.dot` times the dot)."""
    model = context.model
    # By where each call ends: `jnp.cumsum(jnp.sin(x))` is the cumsum, the outer call.
    ordered = sorted(work, key=lambda call: (call.end_lineno, call.end_col_offset))
    jitted = [call for call in ordered if model.jit_binding_for_call(call) is not None]
    if jitted:
        return jitted[-1]
    costly = [call for call in ordered if context.qualified_name(call.func) not in _KEY_BOOKKEEPING]
    return (costly or ordered)[-1]


def _computes_nothing(function) -> bool:
    """Every `return` hands back the function's own inputs unchanged (`return graph, state`): a
    dispatch benchmark. A parameter the body rebinds (`state = update(state); return state`) is a result."""
    if isinstance(function.node, ast.Lambda):
        return False
    parameters = set(function.param_nodes)
    parameters -= {name for target, _ in function.bindings for name in _bound_names(target)}
    for value in function.returns:
        elements = value.elts if isinstance(value, ast.Tuple) else [value]
        if not all(isinstance(e, ast.Name) and e.id in parameters for e in elements):
            return False
    return True


def _bound_names(target: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}


def _fix(last: ast.Call, interval: list[ast.stmt], block: list[ast.stmt], start_index: int, end_statement: ast.stmt, context):
    statement = flow.enclosing_statement(last)
    if statement is None:
        return None
    if not versions.supports(context, versions.BLOCK_UNTIL_READY):
        return None  # the project supports a JAX older than the function
    blocker, import_edits = fixes.reference(context, "jax.block_until_ready")
    if not blocker:
        return None
    if isinstance(statement, ast.Assign) and _computed_from(last, statement.value) and len(statement.targets) == 1:
        # Outputs of one jitted call become ready together: waiting for any one surely bound waits for the
        # call; so does waiting for arithmetic of its result (`x = x + step(x) * lr`).
        target = statement.targets[0]
        names = [target.id] if isinstance(target, ast.Name) else [e.id for e in getattr(target, "elts", []) if isinstance(e, ast.Name)]
        name = next((
            candidate for candidate in names
            if statement in interval or candidate in context.scope(statement).param_nodes
            or _bound_before(candidate, block[: start_index + 1]) or _bound_in_enclosing_blocks(candidate, block, context)
            or _read_first_by(end_statement, candidate)
        ), None)
        if name is not None:
            # Surely bound at the end stamp: wait for it there, leaving the loop (if any) pipelined.
            indent = context.source.indentation(end_statement.lineno)
            if context.source.start(end_statement).column - 1 == len(indent):
                edit = context.insert_before(end_statement, f"{blocker}({name})\n{indent}")
                return context.fix(f"Wait for `{name}` with `{blocker}` before the end stamp", [edit, *import_edits], safe=True)
    if statement not in interval:
        # Inside a loop of the interval: wrapping the call there would wait on every iteration.
        return None
    text = context.text(last)
    edit = context.replace(last, f"{blocker}({text})")
    return context.fix(f"Wrap the result in `{blocker}`", [edit, *import_edits], safe=True)


def _computed_from(call: ast.Call, value: ast.expr) -> bool:
    """`value` is `call`, or arithmetic whose operand chain reaches it (`-f(x)`, `x + f(x) * lr`): an
    array that is ready only once the call's result is. An attribute or item read (`f(x).shape`) is not."""
    node = call
    while node is not value:
        parent = parent_of(node)
        if not isinstance(parent, (ast.BinOp, ast.UnaryOp)):
            return False
        node = parent
    return True


def _read_first_by(end_statement: ast.stmt, name: str) -> bool:
    """`return y, time.time() - t0`: the end stamp's own statement reads `name` before the stamp, so
    waiting for it just before raises exactly where the original would if it were unbound."""
    if not isinstance(end_statement, (ast.Return, ast.Expr)) or not isinstance(end_statement.value, ast.Tuple):
        return False
    first = end_statement.value.elts[0] if end_statement.value.elts else None
    return isinstance(first, ast.Name) and first.id == name


def _bound_in_enclosing_blocks(name: str, block: list[ast.stmt], context) -> bool:
    """An unconditional `name = ...` earlier in a block around the interval's, in the same function
    (`params = init()` before `for epoch ...:` whose body times the steps)."""
    if not block:
        return False
    current = block[0]
    while True:
        parent = parent_of(current)
        if parent is None or isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.Module)):
            return False
        located = flow.statement_list(parent)
        if located is None:
            return False
        outer, index = located
        if _bound_before(name, outer[:index]):
            return True
        current = parent


def _bound_before(name: str, statements: list[ast.stmt]) -> bool:
    for statement in statements:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
            return True
    return False


RULE = TimingWithoutSync()
