"""## What it does
Flags `jax.jit(...)` (also `pmap`, `nnx.jit`, `eqx.filter_jit`) of a callable that is new every time
the `jit` runs (a lambda, a `partial`, a bound method of `self` or of an instance of a module class,
a nested `def`, `jax.grad(f)`), when the result is called right there; likewise a compiling decorator
on a def that runs again (`@jax.jit`, `@partial(jax.jit, ...)`, `@eqx.filter_jit`, `@nnx.jit` over a
def nested in a function or written in a loop body): a decorator is a call made where the `def`
statement runs, so each run binds the name to a new compiled callable over a new function
(semantic/compiled_wrappers.py; measured on CPU, jax 0.10.2: a nested decorated def called once per
call of its function compiles on every call, 5 of 5 for `@jax.jit`, `@eqx.filter_jit` and `@nnx.jit`,
90-123 ms each), judged as `name = jax.jit(nested_def)` with the same calls is (a batching or
argument-fixing wrapper called on the spot, `jax.vmap(name)(x)`, runs it too). And `nnx.jit` of any
function, a module-level one too: `nnx.jit` wraps what it is given in a new function on each build, so
`nnx.jit(f)` rebuilt compiles every time (5 of 5 rebuilds, flax 0.12.8), where `jax.jit`, `jax.pmap`
and `eqx.filter_jit` of a module-level function find their program again:

- in a loop: `jax.jit(lambda x: x + 1)(x)`, `jax.jit(partial(step, cfg))(s)`, `jax.jit(self.apply)`,
  `jax.jit(jax.grad(loss))`, or a `def` inside the loop body, jitted and called in the loop; this
  includes a lambda that captures per-iteration data (a device array, a NumPy array,
  `next(loader)`) and one that captures a per-iteration value the traced code uses only as a value
  (`for s in scales: jax.jit(lambda v: f(v) * s)(x)`, or `jax.jit(partial(f, scale=s))` where the
  module's `f` uses `scale` only as a value: combined by arithmetic or a comparison with traced
  values): passed as an argument, the value would not need a new program;
- per call of a function: `return jax.jit(lambda p: loss(p, batch))(params)` in a function body,
  whether or not a loop calling that function is in sight: every call of the function traces and
  compiles again;
- a `lax` loop (`scan`, `fori_loop`, `while_loop`) run outside `jit` over a body that is new on every
  run (a nested def, a lambda, a `partial`): JAX caches the loop's trace on the body's identity, so
  each run traces and compiles the whole loop again (measured on CPU: 42 ms per call of a 100-step
  scan over a nested def, 0.1 ms over a module-level body). Flagged at each call of its function in a
  loop of host code (module-level code, or a function that host code reaches or that does host-only
  work: semantic/host_code.py), or at the `lax` call when the loop around it builds the body.
  Not flagged there: a module-level body, a function no host loop is seen calling (a library helper
  may be traced by its caller), a loop over a few listed cases, and a sweep that hands the loop's
  values (not a `range` step count) to the call: each value may shape its own program.

Not flagged, as principles:
- what is built once: `f = jax.jit(g)` at module level, a module-level function jitted in a loop
  (the compilation cache finds it again: measured 1 compile in 5 rebuilds, then 26 us per call against
  4 us for a `jit` built once; not under `nnx.jit`, above), a function object kept alive and jitted
  again (an attribute bound once, `self.apply = net.apply` then `jax.jit(self.apply)` per step, or a
  parameter the loop never rebinds, `jit(apply_fn)` per batch: the same object, found again, 1 compile
  in 5 rebuilds; a bound method `self.method` is a new object at each read and compiles again unless an
  equal one is kept alive), a nested def jitted in a loop it is defined outside of,
  a jitted function built once and called in a loop, or built in an outer loop and called only in
  an inner loop (once per dataset, then per batch), a jitted function stored in a cache
  (`cache[key] = fn`, looked up before it is rebuilt); one built in a loop whose every iteration
  restores saved state from storage (an evaluation per checkpoint: `while True: state =
  restore_checkpoint(...)`) or runs a pass of compiled steps (an inner loop over a data loader, or
  of fifty or more steps, calling jitted code: an epoch): it compiles once per checkpoint or pass, a
  small share of the iteration (semantic/loop_cost.py, `heavy_iteration`);
- what runs once: a function that returns the jitted callable (a factory), calls it in its own
  loop, or runs a whole training or evaluation run per call (its own loop calls compiled code: the
  setup compiles once per run), unless a host loop of the module calls the function once per
  iteration beside other compiled work (`for u in range(n): batch = rollout(...); state =
  update(state, batch)` with `update` building `jax.jit(jax.value_and_grad(loss))` for its epochs
  over minibatches): then one call is one step of that loop, and it compiles every step (a call after
  which the code leaves the loop, `return fit(x, lr=lr / 3)` as a retry on divergence or a final
  refinement followed by `break`, runs at most once per run of the loop, not per iteration), and a function the analysis shows to run once: a script's entry
  point (`main`, `run`, `app`, or a function handed to a runner such as `app.run(main)`), a
  constructor (`__init__` or a classmethod building `cls(...)`: once per object, unless the module
  builds its objects in a loop), or one whose every call in the project is a module-level statement
  outside loops or in another function that runs once (the call sites of the project's other
  modules count, tests aside: `rendezvous()` at the end of a `train()` that a `main` calls once, or
  a data-sharding helper called by a script's top level, or a checkpoint-mapping helper called
  outside the loops of another module's initialiser by its role, `initialize_from_checkpoint` or
  `restore_state`, that its own module never calls: once per object or run; a function no code in
  the project calls is called from elsewhere, not once), or one called outside the loops of a function whose own loop
  is a whole training or evaluation run (a setup before the run, a final synchronisation of the
  hosts after it: once per run); code guarded to run once (lazy
  initialisation: under `if X is None:` or `if ... and not X:` whose branch sets X, also inside the
  loop, where the branch runs on one pass only; or after `if X is not None: return` with the body
  setting X); a function whose results Python caches by argument
  (`@functools.lru_cache`, `@functools.cache`, `@functools.cached_property`: one program per
  distinct arguments); an initialiser by its role (the callable is an `init`, whose result
  is bound or returned once) in a function no visible loop calls; a function that sets up state by
  its role (`initialize`, `init_*`, `setup`, `restore*`, `from_*`: an initialiser, a restore from
  saved state, an alternate construction from a source) and that no code of its module calls (a
  visible call still decides); and a function whose own body runs a `lax` loop outside `jit`
  (`lax.scan(self.step, ...)`: traced and compiled on every call anyway, one call is a whole run);
- what must compile per iteration: a callable built from configuration the loop changes (a rebound
  name used as a shape, a dtype, a static choice, a Python branch, a range bound, or a function it
  calls; a sweep's `config[k] = v`), loops over a mapping's keys (`for name in datasets:`,
  `.items()`) or over eight or fewer cases the source spells out: one program per case on purpose
  (also `range(n_steps)` with `n_steps = 2` bound once, here or in an enclosing function, and a
  function called only in such loops, also by a caller that `jax.grad` traces op by op outside any
  `jit`: a handful of compiles per run; a count read from the command line or a setting is the run's
  to change and keeps the finding);
  likewise per call, a callable built from configuration the function holds (a parameter or local
  named or annotated as settings, or read by upper-case keys, `config["NUM_ENVS"]`) and handed to
  the call that builds it or read where it may shape the program: one program per configuration,
  as in a sweep that runs one experiment per call; and, in a function no visible loop calls (here or
  in another module), a callable fixed by what the call holds: a bound method of an object the call
  is handed or builds (`jit(vmap(model.forward))`, `partial(self.network.init, ...)` on a network
  built by the call), or a nested def or lambda that calls a function of the call (`initializer(*args)`)
  or reads a value of the call as an index, a shape, a structural keyword, a size handed to a call
  that needs a Python value (`jnp.arange(0, length, stride)`, `jnp.zeros((n, d))`, `x.reshape(n, -1)`),
  a Python branch or an object's attribute: each call needs its own program, so compiling per call is inherent (a method
  of `self` itself, or arrays captured as values, are the same program on every call: still flagged);
- what never runs: per call, a notebook's function that no cell reads (nothing imports a notebook's
  names, unlike a module's, whose uncalled functions are called from elsewhere), and a module-level
  function of an application that no code of the project names (the checkout ships no package: no
  pyproject.toml, setup.py or setup.cfg, so nothing outside it imports the module; a package's
  uncalled functions are its users' to call): a per-call cost needs calls;
- test code, and anything in traced code, including code that runs only under a library's trace: a
  model function handed to an MCMC kernel (NumPyro's `NUTS(model)`, `HMC`, `SA`, ...: library data,
  `semantic/outer_trace.py`) and the functions nested in it run inside the sampler's compiled loop,
  where an inner `jit` is inlined and traced once; the same function also called directly outside
  the sampler is still flagged.

## Why is this bad?
`jit` caches compiled programs on the identity of the function it wraps (and its options). A lambda,
a `functools.partial`, a bound method, a nested `def` or a `jax.grad(f)` evaluated again is a new
object, so every call traces and compiles from scratch; fresh `partial` objects recompile every
time on jax 0.10 and 0.11 even when their arguments are equal. See "JIT compiling" and the caching
notes in https://docs.jax.dev/en/latest/jit-compilation.html#caching.

## Example
```python
for batch in batches:
    loss = jax.jit(partial(loss_fn, config))(params, batch)
```

## Use instead
```python
jitted_loss = jax.jit(partial(loss_fn, config))
for batch in batches:
    loss = jitted_loss(params, batch)
```

## Fix safety
The jitted function is built at module level (`NAME = jax.jit(...)` before the function), so it
compiles once for all calls, when everything it needs there is a module-level name; a lambda that
reads arrays of the function gets them as extra arguments (`jax.jit(lambda p, y: p + y)` called
with `y`); for a `pmap` those arguments are unmapped (`in_axes=None`), since a closure gave every
device the whole array, and no such fix is offered where the code sets `in_axes` or binds values
with `partial`. Otherwise, in a loop, it is built once before the loop when the wrapped callable and the
options read no name the loop assigns. It is unsafe: a lambda or `partial` evaluated earlier sees
the values its free names hold then, a captured value that becomes an argument is traced instead
of constant, and code that relied on a fresh trace (Python side effects at trace time, globals
that change) behaves differently.

## How the runtime mode confirms it
It counts compilations over repeated calls with the example inputs: the original compiles once per
iteration (or per call), the hoisted version once.
"""

