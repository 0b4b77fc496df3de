"""JAX302's fix: build the jitted function once, before the outermost loop that does not assign
what it reads (`name = jax.jit(...)` hoisted, or `jax.jit(f)(x)` bound to a fresh name first)."""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit, Position
from jaxlint.semantic import flow
from jaxlint.semantic.model import parent_of


def hoist_fix(node: ast.Call, loops: list, called_name: str | None, immediate: bool, context):
    used = flow.loaded_names(node)
    target_loop = None
    for loop in loops:
        if not isinstance(loop, flow.LOOP_NODES):
            break
        if used & flow.assigned_in(loop):
            break
        target_loop = loop
    if target_loop is None:
        return None
    source = context.source
    indent = source.indentation(target_loop.lineno)
    if source.start(target_loop).column - 1 != len(indent):
        return None
    jit_text = context.text(node)
    if immediate:
        name = _fresh_name(node.args[0], context)
        insert = context.insert_before(target_loop, f"{name} = {jit_text}\n{indent}")
        return context.fix(f"Create the jitted function once, before the loop, as `{name}`", [insert, context.replace(node, name)], safe=False)
    statement = parent_of(node)
    if called_name is None or not isinstance(statement, ast.Assign) or not _alone_on_lines(statement, context):
        return None
    loop_assigned = [n for n in flow.walk_same_scope(target_loop) if isinstance(n, ast.Name) and n.id == called_name and isinstance(n.ctx, ast.Store)]
    if len(loop_assigned) != 1:
        return None
    start = Position(statement.lineno, 1)
    end = Position((statement.end_lineno or statement.lineno) + 1, 1)
    delete = Edit("", start, end)
    insert = context.insert_before(target_loop, f"{context.text(statement)}\n{indent}")
    return context.fix(f"Move `{called_name} = ...` before the loop", [insert, delete], safe=False)


def _alone_on_lines(statement: ast.stmt, context) -> bool:
    source = context.source
    first = source.line(statement.lineno)
    last = source.line(statement.end_lineno or statement.lineno)
    if first[: statement.col_offset].strip():
        return False
    return not last[statement.end_col_offset:].strip()


def _fresh_name(wrapped: ast.expr, context) -> str:
    base = "jitted_fn"
    if isinstance(wrapped, ast.Call) and wrapped.args:
        wrapped = wrapped.args[0]
    if isinstance(wrapped, ast.Name):
        base = f"{wrapped.id.lstrip('_')}_jit"
    elif isinstance(wrapped, ast.Attribute):
        base = f"{wrapped.attr.lstrip('_')}_jit"
    taken = context.model.bound_names | {n.id for n in ast.walk(context.model.tree) if isinstance(n, ast.Name)}
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}{counter}", counter + 1
    return name
