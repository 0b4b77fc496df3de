"""Which functions of a module run under reverse-mode differentiation (`grad`, `vjp`, `jacrev`, ...).

The model's `differentiated` flag also covers forward-mode transforms (`jacfwd`); rules that care
about transposition (a `while_loop` has no transpose) ask this instead. Computed once per model.
"""

from __future__ import annotations

import weakref

from jaxlint.semantic.model import Scope, SemanticModel

REVERSE_MODE = frozenset({
    "jax.grad", "jax.value_and_grad", "jax.jacrev", "jax.hessian", "jax.vjp", "jax.linearize",
    "flax.nnx.grad", "flax.nnx.value_and_grad", "equinox.filter_grad", "equinox.filter_value_and_grad",
    "equinox.filter_vjp", "optax.value_and_grad_from_state",
})
# Forward mode only pushes tangents through: `where` selects among them, so a NaN in the arm it
# drops never reaches the result (JAX503 needs a transpose to multiply it by a zero cotangent).
FORWARD_MODE = frozenset({"jax.jacfwd", "jax.jvp"})
_CACHE: "weakref.WeakKeyDictionary[SemanticModel, dict[frozenset, set[int]]]" = weakref.WeakKeyDictionary()


def reverse_mode_scopes(model: SemanticModel) -> set[int]:
    """ids of the scopes that run inside a reverse-mode transform: roots, their nested functions,
    and the module's functions they call or pass to `lax` (by name, transitively)."""
    return _scopes_under(model, REVERSE_MODE)


def forward_only_scopes(model: SemanticModel) -> set[int]:
    """ids of the scopes that run under `jacfwd`/`jvp` and under no reverse-mode transform of this module."""
    return _scopes_under(model, FORWARD_MODE) - _scopes_under(model, REVERSE_MODE)


def _scopes_under(model: SemanticModel, transforms: frozenset) -> set[int]:
    cached = _CACHE.setdefault(model, {})
    if transforms in cached:
        return cached[transforms]
    reached: dict[int, Scope] = {id(s): s for s in model.scopes if s.transforms & transforms}
    pending = list(reached.values())
    while pending:
        scope = pending.pop()
        found: list[Scope] = list(scope.children)
        for call in scope.calls:
            for expression in (call.func, *call.args):
                resolved = model.resolve_function(expression, scope)
                if resolved is not None and resolved[0] is not None:
                    found.append(resolved[0])
        for candidate in found:
            if id(candidate) not in reached:
                reached[id(candidate)] = candidate
                pending.append(candidate)
    result = cached[transforms] = set(reached)
    return result


def reverse_mode_roots(model: SemanticModel, scope: Scope) -> list[str]:
    """The reverse-mode transforms applied to `scope` itself (for messages)."""
    return sorted(scope.transforms & REVERSE_MODE)


__all__ = ["forward_only_scopes", "reverse_mode_scopes", "reverse_mode_roots", "FORWARD_MODE", "REVERSE_MODE"]