from __future__ import annotations

import ast
import re

from jaxlint.fixes import jit_hoist
from jaxlint.rules.base import Rule
from jaxlint.semantic import carried_state, compiled_wrappers, dead_code, flow, jaxapi, loop_cost, outer_trace
from jaxlint.semantic.model import FUNCTION_NODES, VALUE_CALLS, parent_of
from jaxlint.semantic.flow import dotted_name
from jaxlint.semantic.syntax import argument as passed_argument, walk
from jaxlint.semantic.training_loops import (
    builds_initialiser, calls_in_host_loops, classmethod_constructor, framework_entry_point, function_called_in_loop,
    initialiser_name, lazily_initialised, runs_device_loop_per_call, runs_whole_run, setup_by_role,
)

_FACTORY_NAMES = re.compile(r"^(main|_main|run|app)$")
_CONSTRUCTORS = frozenset({"__init__", "__post_init__"})


class JitInLoop(Rule):
    code = "JAX302"
    name = "jit-in-loop"
    summary = "`jit` of a callable created per iteration or per call, called there"
    skips_test_code = True
    node_types = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)
    fix_availability = "sometimes"
    # A compiling transform is spelled `jit` or `pmap` where it is imported or used, unless a project
    # module re-exports it under another name, or it is a configured decorator.
    required_text = ("jit", "pmap", "scan", "fori_loop", "while_loop")
    fires_through_project_imports = True

    def check(self, node: ast.AST, context) -> None:
        if not isinstance(node, ast.Call):
            if node.decorator_list:
                _check_decorated(node, context)
            return
        model = context.model
        loop_kind = jaxapi.LAX_LOOP_BODY.get(model.qualified_name(node.func) or "")
        if loop_kind is not None:
            _check_lax_loop(node, loop_kind, context)
            return
        transform = model.transform_of(node.func)
        if transform not in jaxapi.COMPILING or not node.args or isinstance(node.args[0], ast.Starred):
            return
        scope = context.scope(node)
        if scope.in_traced or carried_state.in_test_code(node, str(context.source.filename), model):
            return  # a test compiles what it checks, often a new model per case
        if outer_trace.runs_under_library_trace(scope, model):
            return  # a sampler's model: traced inside its compiled loop, the inner `jit` inlined once
        loops = list(flow.enclosing_loops(node))
        wrapped = node.args[0]
        kind = _fresh_kind(wrapped, context, scope, loops[0] if loops else None)
        if kind is None and transform == "flax.nnx.jit" and isinstance(wrapped, (ast.Name, ast.Attribute)):
            # `nnx.jit` wraps what it is given in a new function each time it runs: even a module-level
            # function compiles again on every rebuild (compiled_wrappers: 5 compiles in 5 rebuilds).
            kind = f"`{context.text(wrapped)}` (`nnx.jit` wraps it in a new function on each build)"
        if kind is None:
            return
        called_name = _called_name(node)
        if called_name is not None and _memoised(called_name, scope):
            return  # `fn = cache.get(k)`, built on a miss and stored: compiled once per key
        immediate = isinstance(parent_of(node), ast.Call) and parent_of(node).func is node
        short = context.text(node.func)
        if loops:
            loop = loops[0]
            if _few_cases(loop, scope, model):
                return  # one program per named dataset, configuration or listed case: a handful, on purpose
            if lazily_initialised(node, within=loop):
                return  # `if step_fn is None: step_fn = jax.jit(...)` in the loop: built on the first pass only
            if not immediate and (called_name is None or not _called_in(called_name, loop)):
                return
            if not immediate and _called_only_in_inner_loops(called_name, loop):
                return  # built once per outer iteration (per dataset), then called many times: amortised
            if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and loop_cost.heavy_iteration(loop, model) is not None:
                return  # once per checkpoint restored or per pass of compiled steps: a small share of it
            reason = _recompiles_needlessly(wrapped, node, loop, scope, context)
            if reason is None:
                return
            if isinstance(reason, str):
                context.report(
                    node,
                    f"`{short}` of {kind} captures `{reason}`, which changes every iteration and is used only as a "
                    f"value in the traced code: every iteration compiles a new program; pass it as an argument and "
                    f"build the jitted function once, before the loop",
                )
                return
            fix = jit_hoist.hoist_fix(node, loops, called_name, immediate, context)
            context.report(
                node,
                f"`{short}` of {kind} runs in a loop: the callable is a new object every iteration, so every "
                f"call traces and compiles again; build the jitted function once, before the loop",
                fix=fix,
            )
            return
        if not scope.is_function or _runs_once(scope, context):
            return  # a script's one run (`main()`, a module-level call): it compiles once
        if lazily_initialised(node) or builds_initialiser(wrapped, node, scope, model):
            return  # lazy initialisation (`if self._params is None:` that sets it) or an init: once per object
        one_step = _runs_a_whole_run(scope, model) and _one_step_of_a_training_loop(scope, model)
        if not one_step and _runs_a_whole_run(scope, model):
            return  # a whole training or evaluation run per call: its setup compiles once per run
        if _shaped_by_configuration(wrapped, scope, context):
            return  # one program per configuration the call is handed (a sweep trial): needed, not wasted
        if _shaped_by_call_values(wrapped, scope, context) and not _runs_per_step(scope, context):
            return  # a one-shot builder over this call's model, shapes or functions: it compiles anyway
        if dead_code.never_called_in_notebook(node, model, context.source.filename):
            return  # a notebook's function no cell calls: a per-call cost needs calls
        if dead_code.never_called_in_application(scope.node, model):
            return  # an application's function no code of the project names: it never runs
        if immediate or (called_name is not None and _called_once_here(called_name, scope, in_loops=one_step)):
            context.report(
                node,
                f"`{short}` of {kind} inside `{scope.name}` compiles on every call of `{scope.name}`: "
                f"the callable is a new object each time; build the jitted function once, outside",
                fix=jit_hoist.hoist_fix(node, [], called_name, immediate, context),
            )


