"""Whether a value passed to a jitted update is carried state: what donation is for.

Donation pays when the argument is the state a loop carries from one call to the next
(`state = step(state, batch)` every iteration) or an update a method applies to what it owns
(`self.state = self.update(self.state, ...)`). It does nothing, or breaks code, when:

- inside a loop, the argument is rebuilt each iteration, before the call, from something not known
  to be a device value (`x = next(batches)` then `x = encode(x)`): it is fresh input, often host
  data, and the output often has another shape, so XLA could not reuse the buffer anyway (a value
  rebuilt from itself, `state = state._replace(...)`, is still the carried state);
- the code is a test: a single call on small values, where memory is not the point;
- the state is known to be small (`known_small`): a PRNG key, arrays of sizes the source fixes.

Where other code can only reach the state (another call of the same jitted function keeping its
argument, a public method handing it out, a caller still holding what it passed, a closure reading
the name: `captured_by_closure`), donation is
unsafe but would still save memory: the rule reports it and withholds the fix.
"""

from __future__ import annotations

import ast
import math
import os
import weakref

from jaxlint.semantic import constructed_sizes
from jaxlint.semantic.flow import changes_in_place, dotted_name, enclosing_loops, enclosing_statement, reaching_value, rebinds_handed, statement_list, target_elements, walk_same_scope
from jaxlint.semantic.held_values import STORING_METHODS
from jaxlint.semantic.liveness import read_after
from jaxlint.semantic.model import is_within, parent_of
from jaxlint.semantic.syntax import bound_names, walk
from jaxlint.semantic.test_code import in_test_code, is_test_module  # noqa: F401 (the rules' one test-code query, kept here for callers)

def names_called_in_loops(model) -> frozenset[str]:
    """Names of the functions and methods this module calls from inside a loop (`f(...)`, `obj.f(...)`),
    computed once per model."""
    found = getattr(model, "_names_called_in_loops", None)
    if found is None:
        found = model._names_called_in_loops = frozenset(
            name for name, calls in model.calls_by_name().items()
            if any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) for call in calls for loop in enclosing_loops(call))
        )
    return found


def callers_pass_back(name: str, scope, model) -> bool:
    """Whether a call of the function `scope` in a loop of this module hands its parameter `name` a
    value carried from call to call: an attribute, or a name the call's own statement rebinds
    (`state = wrapper(state)`); also when the argument cannot be told (`*args`, a keyword we miss).
    False when every such call passes a value it keeps (the same prompt to each `sample(..., x)`) or
    a fresh one."""
    if name not in scope.params:
        return True
    method = scope.params[:1] in (["self"], ["cls"])
    for call in model.calls_by_name().get(scope.name, ()):
        if not any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) for loop in enclosing_loops(call)):
            continue
        if not method and not isinstance(call.func, ast.Name):
            continue  # `buffer.sample()` is another object's method, not this function
        argument = _passed_to_parameter(call, name, scope)
        if argument is None or isinstance(argument, ast.Attribute):
            return True
        if isinstance(argument, ast.Name) and argument.id in _rebound_by(call):
            return True
        # Otherwise a name the caller keeps, or a fresh value each call (`tokens=batch[0][:1, :5]`):
        # nothing goes from one call to the next.
    return False


_INTERACTIVE_LIBRARIES = ("pygame", "tkinter", "pyglet", "curses", "PyQt5", "PyQt6", "PySide2", "PySide6", "gradio", "ipywidgets")


def interactive_module(model) -> bool:
    """A program paced by a person: it reads `input()` or imports a GUI or event library. Its loops wait
    for key presses, so a per-step host read or an undonated step costs nothing anyone can see."""
    found = getattr(model, "_interactive_module", None)
    if found is None:
        found = any(
            target.split(".")[0] in _INTERACTIVE_LIBRARIES for target in model.imports.aliases.values()
        ) or any(
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "input"
            and model.qualified_name(node.func) == "builtins.input"
            for scope in model.scopes for node in scope.calls
        )
        model._interactive_module = found
    return found


def paced_by_person(loop: ast.AST, model) -> bool:
    """A loop of a program paced by a person (`interactive_module`), unless the only pacing is an
    `input()` outside the loop in the same function (before it, or in an outer loop's iteration): the
    person answers between runs of the loop, whose own iterations run at the device's pace."""
    if not interactive_module(model):
        return False
    if any(target.split(".")[0] in _INTERACTIVE_LIBRARIES for target in model.imports.aliases.values()):
        return True
    inside = {id(node) for node in walk(loop)}
    scope = model.scope_for(loop)
    for candidate in model.scopes:
        for node in candidate.calls:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "input"
                    and model.qualified_name(node.func) == "builtins.input"):
                continue
            if id(node) in inside or candidate is not scope:
                return True
    return False


def paced_loop(loop: ast.AST, model) -> bool:
    """A loop that waits on a clock or a person each iteration (`time.sleep(0.05)`, `input()`): an
    animation or a game, where a host read or an undonated step costs nothing anyone sees."""
    statements = list(loop.body)
    while statements:  # every iteration: not under an `if` or `try` (a wait for data to arrive)
        statement = statements.pop()
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            statements.extend(statement.body)
            continue
        for node in walk(statement) if isinstance(statement, (ast.Expr, ast.Assign)) else ():
            if isinstance(node, ast.Call) and model.qualified_name(node.func) in ("time.sleep", "builtins.input"):
                return True
    return False


def rebuilt_before_call(key: str, statement: ast.stmt, model, scope) -> bool:
    """`key` is assigned before the call (earlier in the same loop iteration, or earlier in straight-line
    code) from something not known to be a device value (`x = next(batches)`, `x = batch.reshape(...)`);
    a jitted call's result still counts as carried (`storage = rollout(...)` then `compute_gae(storage)`)."""
    loops = [loop for loop in enclosing_loops(statement) if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))]
    if loops:
        region = loops[0]
        if isinstance(region, (ast.For, ast.AsyncFor)) and key in {dotted_name(t) for t in target_elements(region.target)}:
            return True  # the loop variable itself: a new element every iteration
        unknown_counts = True
    else:
        # Straight-line code runs once: only a value known to be host data is not worth donating.
        region = scope.node
        unknown_counts = False
    for earlier in _statements_before(statement, region):
        if isinstance(earlier, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = earlier.targets if isinstance(earlier, ast.Assign) else [earlier.target]
            if any(dotted_name(element) == key for target in targets for element in target_elements(target)):
                value = earlier.value if not isinstance(earlier, ast.AugAssign) else None
                kind = model.device_kind(value, scope) if value is not None else None
                if unknown_counts and kind is None and value is not None and _derived_from(value, key):
                    continue  # `state = state._replace(...)`, `state, out = rollout(*state)`: still the carried value
                if kind == "host" or (unknown_counts and kind != "device"):
                    return True
        elif isinstance(earlier, (ast.For, ast.AsyncFor)) and key in {dotted_name(t) for t in target_elements(earlier.target)}:
            return True
    return False


def _in_loop(update: ast.stmt | None) -> bool:
    """The update runs in a loop of its own function (an attribute stored after that loop is read
    again only on the next call of the function, not by a later iteration)."""
    return update is not None and any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) for loop in enclosing_loops(update))


def _after_updates(node: ast.AST, update: ast.stmt | None) -> bool:
    """`node` runs only after every iteration of the outermost loop around `update` (or after `update`
    itself, outside loops): it cannot keep an earlier iteration's arrays alive."""
    if update is None:
        return False
    loops = [loop for loop in enclosing_loops(update) if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))]
    region = loops[-1] if loops else update
    end = getattr(region, "end_lineno", None)
    return end is not None and getattr(node, "lineno", 0) > end and not is_within(node, region)


def _derived_from(value: ast.AST, key: str) -> bool:
    """`value` reads `key` or a part of it: computed from the value the loop carries, not fresh input."""
    prefix = key + "."
    for node in walk(value):
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = dotted_name(node)
            if name is not None and (name == key or name.startswith(prefix)):
                return True
    return False


def _statements_before(statement: ast.stmt, loop: ast.AST):
    """Statements that run before `statement` in the same iteration of `loop` (straight-line prefix
    of each enclosing block up to the loop), including nested statements inside them."""
    current = statement
    while current is not loop:
        located = statement_list(current)
        if located is None:
            return
        block, index = located
        for earlier in block[:index]:
            yield from walk(earlier)
        parent = getattr(current, "_jaxlint_parent", None)
        if parent is None:
            return
        current = parent


def captured_by_closure(name: str, scope) -> bool:
    """A nested function or lambda of the scope reads `name` (a closure over the old value)."""
    if "." in name:
        return False
    for child in scope.children:
        if name in child.local_names:
            continue  # its own `name` (a parameter or local) shadows the outer one
        if name not in _names_within(child):
            continue
        node = child.node
        stack = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
        while stack:
            inner = stack.pop()
            if isinstance(inner, ast.Name) and inner.id == name and isinstance(inner.ctx, ast.Load):
                return True
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and name in _parameter_names(inner):
                stack.extend(getattr(inner, "decorator_list", ()))  # a deeper function's own parameter
                continue
            stack.extend(ast.iter_child_nodes(inner))
    return False


_NAMES_WITHIN: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _names_within(scope) -> frozenset[str]:
    """Every plain name spelled in a function's body, nested functions included: one walk per
    function, so `captured_by_closure` skips at once the functions that never mention a name."""
    names = _NAMES_WITHIN.get(scope)
    if names is None:
        node = scope.node
        body = [node.body] if isinstance(node, ast.Lambda) else node.body
        names = _NAMES_WITHIN[scope] = frozenset(
            inner.id for statement in body for inner in walk(statement) if inner.__class__ is ast.Name
        )
    return names


def _parameter_names(function: ast.AST) -> set[str]:
    arguments = function.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    names.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
    return names


def calls_keeping_argument(binding, call: ast.Call, position: int | None, keyword: str | None, model, *, same_function: bool = False) -> list[ast.Call]:
    """Other calls of the same jitted callable (in the module, or only in `call`'s function) that pass,
    at this position, a value they do not rebind from the result and still hold afterwards."""
    if binding.key == "<inline>":
        return []
    name = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id if isinstance(call.func, ast.Name) else None
    candidates = model.scope_for(call).calls if same_function else model.calls_by_name().get(name, [])
    keeping = []
    aliases = _attribute_aliases(call, model)
    if aliases:
        # `self.val_step = self.train_step`: the other attribute is the same compiled callable, and
        # its calls run the same `jit` (an evaluation pass that keeps the state it hands over).
        alias_calls = [c for c in (model.scope_for(call).calls if same_function else [c for a in aliases for c in model.calls_by_name().get(a, [])])]
        for other in alias_calls:
            if isinstance(other.func, ast.Attribute) and dotted_name(other.func) in {f"self.{a}" for a in aliases}:
                if _caller_keeps(_argument(other, position, keyword), other, model):
                    keeping.append(other)
    for other in candidates:
        if other is call or not isinstance(other.func, (ast.Name, ast.Attribute)):
            continue
        if dotted_name(other.func) != dotted_name(call.func) and not (
            isinstance(other.func, ast.Attribute) and isinstance(call.func, ast.Attribute) and other.func.attr == call.func.attr
        ):
            continue
        other_binding = model.jit_binding_for_call(other)
        if other_binding is None or not _same_callable(other_binding, binding):
            continue
        if _caller_keeps(_argument(other, position, keyword), other, model):
            keeping.append(other)
    return keeping


