"""Warm-up tests: a condition that, once it holds, holds on every later iteration or call.

A training loop often waits before it learns: `if global_step > learning_starts:` around the updates,
`if len(buffer) > batch_size:` in an agent's `train`, `if len(self.memory) < self.batch_size: return`
at its top. Such a test compares a quantity that only grows (a loop counter, the length of a
collection that is filled and not emptied there) with a bound that stays put: it fails for the first
iterations and holds on every one after. What runs on its steady side runs on every iteration of the
run, bar a warm-up; a rule asking "on every iteration?" may count it (the other side, random actions
before learning starts, runs during the warm-up only).

* `steady_side(test, scope_node, counters, filled_in)`: True where the test holds once warmed up (its
  body is the steady side), False where it fails from then on (its `else`, or the code after a `return`
  under it, is), None where the test is not such a comparison. `scope_node` is the loop or function
  whose body holds the test: the collection measured must not be rebound or emptied there, and
  `filled_in` (the loop, or the class of the method) must fill it (`memory.append(t)`,
  `self.buffer.add(...)`); `len(batch)` of a collection nothing fills is not a warm-up. `counters` names
  what grows there (a loop's counter).
* `loop_counters(loop)`: the names a loop only ever increases: its `range`/`enumerate` target, names it
  only adds to (`step += 1`).
* `class_counters(function)`: `self` attributes the class only adds to outside `__init__`.

Not a warm-up: a test reading anything else (a flag, a modulus: `step % 100 == 0` is an interval), a
bound the scope rebinds, a collection the scope rebinds or empties (`pending.clear()` after a flush:
a periodic event, not a warm-up).
"""

from __future__ import annotations

import ast

from jaxlint.semantic.flow import dotted_name as _dotted, target_elements
from jaxlint.semantic.syntax import walk

_GROWS = (ast.Gt, ast.GtE)
_SHRINKS = (ast.Lt, ast.LtE)
_EMPTYING = frozenset({"clear", "pop", "popleft", "popitem", "remove"})
# Methods that put an item into a collection or a replay buffer (`buffer.add(...)`, `memory.push(...)`).
_FILLING = frozenset({
    "append", "appendleft", "extend", "add", "push", "put", "insert", "update", "store", "record",
    "remember", "experience", "add_transition", "add_experience", "store_transition", "insert_transition",
})


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _target_names(target: ast.AST):
    """The dotted names a target binds (`a`, `self.x`, each element of `a, self.x = ...`)."""
    for element in target_elements(target):
        name = _dotted(element)
        if name is not None:
            yield name


def _rebound_or_emptied(name: str, scope_node: ast.AST) -> bool:
    for node in walk(scope_node):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(bound == name for target in targets for bound in _target_names(target)):
                return True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _EMPTYING:
            if _dotted(node.func.value) == name:
                return True
        elif isinstance(node, ast.Delete):
            if any(_dotted(target.value if isinstance(target, ast.Subscript) else target) == name for target in node.targets):
                return True
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)):
            if name in _target_names(node.target):
                return True
    return False


def _filled(name: str, where: ast.AST) -> bool:
    """`where` puts items into `name` (`name.append(x)`), or into the object holding it (`self.buffer.add(...)`
    for `self.buffer.buffer`)."""
    for node in walk(where):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FILLING:
            holder = _dotted(node.func.value)
            if holder is not None and (holder == name or name.startswith(holder + ".")):
                return True
    return False


def _growing(node: ast.expr, scope_node: ast.AST, counters: set[str], filled_in: ast.AST) -> bool:
    """`len(x)` of a collection that `filled_in` fills and the scope neither rebinds nor empties, or a
    counter that only grows."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 and not node.keywords:
        measured = _dotted(node.args[0])
        return measured is not None and _filled(measured, filled_in) and not _rebound_or_emptied(measured, scope_node)
    name = _dotted(node)
    return name is not None and name in counters


def _fixed(node: ast.expr, scope_node: ast.AST, counters: set[str]) -> bool:
    """A bound that stays put: constants, names and attributes the scope does not rebind, arithmetic of these."""
    for part in walk(node):
        if isinstance(part, ast.Call):
            return False
        if isinstance(part, (ast.Name, ast.Attribute)):
            name = _dotted(part)
            if name is None:
                continue
            if name in counters or _rebound_or_emptied(name, scope_node):
                return False
    return True


def steady_side(test: ast.expr, scope_node: ast.AST, counters: set[str], filled_in: ast.AST | None = None) -> bool | None:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    filled_in = scope_node if filled_in is None else filled_in
    if _growing(left, scope_node, counters, filled_in) and _fixed(right, scope_node, counters):
        grows_left = True
    elif _growing(right, scope_node, counters, filled_in) and _fixed(left, scope_node, counters):
        grows_left = False
    else:
        return None
    if isinstance(op, _GROWS):
        return grows_left
    if isinstance(op, _SHRINKS):
        return not grows_left
    return None


def _only_added_to(name: str, body: ast.AST, allowed_plain: ast.AST | None = None) -> bool:
    """Every binding of `name` in `body` is `name += <positive constant or a name>`."""
    found = False
    for node in walk(body):
        if isinstance(node, ast.AugAssign) and _dotted(node.target) == name:
            if not isinstance(node.op, ast.Add) or (isinstance(node.value, ast.Constant) and not (isinstance(node.value.value, (int, float)) and node.value.value > 0)):
                return False
            if isinstance(node.value, ast.UnaryOp):
                return False
            found = True
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if name in (bound for target in targets for bound in _target_names(target)):
                if allowed_plain is not None and node in allowed_plain:
                    continue
                return False
    return found


def loop_counters(loop: ast.AST) -> set[str]:
    """What the loop only increases: the target of `for i in range(...)` (a positive or default step),
    the counter of `for i, x in enumerate(...)`, and names it only adds to (`step += 1`)."""
    counters: set[str] = set()
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        iterable = loop.iter
        while isinstance(iterable, ast.Call) and _callee(iterable) == "tqdm" and iterable.args:
            iterable = iterable.args[0]  # (a progress bar hands on the items it is given)
        if isinstance(iterable, ast.Call):
            callee = _callee(iterable)
            if callee in ("range", "trange") and isinstance(loop.target, ast.Name):
                step = iterable.args[2] if len(iterable.args) > 2 else None
                if step is None or (isinstance(step, ast.Constant) and isinstance(step.value, int) and step.value > 0):
                    counters.add(loop.target.id)
            elif callee == "enumerate" and isinstance(loop.target, ast.Tuple) and loop.target.elts and isinstance(loop.target.elts[0], ast.Name):
                counters.add(loop.target.elts[0].id)
    for node in walk(loop):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            name = _dotted(node.target)
            if name is not None and name not in counters and _only_added_to(name, loop):
                counters.add(name)
    return counters


def class_counters(class_node: ast.ClassDef | None) -> set[str]:
    """`self.x` attributes the class only adds to, bar their start in `__init__` (`self.steps += 1`)."""
    if class_node is None:
        return set()
    counters: set[str] = set()
    initialisers = [item for item in class_node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__"]
    starts = {node for init in initialisers for node in walk(init) if isinstance(node, (ast.Assign, ast.AnnAssign))}
    for node in walk(class_node):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            name = _dotted(node.target)
            if name is not None and name.startswith("self.") and name not in counters and _only_added_to(name, class_node, starts):
                counters.add(name)
    return counters