def _check_decorated(function: ast.AST, context) -> None:
    """A compiling decorator on a def that runs again: `@jax.jit def f` binds `f = jax.jit(f)` where the
    `def` statement runs (compiled_wrappers.compiling_decorator), so a def nested in a function, or in a
    loop body, is a new function jitted anew each time. Judged as `f = jax.jit(nested_def)` followed by
    the same calls is: in a loop that calls it, or per call of the function that calls it once."""
    model = context.model
    decorator = compiled_wrappers.compiling_decorator(function, model)
    own = model.scope_of_node.get(function)
    scope = own.parent if own is not None else None
    if decorator is None or scope is None or isinstance(parent_of(function), ast.ClassDef):
        return
    loops = list(flow.enclosing_loops(function))
    if not loops and not scope.is_function:
        return  # a module-level def: built once
    if scope.in_traced or carried_state.in_test_code(function, str(context.source.filename), model):
        return
    if outer_trace.runs_under_library_trace(scope, model):
        return
    name = function.name
    short = context.text(decorator.func if isinstance(decorator, ast.Call) and model.transform_of(decorator.func) else decorator)
    if loops:
        loop = loops[0]
        if _few_cases(loop, scope, model) or lazily_initialised(function, within=loop):
            return
        if not any(_runs_named(use) for use in _loads_of(name, loop)):
            return
        if _called_only_in_inner_loops(name, loop) or (
            isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and loop_cost.heavy_iteration(loop, model) is not None
        ):
            return
        if _recompiles_needlessly(None, decorator, loop, scope, context, function=function) is not True:
            return  # built from what the loop changes: one program per iteration on purpose
        context.report(
            decorator,
            f"`@{short}` on `{name}`, defined in a loop: the def makes a new function every iteration, so every "
            f"call traces and compiles again; define the jitted function once, before the loop",
        )
        return
    # (Cheap tests first: most nested jitted defs are returned, stored or called several times.)
    uses = [use for use in flow.walk_same_scope(scope.node) if isinstance(use, ast.Name) and use.id == name and isinstance(use.ctx, ast.Load)]
    if len(uses) != 1 or not _runs_named(uses[0]):
        return  # returned, stored, handed on, or called several times: not one build per call
    if any(isinstance(child, FUNCTION_NODES) and child is not function and _name_inside(child, name)
           for child in walk(scope.node) if child is not scope.node):
        return
    if lazily_initialised(function) or _shaped_by_configuration(function, scope, context):
        return  # built once per object, or one program per configuration the call is handed
    if initialiser_name(name) and not function_called_in_loop(scope, model):
        return  # an initialiser: once per model
    one_step = _runs_a_whole_run(scope, model) and _one_step_of_a_training_loop(scope, model)
    if not one_step and _runs_a_whole_run(scope, model):
        return  # a whole training or evaluation run per call: its setup compiles once per run
    if list(flow.enclosing_loops(uses[0])) and not one_step:
        return  # called in the function's own loop: once per call, many calls of one build
    if dead_code.never_called_in_notebook(function, model, context.source.filename):
        return
    if dead_code.never_called_in_application(scope.node, model):
        return
    if _shaped_by_call_values(function, scope, context) and not _runs_per_step(scope, context):
        return  # a one-shot builder over this call's objects: it compiles anyway
    if _runs_once(scope, context):
        return  # (last: it reads the project's other modules)
    context.report(
        decorator,
        f"`@{short}` on nested function `{name}` inside `{scope.name}` compiles on every call of `{scope.name}`: "
        f"the def makes a new function each time; define the jitted function once, outside",
    )


