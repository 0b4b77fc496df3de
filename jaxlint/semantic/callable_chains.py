"""What a callable value is made of: the transforms around a function, through names and `partial`.

`jax.vmap(forward)(params, x)` and `batched = jax.vmap(forward)` then `batched(params, x)` call the same
thing: a name bound once to a transform of a function carries that transform and that function
wherever it is called, as the inline expression does. So does a transform seen through
`functools.partial` (`jax.vmap(partial(jax.grad(loss), params))`: a gradient, batched) and through
another name (`g = jax.grad(loss)`, then `jax.vmap(g)`).

`callable_chain(value, scope, model)` reads the callable expression `value` in `scope` and returns a
`Chain`: the transforms applied around the innermost function, outermost first (each with the call that
applies it), the innermost function expression and the scope it is read in, whether a `partial` fixes
some of its arguments, and whether a name was followed. None where a name on the way is bound more than
once, by anything but a plain assignment, or in a loop.

What the chain runs when called outside `jit` is read from the outside in: the first compiling transform
(`jax.jit`, `nnx.jit`, `eqx.filter_jit`) met before any differentiating one makes the call one compiled
program (`vmap(jit(f))`: the batching rule is reapplied, the inner program stays compiled); the first
differentiating transform met before any compiling one makes it a gradient taken op by op
(`vmap(grad(f))`, `grad(jit(f))`: the differentiation around the compiled program is Python work on
every call); batching transforms alone (`vmap(f)`) run `f`'s operations one by one on batching tracers.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxlint.semantic import jaxapi
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.model import Scope, SemanticModel
from jaxlint.semantic.syntax import bound_names

_PARTIALS = frozenset({"functools.partial", "jax.tree_util.Partial"})
_DEPTH = 6


# The transforms that decide how a chain's call runs, outermost first: compiled as one program, or
# differentiated op by op.
_COMPILING_OR_DIFFERENTIATING = jaxapi.COMPILING | jaxapi.DIFFERENTIATING


@dataclass(frozen=True)
class Chain:
    transforms: tuple[tuple[str, ast.Call], ...]  # (qualified transform, the call applying it), outermost first
    function: ast.expr  # the innermost callable expression (a name, an attribute, a lambda)
    scope: Scope  # where `function` is read
    partial: bool  # a `partial` on the way fixes some arguments
    through_name: bool  # a name bound to a transform (or a partial) was followed

    def first(self, kinds: frozenset[str]) -> tuple[str, ast.Call] | None:
        return next((link for link in self.transforms if link[0] in kinds), None)

    @property
    def compiled(self) -> bool:
        """The call runs one compiled program: a compiling transform outside every differentiating one."""
        outer = self.first(_COMPILING_OR_DIFFERENTIATING)
        return outer is not None and outer[0] in jaxapi.COMPILING

    @property
    def differentiated(self) -> ast.Call | None:
        """The differentiating call (`jax.grad(f)`) where the chain takes a gradient outside any compiling
        transform (`vmap(grad(f))`, `grad(jit(f))`), else None."""
        outer = self.first(_COMPILING_OR_DIFFERENTIATING)
        return outer[1] if outer is not None and outer[0] not in jaxapi.COMPILING else None

    @property
    def only_batching(self) -> bool:
        """Batching transforms only (`vmap(f)`, `vmap(vmap(f))`), at least one."""
        return bool(self.transforms) and all(qualified in jaxapi.VMAP_LIKE for qualified, _ in self.transforms)


def callable_chain(value: ast.expr, scope: Scope, model: SemanticModel) -> Chain | None:
    """The chain of `value` read in `scope` (module docstring), or None."""
    cache = model.__dict__.setdefault("_callable_chains", {})
    key = (id(value), id(scope))
    if key not in cache:
        cache[key] = None  # (recursion guard: a name bound to a transform of itself)
        cache[key] = _chain(value, scope, model, 0)
    return cache[key]


def _chain(value: ast.expr, scope: Scope, model: SemanticModel, depth: int) -> Chain | None:
    if depth > _DEPTH:
        return None
    if isinstance(value, ast.Call) and value.args and not isinstance(value.args[0], ast.Starred):
        transform = model.transform_of(value.func)
        if transform is None and isinstance(value.func, ast.Call) and model.qualified_name(value.func.func) == "functools.partial" \
                and value.func.args:
            transform = model.transform_of(value.func.args[0])  # `partial(jax.vmap, in_axes=0)(f)`
        if transform is not None:
            inner = _chain(value.args[0], scope, model, depth + 1)
            if inner is None:
                return None
            return Chain(((transform, value), *inner.transforms), inner.function, inner.scope, inner.partial, inner.through_name)
        if model.qualified_name(value.func) in _PARTIALS:
            inner = _chain(value.args[0], scope, model, depth + 1)
            if inner is None:
                return None
            return Chain(inner.transforms, inner.function, inner.scope, True, inner.through_name)
        return None
    if isinstance(value, ast.Name) and value.id not in scope.defs:
        found = bound_values(model, value.id, scope)
        if found is not None:
            owner, values = found
            if len(values) != 1 or isinstance(values[0], ast.AugAssign) or any(value.id in bound_names(target) for target, _ in owner.loops):
                return None
            bound = values[0]
            if not isinstance(bound, ast.Call):
                return None
            inner = _chain(bound, owner, model, depth + 1)
            if inner is None and depth > 0 and model.jit_binding_for_name(value) is not None:
                # `loss = make_loss(xs, ys)` with the factory returning `jax.jit(f)`: the name is a compiled
                # function, the innermost callable of the transform around it (`jax.grad(loss)`).
                return Chain((), value, scope, False, False)
            if inner is None or not (inner.transforms or inner.partial):
                return None
            return Chain(inner.transforms, inner.function, inner.scope, inner.partial, True)
    if isinstance(value, (ast.Name, ast.Attribute, ast.Lambda)):
        return Chain((), value, scope, False, False)
    return None

