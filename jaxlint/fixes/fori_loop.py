"""JAX304's fix: a long literal `range` loop in traced code becomes `lax.fori_loop(..., unroll=UNROLL)`
over the values the body carries from one iteration to the next. The loop body moves into the
body function as libcst statements (comments kept); the loop header's comment goes on the call."""

from __future__ import annotations

import ast

from jaxlint import fixes
from jaxlint.semantic import flow
from jaxlint.semantic.model import ARRAY, NONE, parent_of

UNROLL = 8


def fori_fix(node: ast.For, start: int, stop: int, step: int, scope, context):
    from jaxlint.fixes import cst_edit  # libcst loads only when a fix is built
    if step != 1 or node.orelse or not isinstance(node.target, ast.Name) or not node.body:
        return None
    for statement in node.body:
        if not isinstance(statement, (ast.Assign, ast.AugAssign)):
            return None
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            if not all(isinstance(n, (ast.Name, ast.Tuple, ast.List)) for n in ast.walk(target) if not isinstance(n, ast.expr_context)):
                return None
        if any(isinstance(n, (ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)) for n in ast.walk(statement)):
            return None
    index = node.target.id
    if not _index_uses_are_traceable(node, index, scope, context):
        return None
    assigned_order: list[str] = []
    for statement in node.body:
        for name in _stored_names(statement):
            if name not in assigned_order:
                assigned_order.append(name)
    if index in assigned_order:
        return None
    read_outside = _names_read_outside(node, scope)
    if index in read_outside:
        return None
    carried = [name for name in assigned_order if _live_in(name, node.body) or name in read_outside]
    if not carried:
        return None
    for name in carried:
        if not _array_before(name, node, scope, context):
            return None
    taken = fixes.names_in_use(context)
    function = _unique("_loop_body", taken)
    fori, import_edits = fixes.reference(context, "jax.lax.fori_loop")
    if not fori:
        return None
    try:
        tree = cst_edit.module_tree(context, node)
        loop = tree.statement(context, node)
    except cst_edit.Unavailable:
        return None
    joined = ", ".join(carried)
    if len(carried) == 1:
        parameter, unpack, initial = carried[0], [], carried[0]
    else:
        parameter = _unique("carry", taken)
        unpack, initial = [cst_edit.parse_statement(f"{joined} = {parameter}\n")], f"({joined})"
    returned = cst_edit.parse_statement(f"return {joined}\n").with_changes(
        leading_lines=cst_edit.comment_lines(cst_edit.footer_comments(loop.body))
    )
    body = cst_edit.function_def(function, [index, parameter], [*unpack, *cst_edit.block_statements(loop.body), returned], leading=loop.leading_lines)
    call = cst_edit.parse_statement(f"{joined} = {fori}({start}, {stop}, {function}, {initial}, unroll={UNROLL})\n")
    call = cst_edit.with_trailing_comment(call, cst_edit.header_comment(loop))
    edit = tree.edit({loop: [body, call]})
    return context.fix(f"Rewrite as `{fori}(..., unroll={UNROLL})`", [edit, *import_edits], safe=False)


def _stored_names(statement: ast.stmt) -> list[str]:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    names = []
    for target in targets:
        for n in ast.walk(target):
            if isinstance(n, ast.Name):
                names.append(n.id)
    return names


def _live_in(name: str, body: list[ast.stmt]) -> bool:
    """Read in an iteration before this iteration assigns it (so the previous value is carried)."""
    for statement in body:
        value = statement.value
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
            return True
        if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) and statement.target.id == name:
            return True
        if name in _stored_names(statement):
            return False
    return False


def _names_read_outside(loop: ast.For, scope) -> set[str]:
    inside = {id(n) for n in ast.walk(loop)}
    return {
        n.id for n in ast.walk(scope.node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in inside
    }


def _array_before(name: str, loop: ast.For, scope, context) -> bool:
    """The carried name holds an array when the loop starts: a traced parameter or an array-valued binding."""
    latest = None
    for node in flow.walk_same_scope(scope.node):
        if isinstance(node, ast.Assign) and node.lineno < loop.lineno and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if latest is None or node.lineno > latest.lineno:
                latest = node
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) and node.lineno < loop.lineno and node is not loop:
            stored = [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)]
            if name in stored:
                return False
    if latest is not None:
        if not all(isinstance(t, ast.Name) for t in latest.targets):
            return False
        value = latest.value
        if context.level(value, scope) == ARRAY:
            return True
        qualified = context.qualified_name(value.func) if isinstance(value, ast.Call) else None
        return qualified is not None and qualified.startswith(("jax.numpy.", "jax.lax.")) and qualified not in ("jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size")
    # A traced parameter is a tracer (or a pytree of them) whatever the caller passed.
    return scope.traced_params.get(name, NONE) > NONE


def _index_uses_are_traceable(loop: ast.For, index: str, scope, context) -> bool:
    for statement in loop.body:
        for n in ast.walk(statement):
            if not (isinstance(n, ast.Name) and n.id == index):
                continue
            parent = parent_of(n)
            if isinstance(parent, ast.Tuple) and isinstance(parent_of(parent), ast.Subscript) and parent_of(parent).slice is parent:
                parent, n = parent_of(parent), parent
            if isinstance(parent, ast.Subscript) and parent.slice is n:
                owner = parent.value
                if isinstance(owner, ast.Attribute) and owner.attr == "at":
                    owner = owner.value
                if context.level(owner, scope) > NONE:
                    continue
                return False
            if isinstance(parent, ast.Call) and n in parent.args:
                qualified = context.qualified_name(parent.func) or ""
                if qualified.startswith(("jax.numpy.", "jax.lax.")):
                    continue
            return False
    return True


def _unique(base: str, taken: set[str]) -> str:
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}{counter}", counter + 1
    return name
