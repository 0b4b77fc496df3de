"""JAX201's fixes: `total += float(loss)` to device accumulation converted after the loop, and a
`x = step(x)` loop with a device-valued `break` to a jitted `lax.while_loop`.

`fix_for` returns a Fix, or None when no fix is offered. Both fixes are unsafe (see the rule's
"Fix safety"): the accumulator becomes a device array (float32 where the Python float was
float64) until the loop ends, and the loop body must be traceable. Each term is converted to JAX's
default float before it is added, never summed in its own (bfloat16, float16) dtype.

The break loop is hoisted into a module-level jitted function placed before the code that holds the
loop, with the loop-carried values and the values the loop reads from its function as arguments, so
it compiles once (not once per call, as a jitted `lax.while_loop` over closures built per call
would). Values the loop reads are refused when they are used as objects (called, or asked for
attributes an array does not have): those cannot be `jit` arguments.

It keeps the original's exact semantics: the original steps first and tests after, so
the `lax.while_loop` carries a `done` flag computed from the stepped state, next to the counter that
keeps the iteration cap. (Testing the carried state in `cond_fun`, as the JAX guide's sketch does,
would skip the first step when the initial state already meets the condition.)
"""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit, Position
from jaxlint.fixes import control_flow as flow
from jaxlint.fixes import hoist
from jaxlint.semantic.model import parent_of, is_within


def fix_for(sync: ast.AST, loop: ast.AST, context):
    if isinstance(sync, ast.Call):
        try:
            return _accumulation_fix(sync, loop, context)  # text edits only: no libcst to load
        except flow._Refuse:
            return None
    if isinstance(sync, ast.If) and isinstance(loop, ast.For):
        from jaxlint.fixes import cst_edit  # libcst loads only when such a fix is built

        try:
            return _break_loop_fix(sync, loop, context)
        except (flow._Refuse, cst_edit.Unavailable):
            return None
    return None


# ----- total += float(loss) ------------------------------------------------------------------------


def _accumulation_fix(sync: ast.Call, loop: ast.AST, context):
    qualified = context.qualified_name(sync.func)
    if qualified == "builtins.float" and len(sync.args) == 1:
        value, convert = sync.args[0], "float"
    elif isinstance(sync.func, ast.Attribute) and sync.func.attr == "item" and not sync.args and not qualified:
        value, convert = sync.func.value, "item"
    else:
        return None  # int() truncates every term: summing first would change the result
    statement = parent_of(sync)
    if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) and statement.value is sync:
        target = statement.target
    elif (
        isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.value, ast.BinOp)
        and isinstance(statement.value.op, ast.Add)
    ):
        # `total = total + float(loss)`: the parent of the call is the BinOp, handled below.
        return None
    elif isinstance(statement, ast.BinOp) and isinstance(statement.op, ast.Add):
        assign = parent_of(statement)
        if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Name)):
            return None
        other = statement.left if statement.right is sync else statement.right
        if not (isinstance(other, ast.Name) and other.id == assign.targets[0].id):
            return None
        statement, target = assign, assign.targets[0]
    else:
        return None
    if not isinstance(target, ast.Name) or statement not in loop.body:
        return None  # only an accumulation that runs on every iteration, at the loop's top level
    name = target.id
    if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for s in loop.body for n in flow.walk_same_function(s)):
        return None  # the running total could escape as an array
    # Anything else in the loop that reads the running total would now see an array.
    reads = [
        n for s in [*loop.body, *loop.orelse] for n in ast.walk(s)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and not is_within(n, statement)
    ]
    if reads or isinstance(loop, ast.While) and name in flow.loads(loop.test):
        return None
    if not flow.defined_before(name, loop, context):
        return None
    if convert == "item" and not _starts_as_python_float(name, loop):
        return None  # `.item()` keeps the value's kind: an int count must not become a float sum
    refs = flow.References(context)
    # The original summed Python floats; each term enters the device sum as JAX's default float
    # (float32, float64 under x64), never in its own narrower dtype: a bfloat16 loss summed in
    # bfloat16 drifts (a mean of 3.263 reported as 3.220).
    edits = [context.replace(sync, f"{refs('jax.numpy.asarray')}({context.text(value)}, float)")]
    indent = context.source.indentation(loop.lineno)
    edits.append(_insert_after(loop, context, f"{indent}{name} = float({name})\n"))
    return context.fix(f"Accumulate `{name}` on the device and convert it once after the loop", [*edits, *refs.edits], safe=False)


