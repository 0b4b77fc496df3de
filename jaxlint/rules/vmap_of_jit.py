"""## What it does
Flags `jax.vmap(jax.jit(f), ...)`, and `jax.vmap(g)` where `g` is a jitted function (`jax.jit` or
`eqx.filter_jit`: a name, a `self` attribute, or a decorated method reached through an object whose
class the model knows, `board.step` with `board = Board()` or a parameter annotated `Board`) or a callable built from one that traces it when
called: `functools.partial(g, params)`, `jax.grad(g)`, `jax.value_and_grad(g)`, `jax.jacfwd`/`jacrev`/
`hessian` of it, an inner `jax.vmap(g)` (`vmap(vmap(g))`, judged at the outer one), or a name bound to
one of these (semantic/compiled_wrappers.batched_jit_inside), outside traced code, and the same pair as stacked decorators, `@jax.vmap` (or
`@partial(jax.vmap, ...)`) directly over `@jax.jit` (decorators apply from the lowest up, so the name is
bound to `vmap(jit(f))`: semantic/compiled_wrappers.py), judged as that binding is where the `def` is
(a module-level or class-level name kept for its callers, a nested one returned or called in a loop);
not with a compiling decorator above the pair, wherever the batched function is kept to be called again:
bound at module level, in a class body or on an attribute (`self.v_step =
jax.vmap(jax.jit(env.step))`), returned by a function, or built or called in a loop (also in a
function called in a loop, a method too where the loop calls it through an object of its class,
`self.dynamics.step(s)` with `self.dynamics = Dynamics()`, `agent.act(x)` with `agent = Agent()`:
semantic/training_loops.runs_in_loop; or bound to a local name that is called in one; a notebook's `%timeit` line,
also one whose result is kept, `t = %timeit -o f(x)`, and a `%%timeit` cell call what they time
many times, as a loop does). No visible loop is needed:
a batched function kept this way is called from elsewhere, each call paying the cost below.

Not flagged, as principles:
- inside traced code: the inner `jit` is inlined into the outer program, the order does not matter;
  likewise a kept batched function whose every visible call is inside traced code, and one kept on
  an attribute (`self.step = jax.vmap(self._step)`) that no code of its module calls: it is called
  through the object that holds it, from other modules, typically inside a jitted rollout that
  steps a batched environment or buffer, and the cost needs a caller seen running eagerly;
- a batched function compiled as a whole right after (`jax.jit(jax.vmap(jax.jit(f)))`, or
  `g = jax.vmap(f)` then `g = jax.jit(g)`, also under a branch);
- one built or called in a loop whose every pass also runs compiled code that loops on the device (a
  rollout `lax.scan`ned over hundreds of steps, a `fori_loop` of updates: training_loops.compiled_call_loops_on_device)
  or sleeps on purpose a tenth of a second or more (semantic/pass_weight.py): the batching transform's
  fraction of a millisecond per pass is a few percent of the pass at most; not a loop nested in that
  pass, where the batching runs many times per heavy call;
- one used by a closure the function returns (a library may trace the closure: a tree search's
  `recurrent_fn`), or handed to another function as an argument: where it runs is not known;
- one that runs once: built and called on the spot, or bound to a local name called once, in a
  function that no loop calls; bound at module level and called only by module-level statements
  outside any loop (a script's one evaluation): the cost is paid once, and it is no more than
  `jit(vmap(f))` costs once: measured (CPU, jax 0.10.2, the `f` below), the first call of `vmap(jit(f))`
  compiles once as `jit(vmap(f))` does, 77 ms against 84 ms; only each later call differs (307 us
  against 10.5 us), so a few calls cost under a millisecond more;
- one never called: bound at a notebook's top level to a name no cell reads, or in a notebook's
  function that no cell reads (nothing imports a notebook's names): a per-call cost needs calls.

Test code is not flagged (a `test*` function, a `Test*` class, a test module): a test runs once on
small dummy inputs, so the cost this rule reports reaches no one; every rule whose finding is a cost
or the quality of computed values follows this one policy (semantic/test_code.py).

## Why is this bad?
`vmap` of a jitted function is not itself compiled. The inner `jit` stays one compiled call (the
batched program is cached), but every call of the batched function re-runs the batching transform
in Python: it traces `f`'s `jit` under `vmap`, looks the batched program up and dispatches it.
`jit(vmap(f))` does that work once and then each call is one cached dispatch. Measured here (CPU,
jax 0.10.2, `f(w, x) = tanh(w @ x).sum()` with a 16x16 `w` and 8 rows, best of 5 runs of 2,000 calls
with `block_until_ready`, on a shared 2-core machine): 172 us per call for `vmap(jit(f))` against
18 us for `jit(vmap(f))` (an earlier measurement on another CPU: 342 us against 7.6 us).
A wrapper in between changes nothing: `vmap(partial(g, w))` cost 739 us per call against 6.9 us for
`jit(vmap(partial(f, w)))`, `vmap(grad(g))` 4.8 ms against 7.5 us (same `f`, same machine under load:
the ratio, not the figures, is what carries over).
See "JIT compiling" in https://docs.jax.dev/en/latest/jit-compilation.html and
https://docs.jax.dev/en/latest/automatic-vectorization.html.

## Example
```python
batched = jax.vmap(jax.jit(predict), in_axes=(None, 0))
```

## Use instead
```python
batched = jax.jit(jax.vmap(predict, in_axes=(None, 0)))
```

## Fix safety
Swapping the transforms is safe when the inner `jit` has no options and the expression is at
module or class level: the same function computes the same values, `vmap` arguments are kept.
Inside a function body `jax.jit(jax.vmap(f))` would be a new function on every call and recompile
every time, so the fix (unsafe there) defines it once at module level, before the function, and
uses that name; offered only when `f` and the `vmap` arguments are module-level names bound by then.
When the inner `jit` has options (`static_argnums`,
`donate_argnums`, ...) their positions may not carry over to the batched function, so no fix is
offered.

## How the runtime mode confirms it
It counts compilations (one for both) and times a call of each form on the example inputs
(H100: 3.5x for eager `vmap(jit(f))`, 1.3-1.6x typical).
"""

