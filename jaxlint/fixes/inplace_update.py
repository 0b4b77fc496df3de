"""JAX105's fix: `x[i] = v` becomes `x = x.at[i].set(v)`, `x[i] += v` becomes `x = x.at[i].add(v)`,
`x[i] = jnp.minimum(x[i], v)` becomes `x = x.at[i].min(v)`; `self.v[i] = x` becomes
`self.v = self.v.at[i].set(x)`."""

from __future__ import annotations

import ast

from jaxlint.semantic.arrays import is_traced_boolean

_AUGMENTED = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide", ast.Pow: "power"}
_MIN_MAX = {"jax.numpy.minimum": "min", "jax.numpy.maximum": "max"}


def _looks_boolean(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare):
        return not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _looks_boolean(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _looks_boolean(node.left) or _looks_boolean(node.right)
    return False


def at_update_fix(node: ast.Assign | ast.AugAssign, target: ast.Subscript, context):
    array = target.value
    is_self_attribute = isinstance(array, ast.Attribute) and isinstance(array.value, ast.Name) and array.value.id == "self"
    if not (isinstance(array, ast.Name) or is_self_attribute):
        return None
    name = context.text(array)
    scope = context.scope(target)
    indices = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    if context.is_traced_code(target) and any(
        is_traced_boolean(context.model, index, scope) or _looks_boolean(index) for index in indices
    ):
        return None  # `x.at[mask]` fails under jit too; JAX106 offers `jnp.where`
    index = context.text(target.slice)
    value = node.value
    if isinstance(node, ast.AugAssign):
        method = _AUGMENTED.get(type(node.op))
        if method is None:
            return None
    else:
        method = "set"
        if isinstance(value, ast.Call) and len(value.args) == 2 and not value.keywords:
            extreme = _MIN_MAX.get(context.qualified_name(value.func))
            texts = [context.text(arg) for arg in value.args]
            target_text = context.text(target)
            if extreme and target_text in texts:
                method = extreme
                value = value.args[1 - texts.index(target_text)]
    text = context.text(value)
    if isinstance(value, (ast.Tuple, ast.NamedExpr, ast.Yield, ast.YieldFrom)) and not text.startswith("("):
        text = f"({text})"
    replacement = f"{name} = {name}.at[{index}].{method}({text})"
    return context.fix(f"Use `{name}.at[...].{method}(...)`", [context.replace(node, replacement)], safe=True)