def _attribute_aliases(call: ast.Call, model) -> set[str]:
    """Attributes the class binds, once and to nothing else, to the attribute `call` runs
    (`self.val_step = self.train_step` for a call of `self.train_step`): the same object."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return set()
    scope = model.scope_for(call)
    if scope is None:
        return set()
    counts: dict[str, int] = {}
    aliased = set()
    for candidate in _class_scopes(scope, model):
        for target, value in candidate.bindings:
            for element in target_elements(target):
                key = dotted_name(element)
                if key is not None and key.startswith("self.") and key.count(".") == 1:
                    counts[key] = counts.get(key, 0) + 1
                    if element is target and dotted_name(value) == f"self.{func.attr}":
                        aliased.add(key)
    return {key[len("self."):] for key in aliased if counts.get(key) == 1 and key != f"self.{func.attr}"}


def _same_callable(first, second) -> bool:
    """Two bindings of one compiled callable: one name is not enough (`def grad_step` nested in two
    solvers of one module are two functions, each with its own `jit`)."""
    if first.key != second.key:
        return False
    if first.function is not None or second.function is not None:
        return first.function is second.function
    return first.owner is second.owner


def caller_keeps_parameter(name: str, scope, model) -> bool:
    """`name` is a parameter of the function, and a call of that function in this module passes a value
    its caller still holds there: an attribute (`self._refresh(params, self._state)`) or a name read
    after the call. Donating the parameter on the first iteration would delete the caller's value."""
    if name not in scope.params or not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for call in model.calls_by_name().get(scope.name, ()):
        if _caller_keeps(_passed_to_parameter(call, name, scope), call, model):
            return True
    return False


def _passed_to_parameter(call: ast.Call, name: str, scope) -> ast.expr | None:
    """What `call` passes to the parameter `name` of the function `scope`, by position or keyword."""
    # `obj.method(a, b)` binds `self` first: its arguments start at the next parameter.
    offset = 1 if isinstance(call.func, ast.Attribute) and scope.params[:1] in (["self"], ["cls"]) else 0
    index = scope.params.index(name)
    argument = _argument(call, index - offset, None) if index >= offset else None
    return argument if argument is not None else _argument(call, None, name)


def _caller_keeps(argument: ast.expr | None, call: ast.Call, model) -> bool:
    """The caller still holds the value it passes as `argument` after `call`: an attribute, or a name
    read afterwards. Not a fresh value, nor one the call's result rebinds (`state = step(state)`)."""
    key = dotted_name(argument) if argument is not None else None
    if key is None:
        return False
    if key in _rebound_by(call):
        # Rebound, but another reference shares its buffers there (`self.value_params` bound to
        # `self.target_value_params` at first): donating it at that call would delete them too.
        scope = model.scope_for(call)
        return shares_buffers(key, scope, model, enclosing_statement(call)) or held_elsewhere(key, call, scope, model) or _aliases_live_name(key, call, scope)
    return "." in key or _still_read(key, call, model.scope_for(call))


def _aliases_live_name(key: str, call: ast.Call, scope) -> bool:
    """`key` is a plain local bound from another local (`eval_state = state`) that is still read after
    `call`: on its first run the call is handed that other name's arrays, which it keeps using."""
    statement = enclosing_statement(call)
    if statement is None or "." in key:
        return False
    for target, value in scope.bindings:
        if isinstance(target, ast.Name) and target.id == key and isinstance(value, ast.Name) and value.id != key:
            if value.id in scope.params or value.id not in scope.local_names or read_after(value.id, statement):
                return True
    return False


def _still_read(name: str, call: ast.Call, scope) -> bool:
    """The caller of `call` may read `name` afterwards (or it is held by its own caller)."""
    statement = call
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = getattr(statement, "_jaxlint_parent", None)
    if statement is None or name in scope.params or name in scope.keyword_params or name not in scope.local_names:
        return True
    # Only the code around the call counts, not the call passing `name` again when a loop comes round:
    # counting it would silence JAX401 on a training step whose jitted function an evaluation loop also
    # calls (clam_jax's offline_trainer_lam.py).
    return read_after(name, statement, rerun_reads=False)


def _argument(call: ast.Call, position: int | None, keyword: str | None) -> ast.expr | None:
    if keyword is not None:
        return next((k.value for k in call.keywords if k.arg == keyword), None)
    if position is not None and position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return None


def _rebound_by(call: ast.Call) -> set[str]:
    statement = getattr(call, "_jaxlint_parent", None)
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is not call:
        return set()
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return {dotted_name(element) for target in targets for element in target_elements(target)} - {None}


def _class_scopes(scope, model) -> list:
    """The scopes of the class `scope` belongs to (its methods and what they nest), or of the module
    for module-level names."""
    owner = scope
    while owner is not None and owner.class_node is None and owner.parent is not None:
        owner = owner.parent
    class_node = owner.class_node if owner is not None else None
    if class_node is None:
        return [s for s in model.scopes if s.class_node is None]
    found = []
    for candidate in model.scopes:
        current = candidate
        while current is not None and current.class_node is None:
            current = current.parent
        if current is not None and current.class_node is class_node:
            found.append(candidate)
    return found


def shares_buffers(key: str, scope, model, update: ast.stmt | None = None) -> bool:
    """The value bound to `key` shares its buffers with another live reference, so donating it would
    fail on the first call ("donate the same buffer twice") or delete a value still read:

    - another name or attribute of the same object is bound to it (`self._target = self._online`,
      anywhere in the class), or it is bound to another attribute (`self._online = self._target`);
    - it is a pytree built with the same value twice (`State(params=p, target_params=p)`, directly,
      through a plain alias `target = p`, or returned by a local `make_initial_state(...)`)."""
    scopes = _class_scopes(scope, model) if "." in key else [scope]
    for candidate in scopes:
        for target, value in candidate.bindings:
            if value is None or isinstance(value, ast.AugAssign):
                continue
            for element, element_value in _target_values(target, value):
                name = dotted_name(element)
                if name is None:
                    continue
                if name != key and dotted_name(element_value) == key and ("." in name or candidate is scope):
                    # Another attribute keeps it across calls; a local copy elsewhere (`state = self._state`
                    # in `render()`) lives only while that method runs, and a local copy made once the
                    # loop of updates has ended (`final = state` after it) holds only the last value.
                    if ("." not in name or candidate is scope and _in_loop(update)) and _after_updates(element, update):
                        continue  # (`self.net = net` after the loop: read again only on the next call, a first-call view)
                    if "." not in name and update is not None and not _alias_live_at(name, update):
                        # `eval_state = state` in an evaluation block, read only after that binding:
                        # dead at the update, so donating deletes nothing it reads.
                        continue
                    return True
                if name == key:
                    source = dotted_name(element_value)
                    if source is not None and source != key and "." in key and source.startswith("self."):
                        return True
                    if _built_with_shared_leaves(element_value, candidate, model, 0):
                        return True
    return False


def bound_together(key: str, update: ast.stmt, scope, model) -> tuple[str, ast.stmt, bool, str | None] | None:
    """(the other name, the assignment, whether the update is also handed it, the file name of the
    assignment where it is in another module: a base class's constructor) where one assignment
    binds `key` and another name to the same value before the loop of updates (`self.params =
    self.target = net.init(key, x)`, `params = start = init(...)`) and that other name is still read:
    the two are one pytree, every leaf one buffer, until the first update rebinds `key`. From the
    second call on `key` holds the update's own new arrays, so the copy the update keeps costs memory
    on every step like any other; only donating on the first call deletes the other name's arrays
    (or, where the same call is handed it too, fails: a donated buffer may not also be passed).

    An assignment inside the loop of updates makes the sharing again before every update (the
    other name then keeps the old arrays alive whatever the call donates: `shares_buffers`)."""
    if update is None:
        return None
    scopes = _class_scopes(scope, model) if "." in key else [scope]
    loops = [loop for loop in enclosing_loops(update) if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))]
    call = update.value if isinstance(update, (ast.Assign, ast.AnnAssign)) else None
    passed = _array_arguments(call, model) if isinstance(call, ast.Call) else set()
    if "." in key:
        # The constructor of a base class (`class Agent(Base)`, `Base` of this module or another) may
        # bind them: the other name then counts where the update is handed it.
        for base, home in _base_class_nodes(scope, model):
            for node in walk(base):
                if isinstance(node, ast.Assign) and len(node.targets) > 1:
                    names = [dotted_name(target) for target in node.targets]
                    if key in names and None not in names:
                        other = next((name for name in names if name != key and name in passed and not _bound_before_in_function(name, update, node)), None)
                        if other is not None:
                            path = getattr(getattr(home, "project", None), "path", None)
                            return other, node, True, None if home is model or path is None else os.path.basename(str(path))
    for candidate in scopes:
        for node in walk_same_scope(candidate.node):
            if not (isinstance(node, ast.Assign) and len(node.targets) > 1):
                continue
            names = [dotted_name(target) for target in node.targets]
            if key not in names or None in names:
                continue
            if candidate is scope and loops and is_within(node, loops[0]):
                continue  # made again before every update
            for other in names:
                if other == key or _bound_before_in_function(other, update, node):
                    continue  # (`self.params = update(...)` then `self.target = soft(self.target, self.params)`: no longer one value)
                if other in passed:
                    return other, node, True, None
                live = (
                    any(name == other or name.startswith(other + ".") for owner in scopes for name, _ in _loads(owner, model))
                    if "." in other else candidate is scope and _alias_live_at(other, update)
                )
                if live:
                    return other, node, False, None
    return None


def _base_class_nodes(scope, model, limit: int = 3) -> list[tuple[ast.ClassDef, object]]:
    """(class, model of its module) of the classes the class of `scope` derives from, of this module or
    another module of the project (semantic/imported_sizes.home_definition), a few levels up."""
    from jaxlint.semantic import imported_sizes

    owner = scope
    while owner is not None and owner.class_node is None:
        owner = owner.parent
    if owner is None:
        return []
    found: list[ast.ClassDef] = []
    pending = [(owner.class_node, model)]
    while pending and len(found) < 2 * limit:
        class_node, home = pending.pop()
        for base in class_node.bases:
            local = [c for c in home.class_methods if isinstance(base, ast.Name) and c.name == base.id and home.scope_for(c) is home.module_scope]
            if len(local) == 1 and base.id not in home.imports.aliases:
                parent = (local[0], home)
            else:
                imported = imported_sizes.home_definition(base, home)
                parent = (imported[1], imported[0]) if imported is not None and isinstance(imported[1], ast.ClassDef) else None
            if parent is not None and parent[0] is not class_node and all(parent[0] is not seen for seen, _ in found):
                found.append(parent)
                pending.append(parent)
    return found


def _bound_before_in_function(name: str, update: ast.stmt, since: ast.stmt) -> bool:
    """A statement before `update` in its blocks, up to its function, and after `since`, binds `name`
    (`self.params = ...` earlier in the same loop body): the value `update` is handed under that name
    is that binding's."""
    child: ast.AST = update
    while True:
        located = statement_list(child)
        if located is None:
            return False
        block, index = located
        for earlier in reversed(block[:index]):
            if earlier is since or is_within(since, earlier):
                return False
            if isinstance(earlier, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = earlier.targets if isinstance(earlier, ast.Assign) else [earlier.target]
                if any(dotted_name(element) == name for target in targets for element in target_elements(target)):
                    return True
        child = parent_of(child)
        if child is None or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)):
            return False


def _alias_live_at(name: str, update: ast.stmt) -> bool:
    """A local alias of the state may still be read when the update runs: the update itself reads it,
    or some path after the update (the next iteration included) reads it before rebinding it."""
    return any(isinstance(n, ast.Name) and n.id == name for n in walk(update)) or read_after(name, update)


