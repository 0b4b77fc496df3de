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
    bindings = _bindings_by_function(model).get(id(root), [])
    if not bindings or any(binding.via_decorator for binding in bindings):
        return False
    wrapped_elsewhere = _transformed_names(model).get(getattr(root.node, "name", None), 0)
    if wrapped_elsewhere != len(bindings):
        return False  # also passed to a transform whose result is not bound to a name (`jax.jit(f)(x)`)
    read = model.__dict__.get("_names_read")
    if read is None:
        read = {node.id for node in model.nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        read |= {node.attr for node in model.nodes if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)}
        model.__dict__["_names_read"] = read
    return not any(binding.key.rpartition(".")[2] in read for binding in bindings)


def _bindings_by_function(model: SemanticModel) -> dict[int, list]:
    """id(function scope) -> its `jit` bindings, indexed once per module: a scan of every binding per
    traced function made a module of many jitted functions quadratic."""
    index = model.__dict__.get("_jit_bindings_by_function")
    if index is None:
        index = {}
        for binding in model.jit_bindings.values():
            index.setdefault(id(binding.function), []).append(binding)
        model.__dict__["_jit_bindings_by_function"] = index
    return index


def _transformed_names(model: SemanticModel) -> dict[str, int]:
    """How many transform calls (`jax.jit(f)`, `jax.vmap(f)`) take each bare name as their function,
    counted once per module."""
    counts = model.__dict__.get("_transformed_names")
    if counts is None:
        counts = {}
        for call in (c for scope in model.scopes for c in scope.calls):
            if call.args and isinstance(call.args[0], ast.Name) and model.transform_of(call.func) is not None:
                counts[call.args[0].id] = counts.get(call.args[0].id, 0) + 1
        model.__dict__["_transformed_names"] = counts
    return counts


def _outermost_traced(scope: Scope) -> Scope | None:
    found = None
    current: Scope | None = scope
    while current is not None:
        if current.traced:
            found = current
        current = current.parent
    return found