from __future__ import annotations

import ast

from jaxlint.fixes import vmap_swap
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import compiled_wrappers, dead_code, flow, jaxapi, pass_weight
from jaxlint.semantic.model import FUNCTION_NODES, parent_of
from jaxlint.semantic.syntax import walk
from jaxlint.semantic.training_loops import bound_value_called_repeatedly, in_loop, runs_in_loop, runs_training_loop

# What one call costs, measured as the docstring says (CPU, jax 0.10.2).
_COST = "about 170 us of Python per call against 18 us for `jit(vmap(f))` on a CPU"


class VmapOfJit(Rule):
    code = "JAX402"
    name = "vmap-of-jit"
    summary = "`vmap` applied to a jitted function outside traced code"
    skips_test_code = True
    node_types = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)
    fix_availability = "sometimes"
    # `jax.vmap` is spelled `vmap` where it is imported or used, unless a project module re-exports it
    # under another name (`from utils import *`).
    required_text = ("vmap",)
    fires_through_project_imports = True

    def check(self, node: ast.AST, context) -> None:
        if not isinstance(node, ast.Call):
            self._check_decorators(node, context)
            return
        if context.qualified_name(node.func) != "jax.vmap" or not node.args:
            return
        if isinstance(node.args[0], ast.Starred) or context.scope(node).in_traced:
            return
        inner = node.args[0]
        model = context.model
        parent = parent_of(node)
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and model.transform_of(parent.func) in jaxapi.COMPILING:
            return  # `jax.jit(jax.vmap(f))`, also `jax.jit(jax.vmap(jax.jit(f)))`: the outer `jit` compiles it as a whole
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and model.transform_of(parent.func) in jaxapi.VMAP_LIKE:
            return  # `vmap(vmap(jit(f)))`: the outer `vmap` is the batched function called, judged there
        if isinstance(inner, ast.Call) and model.transform_of(inner.func) == "jax.jit" and inner.args:
            jitted = None
        elif compiled_wrappers.batched_jit_inside(inner, context.scope(node), model):
            jitted = snippet(context.text(inner), 60)
        else:
            return
        if _rewrapped_in_jit(node, model):
            return  # `g = jax.vmap(f)` then `g = jax.jit(g)`: the batched function is compiled as a whole
        target = _assigned_to(node)
        top_level_name = target.id if isinstance(target, ast.Name) and not context.scope(node).is_function else None
        if dead_code.never_called_in_notebook(node, model, context.source.filename, top_level_name):
            return  # a per-call cost needs calls: no cell reads the name, and nothing imports a notebook
        if not (_kept_for_later_calls(node, model) or _built_or_called_repeatedly(node, model)):
            return  # built and called once (a one-off evaluation): the cost is paid once
        if jitted is None:
            context.report(
                node,
                "`vmap` of `jit` re-runs the batching transform in Python on every call (the inner `jit` stays one "
                f"compiled call; {_COST}); use `jax.jit(jax.vmap(f, ...))`",
                fix=vmap_swap.swap_fix(node, inner, context),
            )
            return
        if isinstance(inner, (ast.Name, ast.Attribute)) and model.jit_binding_for_name(inner) is not None:
            context.report(
                node,
                f"`vmap` of jitted `{jitted}` re-runs the batching transform in Python on every call (the inner `jit` "
                f"stays one compiled call; {_COST}); wrap the batched function in `jax.jit` instead",
            )
            return
        context.report(
            node,
            f"`vmap` of `{jitted}`, which wraps a jitted function, re-runs the batching transform (and the wrapper's "
            f"own transforms) in Python on every call (the inner `jit` stays compiled; {_COST}); wrap the batched "
            "function in `jax.jit` instead",
        )


    def _check_decorators(self, function: ast.AST, context) -> None:
        """`@jax.vmap` stacked over `@jax.jit`: the name is bound to `vmap(jit(f))`
        (compiled_wrappers.batching_over_compiled), kept where the function is defined, and judged
        as a `name = jax.vmap(jax.jit(f))` binding there is."""
        model = context.model
        decorator = compiled_wrappers.batching_over_compiled(function, model)
        if decorator is None or model.decorator_transform(decorator).qualified != "jax.vmap":
            return  # (`nnx.vmap` over `nnx.jit` lifts module state: not the same cost, not judged here)
        scope = model.scope_for(decorator)
        if scope.in_traced:
            return
        name = function.name
        if _in_class_body(function):
            kept = not _calls_all_harmless(_attribute_calls(name, model), model, allow_module=False)
        elif not scope.is_function:
            if dead_code.never_called_in_notebook(function, model, context.source.filename, name):
                return
            calls = _name_calls(name, scope, model)
            if not calls and _handed_to_a_call(name, scope, model):
                return  # only passed on: where and how often it runs is not known
            kept = not _calls_all_harmless(calls, model, allow_module=True)
        else:
            kept = _local_name_escapes(name, scope, model) or (
                runs_in_loop(scope, model) and not runs_training_loop(scope, model)
            ) or any(in_loop(call) for call in _name_calls(name, scope, model))
        if not kept:
            return
        context.report(
            decorator,
            f"`@vmap` stacked over `@jit` binds `{name}` to `vmap(jit({name}))`: every call re-runs the batching "
            f"transform in Python (the inner `jit` stays one compiled call; {_COST}); put `@jax.jit` outermost",
        )


