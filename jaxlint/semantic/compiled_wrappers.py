"""Callables that wrap a compiled one: calling them runs compiled code.

`jax.vmap(step)` of a jitted `step` is not itself compiled (JAX402 reports the Python batching it
re-runs on every call), but the inner `jit` stays one compiled program: each call dispatches that
program once, whatever the batch. `functools.partial(step, scale=2.0)` fixes arguments of the same
compiled callable. A loop that calls such a wrapper runs its work compiled, as much as one that calls
`step` itself: the few eager operations beside it (a slice of the input, an `.at[]` store of the
result) are preparation and bookkeeping, not the loop's work.

* `wraps_compiled(value, scope, model)`: the callable expression `value`, read in `scope`, is a
  compiled callable (a name or attribute the model binds to a `jit`, an inline `jax.jit(f)`), a
  batching or argument-fixing wrapper of one (`jax.vmap`, `nnx.vmap`, `functools.partial`,
  `jax.tree_util.Partial`, nested in any order), a name bound (every binding) to one of these, or a
  parameter of a plain function every call of which in this module passes one of these
  (`rollout(step_fn=jax.vmap(partial(step, ...)))`, through names bound in the caller).
* `calls_wrapped_compiled(call, model)`: `call` calls such a callable by name or attribute.
* `batched_jit_inside(value, scope, model)`: what `jax.vmap(value)` batches, called outside traced
  code, has a `jax.jit` or `eqx.filter_jit` inside it that the batching transform re-traces on every
  call (JAX402): `value` is a jitted callable (a name or attribute the model binds to one, an inline
  `jax.jit(f)`), or a callable built from one by a transform that traces it when called: fixing
  arguments (`functools.partial(step, params)`), differentiating (`jax.grad(step)`,
  `jax.value_and_grad(step, argnums)`, `jax.jacfwd`, `jax.jacrev`, `jax.hessian`) or batching it
  (`jax.vmap(step)` under another `vmap`), nested in any order, or a name bound (every binding) to one
  of these. `grad` of a jitted function is not compiled as a whole: it runs the inner `jit`'s
  differentiated program, tracing the transform in Python at each call, as `vmap` does. Not `pmap` or
  `nnx.jit` (a `vmap` over them is another program shape, not this cost).
* `batching_over_compiled(function, model)`: stacked decorators are nested calls, the lowest applied
  first: `@jax.vmap` over `@jax.jit` (also `@partial(jax.jit, ...)`) binds the name to
  `vmap(jit(f))`; the `vmap` decorator, where no compiling decorator sits above it.

* `compiling_decorator(function, model)`: a decorator is a call made where the `def` statement runs
  (`@jax.jit def f` binds `f = jax.jit(f)` there), so a compiling decorator of a def that runs again (a
  def nested in a function, or in a loop body) builds a new compiled callable each time, over a new
  function object: measured (CPU, jax 0.10.2, equinox 0.13.8, flax 0.12.8; a nested
  `tanh(w @ v).sum()` called once per call of its function, 5 calls): `@jax.jit` 5 compiles, 123 ms
  per call; `@eqx.filter_jit` 5 compiles, 111 ms; `@nnx.jit` 5 compiles, 90 ms; the same def at
  module level compiles once. The compiling decorator is returned whatever sits above it (`@jax.vmap`
  over `@jax.jit` binds `vmap(jit(f))`: the inner `jit` is still new).

What a rebuilt `jit` costs depends on the object it wraps, not on the syntax (same measure, 5
rebuilds each): a new object (a lambda, a `partial`, a nested def, `jax.jit(self.method)` where no
one keeps the bound method alive) traces and compiles every time (5 compiles, 80-90 ms each); a
long-lived one (a module function, a function stored once on an attribute, `self.apply =
transformed.apply`, a bound method the caller holds) hits JAX's cache: 1 compile, then 25.6 us per
call against 3.8 us for a `jit` built once. `nnx.jit` is the exception: `nnx.jit(module_function)`
rebuilt compiles every time (5 of 5, 91 ms), where `eqx.filter_jit` and `jax.pmap` of it compile once.
A transform's result is a new object too: `jax.jit(jax.grad(f))` or `jax.jit(jax.vmap(f))` rebuilt
compiles every time (5 of 5), while `jax.vmap(g)` of one jitted `g`, rebuilt, compiles once (1 of 5:
the batched program is found again; each call pays the batching in Python, JAX402).

A wrapper of a plain function (`jax.vmap(f)` with `f` never jitted) runs eagerly and is none of these.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import jaxapi
from jaxlint.semantic.bindings import bound_values, owning_scope
from jaxlint.semantic.model import Scope, SemanticModel

# Wrappers whose call runs the callable they wrap once per call: batching it, or fixing some arguments.
_WRAPPERS = frozenset({"functools.partial", "jax.tree_util.Partial", *jaxapi.VMAP_LIKE})
_DEPTH = 6


def calls_wrapped_compiled(call: ast.Call, model: SemanticModel) -> bool:
    """`call` calls (by name or attribute) a callable that wraps a compiled one (`wraps_compiled`)."""
    if not isinstance(call.func, (ast.Name, ast.Attribute)):
        return False
    cache = model.__dict__.setdefault("_wrapped_compiled_cache", {})
    key = id(call)
    if key not in cache:
        cache[key] = False  # (recursion guard: a function passing its parameter on to itself)
        cache[key] = _wraps(call.func, model.scope_for(call), model, 0)
    return cache[key]


def wraps_compiled(value: ast.expr, scope: Scope, model: SemanticModel) -> bool:
    """The callable `value`, read in `scope`, runs compiled code when called (module docstring)."""
    return _wraps(value, scope, model, 0)


def _wraps(value: ast.expr, scope: Scope, model: SemanticModel, depth: int) -> bool:
    if depth > _DEPTH:
        return False
    if isinstance(value, (ast.Name, ast.Attribute)) and model.jit_binding_for_name(value) is not None:
        return True
    if isinstance(value, ast.Call) and value.args:
        transform = model.transform_of(value.func)
        if transform in jaxapi.COMPILING:
            return True
        if transform in jaxapi.VMAP_LIKE or model.qualified_name(value.func) in _WRAPPERS:
            return _wraps(value.args[0], scope, model, depth + 1)
        return False
    if not isinstance(value, ast.Name):
        return False
    found = bound_values(model, value.id, scope)
    if found is not None:
        owner, values = found
        return bool(values) and all(not isinstance(v, ast.AugAssign) and _wraps(v, owner, model, depth + 1) for v in values)
    return _parameter_wraps(value.id, scope, model, depth)


def _parameter_wraps(name: str, scope: Scope, model: SemanticModel, depth: int) -> bool:
    """`name` is a parameter of a plain module-level or nested function (never rebound) that every
    call of it in this module, by its name, fills with a wrapper of a compiled callable."""
    owner = owning_scope(model, name, scope)
    if owner is None or not owner.is_function:
        return False
    passed = model.caller_arguments(owner, name, closed=False, skip_self=True)
    return passed is not None and all(_wraps(argument, model.scope_for(call), model, depth + 1) for argument, call in passed)


# The compiled callables a `jax.vmap` outside traced code re-traces at each call, and the transforms that
# build a callable tracing the one they wrap when called (so a `jit` inside stays inside).
_BATCHED_COMPILED = frozenset({"jax.jit", "equinox.filter_jit"})
_TRACING_WRAPPERS = frozenset({
    "functools.partial", "jax.tree_util.Partial", "jax.vmap",
    "jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian",
})


def batched_jit_inside(value: ast.expr, scope: Scope, model: SemanticModel) -> bool:
    """`jax.vmap(value)` batches a jitted callable, directly or through argument-fixing, differentiating
    or batching wrappers (module docstring)."""
    return _jit_inside(value, scope, model, 0)


def _jit_inside(value: ast.expr, scope: Scope, model: SemanticModel, depth: int) -> bool:
    if depth > _DEPTH:
        return False
    if isinstance(value, (ast.Name, ast.Attribute)):
        binding = model.jit_binding_for_name(value)
        if binding is not None:
            return binding.transform in _BATCHED_COMPILED
    if isinstance(value, ast.Call) and value.args and not isinstance(value.args[0], ast.Starred):
        transform = model.transform_of(value.func)
        if transform in _BATCHED_COMPILED:
            return True
        if transform in _TRACING_WRAPPERS or model.qualified_name(value.func) in _TRACING_WRAPPERS:
            return _jit_inside(value.args[0], scope, model, depth + 1)
        return False
    if not isinstance(value, ast.Name):
        return False
    found = bound_values(model, value.id, scope)
    if found is None:
        return False
    owner, values = found
    return bool(values) and all(not isinstance(v, ast.AugAssign) and _jit_inside(v, owner, model, depth + 1) for v in values)


def compiling_decorator(function: ast.AST, model: SemanticModel) -> ast.expr | None:
    """The compiling decorator of `function` (`@jax.jit`, `@partial(jax.jit, ...)`, `@eqx.filter_jit`,
    `@nnx.jit`, `@jax.pmap`), the lowest one where several are stacked (the first applied: it wraps the
    def's own function object); None when none compiles."""
    for decorator in reversed(getattr(function, "decorator_list", ())):
        use = model.decorator_transform(decorator)
        if use is not None and use.qualified in jaxapi.COMPILING:
            return decorator
    return None


def batching_over_compiled(function: ast.AST, model: SemanticModel) -> ast.expr | None:
    """The `vmap` decorator of `function` stacked directly over a compiling one (`@jax.vmap` then
    `@jax.jit` or `@partial(jax.jit, static_argnums=...)`): the name is bound to `vmap(jit(f))`,
    decorators applying from the lowest up. None where a compiling decorator sits above it
    (`@jax.jit @jax.vmap @jax.jit`: compiled as a whole) or none is stacked so."""
    decorators = getattr(function, "decorator_list", ())
    uses = [model.decorator_transform(decorator) for decorator in decorators]
    for index in range(len(decorators) - 1):
        outer, inner = uses[index], uses[index + 1]
        if outer is None or inner is None or outer.qualified not in jaxapi.VMAP_LIKE or inner.qualified not in jaxapi.COMPILING:
            continue
        if any(use is not None and use.qualified in jaxapi.COMPILING for use in uses[:index]):
            return None
        return decorators[index]
    return None
