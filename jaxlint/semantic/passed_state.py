"""State a function is handed: its size is what every caller passes.

`def fit(params, batches): for x in batches: params = update(params, x)` carries `params`, a
parameter, so the function itself shows no size. Where every call of the function the program makes
is in sight, the size is that of what those calls pass: `fit(init_mlp(key), data)` with an MLP the
source sizes at hundreds of megabytes, `fit(small_net, data)` with one of a few thousand parameters.

Read only where all the calls are in sight (semantic/fixed_parameters.py: a function of this module,
not a method, whose name the module reads only as the callee of calls and that no other module of
the project names), each passing the parameter explicitly (not through `*args`/`**kwargs`, not left
to a default). The function must not bind the parameter anew except through updates of itself
(`params = update(params, x)`): a fresh value bound inside is its own size. Each passed argument is
sized where the call reads it (carried_state.known_small / known_large: a name is the binding that
reaches the call, placed on devices or not). The answer is "small" or "large" only where every call
agrees; a mix, or one argument of a size the source does not show, answers None.

Used by JAX401 (rules/missing_donation.py): state every caller passes small is not worth donating,
and in demonstration code, state every caller passes large is shown large.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.flow import dotted_name, target_elements


def passed_size(name: str, scope, model) -> str | None:
    """"small" or "large" where every call of the function owning `scope` passes its parameter
    `name` a value the source sizes on that side of 1 MB (see the module docstring), else None."""
    cache = model.__dict__.setdefault("_jaxlint_passed_sizes", {})
    key = (id(scope), name)
    if key not in cache:
        cache[key] = _passed_size(name, scope, model)
    return cache[key]


def _passed_size(name: str, scope, model) -> str | None:
    from jaxlint.semantic.fixed_parameters import handed_arguments

    arguments = handed_arguments(name, scope, model)
    if not arguments:
        return None
    sides = set()
    for caller, passed in arguments:
        side = _side(passed, caller, model)
        if side is None:
            return None
        sides.add(side)
    return sides.pop() if len(sides) == 1 else None


def _side(passed: ast.AST, caller, model) -> str | None:
    from jaxlint.semantic.reaching import reaching_value

    side = _sized(passed, caller, model)
    if side is not None or not isinstance(passed, ast.Name):
        return side
    # A name the program also rebinds by unpacking (`state, log = fit(state, data)`): the one plain
    # binding that reaches the call, when one does.
    values = [value for target, value in caller.bindings if value is not None and passed.id in {dotted_name(e) for e in target_elements(target)}]
    reached = reaching_value(passed, values)
    if reached is None:
        return None
    target = next((t for t, v in caller.bindings if v is reached), None)
    if not isinstance(target, ast.Name) or target.id != passed.id:
        return None  # unpacked from something else
    return _sized(getattr(reached, "value", reached) if isinstance(reached, ast.stmt) else reached, caller, model)


def _sized(value: ast.AST, caller, model) -> str | None:
    """"large" or "small" where the source sizes `value` (read in `caller`) on that side of the bar."""
    from jaxlint.semantic import carried_state

    if carried_state.known_large(value, caller, model):
        return "large"
    if carried_state.known_small(value, caller, model):
        return "small"
    return None
