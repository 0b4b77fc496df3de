"""Code written to run while JAX traces: trace-time constant folding.

`with jax.ensure_compile_time_eval():` makes JAX compute the operations under it on concrete values
while a function is being traced (spherical-harmonics tables, Clebsch-Gordan coefficients, a
check that a table has the expected form), so that they enter the compiled program as constants.
Outside a trace the block changes nothing. A function that enters one is therefore written to be
traced inside the caller's `jit`, and runs once per trace: its loops, and the reads on the host in
them, fold constants at compile time and cost nothing per step. Module-level code is never traced,
so a block there says nothing about it.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.syntax import child_nodes

_COMPILE_TIME_EVAL = frozenset({"jax.ensure_compile_time_eval", "jax.core.ensure_compile_time_eval"})
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def written_for_tracing(scope, model, text: str) -> bool:
    """The function of `scope` (or a function enclosing it) enters `jax.ensure_compile_time_eval()`
    in its own body. `text`: the module's source, a cheap test first (most modules never mention it)."""
    if "ensure_compile_time_eval" not in text:
        return False
    cache = model.__dict__.setdefault("_written_for_tracing", {})
    while scope is not None and isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        key = id(scope.node)
        if key not in cache:
            cache[key] = _enters_compile_time_eval(scope.node, model)
        if cache[key]:
            return True
        scope = scope.parent
    return False


def _enters_compile_time_eval(function: ast.AST, model) -> bool:
    """A `with jax.ensure_compile_time_eval():` in the function's own body (not in nested functions)."""
    pending = list(function.body) if isinstance(function.body, list) else [function.body]
    while pending:
        node = pending.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
            isinstance(item.context_expr, ast.Call) and model.qualified_name(item.context_expr.func) in _COMPILE_TIME_EVAL
            for item in node.items
        ):
            return True
        pending.extend(child_nodes(node))
    return False
