"""Function summary: "this function reads on the host, on every call, a device value it computes".

`def step(self, batch): self.params, loss = train_step(self.params, batch); return loss.item()`
waits for its own compiled call every time it is called. A loop that calls `trainer.step(batch)`
waits on every iteration, though no read is visible in the loop. This module says, for a function
of the module (called by name, on `self`, or on an instance of one of the module's classes), which
read that is: a conversion (`float`, `int`, `bool`, `np.asarray`, `jax.device_get`, `.item()`,
`.tolist()`) or a NumPy function of the value (`np.mean(loss)`), of a name or written around the
compiled call itself (`float(step(...))`), also of each entry of one result a comprehension walks
(`{k: v.item() for k, v in metrics.items()}`: that one result read whole, flow.entries_read), a
`print` of the value or an f-string of it, or the same in a function it calls on
every call (any depth), or a call of a function that reads the argument it is handed
(effects.py's synced parameters).

A function that times what it runs (`time.perf_counter`, `timeit`) is a measurement: its reads are
on purpose, and none is reported. A read counts only when it runs on every call (not under an `if`, a conditional expression,
`and`/`or`, an `except` handler, nor in a function that may return early) and reads a value the
function itself produced in that call: from a call that runs compiled code (a jitted callable, or a
function of the module around one), or computed from such a value. A read of a parameter is the
caller's business (effects.py); a read of a value made before (`float(self.lr)`) waits for nothing.
`returned` tells whether the host copy is what the function returns (`return float(loss)`): a caller
that hands it to host code needs it anyway.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from jaxlint.semantic import jaxapi
from jaxlint.semantic.host_code import callee_scope
from jaxlint.semantic.model import Scope, SemanticModel
from jaxlint.semantic.syntax import bound_names, walk
from jaxlint.semantic.flow import entries_read

_CONVERSIONS = frozenset({"builtins.float", "builtins.int", "builtins.bool", "numpy.asarray", "numpy.array", "jax.device_get"})
_READ_METHODS = frozenset({"item", "tolist"})
_MAX_DEPTH = 6
# Timers: a function that times what it runs is a measurement, and its reads are what it measures.
_TIMING = (*jaxapi.CLOCKS, "timeit.")


@dataclass(frozen=True)
class HelperSync:
    """The read: its text as written, its line, the function it is in, and whether its host copy is
    returned (`position`: its place in a returned tuple, None when the whole value is returned)."""

    text: str
    line: int
    function: str
    returned: bool
    position: int | None = None
    path: str | None = None  # the file, when it is another module of the project


_cache: "WeakKeyDictionary[SemanticModel, dict[int, HelperSync | None]]" = WeakKeyDictionary()


def call_sync(call: ast.Call, model: SemanticModel) -> HelperSync | None:
    """The read on every call of the module's function that `call` runs (not a compiled call)."""
    if model.jit_binding_for_call(call) is not None:
        return None
    helper = callee_scope(call, model)
    if helper is None:
        from jaxlint.semantic.foreign_work import imported_helper_sync

        # (a function or method of another project module, asked of a model of that module)
        return imported_helper_sync(call, model, helper_sync)
    return helper_sync(helper, model)


def helper_sync(scope: Scope, model: SemanticModel) -> HelperSync | None:
    cache = _cache.setdefault(model, {})
    key = id(scope.node)
    if key in cache:
        return cache[key]
    cache[key] = None  # (recursion: none while being worked out)
    depth = model.__dict__.get("_helper_sync_depth", 0)
    node = scope.node
    if depth >= _MAX_DEPTH:
        del cache[key]
        return None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list or scope.in_traced:
        return None
    model.__dict__["_helper_sync_depth"] = depth + 1
    try:
        found = _first_read(scope, model)
    finally:
        model.__dict__["_helper_sync_depth"] = depth
    cache[key] = found
    return found