def _loads_of(name: str, region: ast.AST) -> list[ast.Name]:
    return [n for n in flow.walk_same_scope(region) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]


def _runs_named(use: ast.Name) -> bool:
    """The read `use` runs the callable there: `f(...)`, or a batching or argument-fixing wrapper of it
    called on the spot (`jax.vmap(f, ...)(...)`, `partial(f, x)(...)`)."""
    parent = parent_of(use)
    if isinstance(parent, ast.Call) and parent.func is use:
        return True
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is use:
        outer = parent_of(parent)
        return isinstance(outer, ast.Call) and outer.func is parent and dotted_name(parent.func) is not None and (
            dotted_name(parent.func).rsplit(".", 1)[-1] in ("vmap", "partial", "Partial"))
    return False


def _check_lax_loop(node: ast.Call, position: tuple[int, str], context) -> None:
    """A `lax` loop outside traced code over a body that is a new object on every run of the loop (a
    lambda, a `partial`, a nested def of the function): flagged where it runs repeatedly, in a host
    loop that builds the body each iteration, or at the calls of its function inside host loops."""
    model = context.model
    scope = context.scope(node)
    if scope.in_traced or model.runs_uncompiled(scope) or carried_state.in_test_code(node, str(context.source.filename), model):
        return
    body = passed_argument(node, *position)
    if body is None or isinstance(body, ast.Starred):
        return
    loops = [loop for loop in flow.enclosing_loops(node) if not isinstance(loop, ast.comprehension)]
    kind = _fresh_body_kind(body, scope, context, loops[0] if loops else None)
    if kind is None:
        return
    primitive = context.text(node.func)
    if loops:
        if kind[1] and not _few_cases(loops[0], scope, model):
            context.report(
                node,
                f"`{primitive}` outside `jit` over {kind[0]} built in this loop: the body is a new object every "
                f"iteration, so every iteration traces and compiles the loop again; define the body once before "
                f"the loop, or `jax.jit` the code that runs it",
            )
        return
    if not scope.is_function or isinstance(scope.node, ast.Lambda):
        return
    for call in calls_in_host_loops(scope, model):
        loop = next(iter(flow.enclosing_loops(call)), None)
        if loop is not None and not isinstance(loop, ast.comprehension) and _few_cases(loop, model.scope_for(call), model):
            continue
        if loop is not None and _sweeps_into(loop, call, context):
            continue  # `for size in sizes: f(x, size)`: one program per value swept, on purpose
        context.report(
            call,
            f"`{scope.name}` runs `{primitive}` outside `jit` over {kind[0]} it defines per call (line {node.lineno}): "
            f"every call in this loop traces and compiles the loop again; `jax.jit` `{scope.name}` (or define the "
            f"body once, outside it)",
        )


