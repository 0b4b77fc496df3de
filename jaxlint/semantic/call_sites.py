"""Whether the compiled callable that traces a function is ever called.

`f_jit = jax.jit(f)` that nothing in the module calls (or hands on) never traces `f` with abstract
values: errors that only tracing raises cannot happen through it. `jaxlint` checks one module at a
time here, so a wrapper is "never called" when its name is never read after the binding.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import jaxapi
from jaxlint.semantic.model import Scope, SemanticModel


def traced_only_by_uncalled_wrappers(scope: Scope, model: SemanticModel) -> bool:
    """The outermost traced function around `scope` is traced only through `name = jax.jit(f)` bindings
    whose names are never read: no decorator, no other transform, no call of a wrapper."""
    root = _outermost_traced(scope)
    if root is None or not root.transforms or not root.transforms <= jaxapi.COMPILING:
        return False
    bindings = [binding for binding in model.jit_bindings.values() if binding.function is root]
    if not bindings or any(binding.via_decorator for binding in bindings):
        return False
    wrapped_elsewhere = sum(
        1 for call in (c for s in model.scopes for c in s.calls)
        if model.transform_of(call.func) is not None and call.args and _names(call.args[0], root)
    )
    if wrapped_elsewhere != len(bindings):
        return False  # also passed to a transform whose result is not bound to a name (`jax.jit(f)(x)`)
    read = model.__dict__.get("_names_read")
    if read is None:
        read = {node.id for node in model.nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        read |= {node.attr for node in model.nodes if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)}
        model.__dict__["_names_read"] = read
    return not any(binding.key.rpartition(".")[2] in read for binding in bindings)


def _outermost_traced(scope: Scope) -> Scope | None:
    found = None
    current: Scope | None = scope
    while current is not None:
        if current.traced:
            found = current
        current = current.parent
    return found


def _names(node: ast.AST, function: Scope) -> bool:
    return isinstance(node, ast.Name) and node.id == getattr(function.node, "name", None)