def _first_read(scope: Scope, model: SemanticModel) -> HelperSync | None:
    from jaxlint.semantic import effects

    node = scope.node
    if any((model.qualified_name(call.func) or "").startswith(_TIMING) for call in scope.calls):
        return None  # a measurement: it reads what it timed on purpose (a benchmark of one configuration)
    from jaxlint.semantic.training_loops import runs_training_loop

    produced = _produced_names(scope, model)
    if not produced and not _calls_a_helper(scope, model):
        return None
    if runs_training_loop(scope, model):
        return None  # a whole run of steps: its own loop is where a per-step read is reported
    returned_names = {n.id for value in scope.returns for n in walk(value) if isinstance(n, ast.Name)}
    calls = effects.unconditional_calls(node)
    unconditional = {id(call) for call in calls}
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        entries = entries_read(call, node)
        if entries is not None and _root(entries[0]) in produced and model.scope_for(call) is scope:
            # The entries of one result of a compiled step (`{k: v.item() for k, v in scalars.items()}`):
            # that result read whole, once per call, not a loop of its own.
            read = _read_of(call, produced | entries[1], scope, model)
        elif model.scope_for(call) is not scope or _in_own_loop(call, node):
            continue  # in a lambda (runs when called, if ever); in a loop of its own (reported there)
        else:
            read = _read_of(call, produced, scope, model)
        if read is not None:
            returned, position = _returned_at(call, returned_names, scope)
            if not returned and _feeds_host_code(call, scope, model):
                continue  # the function's own host code needs the copy (`replay.update_priorities(i, p)`)
            text = _snippet(call if entries is None else _enclosing_comprehension(call))
            return HelperSync(text, call.lineno, scope.name, returned, position)
        if model.jit_binding_for_call(call) is not None:
            continue
        inner = call_sync(call, model)
        if inner is not None:
            returned, position = _returned_at(call, returned_names, scope) if inner.returned and inner.position is None else (False, None)
            return HelperSync(inner.text, inner.line, f"{scope.name} -> {inner.function}", returned, position)
        if any(_root(argument) in produced for argument in call.args):
            for argument in effects.synced_arguments(model, call, scope):
                if _root(argument) in produced:
                    return HelperSync(_snippet(call), call.lineno, scope.name, False)
    for formatted in (n for n in walk(node) if isinstance(n, ast.JoinedStr)):
        if model.scope_for(formatted) is not scope or not _runs_every_call(formatted, unconditional, node):
            continue
        for value in formatted.values:
            if isinstance(value, ast.FormattedValue) and _root(value.value) in produced and _device(value.value, scope, model):
                return HelperSync(_snippet(formatted), formatted.lineno, scope.name, False)
    return None


def _in_own_loop(node: ast.AST, function: ast.AST) -> bool:
    from jaxlint.semantic.model import parent_of

    parent = parent_of(node)
    while parent is not None and parent is not function:
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While, ast.comprehension)):
            return True
        parent = parent_of(parent)
    return False


# Calls that only show or collect a host copy: the read was for them, and is overhead in a step.
_SHOWING = frozenset({"builtins.print", "builtins.str", "builtins.format", "builtins.round", "wandb.log"})
_SHOWING_METHODS = frozenset({
    "append", "extend", "update", "log", "log_metrics", "log_metric", "scalar", "scalars", "add_scalar", "add_scalars",
    "write_scalars", "set_postfix", "set_description", "info", "debug", "warning", "write", "setdefault",
})


def _feeds_host_code(call: ast.Call, scope: Scope, model: SemanticModel) -> bool:
    """A conversion whose host copy the function hands to host code other than showing or collecting
    it (`self._replay.update_priorities(indices, priorities)`, `env.step(action)`): needed there."""
    from jaxlint.semantic.model import parent_of

    if isinstance(call.func, ast.Name) and call.func.id == "print":
        return False
    if model.qualified_name(call.func) == "builtins.print":
        return False
    child, parent = call, parent_of(call)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.Call) and child is not parent.func:
            return not _showing(parent, model)
        if isinstance(parent, ast.JoinedStr):
            return False
        child, parent = parent, parent_of(parent)
    if not isinstance(parent, (ast.Assign, ast.AnnAssign)):
        return False
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    names = {name for target in targets for name in bound_names(target)}
    for use in walk(scope.node):
        if not (isinstance(use, ast.Name) and use.id in names and isinstance(use.ctx, ast.Load)):
            continue
        child, holder = use, parent_of(use)
        while holder is not None and not isinstance(holder, ast.stmt):
            if isinstance(holder, ast.Call) and child is not holder.func:
                if not _showing(holder, model):
                    return True
                break
            if isinstance(holder, ast.JoinedStr):
                break
            child, holder = holder, parent_of(holder)
    return False


def _showing(call: ast.Call, model: SemanticModel) -> bool:
    qualified = model.qualified_name(call.func) or ""
    if qualified in _SHOWING or qualified.startswith(("logging.", "absl.logging.")):
        return True
    return isinstance(call.func, ast.Attribute) and call.func.attr in _SHOWING_METHODS


def _read_of(call: ast.Call, produced: set[str], scope: Scope, model: SemanticModel) -> ast.expr | None:
    function = call.func
    if isinstance(function, ast.Attribute) and function.attr in _READ_METHODS and not call.args:
        value = function.value
    elif len(call.args) == 1 and not call.keywords and model.qualified_name(function) in _CONVERSIONS:
        value = call.args[0]
    elif _host_numpy(model.qualified_name(function)) and call.args:
        value = call.args[0]  # `np.mean(loss)`: NumPy copies a device array to the host to compute on it
    elif model.qualified_name(function) == "builtins.print":
        value = next((a for a in call.args if _root(a) in produced and _device(a, scope, model)), None)
    else:
        return None
    inner = value
    while isinstance(inner, ast.Subscript):
        inner = inner.value
    if isinstance(inner, ast.Call) and _runs_compiled_here(inner, model):
        return value  # `float(train_step(...))`, `float(step(...)[1])`: the result of this call's own compiled step, read at once
    if value is None or _root(value) not in produced or not _device(value, scope, model):
        return None
    return value