def _sweeps_into(loop: ast.AST, call: ast.Call, context) -> bool:
    """The loop walks values other than a step count (not `range(...)`) and hands its target to the
    call: a sweep over settings, where each value may shape the program."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = loop.iter
    if isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) in ("builtins.range", "builtins.enumerate"):
        inner = iterable.args[0] if iterable.args else None
        if context.qualified_name(iterable.func) == "builtins.range" or (
            isinstance(inner, ast.Call) and context.qualified_name(inner.func) == "builtins.range"
        ):
            return False
    targets = flow.target_names(loop.target)
    arguments = [*call.args, *(k.value for k in call.keywords)]
    return any(isinstance(n, ast.Name) and n.id in targets for argument in arguments for n in walk(argument))


def _fresh_body_kind(body: ast.expr, scope, context, loop) -> tuple[str, bool] | None:
    """(what the body is, whether it is built inside `loop`) when it is a new object on every run of
    the function: a lambda, a `functools.partial`, or a def nested in the function. None for a
    module-level function, a method or anything else the loop reuses."""
    if isinstance(body, ast.Lambda):
        return "a lambda", True
    if isinstance(body, ast.Call):
        if context.qualified_name(body.func) in ("functools.partial", "jax.tree_util.Partial") and body.args:
            return "a `functools.partial`", True
        return None
    if not isinstance(body, ast.Name):
        return None
    resolved = context.model.resolve_function(body, scope)
    if resolved is None or resolved[0] is None:
        return None
    function = resolved[0]
    if function.parent is not scope or not scope.is_function:
        return None
    inside = loop is not None and any(ancestor is loop for ancestor in _ancestors(function.node))
    return f"nested function `{body.id}`", inside


def _fresh_kind(wrapped: ast.expr, context, scope, loop) -> str | None:
    """What makes the wrapped callable a new object each evaluation, or None when it is not."""
    model = context.model
    if isinstance(wrapped, ast.Lambda):
        return "a lambda"
    if isinstance(wrapped, ast.Call):
        qualified = context.qualified_name(wrapped.func)
        if qualified in ("functools.partial", "jax.tree_util.Partial") and wrapped.args:
            return "a `functools.partial`"
        if model.transform_of(wrapped.func) is not None and wrapped.args:
            return f"`{context.text(wrapped.func)}(...)`"
        return None
    if isinstance(wrapped, ast.Attribute):
        if context.qualified_name(wrapped) is not None:
            return None  # a module attribute: one object
        owner = wrapped.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls") and scope.has_self:
            if context.model.resolve_function(wrapped, scope) is not None:
                return "a bound method"
        if isinstance(owner, ast.Name) and _method_of_instance(owner.id, wrapped.attr, scope, context):
            return "a bound method"
        return None
    if isinstance(wrapped, ast.Name):
        resolved = model.resolve_function(wrapped, scope)
        if resolved is None or resolved[0] is None:
            return None
        function = resolved[0]
        if function.parent is None or not function.parent.is_function:
            return None
        if function.parent is not scope:
            return None
        if loop is not None:
            # A nested def is new per call of the enclosing function, but the same object in every
            # iteration unless the def itself sits in the loop.
            inside = any(ancestor is loop for ancestor in _ancestors(function.node))
            return "a function defined in this loop" if inside else None
        return f"nested function `{wrapped.id}`"
    return None


def _recompiles_needlessly(wrapped: ast.expr | None, node: ast.AST, loop, scope, context, function=None) -> bool | str | None:
    """True when the callable is the same every iteration or differs only by arrays it captures; the
    name of a per-iteration capture the traced code uses only as a value (`lambda v: f(v) * scale`
    in `for scale in scales:`), which an argument would carry without recompiling; None otherwise.

    A callable that captures per-iteration configuration (a dtype, a shape, a per-iteration simulator
    function, a value a Python branch tests) must compile once per iteration anyway: that is a
    design, not an accident.
    """
    used = flow.loaded_names(node)
    defined_here: set[str] = set()
    if function is not None:  # a decorated def (`node` its decorator): what the def reads
        used |= flow.loaded_names(function)
        defined_here.add(function.name)
    elif isinstance(wrapped, ast.Name):
        resolved = context.model.resolve_function(wrapped, scope)
        if resolved is not None and resolved[0] is not None and resolved[0].parent is context.model.module_scope and scope.is_function:
            pass  # a module-level function read in a function's loop: it reads its own names or globals, never the loop's
        elif resolved is not None and resolved[0] is not None:
            function = resolved[0].node
            used |= flow.loaded_names(function)
            defined_here.add(wrapped.id)
    elif isinstance(wrapped, ast.Lambda):
        function = wrapped
    dependencies = (used & (flow.assigned_in(loop) | _mutated_in(loop))) - defined_here
    if not dependencies:
        return True
    device = context.model.device_names(scope)
    if any(device.get(name) for name in dependencies):
        return True
    # Data captured per iteration (a NumPy batch, `next(loader)`) is an argument in disguise, not configuration.
    if any(_bound_to_data(name, loop, context) for name in dependencies):
        return True
    if function is not None and _only_in_traced_body(dependencies, node):
        values = sorted(name for name in dependencies if _used_only_as_value(name, function))
        if len(values) == len(dependencies):
            return values[0]
    if isinstance(wrapped, ast.Call) and context.qualified_name(wrapped.func) == "functools.partial":
        return _partial_value_capture(wrapped, dependencies, node, scope, context)
    return None


_CONFIGURATION_NAMES = re.compile(r"(^|_)(config|configs|cfg|conf|hparams|hyperparams|settings|options|flags|args|spec)$", re.IGNORECASE)
_CONFIGURATION_ANNOTATIONS = frozenset({"int", "str", "bool", "dict", "Dict", "Mapping", "DictConfig", "ConfigDict", "Namespace"})


def _shaped_by_configuration(wrapped: ast.expr, scope, context) -> bool:
    """The callable is built from configuration this call of the function holds: a parameter or a
    local of the function that is configuration (named or annotated so, or read by string keys,
    `config["NUM_ENVS"]`) and that reaches the program other than as a plain value: handed to the
    call that builds the callable (`jax.vmap(make_train(config))`) or read where it may shape the
    program (a shape, a branch, a range bound). Each new configuration needs its own program, so
    compiling per call is the design (one compilation per sweep trial), not a forgotten hoist."""
    local = set(scope.params) | set(scope.keyword_params) | scope.local_names
    captured = flow.loaded_names(wrapped) & local
    if not captured:
        return False
    device = context.model.device_names(scope)
    configuration = {name for name in captured if not device.get(name) and _is_configuration(name, scope, context)}
    if not configuration:
        return False
    if isinstance(wrapped, ast.Lambda):
        return not all(_used_only_as_value(name, wrapped) for name in configuration)
    return True


# Keyword arguments that fix a program's structure, not a value in it.
_STRUCTURE_KEYWORDS = re.compile(r"^(shape|shapes|axis|axes|dtype|num_\w+|n_\w+|size|sizes|chunk_size|block_size|repeats|length|dim|dims|features|static\w*)$")
_ARRAY_ATTRIBUTES = frozenset({*jaxapi.ARRAY_METHODS, "T", "at", "real", "imag", "astype", "reshape"})


def _shaped_by_call_values(wrapped: ast.expr, scope, context) -> bool:
    """The callable is built from what this call of the function holds, in a way that fixes the
    program, not as a value in it: a bound method of an object of the call (`jit(vmap(model.forward))`,
    `jit(partial(self._model.init, train=False))` on a model built per call), or a nested def or lambda
    that calls a function of the call (`initializer(*args)`), or reads a value of the call as an index,
    a shape, a static choice or an object's attribute (`arr[sl]`, `np.repeat(x, num_experts)`,
    `chunk_size=hparams["CHUNK"]`). Each call needs its own program: a compile per call is inherent
    unless the same call repeats (`_runs_per_step`). Arrays captured as values (`lambda p: loss(p, batch)`)
    do not count: passed as arguments they would share one program."""
    local = (set(scope.params) | set(scope.keyword_params) | scope.local_names) - {"self", "cls"}
    device = context.model.device_names(scope)
    callee = _unwrapped_callee(wrapped, context)
    if isinstance(callee, ast.Attribute):
        chain = [callee]
        while isinstance(chain[-1].value, ast.Attribute):
            chain.append(chain[-1].value)
        root = chain[-1].value
        if isinstance(root, ast.Name) and root.id in local and not device.get(root.id):
            return True  # a bound method of an object this call is handed or builds (`model.forward`)
        if isinstance(root, ast.Name) and root.id == "self" and len(chain) > 1:
            # `self._model.init` where this call builds `self._model`: a new model per call. (A method of
            # `self` itself is the same program on every call of the same object.)
            return chain[-1].attr in _attributes_assigned(scope.node)
        return False
    function = callee
    if isinstance(callee, ast.Name):
        resolved = context.model.resolve_function(callee, scope)
        if resolved is None or resolved[0] is None or resolved[0].parent is not scope:
            return False
        function = resolved[0].node
    if not isinstance(function, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return _reads_call_values(function, scope, local, device, context, set())


def _reads_call_values(function: ast.AST, scope, local: set[str], device, context, seen: set[str]) -> bool:
    """`function` reads a value of this call of `scope` where it fixes the program, itself or through a
    def nested in `scope` that it reads (`vmap(witness)(x)` with `witness` calling a method of the
    call's `target`): a nested def is code of the same call, whatever it captures it captures for the
    jitted function too."""
    free = {n.id for n in walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    own = _traced_names(function) | (flow.assigned_in(function) if not isinstance(function, ast.Lambda) else set())
    captured = {name for name in (free & local) - own if not device.get(name)}
    if any(_fixes_the_program(name, function, context) for name in captured):
        return True
    for name in sorted(captured - seen):
        nested = scope.defs.get(name)
        if nested is not None and nested.parent is scope:
            seen.add(name)
            if _reads_call_values(nested.node, scope, local, device, context, seen):
                return True
    return False


def _attributes_assigned(function: ast.AST) -> set[str]:
    """`self.X = ...` in the function's own body."""
    return {
        target.attr for node in flow.walk_same_scope(function) if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
    }


def _unwrapped_callee(wrapped: ast.expr, context) -> ast.expr:
    """The function under transforms and `partial`: `jax.value_and_grad(loss_fn)` -> `loss_fn`."""
    while isinstance(wrapped, ast.Call) and wrapped.args:
        qualified = context.qualified_name(wrapped.func)
        if qualified in ("functools.partial", "jax.tree_util.Partial") or context.model.transform_of(wrapped.func) is not None:
            wrapped = wrapped.args[0]
            continue
        break
    return wrapped


def _fixes_the_program(name: str, function: ast.AST, context=None) -> bool:
    """A read of the captured `name` that shapes the program: called, an object's attribute or
    method (not an array's), an index, a range bound, a structural keyword, a Python branch, or a
    size handed to a call that needs a Python value there (`jnp.arange(length)`, `jnp.zeros((n, d))`,
    `x.reshape(n, -1)`: the semantic model's value-demanding calls)."""
    for read in walk(function):
        if not (isinstance(read, ast.Name) and read.id == name and isinstance(read.ctx, ast.Load)):
            continue
        parent = parent_of(read)
        if isinstance(parent, ast.Call) and parent.func is read:
            return True
        if isinstance(parent, ast.Attribute) and parent.attr not in _ARRAY_ATTRIBUTES:
            return True
        node = read
        while isinstance(parent, (ast.Subscript, ast.Attribute, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.Starred)):
            if isinstance(parent, ast.Subscript) and node is parent.slice:
                return True
            node, parent = parent, parent_of(parent)
        if isinstance(parent, ast.keyword) and parent.arg is not None and _STRUCTURE_KEYWORDS.match(parent.arg):
            return True
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("range", "len", "int"):
            return True
        if context is not None and isinstance(parent, ast.Call) and node is not parent.func and _sizes_an_array(parent, context):
            return True
        if _in_static_position(node):
            return True
    return False


def _sizes_an_array(call: ast.Call, context) -> bool:
    """A call whose arguments are sizes the program is built for: an array constructor of JAX
    (`jnp.arange`, `jnp.zeros`, `jnp.eye`, ...) or a `reshape`/`broadcast_to` (model.VALUE_CALLS)."""
    qualified = context.qualified_name(call.func) or ""
    if qualified.startswith("jax.numpy.") and qualified in VALUE_CALLS:
        return True
    return not qualified and isinstance(call.func, ast.Attribute) and call.func.attr in ("reshape", "broadcast_to")


def _runs_per_step(function_scope, context) -> bool:
    """Some call of the function that jaxlint sees runs in a loop (not over a few listed cases), here
    or in another module of the project: the same program is then built again and again."""
    model = context.model
    for caller in model.scopes:
        if caller.in_traced and not model.runs_uncompiled(caller):
            continue
        for call in caller.calls:
            if _calls_function(call, function_scope, caller, context):
                if [loop for loop in flow.enclosing_loops(call) if not _few_cases(loop, caller, model)]:
                    return True
    return _called_per_step_from_other_modules(function_scope, context)


def _is_configuration(name: str, scope, context) -> bool:
    arguments = getattr(scope.node, "args", None)
    if isinstance(arguments, ast.arguments) and any(v is not None and v.arg == name for v in (arguments.vararg, arguments.kwarg)):
        return False  # `*args`, `**kwargs`: whatever the caller passes, arrays included
    if _CONFIGURATION_NAMES.search(name):
        return True
    parameter = scope.param_nodes.get(name) if hasattr(scope, "param_nodes") else None
    annotation = getattr(parameter, "annotation", None)
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if annotation is not None and (dotted_name(annotation) or "").rsplit(".", 1)[-1] in _CONFIGURATION_ANNOTATIONS:
        return True
    # Read by string keys (`config["NUM_ENVS"]`): a mapping of settings, not arrays.
    return any(
        isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name
        and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) and node.slice.value.isupper()
        for node in flow.walk_same_scope(scope.node)
    )


