"""Parameters every caller fixes: a branch testing one the callers never take never runs.

`def make_schedule(rng, n, shuffle=False): ... if shuffle: order = permutation(rng, order)` whose
every call the program makes passes `shuffle=False`: the permutation never
runs as the program is written, and a finding there (a key drawn, then split) describes a path no
run takes. The same holds for `if not exact:` with every call passing `exact=True`.

Read only where all the calls are in sight: a function of this module (module level or nested, not
a method: a method is reached through objects passed anywhere) whose name the module reads only as
the callee of calls (never passed on, stored or returned), called at least once, whose callers each
pass the parameter as a literal (or a name bound once to one), all of the same truth value; where it
has a default, the default agrees (a caller elsewhere that leaves it out takes the same side). A
call leaving the parameter to its default keeps both sides live: the default is an option the author
offers callers to change. A module-level function that another module of the project names may
be called from there with any value: its branches stay live. The parameter must be bound nowhere
else in the function, and the function carries no decorator but a JAX transform (a command-line or
registry decorator calls it with values of its own).

Used by semantic/dead_code.py, so every rule skips what lies on such a branch.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.constants import UNKNOWN
from jaxlint.semantic.flow import dotted_name, target_elements
from jaxlint.semantic.model import parent_of
from jaxlint.semantic.syntax import walk

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def never_taken(statement: ast.If, scope, model, evaluator) -> list | None:
    """The statements of `statement` (an `if` testing a parameter, `if p:` or `if not p:`) that no
    call of its function runs: the body or the `else` part, or None when the callers do not fix it."""
    test = statement.test
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negated = not negated
        test = test.operand
    if not isinstance(test, ast.Name) or scope is None:
        return None
    cache = model.__dict__.setdefault("_jaxlint_fixed_truths", {})
    key = (id(scope), test.id)
    if key not in cache:
        function = _function_of(test.id, scope, model)
        cache[key] = None if function is None else _fixed_truth(test.id, function, model, evaluator)
    value = cache[key]
    if value is None:
        return None
    taken = value != negated
    return statement.orelse if taken else statement.body


def _function_of(name: str, scope, model):
    """The function scope whose parameter `name` is, when the test reads it there (directly, not from
    an enclosing function) and nothing in the function rebinds it."""
    if not scope.is_function or not isinstance(scope.node, _FUNCTIONS) or scope.class_node is not None:
        return None
    if name not in scope.param_nodes:
        return None
    if any(model.decorator_transform(decorator) is None for decorator in scope.node.decorator_list):
        return None  # (a decorator other than a JAX transform may call it too: a command line, a registry)
    arguments = scope.node.args
    if arguments.vararg is not None and arguments.vararg.arg == name or arguments.kwarg is not None and arguments.kwarg.arg == name:
        return None
    if any(isinstance(target, ast.Name) and target.id == name for target, _ in scope.bindings):
        return None
    for node in ast.walk(scope.node):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return None
    return scope


def _fixed_truth(name: str, function, model, evaluator) -> bool | None:
    node = function.node
    default = _default_of(name, node)
    default_truth = None
    if default is not None:
        default_truth = _truth(evaluator.value(default, function.parent or function))
        if default_truth is None:
            return None
    passed_values = passed_arguments(function, name, model)
    if not passed_values:
        return None  # (a call leaving it to the default: an option the author offers callers to change)
    seen = set()
    for caller, passed in passed_values:
        truth = _truth(evaluator.value(passed, caller))
        if truth is None:
            return None
        seen.add(truth)
    if len(seen) != 1 or (default_truth is not None and seen != {default_truth}):
        return None
    return seen.pop()


def passed_arguments(function, name: str, model) -> list | None:
    """(caller's scope, expression) for every call of `function` in the module: what each passes for
    its parameter `name`, when every call is in sight (`_all_calls`), each names it or fills its
    position, and none unpacks `*args` or `**kwargs`; None otherwise (or where there is no call).
    Asked only of a plain function (`_function_of`): a method is reached through objects passed anywhere.
    Also read by semantic/device_indices.py (a parameter every caller fills with a Python list)."""
    if _function_of(name, function, model) is not function:
        return None  # (a method, a decorated function, a parameter the body rebinds)
    positional = [a.arg for a in (*function.node.args.posonlyargs, *function.node.args.args)]
    calls = _all_calls(function, model)
    if not calls:
        return None
    passed_values = []
    for caller, call in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        passed = next((k.value for k in call.keywords if k.arg == name), None)
        if passed is None and name in positional and positional.index(name) < len(call.args):
            passed = call.args[positional.index(name)]
        if passed is None:
            return None
        passed_values.append((caller, passed))
    return passed_values


def _default_of(name: str, node: ast.AST) -> ast.expr | None:
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    for argument, default in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults):
        if argument.arg == name:
            return default
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        if argument.arg == name:
            return default
    return None


def _truth(value) -> bool | None:
    if value is UNKNOWN or not isinstance(value, (bool, int, float, str, type(None))):
        return None
    return bool(value)


def _all_calls(function, model) -> list | None:
    """Every call of the function in the module, when its name is read only as their callee and no
    other module of the project names it; None otherwise."""
    name = function.name
    by_name = model.__dict__.get("_jaxlint_name_load_nodes")
    if by_name is None:
        by_name = model._jaxlint_name_load_nodes = {}
        for node in model.nodes:
            if node.__class__ is ast.Name and isinstance(node.ctx, ast.Load):
                by_name.setdefault(node.id, []).append(node)
    loads = by_name.get(name, [])
    calls = []
    for load in loads:
        parent = parent_of(load)
        if not (isinstance(parent, ast.Call) and parent.func is load):
            return None  # passed on, stored or returned: called from where the analysis cannot see
        caller = model.scope_for(parent)
        resolved = model.resolve_function(load, caller)
        if resolved is None or resolved[0] is not function:
            return None
        calls.append((caller, parent))
    if function.parent is not None and function.parent is model.module_scope and _named_elsewhere(name, model):
        return None
    return calls


def _named_elsewhere(name: str, model) -> bool:
    """Another module of the project may call the module-level function `name`: an importer of this
    module (the reverse-import index, semantic/callers.py) whose text names it, or no index to ask."""
    project = model.project
    if project is None:
        return True  # no project to ask: any module may import it
    from jaxlint.semantic import callers

    try:
        for importer, _ in callers._importers(project):
            read = callers._read(importer)
            if read is None or name.encode() in read[2]:
                return True
    except Exception:  # an index that cannot be built: any module may call it
        return True
    return False


def named_elsewhere(name: str, model) -> bool:
    """Another module of the project may name `name` (a module-level function or class): see `_named_elsewhere`."""
    return _named_elsewhere(name, model)


def refers_to(value: ast.AST, key: str) -> bool:
    return any(isinstance(node, (ast.Name, ast.Attribute)) and dotted_name(node) == key for node in walk(value))


def derived_from_itself(value: ast.AST, key: str, scope) -> bool:
    """The value is computed from `key` itself, directly or through a temporary of the same scope
    (`new_state = step(self.state)` then `self.state = new_state`): it keeps the size it had."""
    if refers_to(value, key):
        return True
    if not isinstance(value, ast.Name):
        return False
    temporaries = [bound for target, bound in scope.bindings if isinstance(target, ast.Name) and target.id == value.id]
    return bool(temporaries) and all(bound is not None and refers_to(getattr(bound, "value", bound), key) for bound in temporaries)


def handed_arguments(name: str, scope, model) -> list | None:
    """(caller scope, the argument) of every call that passes the parameter `name` of the function
    owning `scope` (not a method), or None where a call is not in sight (`_all_calls`), spreads its
    arguments, leaves the parameter to its default, or the function binds the parameter anew other than
    from itself (`params = update(params, x)` keeps what was passed: semantic/passed_state.py). Built
    once per model."""
    cache = model.__dict__.setdefault("_jaxlint_passed_arguments", {})
    key = (id(scope), name)
    if key not in cache:
        cache[key] = _arguments_passed(name, scope, model)
    return cache[key]


def _arguments_passed(name: str, scope, model) -> list | None:
    if scope is None or not scope.is_function or not isinstance(scope.node, _FUNCTIONS) or scope.class_node is not None:
        return None
    if name not in scope.param_nodes:
        return None
    arguments = scope.node.args
    if name in {a.arg for a in arguments.kwonlyargs} | {getattr(arguments.vararg, "arg", None), getattr(arguments.kwarg, "arg", None)}:
        return None
    for target, value in scope.bindings:
        if name not in {dotted_name(element) for element in target_elements(target)}:
            continue
        if value is None or not derived_from_itself(getattr(value, "value", value) if isinstance(value, ast.stmt) else value, name, scope):
            return None  # bound anew inside: not only what the callers pass
    calls = _all_calls(scope, model)
    if not calls:
        return None
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    found = []
    for caller, call in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        passed = next((k.value for k in call.keywords if k.arg == name), None)
        if passed is None and positional.index(name) < len(call.args):
            passed = call.args[positional.index(name)]
        if passed is None:
            return None  # left to the default
        found.append((caller, passed))
    return found