# Calls whose result holds the buffers of what they are given: a pytree rebuilt around the same leaves
# (`.replace(params=...)`, a constructor, a container), or moved to the device it is already on.
_ALIAS_KEEPING_CALLS = frozenset({
    "jax.device_put", "jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map", "dataclasses.replace",
    "flax.core.freeze", "flax.core.unfreeze", "flax.core.frozen_dict.freeze", "flax.core.frozen_dict.unfreeze",
    "builtins.dict", "builtins.list", "builtins.tuple", "copy.copy",
})
# Where a constructor builds a pytree around its arguments; an outside class (`pymatgen.Structure`)
# converts what it is given. A class of the module itself has no qualified name.
_PYTREE_LIBRARIES = frozenset({"", "jax", "flax", "optax", "equinox", "haiku", "chex", "collections", "typing", "dataclasses"})


def held_elsewhere(key: str, call: ast.Call, scope, model, first_call_only: list[str] | None = None) -> bool:
    """The value bound to `key`, or a part of it, is also held by another object that outlives the
    update, so donating it deletes buffers that object still uses ("Array has been deleted") or passes
    one buffer twice ("donate the same buffer twice"):

    - stored beside it through something that keeps the leaves: `target = target.replace(params=
      optimizer.target.params)`, `pool.append({"weights": jax.device_put(state, gpu)})` (the same device:
      no copy), `self.best = state`, `snapshots = [tree_map(lambda x: x, state)]`, or a local helper
      that returns its argument so (`move_pytree(state, device)`); a local holder counts only while it
      may still be read after the update;
    - bound itself from a part of another value the same call passes (`self.actor_old =
      self.actor_old.replace(params=self.actor.params)` with `update(self.actor, self.actor_old)`).

    A part read into a plain local (`params = state.params`) or a value computed from the state
    (`loss = evaluate(state)`, jitted calls: their outputs are new buffers) is not held elsewhere.

    Nor is sharing that the update itself ends: a holder built before the loop of updates and rebound
    by the update along with the state (`opt = Adam(lr).create(variables["params"])`, then `variables,
    opt = step(variables, opt, batch)` per iteration) shares leaves on the first call only; from the
    second call on both are the call's own new outputs and the two copies cost memory on every step.
    With `first_call_only` (a list) given, the other names of such sharing are appended to it, so the
    caller can withhold the fix (donating both on the first call passes one buffer twice)."""
    scopes = _class_scopes(scope, model) if key.startswith("self.") else [scope]
    passed = _array_arguments(call, model) - {None, key}
    statement = enclosing_statement(call)
    ended = sharing_ended_by(statement) if first_call_only is not None else None
    for candidate in scopes:
        for name, node in _loads(candidate, model):
            if name == key or name.startswith(key + "."):
                holder = _holder(node, key, model)
                if holder is None:
                    continue
                if candidate is scope and _in_loop(statement) and _after_updates(node, statement):
                    continue  # `self.net = net` once the loop of updates has ended: it holds the last value only
                if holder == _CONTAINER or holder.startswith("self."):
                    return True  # the object's own attribute or an item: kept past this function
                holder = holder.split(".", 1)[0]  # `evaluator.model.variables = ...`: as long as `evaluator` lives
                if candidate is scope and read_after(holder, statement) and (
                    not _rebinds(holder, node) or _read_beyond_refresh(holder, node, statement, candidate)
                ):
                    if ended is not None and ended(holder, node):
                        first_call_only.append(holder)
                        continue
                    return True  # (a container appended to keeps every value; a rebound name, the last)
            elif (
                any(name == other or name.startswith(other + ".") for other in passed)
                or key.startswith("self.") and name.startswith("self.") and not key.startswith(name + ".")
                and _holds_arrays(name, scopes, model)
            ) and _holder(node, None, model) == key:
                # Built around another value of the same call, or around another attribute the object
                # keeps (`self.state = TrainState.create(params=self.model_params)`).
                if ended is not None and ended(name.split(".", 1)[0], node):
                    first_call_only.append(name.split(".", 1)[0])
                    continue
                if _replicated_after(node, key, model):
                    continue  # `self.state = replicate(self.state)` next: the state holds copies
                if _bound_anew_before(name, statement, node):
                    continue  # `rng, key = split(rng)` before each update: never the value the state was built from
                return True
    return False


def _array_arguments(call: ast.Call, model) -> set:
    """Dotted names a call passes where they may carry arrays: a static argument of the compiled
    callable (`static_argnums=(3,)` for a config) is hashed on the host and shares no buffer."""
    binding = model.jit_binding_for_call(call)
    names = set()
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            binding = None  # positions after a `*args` are unknown
        elif binding is None or binding.is_static(position, None) is not True:
            names.add(dotted_name(argument))
    for keyword in call.keywords:
        if binding is None or keyword.arg is None or binding.is_static(None, keyword.arg) is not True:
            names.add(dotted_name(keyword.value))
    return names


def _bound_anew_before(name: str, update: ast.stmt | None, occurrence: ast.AST) -> bool:
    """Every run of `update` (in a loop) passes a `name` bound by a call earlier in the same iteration
    (`rng, key = jax.random.split(rng)` before `state = step(state, key)`), while the state was built
    around `name` outside that loop: the value the update is handed is never the one the state holds."""
    if update is None or "." in name:
        return False
    loops = [loop for loop in enclosing_loops(update) if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))]
    made = enclosing_statement(occurrence)
    if not loops or made is None or is_within(made, loops[0]):
        return False
    child: ast.AST = update
    while child is not loops[0]:
        located = statement_list(child)
        if located is None:
            return False
        block, index = located
        for earlier in block[:index]:
            if (
                isinstance(earlier, ast.Assign) and isinstance(earlier.value, ast.Call)
                and any(name in bound_names(target) for target in earlier.targets)
            ):
                return True
        child = parent_of(child)
        if child is None:
            return False
    return False


# Replication to the devices: a new array with a leading device axis, a copy of every leaf.
_REPLICATING_COPIES = frozenset({"jax.device_put_replicated", "flax.jax_utils.replicate"})


def _replicated_after(occurrence: ast.AST, key: str, model) -> bool:
    """The statement that builds `key` around another value (`self.state = TrainState.create(params=
    self.params)`) is followed in its block by a replication of `key` into itself (`self.state =
    jax.device_put_replicated(self.state, devices)`, `state = flax.jax_utils.replicate(state)`), with
    no other binding of `key` between: from then on `key` holds copies, not the other value's arrays."""
    made = enclosing_statement(occurrence)
    located = statement_list(made) if made is not None else None
    if located is None:
        return False
    block, index = located
    for statement in block[index + 1:]:
        if not isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            continue
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        names = {dotted_name(element) for target in targets for element in target_elements(target)}
        if key not in names:
            continue
        value = statement.value
        return (
            isinstance(statement, ast.Assign) and len(statement.targets) == 1 and dotted_name(statement.targets[0]) == key
            and isinstance(value, ast.Call) and bool(value.args) and dotted_name(value.args[0]) == key
            and model.qualified_name(value.func) in _REPLICATING_COPIES
        )
    return False


def sharing_ended_by(update: ast.stmt):
    """A test `(name, occurrence) -> bool`: the sharing made at `occurrence` (a plain local `name`
    holding the state's leaves, or holding leaves the state was built around) ends with the first run
    of `update`: `update` sits in a loop, rebinds `name` itself, and `occurrence` lies outside that
    loop, so it is not made again between updates."""
    loops = [loop for loop in enclosing_loops(update) if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))]
    rebound = set()
    if loops and isinstance(update, (ast.Assign, ast.AnnAssign)):
        targets = update.targets if isinstance(update, ast.Assign) else [update.target]
        rebound = {dotted_name(element) for target in targets for element in target_elements(target)} - {None}

    def ended(name: str, occurrence: ast.AST) -> bool:
        if "." in name or name not in rebound:
            return False
        made = enclosing_statement(occurrence)
        return made is not None and made.lineno < update.lineno and not is_within(made, loops[0])

    return ended


_CONTAINER = "<container>"


def _loads(scope, model) -> list[tuple[str, ast.AST]]:
    """(dotted name, node) of every name or attribute chain the scope reads, in walk order: built
    once per scope and model, as `held_elsewhere` asks it for each argument it weighs."""
    cache = model.__dict__.setdefault("_jaxlint_loads", {})
    loads = cache.get(id(scope.node))
    if loads is None:
        loads = cache[id(scope.node)] = []
        for node in walk_same_scope(scope.node):
            kind = node.__class__
            if (kind is ast.Name or kind is ast.Attribute) and node.ctx.__class__ is ast.Load:
                name = dotted_name(node)
                if name is not None:
                    loads.append((name, node))
    return loads


def _holds_arrays(attribute: str, scopes, model) -> bool:
    """The object binds `attribute` to arrays: a model's `init(...)` (or a part of it) or a device
    value; not an optimiser, a function or a config (`self.optimizer = optax.adam(...)`)."""
    for scope in scopes:
        for target, value in scope.bindings:
            if dotted_name(target) != attribute or not isinstance(value, ast.AST):
                continue
            while isinstance(value, ast.Subscript):
                value = value.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("init", "init_with_output"):
                return True
            if model.device_kind(value, scope) == "device":
                return True
    return False


def _read_beyond_refresh(holder: str, occurrence: ast.AST, update: ast.stmt, scope) -> bool:
    """Whether `holder` may be read after `update` other than right after the statement that
    refreshes it with the value (`eval_state = eval_state.replace(params=state.params)` then
    `evaluate(eval_state)` in the same block) or as the receiver of that refresh itself. Reads before
    the update, outside any loop around it, come too early to see deleted buffers."""
    loops = set(map(id, enclosing_loops(update)))
    binding = enclosing_statement(occurrence)
    block, index = statement_list(binding) or ([binding], 0)
    after = block[index:]
    for node in walk_same_scope(scope.node):
        if not (isinstance(node, ast.Name) and node.id == holder and isinstance(node.ctx, ast.Load)):
            continue
        statement = enclosing_statement(node)
        if any(is_within(statement, s) and not is_within(update, s) for s in after):
            continue  # read before the update comes round (a loop holding both reads it after)
        if statement.lineno > update.lineno or any(id(loop) in loops for loop in enclosing_loops(statement)):
            return True
    return False


def _rebinds(name: str, occurrence: ast.AST) -> bool:
    statement = enclosing_statement(occurrence)
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []
    return any((dotted_name(element) or "").split(".", 1)[0] == name for target in targets for element in target_elements(target))


def _holder(occurrence: ast.AST, key: str | None, model) -> str | None:
    """Where the value read at `occurrence` ends up, through calls and displays that keep its leaves:
    the dotted name it is stored into (not `key` itself), `_CONTAINER` for a value appended to a
    container, or None when it is only computed with. A part bound to a plain local unwrapped
    (`params = state.params`) is a view for this step's code, not a holder."""
    node, wrapped = occurrence, False
    while True:
        parent = parent_of(node)
        if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node:
            grand = parent_of(parent)
            if isinstance(parent, ast.Attribute) and parent.attr in ("replace", "_replace", "copy_with") and isinstance(grand, ast.Call) and grand.func is parent:
                node, wrapped = grand, True  # `state.replace(step=1)` keeps every other leaf of `state`
                continue
            if isinstance(grand, ast.Call) and grand.func is parent:
                return None  # a method of the value computes something new (`state.apply_fn(...)`)
            if isinstance(parent, ast.Subscript) and not (isinstance(parent.slice, ast.Constant) and isinstance(parent.slice.value, str)):
                return None  # indexing an array (`params[-1]`) copies; a pytree is indexed by name
            node = parent  # a part of it: `state.params`, `state["params"]`
            continue
        if isinstance(parent, (ast.List, ast.Tuple)) and isinstance(parent_of(parent), ast.Assign) and parent_of(parent).value is parent:
            assignment = parent_of(parent)
            target = assignment.targets[0]
            if len(assignment.targets) == 1 and isinstance(target, (ast.List, ast.Tuple)) and len(target.elts) == len(parent.elts):
                return _stored_in(target.elts[parent.elts.index(node)], key, wrapped, occurrence is node and isinstance(occurrence, ast.Name))
        if isinstance(parent, (ast.List, ast.Tuple, ast.Set, ast.Starred, ast.keyword)) or (isinstance(parent, ast.Dict) and node in parent.values):
            node, wrapped = parent, wrapped or not isinstance(parent, (ast.Starred, ast.keyword))
            continue
        if isinstance(parent, ast.Call) and node is not parent.func:
            func = parent.func
            if model.jit_binding_for_call(parent) is not None:
                return None  # compiled outputs are new buffers
            if isinstance(func, ast.Attribute) and func.attr in STORING_METHODS:
                container = dotted_name(func.value)
                if container is not None and key is not None and (container == key or container.startswith(key + ".")):
                    return None
                return container if container is not None and "." not in container else _CONTAINER
            if _keeps_leaves(parent, model):
                node, wrapped = parent, True
                continue
            return None
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and parent.value is node:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            whole = occurrence is node and isinstance(occurrence, ast.Name)
            for target in targets:
                for element in target_elements(target):
                    holder = _stored_in(element, key, wrapped, whole)
                    if holder is not None:
                        return holder
            return None
        return None