def _rewrapped_in_jit(vmapped: ast.Call, model) -> bool:
    """The name the `vmap` is bound to is compiled next: `g = jax.jit(g)` later in the same scope (also
    under a branch, `if use_jit: g = jax.jit(g)`: the other path has no `jit` inside either)."""
    statement = parent_of(vmapped)
    if not (isinstance(statement, ast.Assign) and statement.value is vmapped and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return False
    name = statement.targets[0].id
    scope = model.scope_for(vmapped)
    for target, value in scope.bindings:
        if (
            isinstance(target, ast.Name) and target.id == name and isinstance(value, ast.Call) and value.args
            and isinstance(value.args[0], ast.Name) and value.args[0].id == name
            and model.transform_of(value.func) in jaxapi.COMPILING
            and (value.lineno, value.col_offset) > (vmapped.lineno, vmapped.col_offset)
        ):
            return True
    return False


def _built_or_called_repeatedly(vmapped: ast.Call, model) -> bool:
    """The `vmap(jit(f))` is built in a loop or in a function called in one, or the callable it makes is
    called there (`batched = vmap(jit(f))` in a function, `batched(x)` in its loop)."""
    if in_loop(vmapped):
        loop = next(flow.enclosing_loops(vmapped), None)
        if loop is not None and (pass_weight.device_loop_every_pass(loop, model) or pass_weight.sleeps_every_pass(loop, model)):
            return False  # each pass runs a compiled device loop or sleeps: the Python overhead is a small share of it
        return True
    scope = model.scope_for(vmapped)
    if runs_in_loop(scope, model) and not runs_training_loop(scope, model):
        # (A function that runs a whole training or benchmark run per call, called once per
        # configuration, builds its `vmap` once per run: nothing repeats that matters.)
        return True
    parent = parent_of(vmapped)
    if isinstance(parent, ast.Call) and parent.func is vmapped:
        return False  # built and called on the spot, once
    return bound_value_called_repeatedly(vmapped, model)


def _kept_for_later_calls(vmapped: ast.Call, model) -> bool:
    """The batched function is kept where other code calls it: a module-level or class-level name, an
    attribute (`self.v_step = ...`), or what a function returns, directly or through a local name.
    Not when every call jaxlint sees is in traced code (compiled into that program) or, for a
    module-level name, a module-level statement outside loops (a script's one evaluation)."""
    target = _assigned_to(vmapped)
    scope = model.scope_for(vmapped)
    if target is None:
        return _returned(vmapped)
    if isinstance(target, ast.Attribute):
        calls = _attribute_calls(target.attr, model)
        if not calls:
            # Only other modules call it, through whatever object holds it: an environment or
            # buffer wrapper's batched methods are typically stepped inside a jitted rollout, where
            # the order of the transforms costs nothing. The finding needs a caller seen running eagerly.
            return False
        return not _calls_all_harmless(calls, model, allow_module=False)
    if not isinstance(target, ast.Name):
        return False
    if _in_class_body(vmapped):
        return not _calls_all_harmless(_attribute_calls(target.id, model), model, allow_module=False)
    if not scope.is_function:
        calls = _name_calls(target.id, scope, model)
        if not calls and _handed_to_a_call(target.id, scope, model):
            return False  # only passed on (`jax.jit(wrap(batched))`): where and how often it runs is not known
        return not _calls_all_harmless(calls, model, allow_module=True)
    # A local name: kept when the function hands it out (returns it, stores it on an attribute).
    return _local_name_escapes(target.id, scope, model)


def _assigned_to(value: ast.AST) -> ast.expr | None:
    """The target `value` is assigned to: `t = value`, `t: T = value`, or one element of
    `a, b = value_a, value_b`."""
    parent = parent_of(value)
    if isinstance(parent, ast.Tuple) and isinstance(parent_of(parent), ast.Assign) and parent_of(parent).value is parent:
        statement = parent_of(parent)
        if len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Tuple) and len(statement.targets[0].elts) == len(parent.elts):
            return statement.targets[0].elts[parent.elts.index(value)]
        return None
    if isinstance(parent, ast.Assign) and parent.value is value and len(parent.targets) == 1:
        return parent.targets[0]
    if isinstance(parent, ast.AnnAssign) and parent.value is value:
        return parent.target
    return None


