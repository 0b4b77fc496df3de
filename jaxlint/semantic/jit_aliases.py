"""Compiled callables made through `functools.partial(jax.jit, ...)` in the forms the model's own
jit bindings do not follow yet:

    step = partial(jax.jit, static_argnames=("cfg",))(train_step)   # the partial called on a function
    jit_static = partial(jax.jit, static_argnums=(1,))              # an alias of a configured jit ...
    @jit_static                                                     # ... used as a decorator
    def reduce(x, axes): ...
    other = jit_static(g)                                           # ... or called on a function

`binding_for_call(call, model)` returns a `JitBinding` for a call of such a name, or None.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import jaxapi
from jaxlint.semantic.model import JitBinding, Scope, SemanticModel, keyword_options


def _configured_jit(node: ast.AST, model: SemanticModel) -> tuple[str, dict[str, ast.expr]] | None:
    """`partial(jax.jit, **options)` (or a name bound once to one): the transform and its options."""
    if isinstance(node, ast.Call) and model.qualified_name(node.func) == "functools.partial" and node.args and len(node.args) == 1:
        transform = model.transform_of(node.args[0])
        if transform in jaxapi.COMPILING:
            return transform, keyword_options(node)
        return None
    if isinstance(node, ast.Name):
        value = _only_value(node.id, model.scope_for(node), model)
        if isinstance(value, ast.Call):
            return _configured_jit(value, model)
    return None


def _only_value(name: str, scope: Scope, model: SemanticModel) -> ast.AST | None:
    """The single value `name` is bound to in the scope that defines it, seen from `scope`."""
    current: Scope | None = scope
    while current is not None and name not in current.local_names:
        current = current.parent
    if current is None or name in current.param_nodes or name in current.defs:
        return None
    values = [value for target, value in current.bindings if isinstance(target, ast.Name) and target.id == name]
    return values[0] if len(values) == 1 else None


def _defining_scope(name: str, scope: Scope) -> Scope | None:
    current: Scope | None = scope
    while current is not None and name not in current.local_names:
        current = current.parent
    return current


def binding_for_call(call: ast.Call, model: SemanticModel) -> JitBinding | None:
    if not isinstance(call.func, ast.Name):
        return None
    name = call.func.id
    scope = model.scope_for(call)
    owner = _defining_scope(name, scope)
    if owner is None:
        return None
    function = owner.defs.get(name)
    if function is not None:
        for decorator in getattr(function.node, "decorator_list", ()):
            configured = _configured_jit(decorator, model) if isinstance(decorator, ast.Name) else None
            if configured is not None:
                transform, options = configured
                return JitBinding(name, transform, decorator, options, function, via_decorator=True, owner=owner)
        return None
    value = _only_value(name, scope, model)
    if not isinstance(value, ast.Call) or len(value.args) != 1:
        return None
    configured = _configured_jit(value.func, model)
    if configured is None:
        return None
    transform, options = configured
    resolved = model.resolve_function(value.args[0], owner)
    wrapped, bound = (resolved[0], resolved[1]) if resolved else (None, 0)
    return JitBinding(name, transform, value, options, wrapped, bound, owner=owner)