def _starts_as_python_float(name: str, loop: ast.AST) -> bool:
    """The accumulator's last binding before the loop, in the loop's own block, is a float literal
    (`total = 0.0`): the original sum is a Python float whatever kind `.item()` returns."""
    parent = parent_of(loop)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and loop in block:
            break
    else:
        return False
    for statement in reversed(block[: block.index(loop)]):
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
            value = statement.value
            return isinstance(value, ast.Constant) and type(value.value) is float
        if name in flow.block_stores([statement]):
            return False
    return False



def _insert_after(statement: ast.stmt, context, text: str) -> Edit:
    """Insert whole lines after the last line of `statement` (after any trailing comment)."""
    source = context.source
    row = statement.end_lineno
    if row >= len(source.lines) or (row == len(source.lines) - 1 and source.lines[-1] == "" and not source.text.endswith("\n")):
        end = Position(row, len(source.line(row)) + 1)
        return Edit("\n" + text.rstrip("\n"), end, end)
    position = Position(row + 1, 1)
    return Edit(text, position, position)


# ----- for ...: x = step(x); if <device condition>: break -----------------------------------------


def _break_loop_fix(sync: ast.If, loop: ast.For, context):
    import libcst as cst  # libcst loads only when a fix is built
    from jaxlint.fixes import cst_edit
    if loop.orelse or loop.body[-1] is not sync or len(loop.body) < 2:
        return None
    if sync.orelse or len(sync.body) != 1 or not isinstance(sync.body[0], ast.Break):
        return None
    steps = loop.body[:-1]
    cap = _range_cap(loop.iter, context)
    if cap is None:
        return None
    for statement in steps:
        for n in flow.walk_same_function(statement):
            if isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)):
                return None
    scope = context.scope(loop)
    if flow.impurity(steps, context, scope):
        return None
    if any(isinstance(s, (ast.If, ast.For)) for s in steps):
        return None  # Python control flow in the body would run on tracers
    counter_name = loop.target.id if isinstance(loop.target, ast.Name) else None
    if counter_name is None:
        return None
    assigned = flow.block_stores(steps)
    if counter_name in assigned or counter_name in flow.loads(loop.iter):
        return None
    if counter_name in flow.live_after(loop, {counter_name}):
        return None  # Python leaves the loop variable at the last index; the fix does not rebuild it
    live = flow.read_before_assigned(steps, assigned) | flow.live_after(loop, assigned)
    carried = [name for name in flow._ordered_stores(steps) if name in live]
    if not carried or any(not flow.defined_before(name, loop, context) for name in carried):
        return None
    if flow._shape_changing(steps, set(carried), context):
        return None
    if flow.loads(loop.iter) & assigned:
        return None
    function_scope = context.scope(loop)
    top = hoist.top_level_statement(loop)
    if top is None:
        return None
    steps_test_cap = [*steps, sync.test, loop.iter]
    free = []
    for node in steps_test_cap:
        for name in _ordered_loads(node):
            if name not in free and name not in carried and name != counter_name:
                free.append(name)
    # Names the loop reads that the enclosing code binds become arguments of the hoisted function;
    # module-level functions, imports and builtins it can keep naming.
    passed = [name for name in free if _bound_locally(name, function_scope, top, context) and not _read_before_assigned_onlyis_within(name, steps, assigned)]
    for name in passed:
        if not hoist.array_like_uses(name, [*steps, sync.test], context):
            return None  # an object (model, config, callable) cannot be a jit argument
    refs = flow.References(context)
    while_loop = refs("jax.lax.while_loop")
    jit = refs("jax.jit")
    logical_and, logical_not = refs("jax.numpy.logical_and"), refs("jax.numpy.logical_not")
    taken: set[str] = set()
    # The loop variable goes away with the loop, so its name is free for the counter.
    counter = counter_name if counter_name != "_" else flow.fresh_name(context, "i", taken)
    done = flow.fresh_name(context, "done", taken)
    state = flow.fresh_name(context, "state", taken)
    cond_name = flow.fresh_name(context, "cond_fun", taken)
    body_name = flow.fresh_name(context, "body_fun", taken)
    # Named after the top-level statement too: fixes in other classes applied in the same round
    # cannot pick the same module-level name.
    base = function_scope.name if function_scope.is_function else "run"
    top_name = getattr(top, "name", base)
    if top_name != base:
        base = f"{top_name}_{base}"
    hoisted_name = flow.fresh_name(context, f"{base.strip('_')}_loop", taken)
    names = ", ".join([*carried, counter, done])
    condition = flow.condition_text(sync.test, context, refs)
    parameters = [*carried, *passed]
    tree = cst_edit.module_tree(context, loop)
    loop_node = tree.statement(context, loop)
    top_node = tree.statement(context, top)
    sync_node = tree.statement(context, sync)
    step_nodes = cst_edit.block_statements(loop_node.body)[:-1]
    statement = cst_edit.parse_statement
    unpack = statement(f"{names} = {state}\n")
    # The comments of the `if ...: break` lines go with the test they held.
    sync_comments = [c for c in cst_edit.comments_in(sync_node) if c != cst_edit.header_comment(sync_node)]
    returned = statement(f"return {', '.join(carried)}, {counter} + 1, {condition}\n")
    returned = cst_edit.with_trailing_comment(returned, cst_edit.header_comment(sync_node))
    returned = returned.with_changes(leading_lines=[*sync_node.leading_lines, *cst_edit.comment_lines(sync_comments)])
    blank = [cst.EmptyLine(indent=False)]
    cond_def = cst_edit.function_def(cond_name, [state], [unpack, statement(f"return {logical_and}({counter} < {cap}, {logical_not}({done}))\n")])
    body_def = cst_edit.function_def(body_name, [state], [unpack, *step_nodes, returned], leading=blank)
    run = statement(f"{', '.join([*carried, '_', '_'])} = {while_loop}({cond_name}, {body_name}, ({', '.join([*carried, '0', 'False'])}))\n")
    hoisted = cst_edit.function_def(hoisted_name, parameters, [cond_def, body_def, run.with_changes(leading_lines=blank), statement(f"return {', '.join(carried)}\n")])
    hoisted = hoisted.with_changes(decorators=[cst.Decorator(decorator=cst.parse_expression(jit))])
    call = statement(f"{', '.join(carried)} = {hoisted_name}({', '.join(parameters)})\n")
    call = cst_edit.with_trailing_comment(call, cst_edit.header_comment(loop_node)).with_changes(leading_lines=loop_node.leading_lines)
    top_with_spacing = top_node.with_changes(leading_lines=[*blank, *blank, *top_node.leading_lines])
    if loop_node is top_node:
        # A loop at module level: the hoisted function goes right before it.
        edit = tree.edit({loop_node: [hoisted.with_changes(leading_lines=[*blank, *blank]), call.with_changes(leading_lines=[*blank, *blank])]})
    else:
        edit = _with_spacing(tree, loop_node, call, top_node, hoisted, top_with_spacing)
    carried_text = ", ".join(f"`{name}`" for name in carried)
    return context.fix(
        f"Run the loop on the device: `{hoisted_name}`, a jitted `{while_loop}` over {carried_text} with the same cap, compiled once",
        [edit, *refs.edits],
        safe=False,
    )