def _partial_value_capture(wrapped: ast.Call, dependencies: set[str], node: ast.Call, scope, context) -> str | None:
    """`partial(step, scale=scale)` with a per-iteration `scale` that the module's `step` uses only as
    a value: the name of that capture, else None."""
    if not wrapped.args or _reads_any(wrapped.args[0], dependencies) or not _only_in_traced_body(dependencies, node):
        return None
    resolved = context.model.resolve_function(wrapped.args[0], scope)
    if resolved is None or resolved[0] is None or resolved[1] or isinstance(resolved[0].node, ast.Lambda):
        return None  # (an inner partial binds positions we would have to shift)
    function = resolved[0]
    if function.has_self:
        return None
    bound: dict[str, str] = {}
    for position, argument in enumerate(wrapped.args[1:]):
        if not _reads_any(argument, dependencies):
            continue
        if not isinstance(argument, ast.Name) or position >= len(function.params):
            return None
        bound[argument.id] = function.params[position]
    for keyword in wrapped.keywords:
        if not _reads_any(keyword.value, dependencies):
            continue
        if keyword.arg is None or not isinstance(keyword.value, ast.Name):
            return None
        bound[keyword.value.id] = keyword.arg
    if set(bound) != dependencies:
        return None
    parameters = set(bound.values())
    if all(_used_only_as_value(parameter, function.node, exclude=parameters) for parameter in parameters):
        return sorted(bound)[0]
    return None


def _reads_any(expression: ast.AST, names: set[str]) -> bool:
    return bool(flow.loaded_names(expression) & names)


def _only_in_traced_body(names: set[str], jit_call: ast.expr) -> bool:
    """The names are read only inside the wrapped function's body, not by the `jit` call's options.
    A bare decorator (`@jit`) has no options."""
    if not isinstance(jit_call, ast.Call):
        return True
    outside = {n.id for argument in [*jit_call.args[1:], *(k.value for k in jit_call.keywords)] for n in walk(argument) if isinstance(n, ast.Name)}
    return not (names & outside)


_VALUE_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult)


def _traced_names(function: ast.AST, exclude: set[str] = frozenset()) -> set[str]:
    """The function's parameters (less those `exclude` names: bound by a `partial`), and local names
    assigned from expressions that read them."""
    arguments = function.args
    traced = {arg.arg for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    traced |= {arg.arg for arg in (arguments.vararg, arguments.kwarg) if arg is not None}
    traced -= exclude
    if isinstance(function, ast.Lambda):
        return traced
    assignments = [n for n in walk(function) if isinstance(n, ast.Assign)]
    changed = True
    while changed:
        changed = False
        for assignment in assignments:
            if flow.loaded_names(assignment.value) & traced:
                for target in assignment.targets:
                    new = flow.target_names(target) - traced
                    if new:
                        traced |= new
                        changed = True
    return traced


def _used_only_as_value(name: str, function: ast.AST, exclude: set[str] = frozenset()) -> bool:
    """Every read of `name` in the traced function is combined by arithmetic or a comparison with a
    traced value (`f(v) * scale`, `x > threshold`): it becomes a constant of the program, which an
    argument would carry as well. A read anywhere else (a shape, `astype(dtype)`, `range(n)`, `if
    flag:`, an index, a call of it or handed to a call) may shape the program: not only a value."""
    traced = _traced_names(function, exclude)
    reads = [n for n in walk(function) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if not reads:
        return False
    for read in reads:
        if not _combined_with_traced(read, traced):
            return False
    return True


def _combined_with_traced(read: ast.Name, traced: set[str]) -> bool:
    child, parent = read, parent_of(read)
    while isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)):
        if isinstance(parent, ast.BinOp) and not isinstance(parent.op, _VALUE_OPERATORS):
            return False
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            return False
        if isinstance(parent, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in parent.ops):
            return False
        siblings = [parent.left, parent.right] if isinstance(parent, ast.BinOp) else [parent.left, *parent.comparators] if isinstance(parent, ast.Compare) else []
        if any(sibling is not child and flow.loaded_names(sibling) & traced for sibling in siblings):
            return not _in_static_position(parent)
        child, parent = parent, parent_of(parent)
    return False


