"""## What it does
Flags reads of host state inside a traced function: NumPy's global random generator
(`np.random.normal(...)`, `np.random.rand(...)`, an unseeded `np.random.default_rng()`), Python's
`random` module (`random.random()`, `random.choice(...)`), and the clock (`time.time()`,
`time.perf_counter()`, ...).

Environment variables (`os.environ[...]`, `os.getenv(...)`) are not flagged: they are frozen at trace
time too, but programs read configuration there that does not change while they run. Nor is a
function traced by autodiff alone (`jax.grad(f)(x)` outside any `jit`): its body runs again on
every call.

## Why is this bad?
JAX runs a traced function's Python code once, at trace time, and caches the compiled result. A
host random number or a timestamp read there is baked into the compiled program as a constant: every
later call reuses the same "random" number or the same time. See "Pure functions" in
https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions and
https://docs.jax.dev/en/latest/random-numbers.html.

A generator built from an explicit seed (`np.random.default_rng(0)`, `np.random.RandomState(0)`)
is deterministic on purpose (a fixed projection, a test fixture) and is not flagged, nor are draws
after `np.random.seed(...)` in the same function (every call replays the same numbers); nor is a
function compiled through one entry that the module calls once, outside any loop, from its top
level or `main` (`data = jax.jit(make_data)()`): the frozen value is read once anyway.

## Example
```python
@jax.jit
def add_noise(x):
    return x + np.random.normal(size=x.shape)  # the same noise on every call
```

## Use instead
```python
@jax.jit
def add_noise(key, x):
    return x + jax.random.normal(key, x.shape)
```

## Fix safety
No fix: the function needs a new key argument (and its callers a key to pass), which changes its
signature.

## How the runtime mode confirms it
It calls the jitted function twice with the same inputs: the host-random output is identical
across calls (frozen at trace time), while the un-jitted function's output differs.
"""

from __future__ import annotations

import ast

from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import flow, jaxapi
from jaxlint.semantic.syntax import walk  # ast.walk minus ctx markers, faster

_CLOCKS = jaxapi.CLOCKS
# numpy.random names that build a generator: deterministic when given a seed.
_SEEDED_CONSTRUCTORS = frozenset({"default_rng", "RandomState", "Generator", "PCG64", "MT19937", "Philox", "SFC64", "SeedSequence"})
_NOT_SAMPLING = frozenset({"seed", "get_state", "set_state", "getstate", "setstate", "Random", "SystemRandom"})


class HostStateInTraced(Rule):
    code = "JAX502"
    name = "host-state-in-traced"
    summary = "Host randomness, clock or environment read inside a traced function"
    node_types = (ast.Call,)
    traced_code_only = True
    fix_availability = "none"

    def check(self, node: ast.AST, context) -> None:
        if not context.is_traced_code(node):
            return
        scope = context.scope(node)
        if context.model.runs_concretely(scope):
            return  # traced by autodiff alone: the body runs again on every call, nothing is frozen
        where = f"in traced function `{scope.name}`"
        qualified = context.qualified_name(node.func)
        if qualified is None:
            return
        if qualified.startswith("numpy.random."):
            function = qualified[len("numpy.random."):]
            if "." in function or function in _NOT_SAMPLING:
                return
            if function in _SEEDED_CONSTRUCTORS and (node.args or node.keywords):
                return
            if _seeded_before(node, scope, context):
                return
            _report(context, scope, node, f"`{snippet(context.text(node), 50)}` {where} draws from NumPy's host generator once, at trace time: every call reuses the same numbers; use `jax.random` with a key argument")
        elif qualified.startswith("random.") and qualified.count(".") == 1:
            function = qualified[len("random."):]
            if function in _NOT_SAMPLING:
                return
            _report(context, scope, node, f"`{snippet(context.text(node), 50)}` {where} draws from Python's `random` once, at trace time: every call reuses the same value; use `jax.random` with a key argument")
        elif qualified in _CLOCKS:
            _report(context, scope, node, f"`{context.text(node)}` {where} reads the clock once, at trace time, and the compiled function returns that constant; time outside the jitted call")


def _seeded_before(draw: ast.Call, scope, context) -> bool:
    """`np.random.seed(seed)` earlier in the same function: every call replays the same numbers, so
    the values frozen at trace time are the ones the function draws without `jit` too."""
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(
        isinstance(node, ast.Call) and context.qualified_name(node.func) == "numpy.random.seed"
        and (node.lineno, node.col_offset) < (draw.lineno, draw.col_offset)
        for statement in function.body for node in walk(statement)
    )


def _report(context, scope, node: ast.AST, message: str) -> None:
    if not _compiled_once(scope, context.model):
        context.report(node, message)


def _compiled_once(scope, model) -> bool:
    """The function is traced only through one compiled entry that the module calls once, outside any
    loop (`data = jax.jit(make_data)()` in `main`): the value frozen at trace time is read once anyway."""
    root = scope
    while root.parent is not None and root.parent.traced:
        root = root.parent
    calls = model.entry_calls(root)
    if calls is None or len(calls) != 1:
        return False
    call = calls[0]
    if any(True for _ in flow.enclosing_loops(call)):
        return False
    caller = model.scope_for(call)
    return caller is model.module_scope or (caller.parent is model.module_scope and caller.name in ("main", "_main") and not model.entry_calls(caller))


RULE = HostStateInTraced()
