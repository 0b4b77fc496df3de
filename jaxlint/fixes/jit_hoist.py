"""JAX302's fix: build the jitted function once.

Inside a function, building it before the loop still compiles once per call of the function (the
callable is new each call), so the fix first tries module level: `NAME = jax.jit(...)` placed before
the top-level statement holding the code, when everything the expression needs at that point is a
module-level name. A lambda that reads device arrays of the function (`lambda p: p + y`) becomes
`jax.jit(lambda p, y: p + y)` called with `y` as an argument. Otherwise, in a loop, the jit is built
once before the outermost loop that does not assign what it reads (`name = jax.jit(...)` hoisted, or
`jax.jit(f)(x)` bound to a fresh name first): once per call of the function, not per iteration."""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit, Position
from jaxlint import fixes
from jaxlint.fixes import hoist
from jaxlint.semantic import flow
from jaxlint.semantic.arrays import is_jax_array
from jaxlint.semantic.model import parent_of


def hoist_fix(node: ast.Call, loops: list, called_name: str | None, immediate: bool, context):
    fix = _module_level_fix(node, called_name, immediate, context)
    if fix is not None or not loops:
        return fix
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


def _maps_its_arguments(node: ast.Call, context) -> bool:
    """Whether the transform splits its arguments across devices (`pmap`) rather than tracing them whole."""
    qualified = context.qualified_name(node.func) or ""
    return qualified.rpartition(".")[2] == "pmap"


def _fresh_name(wrapped: ast.expr, context, called_name: str | None = None, suffix: str = "jit") -> str:
    """Named after what the jitted function computes: the wrapped callable (`loss_fn` ->
    `loss_fn_jit`, `self.apply` -> `apply_jit`, `partial(f, ...)` -> `f_jit`), a lambda's body
    (`lambda p, b: 2.0 * loss(p, b)` -> `scaled_loss_jit`), else the name the code gave it."""
    if isinstance(wrapped, ast.Call) and wrapped.args:
        wrapped = wrapped.args[0]
    if isinstance(wrapped, ast.Lambda):
        described = hoist.describe(wrapped.body)
        if described is None and called_name:
            described = called_name.strip("_")
    else:
        described = hoist.describe(wrapped)
    base = f"{described}_{suffix}" if described else {"jit": "jitted_fn", "pmap": "pmapped_fn"}[suffix]
    return hoist.fresh_module_name(base, context)


def _module_level_fix(node: ast.Call, called_name: str | None, immediate: bool, context):
    scope = context.scope(node)
    if not scope.is_function:
        return None  # module-level code runs once: hoisting before the loop is enough
    top = hoist.top_level_statement(node)
    if top is None:
        return None
    partial_fix = _partial_fix(node, scope, top, context)
    if partial_fix is not None:
        return partial_fix
    local = hoist.function_locals(scope)
    wrapped = node.args[0]
    options = [*node.args[1:], *node.keywords]
    eager = [*options]  # evaluated when the module-level line runs
    passed: list[str] = []
    if isinstance(wrapped, ast.Lambda):
        free = hoist.lambda_free_names(wrapped)
        passed = [name for name in _ordered(wrapped.body) if name in free and name in local]
    else:
        eager.append(wrapped)
    for expression in eager:
        for name in hoist.loaded_names(expression):
            if name in local or not hoist.module_binding_before(name, top, context):
                return None
    outer = parent_of(node)
    if passed:
        if not (immediate and _plain_lambda(wrapped) and not outer.keywords and not any(isinstance(a, ast.Starred) for a in outer.args)):
            return None
        for name in passed:
            if not (_device_array(name, scope, context) or hoist.array_like_uses(name, [wrapped.body], context)):
                return None  # only arrays (or pytrees of them) can become arguments of the compiled function
        parameters = [a.arg for a in wrapped.args.args]
        if set(passed) & set(parameters):
            return None
        function_text = f"lambda {', '.join([*parameters, *passed])}: {context.text(wrapped.body)}"
    else:
        function_text = context.text(wrapped)
    option_texts = [context.text(option) for option in options]
    mapped = _maps_its_arguments(node, context)
    if passed and mapped:
        # A value the lambda closed over reached every device whole; as an argument, pmap would
        # split it along its first axis. It stays whole only as an unmapped argument (`None`).
        if any(keyword.arg in ("in_axes", None) for keyword in node.keywords):
            return None
        axes = ["0"] * len(parameters) + ["None"] * len(passed)
        option_texts.append(f"in_axes=({axes[0]},)" if len(axes) == 1 else f"in_axes=({', '.join(axes)})")
    name = _fresh_name(wrapped, context, called_name, suffix="pmap" if mapped else "jit")
    definition = f"{name} = {context.text(node.func)}({', '.join([function_text, *option_texts])})"
    insert = hoist.insert_before(top, definition, context)
    if passed:
        arguments = [context.text(a) for a in outer.args] + passed
        replace = context.replace(outer, f"{name}({', '.join(arguments)})")
    elif immediate or called_name is not None:
        replace = context.replace(node, name)
    else:
        return None
    return context.fix(f"Create the jitted function once, at module level, as `{name}`", [insert, replace], safe=False)