def _in_static_position(expression: ast.AST) -> bool:
    """Tested by a Python `if`/`while`/ternary/assert (a traced value there is an error anyway)."""
    parent = parent_of(expression)
    while isinstance(parent, (ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.Compare)):
        expression, parent = parent, parent_of(parent)
    return isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and expression is parent.test


def _memoised(name: str, scope) -> bool:
    """The jitted function bound to `name` is stored in a container or attribute (`cache[key] = fn`,
    `self._fns[k] = fn`): a memo, looked up on later iterations or calls instead of rebuilt."""
    for node in flow.walk_same_scope(scope.node):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name:
            if any(isinstance(target, (ast.Subscript, ast.Attribute)) for target in node.targets):
                return True
    return False


def _mutated_in(loop: ast.AST) -> set[str]:
    """Names whose object the loop changes in place: `config[k] = v`, `cfg.lr = v` (a sweep)."""
    return {change.name for change in flow.changes_in_place(loop, None, nested=False) if change.kind != "method" and not change.deleted}


def _few_cases(loop: ast.AST, scope, model=None) -> bool:
    """A loop over a mapping's keys or over a few listed cases: one program per case is on purpose.
    So is a loop whose count the source fixes at a handful (`for i in range(num_steps)` with
    `num_steps = 2` bound once, here or in an enclosing function: semantic/loop_cost.py): a handful of
    programs per run, each one compile, nothing a user waits on per step."""
    if flow.iterates_mapping(loop) or flow.iterates_few_literal_cases(loop, scope):
        return True
    if model is None or not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = loop.iter
    if not (isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) == "builtins.range" and iterable.args
            and not iterable.keywords and all(_literal_count(argument, scope) for argument in iterable.args)):
        return False  # (a count read from the command line, a setting or a file is the run's to change)
    count = loop_cost.loop_iterations(loop, scope, model)
    return count is not None and count <= flow.FEW_ITERATIONS