def _with_spacing(tree, loop_node, call, top_node, hoisted, top_with_spacing):
    """Replace the loop with the call inside the top-level statement, and put the hoisted function
    before that statement, two blank lines apart."""
    from jaxlint.fixes import cst_edit  # libcst loads only when a fix is built
    inner = top_with_spacing.visit(cst_edit._Replace({loop_node: [call]}))
    return tree.edit({top_node: [hoisted, inner]})


def _ordered_loads(node: ast.AST) -> list[str]:
    found = sorted((n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)), key=lambda n: (n.lineno, n.col_offset))
    ordered: list[str] = []
    for n in found:
        if n.id not in ordered:
            ordered.append(n.id)
    return ordered


def _read_before_assigned_onlyis_within(name: str, steps: list[ast.stmt], assigned: set[str]) -> bool:
    """A name the loop body assigns before any read: a local of the body function, not an input."""
    return name in assigned and name not in flow.read_before_assigned(steps, assigned)


def _bound_locally(name: str, scope, top: ast.stmt, context) -> bool:
    """Bound by the function around the loop (or one enclosing it), or by a module-level assignment
    when the loop itself runs at module level: such values must be passed in."""
    current = scope
    while current is not None and current.is_function:
        if name in current.local_names or name in current.param_nodes:
            return True
        current = current.parent
    if scope.is_function:
        return False
    module_scope = current
    for target, value in getattr(module_scope, "bindings", []):
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)) and not isinstance(target, (ast.FunctionDef, ast.ClassDef)):
            return value is not None and not isinstance(value, (ast.Lambda,))
    return False


def _range_cap(iterable: ast.AST, context) -> str | None:
    """`range(N)` or `range(0, N)`: the iteration cap's text."""
    if not (isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) == "builtins.range" and not iterable.keywords):
        return None
    if len(iterable.args) == 1:
        stop = iterable.args[0]
    elif len(iterable.args) == 2 and isinstance(iterable.args[0], ast.Constant) and iterable.args[0].value == 0:
        stop = iterable.args[1]
    else:
        return None
    text = context.text(stop)
    return f"({text})" if not isinstance(stop, (ast.Name, ast.Attribute, ast.Constant, ast.Call, ast.Subscript)) else text