def _ordered(node: ast.AST) -> list[str]:
    names = sorted((n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)), key=lambda n: (n.lineno, n.col_offset))
    ordered: list[str] = []
    for n in names:
        if n.id not in ordered:
            ordered.append(n.id)
    return ordered


def _plain_lambda(function: ast.Lambda) -> bool:
    arguments = function.args
    return not (arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg or arguments.defaults)


def _device_array(name: str, scope, context) -> bool:
    if context.model.device_names(scope).get(name):
        return True
    return is_jax_array(context.model, ast.Name(id=name, ctx=ast.Load()), scope)


def _partial_fix(node: ast.Call, scope, top: ast.stmt, context):
    """`jax.jit(partial(f, a, k=v))` -> `partial(f_jit, a, k=v)` with `f_jit = jax.jit(f)` defined once
    at module level: the bound values become arguments of the compiled function instead of
    constants of a new one, so it compiles once. Offered when `f` is a module-level function that
    uses each bound parameter as an array (or the bound value is a device array)."""
    wrapped = node.args[0]
    if not (isinstance(wrapped, ast.Call) and context.qualified_name(wrapped.func) in ("functools.partial",) and wrapped.args):
        return None
    if _maps_its_arguments(node, context):
        return None  # the bound values, as arguments of a pmap, would be split across devices
    function = wrapped.args[0]
    bound_positional = wrapped.args[1:]
    options = [*node.args[1:], *node.keywords]
    if not isinstance(function, ast.Name) or any(isinstance(a, ast.Starred) for a in bound_positional):
        return None
    if any(k.arg is None for k in wrapped.keywords) or (options and (bound_positional or wrapped.keywords)):
        return None  # `**options`, or static/donated positions that binding would shift
    if function.id in hoist.function_locals(scope) or not hoist.module_binding_before(function.id, top, context):
        return None
    for option in options:
        if hoist.loaded_names(option) & hoist.function_locals(scope):
            return None
    definition = _module_function(function.id, context)
    if definition is None:
        return None
    parameters = [a.arg for a in [*definition.args.posonlyargs, *definition.args.args]]
    bound = list(zip(parameters, bound_positional)) + [(k.arg, k.value) for k in wrapped.keywords]
    if len(bound) != len(bound_positional) + len(wrapped.keywords):
        return None
    for parameter, value in bound:
        if isinstance(value, ast.Name) and _device_array(value.id, scope, context):
            continue
        if not hoist.array_like_uses(parameter, definition.body, context):
            return None  # the function needs it as a Python value: it must stay a constant
    name = _fresh_name(function, context)
    option_texts = [context.text(option) for option in options]
    insert = hoist.insert_before(top, f"{name} = {context.text(node.func)}({', '.join([function.id, *option_texts])})", context)
    arguments = [context.text(a) for a in [*bound_positional, *wrapped.keywords]]
    replace = context.replace(node, f"{context.text(wrapped.func)}({', '.join([name, *arguments])})")
    return context.fix(f"Jit `{function.id}` once, at module level, as `{name}`, and bind the arguments with `partial`", [insert, replace], safe=False)


def _module_function(name: str, context) -> ast.FunctionDef | None:
    found = [s for s in context.model.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name]
    if len(found) != 1 or found[0].decorator_list:
        return None
    return found[0]
