"""Calls that only compute with or hold the device values handed to them: no decision on the host.

A loop that hands a device result to host code (a convergence helper handed `float(g)`, a gym
environment handed the action) needs the host every iteration by design, and its stopping test is
the algorithm. A call handed a device value decides on the host only where its work needs the value
there. Python and JAX say where it does not (`holds_or_computes(call, model)`):

* array work: a call whose result the value model knows to be a device array computes it from its
  arguments on the device, eagerly or compiled (`loss_new = loss_fn(theta, x, y)` where `loss_fn`
  returns `jnp.mean(...)`, a network's `apply`), unless the function reads one of its arguments on
  the host (semantic/effects.py: `float(x)` in its body);
* a record or container built from them: a NamedTuple, a dataclass or struct whose constructor only
  stores its arguments (fresh_values.is_record_class; of this module, of a `namedtuple` factory, or of
  another module of the project), `tuple`, `list`, `dict`, `zip`: it holds references and reads no
  element;
* bookkeeping that stores a reference: `append`, `extend`, `insert` of a list or deque, `setdefault`
  of a dict (not `update`: an early stopper's `update(loss)` decides; not `put`: a process queue
  pickles what it is handed, and an unknown one may).

Python's `a and b` / `a or b` returns one of its operands, so of device arrays it is a device array
(values.device_kind); the read is the truth test of the first operand.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import fresh_values

# Builtins that build a container holding their arguments' elements by reference.
CONTAINER_BUILTINS = frozenset({"builtins.tuple", "builtins.list", "builtins.dict", "builtins.zip"})
# Methods that store what they are handed: a list's, a deque's, a dict's bookkeeping (also what
# carried_state counts as a container holding a state). `update`, `add` and `put` are left out: on a
# neighbour list, an EMA or a metrics writer they compute.
STORING_METHODS = frozenset({"append", "extend", "insert", "setdefault", "appendleft"})


def holds_or_computes(call: ast.Call, model, scope=None) -> bool:
    """Whether `call` only holds or computes with the device values handed to it (module doc): it
    decides nothing on the host."""
    if scope is None:
        scope = model.scope_for(call)
    if stores_reference(call):
        return True
    function = call.func
    qualified = model.qualified_name(function)
    if qualified in CONTAINER_BUILTINS:
        return True
    if record_constructor(call, model):
        return True
    if model.device_kind(call, scope) == "device":
        from jaxlint.semantic.effects import call_effects

        return not call_effects(model, call, scope).synced_positions(len(call.args))
    return False


def stores_reference(call: ast.Call) -> bool:
    """`history.append(x)`, `recent.appendleft(x)`: a list's, a deque's or a dict's bookkeeping that
    stores what it is handed, as an argument, and reads none of it."""
    function = call.func
    return (
        isinstance(function, ast.Attribute) and function.attr in STORING_METHODS
        and bool(call.args) and not any(isinstance(a, ast.Starred) for a in call.args)
    )


def record_constructor(call: ast.Call, model) -> bool:
    """`State(params, opt_state)` of a NamedTuple, dataclass or struct whose constructor only stores its
    arguments: of this module (a class statement or a `namedtuple` factory bound at the top level) or
    of another module of the project (its summary's `record`)."""
    function = call.func
    if isinstance(function, ast.Name):
        module = model.module_scope.node
        for statement in getattr(module, "body", ()):
            if isinstance(statement, ast.ClassDef) and statement.name == function.id:
                return fresh_values.is_record_class(statement, model.qualified_name)
            if (
                isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == function.id
            ):
                return fresh_values.is_record_factory(statement.value, model.qualified_name)
    qualified = model.qualified_name(function)
    project = getattr(model, "project", None)
    if qualified is None or "." not in qualified or project is None or not project.may_hold(qualified.partition(".")[0]):
        return False
    owner = project.class_(qualified)
    return owner is not None and owner.record


def progress_bar_update(call: ast.Call, model, scope) -> bool:
    """`bar.update(n)` of a progress bar (`with tqdm(...) as bar:` around the call, or `bar = tqdm(...)`
    bound once): it advances a counter on the host and reads no device value it is not handed."""
    from jaxlint.semantic.bindings import bound_values
    from jaxlint.semantic.model import parent_of
    from jaxlint.semantic.training_loops import PROGRESS_BARS

    function = call.func
    if not (isinstance(function, ast.Attribute) and function.attr == "update" and isinstance(function.value, ast.Name)):
        return False
    name = function.value.id
    parent = parent_of(call)
    while parent is not None:
        if isinstance(parent, (ast.With, ast.AsyncWith)):
            for item in parent.items:
                if isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == name:
                    return isinstance(item.context_expr, ast.Call) and model.qualified_name(item.context_expr.func) in PROGRESS_BARS
        parent = parent_of(parent)
    bound = bound_values(model, name, scope)
    return bound is not None and len(bound[1]) == 1 and isinstance(bound[1][0], ast.Call) and model.qualified_name(bound[1][0].func) in PROGRESS_BARS