def _literal_count(node: ast.expr, scope) -> bool:
    """An integer spelled in the source: a literal, arithmetic of literals, or a name that its scope
    (or an enclosing one) binds once, to such a value (`n_stages = 3`)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _literal_count(node.left, scope) and _literal_count(node.right, scope)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _literal_count(node.operand, scope)
    if not isinstance(node, ast.Name):
        return False
    owner = scope
    while owner is not None and node.id not in owner.local_names:
        owner = owner.parent
    if owner is None or node.id in owner.param_nodes:
        return False
    values = [value for target, value in owner.bindings if isinstance(target, ast.Name) and target.id == node.id]
    stores = [n for n in walk(owner.node) if isinstance(n, ast.Name) and n.id == node.id and not isinstance(n.ctx, ast.Load)]
    return len(values) == 1 and len(stores) == 1 and values[0] is not None and _literal_count(values[0], owner)


_MEMOISING = frozenset({"functools.lru_cache", "functools.cache", "functools.cached_property"})


def _cached_by_arguments(function_scope, model) -> bool:
    """A function whose results Python caches by argument (`@functools.lru_cache`, `@functools.cache`,
    `@functools.cached_property`): a call with arguments seen before returns the callable built the
    first time, so a jit built in its body compiles once per distinct arguments, as it must."""
    node = function_scope.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(model.qualified_name(d.func if isinstance(d, ast.Call) else d) in _MEMOISING for d in node.decorator_list)


def _runs_once(function_scope, context, depth: int = 2) -> bool:
    """Whether the analysis shows that this function runs once: it is a script's entry point
    (`main`, `run`, `app`), or every call of it jaxlint sees is a module-level statement outside any
    loop, or in a function that itself runs once, or in a loop over a few listed cases (one program
    each, on purpose). A function no visible code calls is called from elsewhere: not once. A
    method counts calls through an instance of its class (`trainer = Trainer(); trainer.step(...)`)."""
    if _FACTORY_NAMES.match(function_scope.name):
        return True
    model = context.model
    if _cached_by_arguments(function_scope, model):
        return True  # `@functools.lru_cache`: the body runs once per distinct arguments, one program each
    if framework_entry_point(function_scope, model):
        return True  # `app.run(main)`: the framework calls it once
    if (function_scope.name in _CONSTRUCTORS and function_scope.class_node is not None) or classmethod_constructor(function_scope):
        # Runs once per object: a learner, an environment, a model built once, unless the module
        # builds its objects in a loop.
        class_name = function_scope.class_node.name
        constructions = [call for call in model.calls_by_name().get(class_name, ()) if isinstance(call.func, ast.Name)]
        return not any(list(flow.enclosing_loops(call)) for call in constructions)
    # A caller traced only op by op (`jax.grad(simulate)(x)` outside any `jit`) runs its calls as often
    # as an untraced one does.
    calls = [
        (scope, call) for scope in model.scopes if not scope.in_traced or model.runs_uncompiled(scope)
        for call in scope.calls if _calls_function(call, function_scope, scope, context)
    ]
    if depth == 2 and setup_by_role(function_scope) and not any(list(flow.enclosing_loops(call)) for _, call in calls):
        # An initialiser by its role (`initialize`, `from_restart_file`) that no loop here calls runs
        # once per object or run. (Only for the function that compiles: a function it calls may be
        # called per step from elsewhere as well.)
        return True
    if not calls:
        return _called_once_from_other_modules(function_scope, context)
    for caller, call in calls:
        if caller is function_scope:
            return False  # recursion
        if [loop for loop in flow.enclosing_loops(call) if not _few_cases(loop, caller, model)]:
            return False
        if caller.is_function and (depth == 0 or not _runs_once(caller, context, depth - 1)):
            if list(flow.enclosing_loops(call)) or not _runs_a_whole_run(caller, model):
                return False
            # Called outside the loops of a function whose own loop is a whole training or
            # evaluation run (setup before it, a final synchronisation after it): once per run.
    # Every call this module makes runs once; so must those of the project's other modules.
    return not _called_per_step_from_other_modules(function_scope, context)


def _called_per_step_from_other_modules(function_scope, context) -> bool:
    model = context.model
    project = model.project
    if project is None or function_scope.parent is not model.module_scope or function_scope.class_node is not None:
        return False
    return project.calls_per_step_into(function_scope.name, tuple(model.extra_traced)) is True


def _called_once_from_other_modules(function_scope, context) -> bool:
    """A module-level function this module never calls, whose every call in the project's other
    modules runs once (a setup or synchronisation helper called from an entry point, from module-level
    code, or from a function whose own loop is a whole run): the whole-program call sites
    (semantic/callers.calls_per_step_into). None seen, or one that may run per step: not once."""
    model = context.model
    project = model.project
    if project is None or function_scope.parent is not model.module_scope or function_scope.class_node is not None:
        return False
    return project.calls_per_step_into(function_scope.name, tuple(model.extra_traced)) is False


def _runs_a_whole_run(function_scope, model) -> bool:
    """The function's own body has a loop that calls compiled code, directly or through a local
    helper (`for it in range(n): state = run_epoch(state)` with `run_epoch` calling a pmapped step), or
    a `lax` loop run outside `jit` (traced and compiled again on every call: a whole run per call)."""
    return runs_whole_run(function_scope, model) or runs_device_loop_per_call(function_scope, model)


def _one_step_of_a_training_loop(function_scope, model) -> bool:
    """A function with a loop of its own (an update's epochs over minibatches) that a host loop of the
    module calls once per iteration beside other compiled work (`for update in range(n): storage =
    rollout(...); state = update_ppo(state, storage)`): one call is one step of that training loop,
    not a whole run, so what it compiles per call it compiles every step."""
    from jaxlint.semantic.training_loops import loop_body

    for call in calls_in_host_loops(function_scope, model):
        loop = next(iter(flow.enclosing_loops(call)), None)
        if loop is None or isinstance(loop, ast.comprehension) or _few_cases(loop, model.scope_for(call), model):
            continue
        if any(
            isinstance(other, ast.Call) and other is not call and model.jit_binding_for_call(other) is not None
            for other in loop_body(loop)
        ):
            return True
    return False


def _calls_function(call: ast.Call, function_scope, caller, context) -> bool:
    resolved = context.model.resolve_function(call.func, caller)
    if resolved is None:
        return _calls_method_of(call, function_scope, caller, context)
    return resolved[0] is function_scope


def _called_only_in_inner_loops(name: str, loop: ast.AST) -> bool:
    """Every call of `name` inside `loop` sits in a loop nested inside it."""
    calls = [
        child for child in flow.walk_same_scope(loop)
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == name
    ]
    return bool(calls) and all(
        any(inner is not loop for inner in _loops_up_to(call, loop)) for call in calls
    )


def _loops_up_to(node: ast.AST, outer: ast.AST):
    for enclosing in flow.enclosing_loops(node):
        if enclosing is outer:
            return
        if isinstance(enclosing, (ast.For, ast.AsyncFor, ast.While)):
            yield enclosing


def _calls_method_of(call: ast.Call, method_scope, caller, context) -> bool:
    """`obj.name(...)` where `obj` is bound only to `Class(...)` and `name` is this method of `Class`."""
    class_node = method_scope.class_node
    func = call.func
    if class_node is None or not isinstance(func, ast.Attribute) or func.attr != method_scope.name:
        return False
    if not isinstance(func.value, ast.Name):
        return False
    return _instance_class(func.value.id, caller, context) is class_node


def _instance_class(name: str, scope, context) -> ast.ClassDef | None:
    """The module's class that `name` is bound to an instance of, when every binding in the scope
    that defines it is `Class(...)`."""
    model = context.model
    current = scope
    while current is not None and name not in current.local_names:
        current = current.parent
    if current is None:
        return None
    values = [value for target, value in current.bindings if isinstance(target, ast.Name) and target.id == name]
    if not values or name in current.param_nodes:
        return None
    classes = {node.name: node for node in model.class_methods}
    found = None
    for value in values:
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in classes):
            return None
        if found is not None and found is not classes[value.func.id]:
            return None
        found = classes[value.func.id]
    return found


def _method_of_instance(name: str, attribute: str, scope, context) -> bool:
    """`obj.attribute` is a bound method: `obj` is an instance of a module class defining `attribute`."""
    class_node = _instance_class(name, scope, context)
    return class_node is not None and attribute in context.model.class_methods.get(class_node, {})


_DATA_PRODUCERS = ("numpy.", "jax.numpy.", "jax.random.", "jax.device_put")


def _bound_to_data(name: str, loop, context) -> bool:
    """Bound in the loop to an array (a NumPy or jnp call) or to the next item of a data iterator."""
    for node in flow.walk_same_scope(loop):
        if not isinstance(node, ast.Assign) or not any(name in flow.target_names(t) for t in node.targets):
            continue
        value = node.value
        if isinstance(value, ast.Call):
            qualified = context.qualified_name(value.func) or ""
            if qualified == "builtins.next" or (qualified.startswith(_DATA_PRODUCERS) and qualified not in _NON_ARRAYS):
                return True
    return False


_NON_ARRAYS = frozenset({
    "numpy.dtype", "numpy.float32", "numpy.float64", "numpy.int32", "numpy.int64", "jax.numpy.dtype",
    "numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.seed",
})


def _ancestors(node):
    current = parent_of(node)
    while current is not None:
        yield current
        current = parent_of(current)


def _called_name(node: ast.Call) -> str | None:
    parent = parent_of(node)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name) and parent.value is node:
        return parent.targets[0].id
    return None


def _called_in(name: str, region: ast.AST) -> bool:
    for child in flow.walk_same_scope(region):
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == name:
            return True
    return False


def _called_once_here(name: str, scope, in_loops: bool = False) -> bool:
    """Every read of `name` in the function is one call, outside any loop (not returned or stored);
    with `in_loops`, one call in the function's own loops (a step of a training loop run per call)."""
    uses = [n for n in flow.walk_same_scope(scope.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if len(uses) != 1:
        return False
    use = uses[0]
    parent = parent_of(use)
    if not (isinstance(parent, ast.Call) and parent.func is use):
        return False
    if any(isinstance(child, FUNCTION_NODES) for child in walk(scope.node) if child is not scope.node and _name_inside(child, name)):
        return False
    return in_loops or not list(flow.enclosing_loops(use))


def _name_inside(function: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in walk(function))


RULE = JitInLoop()
