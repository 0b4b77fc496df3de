"""Functions that only convert what they are given: every value they return is a parameter's leaves
cast to a dtype (`x.astype(target.dtype)`, `jnp.asarray(x, dtype=d)`, `lax.convert_element_type`),
possibly after taking the real part, directly or through a tree map of such a cast
(`jax.tree.map(lambda v, t: v.real.astype(t.dtype), x, target)`).

A compiled conversion rebinding its argument (`grads = cast_like(grads, params)`) is not an update of
carried state: where the dtype changes, no output buffer can take the input's place (donation needs
the same shape and dtype), and where it does not, the output is a copy of its input (a second buffer
unless donated: benchmarks/donation_passthrough.py), so the cast is the waste and dropping it is the
fix, not a donation (JAX401). Read once per function, from its syntax only, so the project summaries of other
modules carry the answer too (project.FunctionSummary.converted_params).
"""

from __future__ import annotations

import ast
from typing import Callable

from jaxlint.semantic.syntax import child_nodes

_CASTS = frozenset({"jax.numpy.asarray", "jax.numpy.array", "numpy.asarray", "numpy.array"})
_CONVERT = frozenset({"jax.lax.convert_element_type"})
_REAL = frozenset({"jax.numpy.real", "numpy.real"})
_TREE_MAPS = frozenset({"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"})
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def converted_parameters(function: ast.AST, has_self: bool, qualified: Callable[[ast.AST], str | None]) -> tuple[str, ...]:
    """The positional parameters (`self` left out) that every `return` of `function` converts."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ()
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if has_self:
        positional = positional[1:]
    returned = _returned_values(function)
    if not returned:
        return ()
    return tuple(name for name in positional if all(_converts(value, name, qualified) for value in returned))


def _returned_values(function: ast.AST) -> list[ast.expr]:
    """The values of the function's own `return` statements; [] when one returns nothing or it yields."""
    values = []
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return []
        if isinstance(node, ast.Return):
            if node.value is None:
                return []
            values.append(node.value)
        stack.extend(child_nodes(node))
    return values


def _converts(value: ast.AST, name: str, qualified) -> bool:
    """`value` is `name` cast to a dtype, leaf by leaf."""
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "astype" and (value.args or value.keywords):
            return _same_or_real_part(func.value, name, qualified)
        called = qualified(func) or ""
        if called in _CASTS | _CONVERT and value.args:
            dtype = value.args[1] if len(value.args) > 1 else next((k.value for k in value.keywords if k.arg in ("dtype", "new_dtype")), None)
            return dtype is not None and _same_or_real_part(value.args[0], name, qualified)
        if called in _TREE_MAPS and len(value.args) >= 2 and isinstance(value.args[0], ast.Lambda):
            mapped = value.args[0]
            parameters = [a.arg for a in mapped.args.args]
            trees = value.args[1:]
            if any(isinstance(tree, ast.Starred) for tree in trees) or len(parameters) != len(trees):
                return False
            # The leaf of `name` goes to the lambda's parameter in the same place, and the body casts it.
            return any(
                isinstance(tree, ast.Name) and tree.id == name and _converts(mapped.body, parameter, qualified)
                for parameter, tree in zip(parameters, trees)
            )
    return False


def _same_or_real_part(node: ast.AST, name: str, qualified) -> bool:
    """`name`, `name.real`, `jnp.real(name)`, or a choice between them (`x if complex_ok else x.real`)."""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.Attribute) and node.attr == "real":
        return _same_or_real_part(node.value, name, qualified)
    if isinstance(node, ast.IfExp):
        return _same_or_real_part(node.body, name, qualified) and _same_or_real_part(node.orelse, name, qualified)
    if isinstance(node, ast.Call) and len(node.args) == 1 and (qualified(node.func) or "") in _REAL:
        return _same_or_real_part(node.args[0], name, qualified)
    return False


def binding_converts(binding, position: int | None, keyword: str | None, model) -> bool:
    """The compiled callable of `binding` only converts the argument at `position` (or `keyword`)."""
    if binding.param_names is None:
        return False
    name = argument_parameter(binding, position, keyword)
    if name is None:
        return False
    if binding.function is None:
        return name in (binding.converted_params or ())
    # (A local function's parameters are listed as `param_names` lists them, `self` where it does.)
    return name in converted_parameters(binding.function.node, False, model.qualified_name)


def argument_parameter(binding, position: int | None, keyword: str | None) -> str | None:
    """The parameter of the compiled callable of `binding` that the argument at `position` (or
    `keyword`) fills: the keyword itself, or the name at that position where the parameters are listed."""
    if keyword is not None:
        return keyword
    params = binding.param_names
    if params is not None and isinstance(position, int) and 0 <= position < len(params):
        return params[position]
    return None


_IN_PLACEMENTS = ("in_shardings", "in_axis_resources")
_OUT_PLACEMENTS = ("out_shardings", "out_axis_resources")


def binding_reshards(binding, position: int | None, keyword: str | None) -> bool:
    """The compiled callable of `binding` returns the argument at `position` (or `keyword`) unchanged
    on every path, compiled with an output placement (`out_shardings`, or the older
    `out_axis_resources`) other than its input placement: a reshard (`pjit(lambda x: x,
    out_axis_resources=spec)`). Each device's output buffer has another shape than its input, so no
    output can take an input's place: donation saves nothing (JAX401). An identity with no output
    placement, or the same one in and out, is a copy in place, which donation does save."""
    out = next((binding.options[name] for name in _OUT_PLACEMENTS if name in binding.options), None)
    if out is None or (isinstance(out, ast.Constant) and out.value is None) or binding.function is None:
        return False
    placed_in = next((binding.options[name] for name in _IN_PLACEMENTS if name in binding.options), None)
    if placed_in is not None and ast.dump(placed_in) == ast.dump(out):
        return False
    if not binding.param_names:
        return False
    name = argument_parameter(binding, position, keyword)
    if name is None:
        return False
    node = binding.function.node
    if isinstance(node, ast.Lambda):
        returned = [node.body]
    else:
        returned = _returned_values(node)
    return bool(returned) and all(isinstance(value, ast.Name) and value.id == name for value in returned)