def _host_numpy(qualified: str | None) -> bool:
    return bool(qualified) and qualified.startswith("numpy.") and not qualified.startswith("numpy.random.")


def _runs_compiled_here(call: ast.Call, model: SemanticModel) -> bool:
    from jaxlint.semantic.training_loops import runs_compiled

    return runs_compiled(call, model)


def _device(value: ast.expr, scope: Scope, model: SemanticModel) -> bool:
    if isinstance(value, ast.Attribute) and value.attr in ("shape", "ndim", "dtype", "size"):
        return False
    return model.device_kind(value, scope) == "device" or isinstance(value, ast.Name)


def _produced_names(scope: Scope, model: SemanticModel) -> set[str]:
    """Names the function binds from calls that run compiled code (or a whole computation), and names
    computed from those."""
    from jaxlint.semantic.training_loops import runs_compiled

    produced: set[str] = set()
    derived: list[tuple[set[str], ast.AST]] = []
    for target, value in scope.bindings:
        if value is None or isinstance(value, ast.AugAssign):
            continue
        names = {name for name in bound_names(target)}
        if not names:
            continue
        if isinstance(value, ast.Call) and runs_compiled(value, model):
            produced |= names
        else:
            derived.append((names, value))
    changed = bool(produced)
    while changed:
        changed = False
        for names, value in derived:
            if names <= produced:
                continue
            if any(isinstance(n, ast.Name) and n.id in produced for n in walk(value)) and not _host_made(value, model):
                produced |= names
                changed = True
    return produced


def _host_made(value: ast.AST, model: SemanticModel) -> bool:
    """A value that is already a host copy (`float(loss)`, `loss.item()`): not a device value any more."""
    if isinstance(value, ast.Call):
        function = value.func
        if isinstance(function, ast.Attribute) and function.attr in _READ_METHODS:
            return True
        qualified = model.qualified_name(function) or ""
        return qualified in _CONVERSIONS or qualified.startswith("numpy.") or qualified in ("builtins.str", "builtins.len")
    return isinstance(value, ast.JoinedStr)


def _calls_a_helper(scope: Scope, model: SemanticModel) -> bool:
    return any(callee_scope(call, model, scope) is not None for call in scope.calls)


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
        if isinstance(node, ast.Attribute) and node.attr in ("shape", "ndim", "dtype", "size"):
            return None
    return node.id if isinstance(node, ast.Name) else None


def _returned_at(call: ast.AST, returned_names: set[str], scope: Scope) -> tuple[bool, int | None]:
    """Whether the host copy is what the function returns (`return float(loss)`, or `value =
    loss.item()` then `return value`), and its place when every `return` is a tuple of one length."""
    from jaxlint.semantic.model import parent_of

    child, parent = call, parent_of(call)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.Tuple) and isinstance(parent_of(parent), ast.Return) and child in parent.elts:
            return True, parent.elts.index(child)
        if not isinstance(parent, ast.Tuple):
            child = parent
        parent = parent_of(parent)
    if isinstance(parent, ast.Return):
        return True, None
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        names = {name for target in targets for name in bound_names(target)}
        for value in scope.returns:
            if isinstance(value, ast.Name) and value.id in names:
                return True, None
            if isinstance(value, ast.Tuple):
                for index, element in enumerate(value.elts):
                    if isinstance(element, ast.Name) and element.id in names:
                        return True, index
        return False, None
    return False, None


def _runs_every_call(node: ast.AST, unconditional: set[int], function: ast.AST) -> bool:
    """An f-string runs on every call when the call it is an argument of does, or it is a statement's value."""
    from jaxlint.semantic.model import parent_of

    parent = parent_of(node)
    while parent is not None and parent is not function:
        if isinstance(parent, ast.Call):
            return id(parent) in unconditional
        if isinstance(parent, (ast.If, ast.IfExp, ast.BoolOp, ast.ExceptHandler, ast.While)):
            return False
        if isinstance(parent, ast.stmt):
            return False
        parent = parent_of(parent)
    return False


def _enclosing_comprehension(node: ast.AST) -> ast.AST:
    from jaxlint.semantic.model import parent_of

    while node is not None and node.__class__ not in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
        node = parent_of(node)
    return node


def _snippet(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."