def _stored_in(target: ast.AST, key: str | None, wrapped: bool, whole: bool) -> str | None:
    name = dotted_name(target)
    if name == "_" or (key is not None and name is not None and (name == key or name.startswith(key + "."))):
        return None
    if name is None:
        # `pool[i] = state`: held by the container, a local one only while it is read.
        root_name = dotted_name(target.value) if isinstance(target, ast.Subscript) else None
        return root_name if root_name is not None else _CONTAINER
    if key is None or wrapped or whole or "." in name:
        return name
    return None


def _keeps_leaves(call: ast.Call, model, depth: int = 0) -> bool:
    func = call.func
    qualified = model.qualified_name(func) or ""
    if qualified in _ALIAS_KEEPING_CALLS:
        return not qualified.endswith(("tree_map", "tree.map")) or bool(call.args) and _returns_leaf(call.args[0], model)
    if qualified in _COPYING_CALLS:
        return False
    called = qualified.rsplit(".", 1)[-1] if qualified else func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if called in ("replace", "_replace") or called[:1].isupper() and qualified.split(".", 1)[0] in _PYTREE_LIBRARIES:
        return True  # a constructor (`TrainState(params=...)`, `nn.Model(module, params)`)
    if called == "create" and isinstance(func, ast.Attribute):
        # A class's factory (`TrainState.create(params=...)`, `Adam(lr).create(params)`), not a
        # module's function (`kvcache.create(config)`).
        owner = func.value
        return isinstance(owner, ast.Call) or (dotted_name(owner) or "").rsplit(".", 1)[-1][:1].isupper()
    if isinstance(func, ast.Name):
        helper = _local_function(func.id, model.scope_for(call))
        if depth >= 2 or helper is None:
            return False
        # A helper that returns its parameter so (`def move(tree, d): return tree_map(lambda x: device_put(x, d), tree)`).
        return any(
            isinstance(r, ast.Call) and any(isinstance(a, ast.Name) and a.id in helper.params for a in [*r.args, *(k.value for k in r.keywords)])
            and _keeps_leaves(r, model, depth + 1)
            for r in helper.returns
        )
    return False


def _returns_leaf(function: ast.AST, model) -> bool:
    """A function mapped over a tree that may hand back the leaf itself: `lambda x: x`,
    `lambda x: jax.device_put(x, device)` (no copy on the same device), `lambda x: x.value`;
    `lambda e, p: decay * e + p` or `jnp.copy` make new buffers."""
    if not isinstance(function, ast.Lambda):
        return model.qualified_name(function) == "jax.device_put"
    parameters = {a.arg for a in function.args.args}
    results = [function.body]
    while results:
        body = results.pop()
        if isinstance(body, ast.IfExp):
            results.extend((body.body, body.orelse))
        elif isinstance(body, ast.Name) and body.id in parameters:
            return True
        elif isinstance(body, ast.Attribute) and body.attr == "value" and isinstance(body.value, ast.Name):
            return True  # an nnx Variable's array
        elif isinstance(body, ast.Call) and (model.qualified_name(body.func) == "jax.device_put" or isinstance(body.func, ast.Attribute) and body.func.attr == "block_until_ready"):
            return True
    return False


def _target_values(target, value):
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
        for element, element_value in zip(target.elts, value.elts):
            yield from _target_values(element, element_value)
    elif isinstance(value, ast.AST):
        yield target, value


def _built_with_shared_leaves(value: ast.AST, scope, model, depth: int) -> bool:
    """`value` builds a pytree that holds the same (local) value twice."""
    if depth > 2 or not isinstance(value, ast.Call):
        return False
    from jaxlint.semantic import library_models

    entry = library_models.call_model(model, value, scope)
    if entry is not None and entry.result == "fresh":
        return False  # new buffers (`eqx.nn.MLP(width, 1, width, 2, key=k)`): a size passed twice is no shared leaf
    parts = [*value.args, *(k.value for k in value.keywords if k.arg)]
    roots = [_resolve_alias(part.id, scope) for part in parts if isinstance(part, ast.Name) and not _plain_number(part, scope, model)]
    if len(roots) != len(set(roots)):
        return True
    # A local builder: `state = make_initial_state(key)` with `def make_initial_state(key): ... return State(...)`.
    if isinstance(value.func, ast.Name):
        builder = _local_function(value.func.id, scope)
        if builder is not None:
            for returned in builder.returns:
                candidates = [returned]
                if isinstance(returned, ast.Name):
                    candidates = [v for t, v in builder.bindings if isinstance(t, ast.Name) and t.id == returned.id and isinstance(v, ast.AST)]
                if any(_built_with_shared_leaves(c, builder, model, depth + 1) for c in candidates):
                    return True
    return False


_NUMBER_ANNOTATIONS = frozenset({"int", "float", "bool", "str"})


def _plain_number(name: ast.Name, scope, model) -> bool:
    """A name holding a Python number or string (`Net(width, width)`: a size, not a leaf): a constant
    the module fixes, or a parameter annotated `int`/`float`/`bool`/`str`."""
    from jaxlint.semantic.constants import UNKNOWN

    parameter = scope.param_nodes.get(name.id)
    if parameter is not None:
        annotation = getattr(parameter, "annotation", None)
        return isinstance(annotation, ast.Name) and annotation.id in _NUMBER_ANNOTATIONS
    value = model.constant_evaluator().value(name, scope)
    return value is not UNKNOWN and isinstance(value, (int, float, str)) and not isinstance(value, bool)


def _resolve_alias(name: str, scope, limit: int = 4) -> str:
    """Follow plain aliases (`target = online`) back to the name first bound to a value."""
    for _ in range(limit):
        sources = [v for t, v in scope.bindings if isinstance(t, ast.Name) and t.id == name and isinstance(v, ast.AST) and not isinstance(v, ast.AugAssign)]
        if len(sources) != 1 or not isinstance(sources[0], ast.Name):
            return name
        name = sources[0].id
    return name


def _local_function(name: str, scope):
    current = scope
    while current is not None:
        found = current.defs.get(name)
        if found is not None:
            return found
        current = current.parent
    return None


def leaks_from_object(key: str, scope, model) -> bool:
    """A method of the object hands out the state or a part of it (`return self._state`,
    `return [self._state.params]`, `variables = {"policy": self._state.params}; return variables`):
    whoever called it (another thread, a checkpointer, an actor) may still hold the arrays that
    donation deletes at the next update. Reading the state to compute something (`return
    self.apply_fn(self.params, x)`) hands out a new value, not the state."""
    if not key.startswith("self."):
        return False
    for candidate in _class_scopes(scope, model):
        method = candidate
        while method.parent is not None and method.parent.class_node is None and method.parent.is_function:
            method = method.parent
        if method.name.startswith("_") and not (method.name.startswith("__") and method.name.endswith("__")):
            continue  # a private helper serves the class itself
        if any(key in {dotted_name(e) for e in target_elements(target)} for target, _ in method.bindings):
            continue  # the update itself (`ask()` returning the population it just drew): the caller gets the new value
        for returned in candidate.returns:
            if returned is not None and _hands_out(returned, key, candidate, 0, model):
                return True
        for call in candidate.calls:
            # Given to another object the class holds (`self._adder.add(extras=self._get_extras(self._state))`,
            # `self._queue.put(self._state)`), which may keep it past the next update.
            func = call.func
            owner = dotted_name(func.value) if isinstance(func, ast.Attribute) else None
            if owner is None or not owner.startswith("self.") or owner == key or owner.startswith(key + ".") or key.startswith(owner + "."):
                continue
            if any(_hands_out(argument, key, candidate, 0, model) for argument in [*call.args, *(k.value for k in call.keywords)]):
                return True
    return False


_COPYING_CALLS = frozenset({
    "jax.device_get", "numpy.array", "numpy.asarray", "numpy.copy", "jax.numpy.copy", "copy.copy", "copy.deepcopy",
    "builtins.float", "builtins.int", "builtins.bool", "builtins.str", "builtins.len", "builtins.print",
})
_TRANSPARENT_CALLS = frozenset({"dict", "list", "tuple", "set", "frozenset"})


def _hands_out(expression: ast.AST, key: str, scope, depth: int, model) -> bool:
    stack = [expression]
    while stack:
        node = stack.pop()
        name = dotted_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if name is not None and (name == key or name.startswith(key + ".")):
            return True
        if isinstance(node, ast.Name) and depth < 2 and isinstance(node.ctx, ast.Load):
            for target, value in scope.bindings:
                if isinstance(target, ast.Name) and target.id == node.id and isinstance(value, ast.AST) and not isinstance(value, ast.AugAssign):
                    if _hands_out(value, key, scope, depth + 1, model):
                        return True
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            # Containers and constructors (`State(params=self._state.params)`, `._replace(...)`) hold their arguments.
            if called in _TRANSPARENT_CALLS or called[:1].isupper() or called in ("_replace", "replace"):
                stack.extend(node.args)
                stack.extend(k.value for k in node.keywords)
            elif (
                len(node.args) == 1 and all(isinstance(k.value, ast.Constant) for k in node.keywords)
                and not any(k.arg == "copy" for k in node.keywords)
                and model.qualified_name(func) not in _COPYING_CALLS and called not in ("copy", "deepcopy", "device_get")
            ):
                # A function of the state alone (`get_from_first_device([self._state.params])`, `tree_map(f, ...)` aside)
                # may hand back the state or a view of it.
                stack.append(node.args[0])
            continue
        if isinstance(node, ast.comprehension):
            stack.append(node.iter)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _bounded_window(func: ast.AST, loop: ast.AST, model) -> bool:
    """`stops.append(...)` on a `collections.deque(maxlen=...)`: a sliding window, not a recording."""
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return False
    scope = model.scope_for(loop)
    for target, value in scope.bindings if scope is not None else ():
        if isinstance(target, ast.Name) and target.id == func.value.id and isinstance(value, ast.Call):
            if model.qualified_name(value.func) == "collections.deque" and (len(value.args) > 1 or any(k.arg == "maxlen" for k in value.keywords)):
                return True
    return False


_RECORDING_METHODS = frozenset({"append", "extend", "insert"})


