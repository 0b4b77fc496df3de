"""JAX201's fixes: `total += float(loss)` to device accumulation converted after the loop, and a
`x = step(x)` loop with a device-valued `break` to a jitted `lax.while_loop`.

`fix_for` returns a Fix, or None when no fix is offered. Both fixes are unsafe (see the rule's
"Fix safety"): the accumulator becomes a device array (float32 where the Python float was
float64) until the loop ends, and the loop body must be traceable.

The break loop keeps the original's exact semantics: the original steps first and tests after, so
the `lax.while_loop` carries a `done` flag computed from the stepped state, next to the counter that
keeps the iteration cap. (Testing the carried state in `cond_fun`, as the JAX guide's sketch does,
would skip the first step when the initial state already meets the condition.)
"""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit, Position
from jaxlint.fixes import control_flow as flow
from jaxlint.semantic.model import parent_of


def fix_for(sync: ast.AST, loop: ast.AST, context):
    try:
        if isinstance(sync, ast.Call):
            return _accumulation_fix(sync, loop, context)
        if isinstance(sync, ast.If) and isinstance(loop, ast.For):
            return _break_loop_fix(sync, loop, context)
    except flow._Refuse:
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
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and not _inside(n, statement)
    ]
    if reads or isinstance(loop, ast.While) and name in flow.loads(loop.test):
        return None
    if not flow.defined_before(name, loop, context):
        return None
    value_text = context.text(value)
    edits = [context.replace(sync, f"({value_text})" if _needs_parentheses_in_sum(value) else value_text)]
    indent = context.source.indentation(loop.lineno)
    refs = flow.References(context)
    if convert == "float":
        conversion = f"float({name})"
    else:
        # `.item()` keeps the value's own kind (an int count stays an int); asarray covers zero iterations.
        conversion = f"{refs('jax.numpy.asarray')}({name}).item()"
    edits.append(_insert_after(loop, context, f"{indent}{name} = {conversion}\n"))
    return context.fix(f"Accumulate `{name}` on the device and convert it once after the loop", [*edits, *refs.edits], safe=False)


def _needs_parentheses_in_sum(node: ast.AST) -> bool:
    return isinstance(node, (ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda, ast.NamedExpr)) or (
        isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitOr, ast.BitAnd, ast.BitXor, ast.LShift, ast.RShift))
    )


def _inside(node: ast.AST, container: ast.AST) -> bool:
    current = node
    while current is not None:
        if current is container:
            return True
        current = parent_of(current)
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
    indent = context.source.indentation(loop.lineno)
    first = steps[0]
    own_line = flow._own_line(first, context)
    inner = context.source.indentation(first.lineno) if own_line else indent + flow.indentation_unit(context, loop, steps)
    names = ", ".join([*carried, counter, done])
    unpack = f"{inner}{names} = {state}"
    condition = flow.condition_text(sync.test, context, refs)
    lines = [
        f"def {cond_name}({state}):",
        unpack,
        f"{inner}return {logical_and}({counter} < {cap}, {logical_not}({done}))",
        f"{indent}def {body_name}({state}):",
        unpack,
        *flow.block_lines(context, steps, None if own_line else inner),
        f"{inner}return {', '.join(carried)}, {counter} + 1, {condition}",
    ]
    targets = ", ".join([*carried, "_", "_"])
    initial = ", ".join([*carried, "0", "False"])
    lines.append(f"{indent}{targets} = {jit}({while_loop}, static_argnums=(0, 1))({cond_name}, {body_name}, ({initial}))")
    edit = Edit("\n".join(lines), context.source.start(loop), context.source.end(loop))
    carried_text = ", ".join(f"`{name}`" for name in carried)
    return context.fix(f"Run the loop on the device: a jitted `{while_loop}` over {carried_text} with the same cap", [edit, *refs.edits], safe=False)


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
