"""## What it does
Flags, in a Python loop outside traced code that calls jitted code, a per-iteration host sync of a
device value produced in that loop: `float(loss)`, `loss.item()`, `np.asarray(x)`,
`jax.device_get(x)`, `print(loss)`, `if loss < best:` or `if err < tol: break`.

Not flagged: syncs gated by a host condition (`if step % 100 == 0:`), values already on the host,
values a host consumer needs every step (`env.step(np.asarray(action))`, any call jaxlint does not
know to be logging), values computed before the loop, and `x.block_until_ready()`: a statement
whose only purpose is to wait is deliberate (benchmarks, tests, bounding the dispatch queue).

## Why is this bad?
JAX dispatches work asynchronously: a jitted call returns at once and the Python loop races ahead,
queueing the next steps while the accelerator computes. Reading a value on the host blocks until the
device has finished everything queued, every iteration, so the accelerator idles while Python runs.
See "Asynchronous dispatch" (https://docs.jax.dev/en/latest/async_dispatch.html) and "Avoiding
Host-Device Transfers" in the JAX GPU performance tips.

## Example
```python
total = 0.0
for batch in batches:
    state, loss = train_step(state, batch)
    total += float(loss)
```

## Use instead
```python
total = jnp.zeros(())
for batch in batches:
    state, loss = train_step(state, batch)
    total = total + loss
total = float(total)
```
For `x = step(x)` loops that stop on a device condition, move the loop into a jitted
`lax.while_loop` over `(x, i)` with the same iteration cap.

## Fix safety
Accumulating on device and converting once after the loop is unsafe: the accumulator becomes an
array (float32 where the Python float was float64), and code in the loop that read the running
Python total would see an array. Moving a break loop into `lax.while_loop` is unsafe: the loop body
must be traceable and the step function runs inside another jit. The loop is hoisted into a
module-level jitted function taking the carried values and the values the loop reads as arguments,
so it compiles once for all calls with the same shapes; a loop that reads objects (called, or asked
for attributes arrays lack) gets no fix.

## How the runtime mode confirms it
On a GPU, `jax.transfer_guard_device_to_host("disallow")` raises at the sync inside the loop; on any
device it times an iteration of the original against the fixed version (H100: about 54x for a
break loop, 4x for `float(loss)` accumulation).
"""

from __future__ import annotations

import ast
from typing import Iterator

from jaxlint.fixes import host_sync as host_sync_fix
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic.model import FUNCTION_NODES, parent_of

_EXPLICIT_SYNCS = {"builtins.float": "float", "builtins.int": "int", "numpy.asarray": "np.asarray", "numpy.array": "np.array", "jax.device_get": "jax.device_get"}
_LOGGING_PREFIXES = ("logging.", "absl.logging.")


class HostSyncInLoop(Rule):
    code = "JAX201"
    name = "host-sync-in-loop"
    summary = "Per-iteration device-to-host sync in a loop that calls jitted code"
    node_types = (ast.For, ast.While, ast.AsyncFor)
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        scope = context.scope(node)
        model = context.model
        if scope.in_traced and not model.runs_concretely(scope):
            return  # under jit the loop is unrolled at trace time; under autodiff alone it runs eagerly
        body = list(_same_level(node))
        calls = [child for child in body if isinstance(child, ast.Call)]
        jitted = [call for call in calls if model.jit_binding_for_call(call) is not None]
        if not jitted:
            return
        step_name = _callee_text(jitted[0], context)
        assigned = {target.id for child in body for target in _assigned_names(child)}
        device_names = model.device_names(scope)
        per_iteration = {name for name in assigned if device_names.get(name)}
        if not per_iteration:
            return

        def is_per_iteration_device(expression: ast.AST) -> bool:
            if model.device_kind(expression, scope) != "device":
                return False
            return any(isinstance(n, ast.Name) and n.id in per_iteration for n in ast.walk(expression))

        reported: set[int] = set()
        if isinstance(node, ast.While) and is_per_iteration_device(node.test):
            context.report(
                node.test,
                f"`while {snippet(context.text(node.test))}` on a device value waits for the device on every iteration "
                f"(the loop calls `{step_name}`); move the loop into a jitted `lax.while_loop`",
                fix=host_sync_fix.fix_for(node, node, context),
            )
            return
        for child in body:
            found = self._sync(child, context, is_per_iteration_device)
            if found is None or id(child) in reported:
                continue
            description, value = found
            if _gated(child, node, context, is_per_iteration_device):
                continue
            if not _needed_by_host_consumer(child, node, context):
                reported.add(id(child))
                context.report(
                    child,
                    f"{description} waits for the device on every iteration of this loop (it calls `{step_name}`); "
                    "keep values on the device and read them after the loop or every N steps",
                    fix=host_sync_fix.fix_for(child, node, context),
                )

    def _sync(self, node: ast.AST, context, is_device):
        if isinstance(node, ast.Call):
            qualified = context.qualified_name(node.func)
            if qualified in _EXPLICIT_SYNCS and len(node.args) == 1 and is_device(node.args[0]):
                return f"`{_EXPLICIT_SYNCS[qualified]}({snippet(context.text(node.args[0]))})`", node.args[0]
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("item", "tolist") and not node.args and is_device(node.func.value):
                return f"`{snippet(context.text(node))}`", node.func.value
            if qualified == "builtins.print" or (qualified or "").startswith(_LOGGING_PREFIXES):
                for argument in node.args:
                    values = [v.value for v in argument.values if isinstance(v, ast.FormattedValue)] if isinstance(argument, ast.JoinedStr) else [argument]
                    for value in values:
                        if is_device(value):
                            return f"printing device value `{snippet(context.text(value))}`", value
        elif isinstance(node, (ast.If, ast.While)) and is_device(node.test):
            keyword = "if" if isinstance(node, ast.If) else "while"
            return f"`{keyword} {snippet(context.text(node.test))}` on a device value", node.test
        return None


