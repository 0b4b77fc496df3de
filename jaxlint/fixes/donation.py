"""JAX401's fix: add `donate_argnums`/`donate_argnames` to the jit (decorator, call or partial form),
merging with existing options, only when every call site in the module rebinds the argument.

`fix_for` returns a Fix, or None when no fix is offered. The fix is unsafe (see the rule's "Fix
safety"): a donated input is deleted by the call, so any later read of the old value raises.

Forms handled:
- `@jax.jit` becomes `@jax.jit(donate_argnums=(0,))` (the decorator-factory form, jax >= 0.4.36);
  `@jax.pmap` has no factory form, so it becomes `@functools.partial(jax.pmap, donate_argnums=(0,))`.
- `@jax.jit(...)`, `@partial(jax.jit, ...)`, `jax.jit(f, ...)`: the option is appended after the last
  argument (a trailing comma or comment stays where it was), or merged into an existing literal
  `donate_argnums`/`donate_argnames` value.
"""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit
from jaxlint import fixes
from jaxlint.semantic.flow import dotted_name, target_elements
from jaxlint.semantic.model import argument, literal_tuple, parent_of


def fix_for(call, binding, position, keyword, context):
    option = "donate_argnums" if keyword is None else "donate_argnames"
    value = position if keyword is None else keyword
    if value is None or not _every_call_rebinds(call, binding, position, keyword, context):
        return None
    if keyword is None and binding.via_decorator and binding.function is not None and binding.function.has_self:
        # `@jax.jit` on a method wraps the plain function: `self` is argument 0 of what jit sees.
        value = position + 1
    node = binding.node
    if isinstance(node, ast.Call) and _jit_call_of(node, binding, context):
        edits = _add_option(node, option, value, context)
    elif binding.via_decorator:
        edits = _decorate(node, binding, option, value, context)
    else:
        return None
    if not edits:
        return None
    described = f"{option}=({value!r},)"
    return context.fix(f"Donate the argument: add `{described}` to the `{binding.transform.rsplit('.', 1)[-1]}`", edits, safe=False)


def _jit_call_of(node: ast.Call, binding, context) -> bool:
    """`jax.jit(f, ...)`, `jax.jit(...)` as a decorator factory, or `partial(jax.jit, ...)`."""
    if context.model.transform_of(node.func) is not None:
        return True
    return context.qualified_name(node.func) == "functools.partial" and bool(node.args) and context.model.transform_of(node.args[0]) is not None


def _add_option(node: ast.Call, option: str, value, context) -> list[Edit] | None:
    for item in node.keywords:
        if item.arg is None:
            return None  # `**options`: we cannot tell what is already donated
        if item.arg == option:
            existing = literal_tuple(item.value)
            if existing is None:
                return None
            if value in existing:
                return None
            merged = tuple(existing) + (value,)
            if all(isinstance(v, int) for v in merged):
                merged = tuple(sorted(merged))
            return [context.replace(item.value, _tuple_literal(merged))]
    last = [*node.args, *node.keywords]
    text = f"{option}={_tuple_literal((value,))}"
    if not last:
        # `@jax.jit()`: insert between the parentheses.
        end = context.source.end(node)
        start = context.source.position(context.source.offset(end) - 1)
        return [Edit(text, start, start)]
    anchor = context.source.end(last[-1])
    return [Edit(f", {text}", anchor, anchor)]


def _decorate(decorator: ast.expr, binding, option: str, value, context) -> list[Edit] | None:
    if not isinstance(decorator, (ast.Name, ast.Attribute)):
        return None
    text = f"{option}={_tuple_literal((value,))}"
    if binding.transform == "jax.jit":
        return [context.replace(decorator, f"{context.text(decorator)}({text})")]
    partial, import_edits = fixes.reference(context, "functools.partial")
    if not partial:
        return None
    return [context.replace(decorator, f"{partial}({context.text(decorator)}, {text})"), *import_edits]


def _tuple_literal(values: tuple) -> str:
    inner = ", ".join(repr(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def _every_call_rebinds(call: ast.Call, binding, position, keyword, context) -> bool:
    """Every use of the jitted name in the module is a call that rebinds this argument."""
    if binding.key == "<inline>":
        return _rebinds(call, position, keyword, binding)
    found_any = False
    for node in ast.walk(context.model.tree):
        if not _refers_to(node, binding.key):
            continue
        parent = parent_of(node)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            continue  # the binding itself
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            continue
        if not (isinstance(parent, ast.Call) and parent.func is node):
            return False  # passed around or stored: calls elsewhere could read the donated value
        if not _rebinds(parent, position, keyword, binding):
            return False
        found_any = True
    return found_any


def _refers_to(node: ast.AST, key: str) -> bool:
    if key.startswith("self."):
        return isinstance(node, ast.Attribute) and node.attr == key[5:] and isinstance(node.value, ast.Name) and node.value.id == "self"
    return isinstance(node, ast.Name) and node.id == key


def _rebinds(call: ast.Call, position, keyword, binding) -> bool:
    parameter = None
    if keyword is None and binding.param_names is not None and position < len(binding.param_names):
        parameter = binding.param_names[position]
    value = argument(call, position if keyword is None else None, keyword or parameter)
    if value is None and keyword is not None and binding.param_names is not None and keyword in binding.param_names:
        value = argument(call, binding.param_names.index(keyword), None)
    key = dotted_name(value) if value is not None else None
    if key is None:
        return False
    statement = parent_of(call)
    if isinstance(statement, ast.Assign) and statement.value is call:
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is call:
        targets = [statement.target]
    else:
        return False
    return key in {dotted_name(element) for target in targets for element in target_elements(target)}