def records_carried_state(loop: ast.AST, model) -> bool:
    """The loop records the state it steps: each iteration appends it, a part of it or something
    computed from it alone to a list (`frames.append(render(state))`, `rollout.append(get_qp(state.qp, i))`;
    not `predictions.append(predict(params, x))`, a model's output on data).
    Such a loop is a visualisation or evaluation rollout: it keeps a trajectory, whose elements may
    share the state's buffers, and steps a single small state a bounded number of times, where
    donation saves nothing worth the risk. A training loop that renders an evaluation now and then
    (`render_image(state.params, ...)` without keeping the state) is not one."""
    carried: set[str] = set()
    for node in walk(loop):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) and model.jit_binding_for_call(node.value) is not None:
            carried |= rebinds_handed(node, node.value)
    if not carried:
        return False
    indices = {
        element.id for node in walk(loop) if isinstance(node, (ast.For, ast.AsyncFor))
        and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range"
        for element in target_elements(node.target) if isinstance(element, ast.Name)
    }
    for node in walk(loop):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called in _RECORDING_METHODS and not _bounded_window(func, loop, model):
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                if _of_state_alone(argument, carried, indices):
                    return True
    return False


def _of_state_alone(expression: ast.AST, carried: set[str], indices: set[str]) -> bool:
    """`expression` reads a carried state and nothing else but constants and range indices
    (`state`, `state.qp`, `render(state, 0)`, `get_qp(state, i)`): a record of the state, not a model's
    output on data (`predict(params, x)`)."""
    reads_state = False
    stack = [expression]
    while stack:
        node = stack.pop()
        name = dotted_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if name is not None and any(name == c or name.startswith(c + ".") for c in carried):
            reads_state = True
            continue
        if isinstance(node, ast.Name):
            if node.id not in indices:
                return False
            continue
        if isinstance(node, ast.Call):
            stack.extend(node.args)
            stack.extend(k.value for k in node.keywords)
            continue  # the function called is not an input
        stack.extend(ast.iter_child_nodes(node))
    return reads_state


# ----- state known to be small: not worth donating ---------------------------------------------------

# What a second copy of the state must cost before donation is worth asking for, one threshold the
# project's measures agree on. The precision reads judged every missing donation of a state of about
# 2.5 MB or more real (an MLP of widths 256 with Adam, an Atari DQN's optimizer state, a NeRF MLP),
# and every one under 1 MB false (a grid of 300x300, an MLP of widths 128, a few vectors); from 0.9
# to 2 MB they split (debatable). The labels call real a missing donation of 1.3 MB and more and a
# state under 1 MB nil (issue 27 and the labelling convention say the same: ~1 MB). Below 1 MB per
# device, a bounded state is not worth a finding. A size the source does not fix is not bounded: it
# is flagged (treating it as small would drop most labelled real findings), except in demonstration
# code (semantic/demo_code.py).
WORTH_DONATING_BYTES = 2**20
_BYTES_PER_ELEMENT = 4  # float32, JAX's default; a bound, not a measurement
_KEY_ELEMENTS = {"jax.random.PRNGKey": 2, "jax.random.key": 2, "jax.random.fold_in": 2, "jax.random.clone": 2}
_FILLED_ARRAYS = frozenset({
    "jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.full", "jax.numpy.empty",
    "numpy.zeros", "numpy.ones", "numpy.full", "numpy.empty",
})
_SQUARE_ARRAYS = frozenset({"jax.numpy.eye", "jax.numpy.identity", "numpy.eye", "numpy.identity"})
_LITERAL_ARRAYS = frozenset({"jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray"})
# Calls that place or replicate their first argument on devices: each device holds one copy of it.
_REPLICATING = frozenset({
    "jax.device_put", "jax.device_put_replicated", "flax.jax_utils.replicate", "jax.numpy.asarray", "jax.numpy.array",
})
_BROADCASTS = frozenset({"jax.numpy.broadcast_to", "numpy.broadcast_to"})
_TREE_MAPS = frozenset({"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"})
_DEVICE_COUNTS = frozenset({"jax.local_device_count", "jax.device_count", "jax.process_count"})
_DEPTH = 10
_MAX_OPERANDS = 16  # operands of one chain of elementwise arithmetic the size model reads
# NumPy samplers of the host: the position of their `size` argument (`randn`/`rand` take the axes).
_HOST_SAMPLERS = {
    "numpy.random.normal": 2, "numpy.random.uniform": 2, "numpy.random.randint": 2,
    "numpy.random.randn": 0, "numpy.random.rand": 0,
}
# Functions computing each element from the same element of their argument: its size.
_ELEMENTWISE = frozenset({
    f"{module}.{name}" for module in ("numpy", "jax.numpy")
    for name in ("sqrt", "exp", "log", "abs", "tanh", "sin", "cos", "square", "negative", "sign", "log1p", "expm1", "floor", "ceil", "round")
})
_SHAPED_LIKE = frozenset({
    "jax.numpy.zeros_like", "jax.numpy.ones_like", "jax.numpy.empty_like", "jax.numpy.full_like",
    "numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like",
})
_STACKING = frozenset({"jax.numpy.array", "jax.numpy.asarray", "jax.numpy.stack", "numpy.array", "numpy.stack"})
# `jax.random` samplers whose second argument is the shape.
_SHAPE_SECOND = frozenset({"normal", "uniform", "randint", "gumbel", "laplace", "logistic", "cauchy", "exponential", "rademacher", "bits"})


def known_small(value: ast.AST, scope, model) -> bool:
    """Whether the source shows that `value` holds under `WORTH_DONATING_BYTES` (1 MB) of arrays per device: a PRNG key
    (`PRNGKey(0)`, `split(key)`), numbers, arrays of a size the source fixes (`jnp.zeros((8, 16))`,
    `normal(key, (N,))` with a module constant `N`, a literal `jnp.array([...])`), dicts, lists and
    tuples of those, a local helper that returns such a value, and a replication of one to the devices
    (`device_put_replicated(x, devices)`, `broadcast_to(x, (jax.local_device_count(), ...))`, a
    `tree_map` of either). A size the source does not fix (a parameter, a loaded checkpoint, a model's
    `init`) is not known small. A network's `init` on an input of unknown shape is bounded by
    `state_size.FEATURE_BOUND` features into its first dense layer (semantic/state_size.py), and a part
    picked by name (`init(key, x)["params"]`, `.get("params")`) is counted as its whole: upper bounds,
    read here only, never to show a state large."""
    sizes = _state_sizes(model)
    sizes.unknown_input = False
    sizes.bounding_parts = True
    try:
        elements = _elements(value, scope, model, 0)
        if elements is None and sizes.unknown_input:
            sizes.bounding_inputs = True
            try:
                elements = _elements(value, scope, model, 0)
            finally:
                sizes.bounding_inputs = False
    finally:
        sizes.bounding_parts = False
    return elements is not None and elements * _BYTES_PER_ELEMENT < WORTH_DONATING_BYTES


def known_large(value: ast.AST, scope, model) -> bool:
    """Whether the source shows that `value` holds `WORTH_DONATING_BYTES` (1 MB) or more of arrays per device (the
    counterpart of `known_small`; a size the source does not fix is neither). A network's `init` on
    an input of unknown shape is read at one feature into its first dense layer (an environment's
    action count at one action): the layers after it hold what their widths fix, a lower bound read
    here only, never to show a state small."""
    sizes = _state_sizes(model)
    sizes.unknown_input = False
    elements = _elements(value, scope, model, 0)
    if elements is None and sizes.unknown_input:
        sizes.least_inputs = True
        try:
            elements = _elements(value, scope, model, 0)
        finally:
            sizes.least_inputs = False
    return elements is not None and elements * _BYTES_PER_ELEMENT >= WORTH_DONATING_BYTES


def reaches_large(argument: ast.AST, scope, model) -> bool:
    """The state an update is handed (`params` in `params = update(params, x)` in a loop) is, where
    the update first runs, the value of a binding the source shows at `WORTH_DONATING_BYTES` or more
    (`known_large`): the one binding of the name that reaches the update from outside the loops
    rebinding it, in a notebook or script rebinding the name cell after cell the nearest one before
    (`params = init_mlp(...)` in one cell, `_, params = init_rnn(...)` in a later one: the later
    reaches). A binding inside those loops is the update's own; where no single binding reaches,
    nothing is shown."""
    from jaxlint.semantic.reaching import reaching_value_outside

    key = dotted_name(argument)
    read = enclosing_statement(argument)
    if key is None or read is None:
        return False
    loops = list(enclosing_loops(read))
    values = []
    for target, value in scope.bindings:
        if value is None or key not in {dotted_name(element) for element in target_elements(target)}:
            continue
        statement = enclosing_statement(value) if not isinstance(value, ast.stmt) else value
        if statement is None or statement is read or any(is_within(statement, loop) for loop in loops):
            continue  # the update itself, or another rebinding in its loops
        values.append((target, value))
    by_value = {id(value): target for target, value in values}
    reached = reaching_value_outside(argument, [value for _, value in values])
    if reached is None or dotted_name(by_value.get(id(reached))) != key:
        return False  # several candidates, or unpacked from something else (`_, params = init(...)`)
    return known_large(getattr(reached, "value", reached) if isinstance(reached, ast.stmt) else reached, scope, model)


def element_count(value: ast.AST, scope, model) -> int | None:
    """Elements per device of the arrays `value` holds when the source fixes them (what `known_small`
    bounds), else None."""
    return _elements(value, scope, model, 0)


def holds_no_arrays(value: ast.AST, scope, model) -> bool:
    """An object of settings only, such as an optimizer before its `init` (`tx.Optimizer(optax.adam(lr))`)."""
    return isinstance(value, ast.Call) and _state_sizes(model).settings_only(value, scope)


def attribute_known_small(key: str, update: ast.stmt, scope, model) -> bool:
    """Every value the class binds to the attribute `key` (`self.weights`) outside the update itself
    is `known_small`, and there is at least one."""
    values = []
    for candidate in _class_scopes(scope, model):
        for target, value in candidate.bindings:
            if value is update or value is getattr(update, "value", None):
                continue
            names = {dotted_name(element) for element in target_elements(target)}
            if key not in names:
                continue
            if dotted_name(target) != key or value is None or isinstance(value, ast.AugAssign):
                return False  # unpacked from something else, or updated in place
            values.append((value, candidate))
    return bool(values) and all(known_small(value, owner, model) for value, owner in values)