def _same_level(loop: ast.AST) -> Iterator[ast.AST]:
    """Nodes in the loop's body and else, not inside nested loops, functions or classes."""
    stack = [*loop.body, *loop.orelse]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor, ast.ClassDef, *FUNCTION_NODES)):
            if isinstance(node, (ast.For, ast.AsyncFor)):
                stack.append(node.iter)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _assigned_names(node: ast.AST) -> Iterator[ast.Name]:
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
        targets = [node.target]
    for target in targets:
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                yield name


def _gated(node: ast.AST, loop: ast.AST, context, is_device) -> bool:
    """Inside an `if` on a host condition (`step % 100 == 0`, `verbose`) between node and loop."""
    child, parent = node, parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, ast.If) and child is not parent.test and not is_device(parent.test):
            return True
        if isinstance(parent, ast.IfExp) and child is not parent.test and not is_device(parent.test):
            return True
        child, parent = parent, parent_of(parent)
    return False


def _needed_by_host_consumer(node: ast.AST, loop: ast.AST, context) -> bool:
    """Whether the synced value feeds host code that needs it now (an environment step, a callback)."""
    if isinstance(node, (ast.If, ast.While)):
        return False
    child, parent = node, parent_of(node)
    if isinstance(parent, ast.Expr):
        return False  # a statement of its own (`print(loss)`, `x.block_until_ready()`): nothing consumes it
    while parent is not None and parent is not loop:
        if isinstance(parent, ast.Call) and child is not parent.func:
            return not _is_sink_call(parent, context)
        if isinstance(parent, (ast.If, ast.While)) and child is parent.test:
            return False
        if isinstance(parent, ast.AugAssign):
            return False
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            names = {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
            return _names_feed_host_consumer(names, loop, parent, context)
        if isinstance(parent, (ast.stmt, ast.Return)):
            return True
        child, parent = parent, parent_of(parent)
    return True


def _names_feed_host_consumer(names: set[str], loop: ast.AST, assignment: ast.AST, context) -> bool:
    uses = [
        n for n in _same_level(loop)
        if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)
    ]
    if not uses:
        return True  # nothing reads it in the loop: it is consumed elsewhere, we cannot tell how
    for use in uses:
        child, parent = use, parent_of(use)
        while parent is not None and parent is not loop:
            if isinstance(parent, ast.Call) and child is not parent.func:
                if not _is_sink_call(parent, context):
                    return True
                break
            if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.Return)):
                return True  # flows on into code we do not follow
            if isinstance(parent, ast.stmt):
                break
            child, parent = parent, parent_of(parent)
    return False


def _is_sink_call(call: ast.Call, context) -> bool:
    """Calls that only report a value: printing, logging, appending to a history list."""
    qualified = context.qualified_name(call.func) or ""
    if qualified in ("builtins.print", "builtins.str", "builtins.format", "builtins.repr") or qualified.startswith(_LOGGING_PREFIXES):
        return True
    return isinstance(call.func, ast.Attribute) and call.func.attr in ("append", "format", "info", "debug", "warning") and not qualified


def _callee_text(call: ast.Call, context) -> str:
    func = call.func
    while isinstance(func, ast.Call):
        func = func.func
    return snippet(context.text(func))


RULE = HostSyncInLoop()
