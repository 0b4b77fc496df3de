"""JAX102's fix: keep a converted traced value an array (`float(x)` dropped, or `.astype(kind)`),
where the value only flows into JAX operations or the return, directly or through a name bound
once to it whose every use does."""

from __future__ import annotations

import ast

from jaxlint.semantic.model import parent_of

# Where a converted value can go and still be a JAX array afterwards.
_ARRAY_CONSUMERS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.")


def conversion_fix(node: ast.Call, value: ast.AST, context):
    """Keep the value an array where it only flows into JAX operations or the return.

    `.item()` and `float()` of a value that is already floating point are dropped; otherwise the
    conversion becomes `.astype(float|int|complex)`, JAX's default dtype of that kind, because the
    dtype change is what the conversion meant (`int()` truncates toward zero, as `astype` does).
    """
    if not _flows_only_into_jax(node, context):
        return None
    text = context.text(value)
    atomic = isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant))
    qualified = context.qualified_name(node.func) if not isinstance(node.func, ast.Attribute) else None
    kind = {"builtins.float": "float", "builtins.int": "int", "builtins.complex": "complex", "operator.index": "int"}.get(qualified or "")
    if kind is None or (kind == "float" and _already_floating(value, context)):
        if not atomic:
            text = f"({text})"
        return context.fix("Drop the conversion and keep the array", [context.replace(node, text)], safe=False)
    if not atomic:
        text = f"({text})"
    return context.fix(f"Use `.astype({kind})` and keep the array", [context.replace(node, f"{text}.astype({kind})")], safe=False)


_FLOATING_FUNCTIONS = {
    "mean", "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "softmax", "log_softmax",
    "std", "var", "linalg.norm", "logsumexp", "average", "nanmean", "erf", "relu", "gelu", "softplus",
}


def _already_floating(value: ast.AST, context) -> bool:
    """Whether `value` is certainly floating point (so `float()` of it changes nothing but the container)."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):
        return True
    if isinstance(value, ast.Call):
        qualified = context.qualified_name(value.func) or ""
        for prefix in ("jax.numpy.", "jax.nn.", "jax.scipy.special.", "jax.lax."):
            if qualified.startswith(prefix) and qualified[len(prefix):] in _FLOATING_FUNCTIONS:
                return True
        if isinstance(value.func, ast.Attribute) and value.func.attr in ("mean", "std", "var") and not qualified:
            return True
    return False


def _flows_only_into_jax(node: ast.AST, context, depth: int = 0) -> bool:
    parent = parent_of(node)
    if isinstance(parent, ast.Return):
        return True
    if isinstance(parent, ast.Assign) and parent.value is node and depth < 3:
        return _bound_name_flows_only_into_jax(parent, context, depth)
    if isinstance(parent, ast.BinOp):
        return _flows_only_into_jax(parent, context, depth)
    if isinstance(parent, ast.Call) and node in parent.args:
        qualified = context.qualified_name(parent.func)
        return qualified is not None and qualified.startswith(_ARRAY_CONSUMERS)
    return False


def _bound_name_flows_only_into_jax(assign: ast.Assign, context, depth: int) -> bool:
    """`v = float(...)`: `v` is bound only here in its function, and every read of it comes after
    this line and flows only into JAX operations or the return."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
        return False
    name = assign.targets[0].id
    scope = context.scope(assign)
    if not scope.is_function or name in scope.param_nodes or name in scope.declared_free:
        return False
    stores, loads = [], []
    for n in ast.walk(scope.node):
        if isinstance(n, ast.Name) and n.id == name:
            (loads if isinstance(n.ctx, ast.Load) else stores).append(n)
    if stores != [assign.targets[0]] or not loads:
        return False
    end = (assign.end_lineno, assign.end_col_offset)
    for n in loads:
        if context.scope(n) is not scope:
            return False  # read by a nested function or comprehension: not followed
        if (n.lineno, n.col_offset) <= end or not _flows_only_into_jax(n, context, depth + 1):
            return False
    return True