def _elements(value: ast.AST, scope, model, depth: int, passed: dict | None = None) -> int | None:
    """Elements per device of the arrays `value` builds, when the source fixes them; else None.
    `passed`: inside a local helper, its parameters -> (the argument a call passes, the caller's scope)."""
    if depth > _DEPTH or value is None:
        return None
    if isinstance(value, ast.Constant):
        return 1 if isinstance(value.value, (int, float, bool)) else None
    if isinstance(value, ast.UnaryOp):
        return _elements(value.operand, scope, model, depth, passed)
    if isinstance(value, ast.BinOp) and not isinstance(value.op, ast.MatMult):
        # Elementwise with scalars (`normal(size=(n, m)) * scale`, `2 / n`): the array's size. Two
        # arrays may broadcast to more than either: unknown. (The operands of a chain are gathered
        # without recursion: a long sum is one level.)
        operands, pending = [], [value]
        while pending and len(operands) <= _MAX_OPERANDS:
            node = pending.pop()
            if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
                pending.extend((node.left, node.right))
            else:
                operands.append(node)
        if pending:
            return None
        return _broadcast([_elements(side, scope, model, depth, passed) for side in operands], model, operands, scope, passed)
    if isinstance(value, ast.Compare) and len(value.comparators) == 1:
        operands = [value.left, value.comparators[0]]
        return _broadcast([_elements(side, scope, model, depth, passed) for side in operands], model, operands, scope, passed)
    if isinstance(value, (ast.Tuple, ast.List)):
        return _total([_elements(element, scope, model, depth, passed) for element in value.elts])
    if isinstance(value, ast.Dict):
        return _total([_elements(element, scope, model, depth, passed) for element in value.values]) if None not in value.keys else None
    if isinstance(value, ast.Name):
        if passed and value.id in passed:
            argument, caller = passed[value.id]
            if isinstance(argument, ast.Constant):
                return _elements(argument, caller, model, depth)  # (a number: no further lookup)
            return _elements(argument, caller, model, depth + 1)
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, value.id, scope)
        if found is None and value.id in scope.param_nodes:
            # A parameter holds what the calls pass, where every call is in sight: the most any call
            # passes (semantic/passed_state.py); `opt_state = optimizer.init(params)` is sized from it.
            from jaxlint.semantic.fixed_parameters import handed_arguments

            arguments = handed_arguments(value.id, scope, model)
            if arguments is None:
                # A constructor's parameter holds what the constructor calls hand in (semantic/constructed_sizes.py).
                arguments = constructed_sizes.constructor_arguments(model, scope, value.id)
            counts = [_elements(argument, caller, model, depth + 1) for caller, argument in arguments or ()]
            return None if not counts or None in counts else max(counts)
        if found is None:
            partitioned = _partitioned_arrays(value, scope, model)
            if partitioned is not None:
                return _elements(partitioned, scope, model, depth + 1, passed)
            unpacked = _unpacked_from_helper(value, scope, model, depth)
            if unpacked is not None:
                return unpacked
            return _unpacked_key(value.id, scope, model)
        owner, bound = found[0], reaching_value(value, found[1])
        if bound is None:
            return None
        if isinstance(bound, (ast.List, ast.Dict)) and _mutated(value.id, owner):
            # `params = []` then `params.append(...)`: the literal is not what it holds; what the loops
            # append is, where the source fixes their items (semantic/built_lists.py).
            return _built_list_elements(value, owner, model, depth + 1, passed if owner is scope else None)
        return _elements(bound, owner, model, depth + 1, passed if owner is scope else None)
    if isinstance(value, _KeyItem):
        return 2  # one key of a split (`k` in `for m, n, k in zip(..., split(key, 3))`)
    if isinstance(value, ast.ListComp):
        return _comprehension_elements(value, scope, model, depth, passed)
    view = constructed_sizes.same_size_view(value)
    if view is not None:
        return _elements(view, scope, model, depth + 1, passed)  # `x[None, :]`, `x.T`: all of `x`
    if isinstance(value, ast.Attribute):
        stored = constructed_sizes.init_attribute(model, value, scope)  # `self.u`, bound once in `__init__`
        return None if stored is None else _elements(stored[0], stored[1], model, depth + 1)
    if isinstance(value, ast.Subscript):
        # `split(key)[0]`: one key of the array.
        inner = value.value
        if isinstance(inner, ast.Call) and model.qualified_name(inner.func) == "jax.random.split":
            return 2
        if _constant_index(value.slice) and _axes(inner, scope, model, passed) == 1:
            return 1  # one entry of a vector
        if (_part_by_name(value) is not None or _constant_index(value.slice)) and _state_sizes(model).bounding_parts:
            # `model.init(key, x)["params"]`, `variables["params"]`, `signs[-1]`: a part holds at most the whole.
            return _elements(inner, scope, model, depth + 1 if _part_by_name(value) is not None else depth, passed)
        return None
    if isinstance(value, ast.Call):
        return _call_elements(value, scope, model, depth, passed)
    return None


_PARTITIONS = frozenset({"equinox.partition"})
_FILTERS = frozenset({"equinox.filter"})


def _partitioned_arrays(name: ast.Name, scope, model) -> ast.AST | None:
    """`params, static = eqx.partition(model, eqx.is_array)` read before anything rebinds `params`
    (outside a loop of the scope): the arrays part holds the arrays of `model`, the value returned."""
    read = enclosing_statement(name)
    if read is None or any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) for loop in enclosing_loops(read)):
        return None
    earlier = [
        (target, value) for target, value in scope.bindings
        if name.id in bound_names(target) and isinstance(value, ast.AST) and getattr(value, "lineno", read.lineno) < read.lineno
    ]
    if len(earlier) != 1:
        return None
    target, value = earlier[0]
    if not (
        isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name.id
        and isinstance(value, ast.Call) and value.args and model.qualified_name(value.func) in _PARTITIONS
    ):
        return None
    return value.args[0]


def _unpacked_from_helper(read: ast.Name, scope, model, depth: int) -> int | None:
    """`w, b, x = make_data(key, 10, 5)`: a name bound by unpacking the call of a local helper whose
    every return spells out a tuple of that width (syntax.returned_positions), holds what the returns
    give at its position, sized with the helper's parameters bound to the call's arguments; unpacked
    from a tuple display (`w, b = zeros_like(u), zeros_like(v)`), the element there. Bound more than
    once (a script reusing the name later, or a loop unpacking into it), the binding that reaches the
    read (reaching.reaching_value), unpacking or plain."""
    name = read.id
    bindings = [(target, value) for target, value in scope.bindings if name in bound_names(target)]
    if len(bindings) != 1:
        reached = reaching_value(read, [value for _, value in bindings])
        bindings = [(target, value) for target, value in bindings if value is reached] if reached is not None else []
        if len(bindings) != 1:
            return None
        target, value = bindings[0]
        if isinstance(target, ast.Name) and not isinstance(value, ast.AugAssign):
            # A plain binding reaches the read (`w = w / norm(w)` before the loop that unpacks into `w`).
            return _elements(value, scope, model, depth + 1)
    return _unpacked_elements(name, bindings[0][0], bindings[0][1], scope, model, depth)


def unpacked_known_small(name: str, target: ast.AST, value: ast.AST, scope, model) -> bool:
    """The binding `target = value` unpacks into `name` a value `known_small` would accept: an
    element of a tuple display, or a position of a local helper's returned tuple."""
    elements = _unpacked_elements(name, target, value, scope, model, 0)
    return elements is not None and elements * _BYTES_PER_ELEMENT < WORTH_DONATING_BYTES


def _unpacked_elements(name: str, target: ast.AST, value: ast.AST, scope, model, depth: int) -> int | None:
    from jaxlint.semantic.syntax import returned_positions

    if not isinstance(target, ast.Tuple) or any(isinstance(e, ast.Starred) for e in target.elts):
        return None
    position = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name), None)
    if isinstance(value, ast.Tuple) and position is not None and len(value.elts) == len(target.elts):
        if any(isinstance(e, ast.Starred) for e in value.elts):
            return None
        return _elements(value.elts[position], scope, model, depth + 1)  # `w, b = zeros_like(u), zeros_like(v)`
    if not isinstance(value, ast.Call):
        return None
    helper = _local_callee(value, scope, model)
    if position is None or helper is None or not helper.returns:
        return None
    if any(isinstance(a, ast.Starred) for a in value.args) or any(k.arg is None for k in value.keywords):
        return None
    lined_up = returned_positions(helper.returns)
    if lined_up is None or len(lined_up) != len(target.elts) or lined_up[position][0] != position:
        return None
    frame = {parameter: (argument, scope) for parameter, argument in zip(helper.params, value.args)}
    frame.update((k.arg, (k.value, scope)) for k in value.keywords if k.arg in helper.param_nodes)
    counts = [_elements(returned, helper, model, depth + 1, frame) for returned in lined_up[position][1]]
    return None if not counts or None in counts else max(counts)


def _unpacked_key(name: str, scope, model) -> int | None:
    """`key, sub = jax.random.split(key)`: a name bound only by unpacking a split of the scope's
    own is one key (two 32-bit words)."""
    bindings = [(target, value) for target, value in scope.bindings if name in bound_names(target)]
    if not bindings or name in scope.param_nodes:
        return None
    for target, value in bindings:
        if not (
            isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(element, ast.Name) for element in target.elts)
            and isinstance(value, ast.Call) and model.qualified_name(value.func) == "jax.random.split"
        ):
            return None
    return 2


