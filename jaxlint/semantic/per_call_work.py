"""The whole computations a plain function of the module runs on every call, each where it is written.

`training_loops.eager_work_in` answers whether a function runs a whole computation (a network, a
gradient, an optimizer update) op by op when called outside `jit`, and names the first. A function
called on every iteration of a host loop (`agent.train(batch)`, `self.act(obs)`) runs every one of its
unconditional whole computations on every iteration: a gradient at one line, the optimizer update
two lines below, each dispatched op by op. The eager code is in the function, not at the loop's call:
someone reading the function sees `jax.value_and_grad(loss)(params, batch)` and no loop, and is the
one to jit it. This module lists those computations, each at its own line (the deepest call of this
module that is the computation: `self.policy(params, s)` with `self.policy = net.apply`), so that a
rule reporting the loop's call can also report the lines that do the work.

Only what runs on every call counts (`effects.unconditional_calls`, with the steady side of a warm-up
test and the common side of a host draw, as `eager_work_in` reads them); work in another module is
left to that module (a `foreign_work.ForeignWork` names no line here); a decorated function, one
rebound to its compiled version, and one that loops itself (a run of steps) have none.
"""

from __future__ import annotations

import ast
from weakref import WeakKeyDictionary

from jaxlint.semantic.foreign_work import ForeignWork
from jaxlint.semantic.host_code import callee_scope
from jaxlint.semantic.model import Scope, SemanticModel

_cache: "WeakKeyDictionary[SemanticModel, dict[int, tuple[ast.Call, ...]]]" = WeakKeyDictionary()


def computations_per_call(helper: Scope, model: SemanticModel) -> tuple[ast.Call, ...]:
    """Every whole computation (`training_loops.eager_model_call`) the plain function `helper` of this
    module runs op by op on every call, in the order it runs them, each as the call of this module's
    tree that is the computation; () where `eager_work_in` finds none."""
    from jaxlint.semantic.effects import unconditional_calls
    from jaxlint.semantic.host_draws import common_side
    from jaxlint.semantic.training_loops import eager_model_call, eager_work_in
    from jaxlint.semantic.warm_up import class_counters, steady_side

    cache = _cache.setdefault(model, {})
    key = id(helper.node)
    if key in cache:
        return cache[key]
    cache[key] = ()  # (recursion: none while being worked out)
    first = eager_work_in(helper, model)
    if first is None or isinstance(first, ForeignWork) or not isinstance(helper.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ()
    counters = class_counters(helper.class_node)

    def steady(test):
        side = steady_side(test, helper.node, counters, helper.class_node or helper.node)
        return side if side is not None else common_side(test, model)

    found: list[ast.Call] = []
    for inner in unconditional_calls(helper.node, steady):
        if model.scope_for(inner).node is not helper.node:
            continue  # in a lambda: runs when the lambda is called, if ever
        work = eager_model_call(inner, model, other_modules=False)
        if work is None or isinstance(work, ForeignWork) or not isinstance(work, ast.Call):
            continue
        if work is not inner:
            # The work sits in a function this one calls: its own lines, read the same way.
            deeper = callee_scope(inner, model)
            nested = computations_per_call(deeper, model) if deeper is not None and deeper is not helper else ()
            found.extend(nested or (work,))
        else:
            found.append(work)
    unique = tuple({id(call): call for call in found}.values())
    # (of calls nested in one another, `tx.update(jax.grad(loss)(p), s)`, the outer: one computation)
    unique = tuple(call for call in unique if not any(other is not call and _contains(other, call) for other in unique))
    cache[key] = unique
    return unique


def _contains(outer: ast.Call, inner: ast.Call) -> bool:
    return any(node is inner for node in ast.walk(outer))
