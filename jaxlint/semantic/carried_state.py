"""Whether a value passed to a jitted update is carried state: what donation is for.

Donation pays when the argument is the state a loop carries from one call to the next
(`state = step(state, batch)` every iteration) or an update a method applies to what it owns
(`self.state = self.update(self.state, ...)`). It does nothing, or breaks code, when:

- inside a loop, the argument is rebuilt each iteration, before the call, from something not known
  to be a device value (`x = next(batches)` then `x = encode(x)`): it is fresh input, often host
  data, and the output often has another shape, so XLA could not reuse the buffer anyway;
- another call of the same jitted function in the same function passes, at that position, a value
  the program still reads afterwards: `donate_argnums` applies to every call, and would delete it;
- a nested function or lambda reads the name (`current = lambda: params` handed to a thread):
  it may read the old value while or after the update runs;
- the code is a test: a single call on small values, where memory is not the point.
"""

from __future__ import annotations

import ast
import re

from jaxlint.semantic.flow import dotted_name, enclosing_loops, statement_list, target_elements
from jaxlint.semantic.model import parent_of

_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$|(^|/)tests?/")


def names_called_in_loops(model) -> frozenset[str]:
    """Names of the functions and methods this module calls from inside a loop (`f(...)`, `obj.f(...)`),
    computed once per model."""
    found = getattr(model, "_names_called_in_loops", None)
    if found is None:
        names = set()
        for scope in model.scopes:
            for call in scope.calls:
                func = call.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
                if name is not None and name not in names and any(
                    isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) for loop in enclosing_loops(call)
                ):
                    names.add(name)
        found = model._names_called_in_loops = frozenset(names)
    return found


_TEST_FRAMEWORKS = ("pytest", "unittest", "absl.testing", "chex", "hypothesis", "numpy.testing", "jax.test_util", "jax._src.test_util")


def is_test_module(filename: str, model) -> bool:
    """A test module: named like one (`test_*.py`, `*_test.py`, under `tests/`) and written as one, that is
    it imports a test framework or defines `test_*` functions or `Test*` classes. A script that is only
    named `test_profiler.py` (a tutorial's demo) is not test code."""
    found = getattr(model, "_is_test_module", None)
    if found is None:
        found = bool(_TEST_FILE.search(filename.replace("\\", "/"))) and (
            any(target == framework or target.startswith(framework + ".") for target in model.imports.aliases.values() for framework in _TEST_FRAMEWORKS)
            or any(
                (isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name.startswith("test"))
                or (isinstance(statement, ast.ClassDef) and ("Test" in statement.name))
                for statement in model.tree.body
            )
        )
        model._is_test_module = found
    return found


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


def paced_loop(loop: ast.AST, model) -> bool:
    """A loop that waits on a clock or a person each iteration (`time.sleep(0.05)`, `input()`): an
    animation or a game, where a host read or an undonated step costs nothing anyone sees."""
    statements = list(loop.body)
    while statements:  # every iteration: not under an `if` or `try` (a wait for data to arrive)
        statement = statements.pop()
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            statements.extend(statement.body)
            continue
        for node in ast.walk(statement) if isinstance(statement, (ast.Expr, ast.Assign)) else ():
            if isinstance(node, ast.Call) and model.qualified_name(node.func) in ("time.sleep", "builtins.input"):
                return True
    return False


def in_test_code(node: ast.AST, filename: str, model) -> bool:
    """In a test module (see `is_test_module`), a `test_*` function or a `Test*` class."""
    if is_test_module(filename, model):
        return True
    current = node
    while current is not None:
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)) and current.name.startswith("test"):
            return True
        if isinstance(current, ast.ClassDef) and current.name.startswith("Test"):
            return True
        current = parent_of(current)
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
                if kind == "host" or (unknown_counts and kind != "device"):
                    return True
        elif isinstance(earlier, (ast.For, ast.AsyncFor)) and key in {dotted_name(t) for t in target_elements(earlier.target)}:
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
            yield from ast.walk(earlier)
        parent = getattr(current, "_jaxlint_parent", None)
        if parent is None:
            return
        current = parent


def captured_by_closure(name: str, scope) -> bool:
    """A nested function or lambda of the scope reads `name` (a closure over the old value)."""
    if "." in name:
        return False
    for child in scope.children:
        node = child.node
        body = [node.body] if isinstance(node, ast.Lambda) else node.body
        for statement in body:
            for inner in ast.walk(statement):
                if isinstance(inner, ast.Name) and inner.id == name and isinstance(inner.ctx, ast.Load):
                    if name not in child.local_names:
                        return True
    return False


def other_call_keeps_value(binding, call: ast.Call, position: int | None, keyword: str | None, model) -> bool:
    """Another call of the same jitted callable passes, at this position, a value it does not rebind
    from the result: donation (which applies to every call) would delete a value still in use."""
    if binding.key == "<inline>":
        return False
    # Calls in the same function: where one jitted update serves two purposes side by side (applying
    # a mask to the live parameters and to the averaged ones). Calls elsewhere in the module are
    # left to the fix, which is offered only when every call rebinds the argument.
    other_scope = model.scope_for(call)
    for _ in (0,):
        for other in other_scope.calls:
            if other is call or not isinstance(other.func, (ast.Name, ast.Attribute)):
                continue
            if dotted_name(other.func) != dotted_name(call.func) and not (
                isinstance(other.func, ast.Attribute) and isinstance(call.func, ast.Attribute) and other.func.attr == call.func.attr
            ):
                continue
            if model.jit_binding_for_call(other) is None or model.jit_binding_for_call(other).key != binding.key:
                continue
            argument = _argument(other, position, keyword)
            if argument is None:
                continue
            key = dotted_name(argument)
            if key is None or key in _rebound_by(other):
                continue
            if "." in key or _still_read(key, other, other_scope):
                return True
    return False


def _still_read(name: str, call: ast.Call, scope) -> bool:
    """The caller of `call` may read `name` afterwards (or it is held by its own caller)."""
    statement = call
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = getattr(statement, "_jaxlint_parent", None)
    if statement is None or name in scope.params or name in scope.keyword_params or name not in scope.local_names:
        return True
    return _read_before_rebound(name, statement)


def _read_before_rebound(name: str, statement: ast.stmt) -> bool:
    """Whether a statement after `statement` (in its block, then the blocks around it) reads `name`
    before one rebinds it; an assignment reads its value before it stores its targets."""
    current = statement
    while current is not None:
        located = statement_list(current)
        if located is None:
            return False
        block, index = located
        for later in block[index + 1:]:
            reads, stores = _reads_and_stores(later, name)
            if reads:
                return True
            if stores:
                return False
        parent = getattr(current, "_jaxlint_parent", None)
        if parent is None or isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
            return False
        current = parent
    return False


def _reads_and_stores(statement: ast.stmt, name: str) -> tuple[bool, bool]:
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and statement.value is not None:
        reads = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(statement.value))
        if isinstance(statement, ast.AugAssign):
            reads = reads or (isinstance(statement.target, ast.Name) and statement.target.id == name)
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        stores = any(dotted_name(element) == name for target in targets for element in target_elements(target))
        return reads, stores
    names = [n for n in ast.walk(statement) if isinstance(n, ast.Name) and n.id == name]
    return any(isinstance(n.ctx, ast.Load) for n in names), any(isinstance(n.ctx, ast.Store) for n in names)


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