def _returned(value: ast.AST) -> bool:
    return isinstance(parent_of(value), ast.Return)


def _in_class_body(node: ast.AST) -> bool:
    current = parent_of(node)
    while current is not None:
        if isinstance(current, ast.ClassDef):
            return True
        if isinstance(current, FUNCTION_NODES):
            return False
        current = parent_of(current)
    return False


def _attribute_calls(attribute: str, model) -> list[ast.Call]:
    return [call for call in model.calls_by_name().get(attribute, ()) if isinstance(call.func, ast.Attribute)]


def _name_calls(name: str, owner, model) -> list[ast.Call]:
    """Calls `name(...)` that reach the binding in `owner`."""
    return [call for call in model.calls_by_name().get(name, ()) if isinstance(call.func, ast.Name) and _sees_binding(call, name, owner, model)]


def _sees_binding(node: ast.AST, name: str, owner, model) -> bool:
    """`name` read at `node` is the one bound in `owner` (no scope in between binds it)."""
    current = model.scope_for(node)
    while current is not None and current is not owner and name not in current.local_names:
        current = current.parent
    return current is owner


def _handed_to_a_call(name: str, owner, model) -> bool:
    """The module-level `name` is passed as an argument somewhere in the module (`wrap(name)`)."""
    for node in model.nodes:
        if node.__class__ is not ast.Name or node.id != name or not isinstance(node.ctx, ast.Load):
            continue
        parent = parent_of(node)
        if isinstance(parent, ast.Call) and parent.func is not node and node in parent.args and _sees_binding(node, name, owner, model):
            return True
    return False


def _calls_all_harmless(calls: list[ast.Call], model, *, allow_module: bool) -> bool:
    """Calls jaxlint sees, each in traced code or (`allow_module`) a module-level statement outside
    any loop. No calls at all is not harmless: the function is called from elsewhere."""
    if not calls:
        return False
    for call in calls:
        scope = model.scope_for(call)
        if scope.in_traced:
            continue
        if allow_module and not scope.is_function and not in_loop(call) and not _in_class_body(call):
            continue
        return False
    return True


def _local_name_escapes(name: str, scope, model) -> bool:
    """`return name`, `self.attr = name` or `holder[k] = name` in the function that binds `name`. (Not
    a call in a closure the function returns: a library may trace that closure, as a tree search
    traces its `recurrent_fn`, and there the order of the transforms does not matter.)"""
    for node in walk(scope.node):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name) and node.value.id == name and model.scope_for(node) is scope:
            return True
        if (
            isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name
            and any(isinstance(target, (ast.Attribute, ast.Subscript)) for target in node.targets)
            and model.scope_for(node) is scope
        ):
            return True
    return False


RULE = VmapOfJit()
