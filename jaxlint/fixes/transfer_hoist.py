"""JAX204's fix: transfer a loop-invariant host array once, before the loop.

`jnp.asarray(features)` (or `jax.device_put(host_batch, sharding)`) inside the loop becomes a name,
`features_on_device`, assigned that same call on a new line just before the loop (above the comment
lines that introduce the loop). The rule has already shown that the loop neither rebinds nor changes
the host array and that every other argument is unchanged by the loop; this module adds what moving
the call needs:

* every name the call reads is bound when the new line runs (a parameter, a name bound before the
  loop, or a name of an enclosing scope the function does not bind);
* the device array it makes is never donated: it now lives across iterations, and a donated buffer
  is deleted after the first step. The array (or the name the loop binds it to) may only reach a
  jitted callable that provably does not donate that argument, a `jax.numpy`/`jax.lax`/`jax.nn`
  function, or an operator; anything else (an unknown call, a container, `yield`) refuses the fix.

A text edit at two places (the new line, the call), as JAX302's hoist: nothing is restructured.
"""

from __future__ import annotations

import ast
import builtins
import re

from jaxlint.diagnostics import Edit, Position
from jaxlint.fixes import control_flow  # (the module, not its names: control_flow imports the rules package)
from jaxlint.semantic import flow
from jaxlint.semantic.model import parent_of

_BUILTINS = frozenset(dir(builtins))
_NEVER_DONATING = ("jax.numpy.", "jax.lax.", "jax.nn.", "builtins.")
_VALUE_OPERATIONS = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Subscript, ast.Attribute)


def hoist_transfer_fix(call: ast.Call, loop: ast.AST, data: str, context):
    source = context.source
    indent = source.indentation(loop.lineno)
    if source.start(loop).column - 1 != len(indent):
        return None  # the loop does not start its line
    scope = context.scope(call)
    if not all(_bound_before(name, loop, scope, context) for name in flow.loaded_names(call)):
        return None
    if not _never_donated(call, loop, context, depth=0):
        return None
    name = _unused_name(_device_name(data), scope, context)
    row = loop.lineno
    while row > 1 and source.line(row - 1).strip().startswith("#") and source.indentation(row - 1) == indent:
        row -= 1  # the comments that introduce the loop stay with it
    text = context.text(call)
    insert = Edit(f"{indent}{name} = {text}\n", Position(row, 1), Position(row, 1))
    return context.fix(
        f"Transfer `{data}` once, before the loop, as `{name}` (if the loop runs no iteration, this adds one transfer)",
        [insert, context.replace(call, name)],
        safe=False,
    )


def _device_name(data: str) -> str:
    """`features` -> `features_on_device`; `host_batch`/`batch_np`/`batch_host` -> `batch_on_device`."""
    base = re.sub(r"^(host|np|numpy)_|_(host|np|numpy)$", "", data) or data
    return f"{base}_on_device"


def _unused_name(base: str, scope, context) -> str:
    """`base`, or `base_2`, ...: a name the function neither binds nor reads anywhere (nested
    functions included), so the new local shadows nothing; at module level, one the module never uses."""
    if not scope.is_function:
        return control_flow.fresh_name(context, base)
    taken = set(scope.all_params())
    for node in ast.walk(scope.node):
        if isinstance(node, ast.Name):
            taken.add(node.id)
        elif isinstance(node, ast.arg):
            taken.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            taken.add(node.name)
    name, index = base, 2
    while name in taken:
        name, index = f"{base}_{index}", index + 1
    return name


def _bound_before(name: str, loop: ast.AST, scope, context) -> bool:
    """`name` holds its value when the new line runs: a parameter, a name bound (assigned, imported,
    defined) by a statement of the loop's scope that ends before the loop, or in a function, a name
    it does not bind (a global or builtin, which the loop does not rebind: the rule checked that)."""
    if scope.is_function and name not in scope.local_names and name not in scope.all_params():
        return True
    if control_flow.defined_before(name, loop, context):
        return True
    start = (loop.lineno, loop.col_offset)
    for node in flow.walk_same_scope(scope.node):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name).split(".")[0] == name for a in node.names):
            if (node.end_lineno, node.end_col_offset) <= start:
                return True
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not scope.node and node.name == name:
            if (node.end_lineno, node.end_col_offset) <= start:
                return True
    return not scope.is_function and name in _BUILTINS and name not in scope.local_names


def _never_donated(value: ast.AST, loop: ast.AST, context, depth: int) -> bool:
    """Where the device array goes next, it is only read."""
    parent = parent_of(value)
    if isinstance(parent, ast.keyword):
        return _argument_not_donated(parent_of(parent), None, parent.arg, context)
    if isinstance(parent, ast.Call) and value in parent.args:
        return _argument_not_donated(parent, parent.args.index(value), None, context)
    if isinstance(parent, _VALUE_OPERATIONS) or (isinstance(parent, ast.Call) and value is parent.func):
        return True  # an operation makes a new array; `x.T`, `x[0]`, `x.sum()` read it
    if isinstance(parent, ast.Assign) and depth == 0 and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        bound = parent.targets[0].id
        if sum(1 for n in flow.walk_same_scope(loop) if isinstance(n, ast.Name) and n.id == bound and isinstance(n.ctx, ast.Store)) != 1:
            return False
        uses = [n for n in flow.walk_same_scope(loop) if isinstance(n, ast.Name) and n.id == bound and isinstance(n.ctx, ast.Load)]
        return all(_never_donated(use, loop, context, depth + 1) for use in uses)
    return False


def _argument_not_donated(call: ast.Call, position: int | None, keyword: str | None, context) -> bool:
    qualified = context.qualified_name(call.func) or ""
    if qualified.startswith(_NEVER_DONATING):
        return True
    if qualified == "jax.device_put":
        return not any(k.arg in ("donate", None) for k in call.keywords)
    binding = context.model.jit_binding_for_call(call)
    if binding is None or any(isinstance(a, ast.Starred) for a in call.args[: (position or 0)]):
        return False
    return binding.is_donated(position, keyword) is False