def _part_by_name(node: ast.AST) -> ast.AST | None:
    """The container a string key picks a part of: `tree["params"]`, `tree.get("params")`."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.value
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and len(node.args) == 1
        and not node.keywords and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
    ):
        return node.func.value
    return None


# Reductions that, given only the array (no axis), return one number.
_FULL_REDUCTIONS = frozenset(
    f"{module}.{name}" for module in ("jax.numpy", "numpy")
    for name in ("sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "linalg.norm", "median", "any", "all")
)


_SELECTS = frozenset({"jax.numpy.where", "numpy.where"})


def _broadcast(sides: list, model, operands: list, scope, passed) -> int | None:
    """Elements of an elementwise result of operands of these sizes: the array's, beside scalars, and
    the longest where every operand is a vector or a number (vectors broadcast only to one length).
    Other arrays broadcast to no more than the product of their sizes: an upper bound, given only
    where bounds are read (known_small), else unknown."""
    if None in sides:
        return None
    if sum(1 for side in sides if side != 1) > 1:
        if all(side == 1 or _axes(operand, scope, model, passed) == 1 for side, operand in zip(sides, operands)):
            return max(sides)
        return math.prod(sides) if _state_sizes(model).bounding_parts else None
    return max(sides)


def _axes(value: ast.AST, scope, model, passed: dict | None, depth: int = 0) -> int | None:
    """0 for a number, 1 for a vector (built with a one-axis shape, `arange`, elementwise from vectors
    and numbers, one entry of one is a number), else None (unknown)."""
    if depth > 8:
        return None
    if isinstance(value, ast.Constant):
        return 0 if isinstance(value.value, (int, float)) and not isinstance(value.value, bool) else None
    if isinstance(value, ast.UnaryOp):
        return _axes(value.operand, scope, model, passed, depth + 1)
    if isinstance(value, (ast.BinOp, ast.Compare)):
        parts = [value.left, value.right] if isinstance(value, ast.BinOp) else [value.left, *value.comparators]
        found = [_axes(part, scope, model, passed, depth + 1) for part in parts]
        return None if None in found or (isinstance(value, ast.BinOp) and isinstance(value.op, ast.MatMult)) else max(found)
    if isinstance(value, ast.Subscript):
        return 0 if _constant_index(value.slice) and _axes(value.value, scope, model, passed, depth + 1) == 1 else None
    if isinstance(value, ast.Name):
        if passed and value.id in passed:
            argument, caller = passed[value.id]
            return _axes(argument, caller, model, None, depth + 1)
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, value.id, scope)
        bound = reaching_value(value, found[1]) if found is not None else None
        if bound is None or isinstance(bound, ast.AugAssign):
            return None
        return _axes(bound, found[0], model, passed if found[0] is scope else None, depth + 1)
    if not isinstance(value, ast.Call) or any(isinstance(a, ast.Starred) for a in value.args):
        return None
    qualified = model.qualified_name(value.func)
    if qualified in _FULL_REDUCTIONS and len(value.args) == 1 and not value.keywords:
        return 0
    if qualified in _ELEMENTWISE and len(value.args) == 1 and not value.keywords:
        return _axes(value.args[0], scope, model, passed, depth + 1)
    if qualified in _SELECTS and len(value.args) == 3 and not value.keywords:
        found = [_axes(a, scope, model, passed, depth + 1) for a in value.args]
        return None if None in found else max(found)
    if qualified in ("jax.numpy.arange", "numpy.arange"):
        return 1
    shape = None
    if qualified in _FILLED_ARRAYS:
        shape = _keyword_or_position(value, 0, "shape")
    elif qualified is not None and qualified.startswith("jax.random.") and qualified[len("jax.random."):] in _SHAPE_SECOND:
        shape = _keyword_or_position(value, 1, "shape")
    if isinstance(shape, ast.Tuple):
        return 1 if len(shape.elts) == 1 and not isinstance(shape.elts[0], ast.Starred) else None
    if isinstance(shape, (ast.Constant, ast.Name)):
        number = _int_value(shape, scope, model, passed)
        return 1 if type(number) is int else None  # `shape=(50)`, `shape=n` with `n` a number: one axis
    return None


def _constant_index(index: ast.AST) -> bool:
    """An integer literal index (`x[0]`, `x[-1]`): one entry along the first axis, never more than the whole."""
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = index.operand
    return isinstance(index, ast.Constant) and type(index.value) is int


def _call_elements(call: ast.Call, scope, model, depth: int, passed: dict | None) -> int | None:
    qualified = model.qualified_name(call.func)
    arguments = call.args
    container = _part_by_name(call)
    if container is not None and _state_sizes(model).bounding_parts:
        return _elements(container, scope, model, depth + 1, passed)
    if qualified in _KEY_ELEMENTS:
        return _KEY_ELEMENTS[qualified]
    if qualified == "jax.random.split":
        count = _keyword_or_position(call, 1, "num")
        number = 2 if count is None else _int_value(count, scope, model, passed)
        # Anything but an int (the evaluator's "unknown" marker for `jax.local_device_count()`) is no count.
        return 2 * number if isinstance(number, int) and not isinstance(number, bool) else None
    if qualified in _SQUARE_ARRAYS and arguments and not any(isinstance(a, ast.Starred) for a in arguments):
        # `jnp.eye(n)`, `jnp.eye(n, m)`, `jnp.identity(n)`: n x m entries.
        rows = _int_value(arguments[0], scope, model, passed)
        columns = _int_value(arguments[1], scope, model, passed) if len(arguments) > 1 and qualified.endswith("eye") else rows
        ok = all(isinstance(v, int) and not isinstance(v, bool) for v in (rows, columns))
        return rows * columns if ok else None
    if qualified in _FILLED_ARRAYS and (arguments or call.keywords):
        shape = _keyword_or_position(call, 0, "shape")
        return None if shape is None else _shape_elements(shape, scope, model, passed)
    if qualified is not None and qualified[len("jax.random."):] in _SHAPE_SECOND and qualified.startswith("jax.random."):
        shape = _keyword_or_position(call, 1, "shape")
        return 1 if shape is None else _shape_elements(shape, scope, model, passed)
    if qualified in _HOST_SAMPLERS:
        # `np.random.normal(size=(n, m))`, `np.random.randn(n, m)`: the shape the call asks for.
        if qualified.endswith(("randn", "rand")):
            return _shape_elements(ast.Tuple(elts=list(arguments), ctx=ast.Load()), scope, model, passed) if not call.keywords else None
        size = _keyword_or_position(call, _HOST_SAMPLERS[qualified], "size")
        return 1 if size is None else _shape_elements(size, scope, model, passed)
    if qualified in _SELECTS and len(arguments) == 3 and not call.keywords and not any(isinstance(a, ast.Starred) for a in arguments):
        return _broadcast([_elements(a, scope, model, depth + 1, passed) for a in arguments], model, arguments, scope, passed)  # `where(mask, w, 0)`
    if qualified in _FULL_REDUCTIONS and len(arguments) == 1 and not call.keywords and not isinstance(arguments[0], ast.Starred):
        return 1  # `jnp.linalg.norm(w)`, `jnp.sum(x)`: a reduction over every axis is one number
    if qualified in _ELEMENTWISE and len(arguments) == 1 and not call.keywords:
        return _elements(arguments[0], scope, model, depth + 1, passed)  # `np.sqrt(2 / n)`: the argument's size
    if qualified in _SHAPED_LIKE and arguments:
        return _elements(arguments[0], scope, model, depth + 1, passed)  # `jnp.zeros_like(w)`: as many as `w`
    if qualified == "builtins.dict" and not arguments and all(k.arg is not None for k in call.keywords):
        return _total([_elements(k.value, scope, model, depth, passed) for k in call.keywords])
    if qualified in _LITERAL_ARRAYS and arguments and isinstance(arguments[0], (ast.List, ast.Tuple, ast.Constant)):
        return _elements(arguments[0], scope, model, depth, passed)
    if (qualified in _REPLICATING or qualified in _FILTERS) and arguments:
        return _elements(arguments[0], scope, model, depth + 1, passed)  # (`eqx.filter(model, eqx.is_array)`: its arrays)
    if qualified in _BROADCASTS and len(arguments) >= 2:
        return _shape_elements(arguments[1], scope, model, passed)
    if qualified in _TREE_MAPS and len(arguments) == 2 and (_replicates_leaf(arguments[0], model) or _keeps_leaf_size(arguments[0], model)):
        # (`tree_map(jnp.zeros_like, params)`, an optimizer's moments: one leaf per leaf, of its size.)
        return _elements(arguments[1], scope, model, depth + 1, passed)
    built = constructed_sizes.builder_elements(
        call, qualified, lambda node: _elements(node, scope, model, depth + 1, passed),
        lambda node: _python_value(node, scope, model, passed),
    )
    if built is None:
        built = constructed_sizes.method_elements(call, lambda node: _elements(node, scope, model, depth + 1, passed))
    if built is not None:
        return built
    record = _local_record_class(call, model)
    if record is not None:
        # `Params(weight, bias)` of a local NamedTuple or dataclass: its fields are the arguments.
        return _total([_elements(argument, scope, model, depth, passed) for argument in (*arguments, *(k.value for k in call.keywords))])
    # A model's or optimizer's state of a size the source fixes (`Net(width=16).init(key, x)`), also
    # inside a helper building it from its parameters (`init_state(key, hidden=16)`).
    sized = _state_sizes(model).call_elements(call, scope, depth, passed)
    if sized is not None:
        return sized
    if qualified is None or not qualified.startswith(("jax.", "numpy.", "flax.", "optax.")):
        # A local helper: every value it returns is small, its parameters bound to what this call passes
        # (`init_params(2, 1)` with `def init_params(n_in, n_out): return {"w": jnp.zeros((n_in, n_out))}`).
        helper = _local_callee(call, scope, model, lambdas=True)
        if helper is None:
            return _imported_helper_elements(call, scope, model, depth, passed)
        returns = [helper.node.body] if isinstance(helper.node, ast.Lambda) else getattr(helper, "returns", None)
        if not returns:
            return None
        if any(isinstance(a, ast.Starred) for a in arguments) or any(k.arg is None for k in call.keywords):
            return None
        frame = {parameter: _passed_on(argument, scope, passed) for parameter, argument in zip(helper.params, arguments)}
        frame.update((k.arg, _passed_on(k.value, scope, passed)) for k in call.keywords if k.arg in helper.param_nodes)
        if frame and isinstance(helper.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # A parameter the call leaves out holds its default (`scale=1e-2` in `layer(m, n, key)`).
            from jaxlint.semantic.syntax import parameter_defaults

            for parameter, default in parameter_defaults(helper.node.args).items():
                frame.setdefault(parameter, (default, helper.parent or scope))
        # (A helper without parameters reads its values as the module does: `init = lambda: net.init(k, x)`.)
        counts = [_elements(returned, helper, model, depth + 1, frame or None) for returned in returns]
        return None if None in counts else max(counts)
    return None


def _imported_helper_elements(call: ast.Call, scope, model, depth: int, passed: dict | None) -> int | None:
    """A helper of another module of the project (`from model import init_params`, then
    `init_params([2, 8, 8, 2])`): sized in its module as a local helper is, its parameters bound to
    the values the call's arguments have here (semantic/imported_sizes.py); a network class of that
    module is sized by semantic/state_size.py."""
    from jaxlint.semantic import imported_sizes

    found = imported_sizes.home_definition(call.func, model)
    if found is None or not isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    home, definition = found
    literal = imported_sizes.literal_call(call, definition.name, lambda node: _python_value(node, scope, model, passed))
    helper = home.scope_for(definition.body[0]) if literal is not None else None
    returns = getattr(helper, "returns", None)
    if not returns:
        return None
    module_scope = home.module_scope
    frame = {parameter: (argument, module_scope) for parameter, argument in zip(helper.params, literal.args)}
    frame.update((k.arg, (k.value, module_scope)) for k in literal.keywords if k.arg in helper.param_nodes)
    from jaxlint.semantic.syntax import parameter_defaults

    for parameter, default in parameter_defaults(definition.args).items():
        frame.setdefault(parameter, (default, module_scope))
    counts = [_elements(returned, helper, home, depth + 1, frame or None) for returned in returns]
    return None if None in counts else max(counts)


def _passed_on(argument: ast.AST, scope, passed: dict | None) -> tuple:
    """(the expression, its scope) a helper's parameter is bound to: a name the caller itself was
    handed (its own parameter, a comprehension's item) stands for what was handed."""
    if passed and isinstance(argument, ast.Name) and argument.id in passed:
        return passed[argument.id]
    return argument, scope


def _comprehension_elements(comprehension: ast.ListComp, scope, model, depth: int, passed: dict | None) -> int | None:
    """Elements of the list a comprehension over a sequence the source fixes builds (`[layer(m, n, k)
    for m, n, k in zip(widths[:-1], widths[1:], keys)]`): the sum over its items of the element
    computed with that item (semantic/built_lists.py); None otherwise."""
    from jaxlint.semantic import built_lists

    if depth > _DEPTH:
        return None

    def scalar(inner: ast.AST):
        found = _python_value(inner, scope, model, passed)
        return None if found is UNKNOWN_VALUE else found

    frames = built_lists.comprehension_values(comprehension, lambda node: built_lists.sequence_value(node, scalar))
    if frames is None:
        return None
    total = 0
    for frame in frames:
        bound = {**(passed or {}), **{key: (_as_node(item), scope) for key, item in frame.items()}}
        if any(node is None for node, _ in bound.values()):
            return None
        counted = _elements(comprehension.elt, scope, model, depth + 1, bound)
        if counted is None:
            return None
        total += counted
    return total


def _state_sizes(model):
    from jaxlint.semantic.state_size import StateSize

    found = model.__dict__.get("_jaxlint_state_sizes")
    if found is None:
        found = model._jaxlint_state_sizes = StateSize(model, lambda node, scope, passed=None: _elements(node, scope, model, 1, passed), _state_sizes)
    return found


def _int_value(node: ast.AST, scope, model, passed: dict | None):
    """The value of a size expression: module constants and literals, and a helper's parameters
    through the arguments its call passes."""
    from jaxlint.semantic.constants import literal_value
    from jaxlint.semantic.state_size import _Frame

    evaluator = model.constant_evaluator()

    def lookup(inner: ast.AST):
        if passed and isinstance(inner, ast.Name) and inner.id in passed:
            argument, caller = passed[inner.id]
            return evaluator.value(argument, caller)
        if isinstance(inner, ast.Subscript) or (isinstance(inner, ast.Name) and inner.id in scope.param_nodes):
            # A configuration dict's item (`CONFIG["width"]`), a parameter every call here sets.
            return _state_sizes(model).value(inner, _Frame(scope))
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and (inner.value.id == "self" or inner.value.id in scope.param_nodes):
            # `self.horizon` bound in `__init__`, `cfg.horizon` of what the calls pass (semantic/constructed_sizes.py).
            return _state_sizes(model).value(inner, _Frame(scope))
        return evaluator.value(inner, scope)

    return literal_value(node, None, lookup)


def _local_record_class(call: ast.Call, model) -> ast.ClassDef | None:
    """The local NamedTuple or dataclass a call constructs (`Params(w, b)`): its fields hold exactly
    the arguments."""
    if not isinstance(call.func, ast.Name):
        return None
    local = [c for c in model.class_methods if c.name == call.func.id and model.scope_for(c) is model.module_scope]
    if len(local) != 1 or call.func.id in model.imports.aliases:
        return None
    definition = local[0]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    bases = {model.qualified_name(base) for base in definition.bases}
    decorators = {model.qualified_name(d.func if isinstance(d, ast.Call) else d) for d in definition.decorator_list}
    if bases & {"typing.NamedTuple", "flax.struct.PyTreeNode"} or decorators & {"dataclasses.dataclass", "flax.struct.dataclass", "chex.dataclass"}:
        return definition
    return None


def _local_callee(call: ast.Call, scope, model, lambdas: bool = False):
    """The scope of the local function a call runs: a name, `self.method`, or a method of an instance
    of a local class (`counter = Counter()` then `counter.reset()`); with `lambdas`, a lambda a name
    is bound to."""
    resolved = model.resolve_function(call.func, scope)
    if resolved is None and lambdas and isinstance(call.func, ast.Name):
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, call.func.id, scope)
        if found is not None and len(found[1]) == 1 and isinstance(found[1][0], ast.Lambda):
            resolved = model.scope_of_node.get(found[1][0]), 0, set()
    if resolved is not None:
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda) if lambdas else (ast.FunctionDef, ast.AsyncFunctionDef)
        if resolved[0] is None or resolved[1] or not isinstance(resolved[0].node, kinds):
            return None
        return resolved[0]
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id not in ("self", "cls"):
        owner = model.instance_class(func.value)
        if isinstance(owner, ast.ClassDef):
            method = model.class_methods.get(owner, {}).get(func.attr)
            if method is not None and isinstance(method.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return method
    return None


def _mutated(name: str, scope) -> bool:
    """The container bound to `name` is changed in place in its scope: a method call on it
    (`params.append(...)`, `state.update(...)`) or an item stored (`state["w"] = ...`)."""
    return any(change.direct and (change.kind == "method" or change.kind == "item" and not change.deleted)
               for change in changes_in_place(scope.node, (name,), nested=True))


def _replicates_leaf(function: ast.AST, model) -> bool:
    """`lambda x: jnp.broadcast_to(x, (n_devices, *x.shape))`, `lambda x: jax.device_put(x, sharding)`:
    each leaf replicated to the devices, each device holding one copy."""
    if not isinstance(function, ast.Lambda) or len(function.args.args) != 1:
        return False
    parameter = function.args.args[0].arg
    body = function.body
    if not isinstance(body, ast.Call) or not body.args:
        return False
    qualified = model.qualified_name(body.func)
    copies = body.args[0]
    if (
        qualified in _STACKING and isinstance(copies, ast.BinOp) and isinstance(copies.op, ast.Mult)
        and isinstance(copies.left, ast.List) and len(copies.left.elts) == 1
        and isinstance(copies.left.elts[0], ast.Name) and copies.left.elts[0].id == parameter
    ):
        return True  # `jnp.array([x] * n_devices)`: one copy per device, the leading axis split by `pmap`
    if not (isinstance(copies, ast.Name) and copies.id == parameter):
        return False
    if qualified in _REPLICATING:
        return True
    return qualified in _BROADCASTS and len(body.args) >= 2 and _leading_device_axis(body.args[1], parameter, model)


def _keeps_leaf_size(function: ast.AST, model) -> bool:
    """`jnp.zeros_like`, `jnp.sqrt`, `lambda p: jnp.zeros_like(p)`: a function building from each leaf
    one array of the leaf's shape, so a `tree_map` of it holds as many elements as the tree it maps
    (the moments an Adam written by hand keeps for its parameters)."""
    if isinstance(function, ast.Lambda):
        if len(function.args.args) != 1 or function.args.vararg or function.args.kwarg:
            return False
        body = function.body
        if not (isinstance(body, ast.Call) and len(body.args) == 1 and isinstance(body.args[0], ast.Name)):
            return False
        if body.args[0].id != function.args.args[0].arg or any(k.arg != "dtype" for k in body.keywords):
            return False
        function = body.func
    return isinstance(function, (ast.Name, ast.Attribute)) and model.qualified_name(function) in _SHAPED_LIKE | _ELEMENTWISE


def _leading_device_axis(shape: ast.AST, parameter: str, model) -> bool:
    """`(jax.local_device_count(),) + x.shape`, `(n, *x.shape)` with `n` a device count."""
    if isinstance(shape, ast.BinOp) and isinstance(shape.op, ast.Add):
        head, tail = shape.left, shape.right
        return _device_count_tuple(head, model) and isinstance(tail, ast.Attribute) and tail.attr == "shape"
    if isinstance(shape, ast.Tuple) and len(shape.elts) == 2:
        head, tail = shape.elts
        return _device_count(head, model) and isinstance(tail, ast.Starred) and isinstance(tail.value, ast.Attribute) and tail.value.attr == "shape"
    return False


def _device_count_tuple(node: ast.AST, model) -> bool:
    return isinstance(node, ast.Tuple) and len(node.elts) == 1 and _device_count(node.elts[0], model)


def _device_count(node: ast.AST, model) -> bool:
    return isinstance(node, ast.Call) and model.qualified_name(node.func) in _DEVICE_COUNTS


def _shape_elements(shape: ast.AST, scope, model, passed: dict | None = None) -> int | None:
    """Elements per device of an array of this shape: a leading device count counts once (`pmap`
    gives each device its slice)."""
    if passed and isinstance(shape, ast.Name) and shape.id not in scope.param_nodes:
        # `shape = (n, 3)` in a helper whose call fixes `n`: the display, read with the call's arguments.
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, shape.id, scope)
        if found is not None and found[0] is scope and len(found[1]) == 1 and isinstance(found[1][0], (ast.Tuple, ast.List)):
            shape = found[1][0]
    dimensions = shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else [shape]
    if dimensions and _device_count(dimensions[0], model):
        dimensions = dimensions[1:]
    total = 1
    for dimension in dimensions:
        value = _int_value(dimension, scope, model, passed)
        values = value if isinstance(value, tuple) else (value,)
        for size in values:
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                return None
            total *= size
    return total


def _keyword_or_position(call: ast.Call, position: int, keyword: str) -> ast.AST | None:
    found = next((k.value for k in call.keywords if k.arg == keyword), None)
    if found is not None:
        return found
    return call.args[position] if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]) else None


def _total(counts: list[int | None]) -> int | None:
    return None if None in counts else sum(counts)


def _built_list_elements(name: ast.Name, owner, model, depth: int, passed: dict | None) -> int | None:
    """Elements of the list `name` holds where it is read when the scope fills it by `append` in
    loops over sequences the source fixes: the sum, over every iteration, of what it appends there
    (semantic/built_lists.py); None otherwise."""
    from jaxlint.semantic import built_lists

    if depth > _DEPTH:
        return None
    read = enclosing_statement(name)
    items = built_lists.appended_items(name.id, read if read is not None else name, owner)
    if items is None:
        return None

    def evaluate(node: ast.AST, frame: dict):
        def scalar(inner: ast.AST):
            if isinstance(inner, ast.Name) and inner.id in frame:
                return frame[inner.id]
            found = _python_value(inner, owner, model, passed)
            return None if found is UNKNOWN_VALUE else found

        return built_lists.sequence_value(node, scalar)

    total = 0
    for appended, loops in items:
        frames = built_lists.iterations(loops, evaluate)
        if frames is None:
            return None
        for frame in frames:
            bound = {**(passed or {}), **{key: (_as_node(item), owner) for key, item in frame.items()}}
            if any(node is None for node, _ in bound.values()):
                return None
            counted = _elements(appended, owner, model, depth, bound)
            if counted is None:
                return None
            total += counted
    return total


UNKNOWN_VALUE = object()
# An item of a split key array (`for m, n, k in zip(widths[:-1], widths[1:], split(key, 3))`): a key,
# as a Python value and as the node a loop's or comprehension's target is bound to.
_KEY = object()


class _KeyItem(ast.expr):
    _fields = ()


def _python_value(node: ast.AST, scope, model, passed: dict | None, depth: int = 0):
    """The Python value (a number, a tuple of them) of a size expression, through a helper's
    parameters and names bound once to a list or tuple display, `len` of such a sequence, integer
    arithmetic, and the keys of a split (`split(key, len(widths) - 1)`: that many keys); UNKNOWN_VALUE
    otherwise."""
    from jaxlint.semantic import built_lists
    from jaxlint.semantic.bindings import bound_values
    from jaxlint.semantic.constants import UNKNOWN

    if depth > _DEPTH:
        return UNKNOWN_VALUE
    if isinstance(node, _KeyItem):
        return _KEY
    if isinstance(node, ast.Name) and passed and node.id in passed:
        argument, caller = passed[node.id]
        return _python_value(argument, caller, model, None, depth + 1)
    if isinstance(node, (ast.List, ast.Tuple)):
        found = built_lists.sequence_value(node, lambda inner: _or_none(_python_value(inner, scope, model, passed, depth + 1)))
        return UNKNOWN_VALUE if found is None else found
    found = _int_value(node, scope, model, passed)
    if found is not UNKNOWN and found is not UNKNOWN_VALUE and found is not None:
        return found
    if isinstance(node, ast.Call) and model.qualified_name(node.func) in ("numpy.prod", "math.prod") and len(node.args) == 1 and not node.keywords:
        items = _python_value(node.args[0], scope, model, passed, depth + 1)  # `np.prod(image_size)`
        if isinstance(items, tuple) and all(isinstance(i, int) and not isinstance(i, bool) for i in items):
            return math.prod(items)
        return UNKNOWN_VALUE
    if isinstance(node, ast.Call) and model.qualified_name(node.func) == "builtins.len" and len(node.args) == 1 and not node.keywords:
        items = _python_value(node.args[0], scope, model, passed, depth + 1)  # `len(widths)`
        if isinstance(items, tuple):
            return len(items)
        # `len(dataset.classes)`: unknown, at least 0. The reading that shows a state large
        # (`known_large`) counts it so, a lower bound: `[784, 512, 256, len(classes)]` holds 533k
        # weights whatever the count.
        sizes = _state_sizes(model)
        sizes.unknown_input = True
        return 0 if sizes.least_inputs else UNKNOWN_VALUE
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = (_python_value(side, scope, model, passed, depth + 1) for side in (node.left, node.right))
        if not all(isinstance(side, int) and not isinstance(side, bool) for side in (left, right)):
            return UNKNOWN_VALUE
        if isinstance(node.op, ast.Sub):
            # (In the lower-bound reading a length stays a length: never below 0.)
            return max(0, left - right) if _state_sizes(model).least_inputs else left - right
        return left + right if isinstance(node.op, ast.Add) else left * right
    if isinstance(node, ast.Call) and model.qualified_name(node.func) == "jax.random.split":
        # `split(key, n)`: n keys, items of a sequence a loop or comprehension walks.
        count = _keyword_or_position(node, 1, "num")
        number = 2 if count is None else _python_value(count, scope, model, passed, depth + 1)
        if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number <= built_lists.MAX_ITEMS:
            return UNKNOWN_VALUE
        return (_KEY,) * number
    if isinstance(node, ast.Name):
        bound = bound_values(model, node.id, scope)
        if bound is not None and len(bound[1]) == 1 and isinstance(bound[1][0], (ast.List, ast.Tuple)) and not _mutated(node.id, bound[0]):
            return _python_value(bound[1][0], bound[0], model, None, depth + 1)
        if (
            bound is not None and len(bound[1]) == 1 and isinstance(bound[1][0], ast.Call)
            and model.qualified_name(bound[1][0].func) == "jax.random.split"
        ):
            return _python_value(bound[1][0], bound[0], model, passed if bound[0] is scope else None, depth + 1)
    return UNKNOWN_VALUE


def _or_none(value):
    return None if value is UNKNOWN_VALUE else value


def _as_node(value) -> ast.expr | None:
    """A literal node for a loop item: a number, or a tuple of them."""
    if value is _KEY:
        return _KeyItem()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ast.Constant(value=value)
    if isinstance(value, (tuple, list)):
        parts = [_as_node(part) for part in value]
        return None if None in parts else ast.Tuple(elts=parts, ctx=ast.Load())
    return None
