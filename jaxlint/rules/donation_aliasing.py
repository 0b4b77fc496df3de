"""When donating an argument would delete a value the program still holds (JAX401's precision).

Donation deletes the input buffers. That is only sound when nothing else refers to them after the
call. These checks are syntactic and conservative: when another live reference may exist, JAX401
stays silent.

- The argument is a view of another live value: `test_state = state`, `params = variables["params"]`,
  `graphdef, state = nnx.split(model)`, `eval_state = state.replace(metrics=empty)` (the other
  leaves are the same arrays) with `state`/`variables`/`model` read after the call (or a
  parameter, a global, an attribute: the caller holds them).
- The argument is the target of an enclosing `for` loop: the iterable still holds the element.
- A view of the argument outlives the call: `p0 = state.momentum` read after it, or the argument
  (or a part of it) stored in a container or attribute: `rollout.append(state.pipeline_state)`,
  `trajectory += [state.position]`, `self.best = state`.
- The argument holds no device buffers: the graph definition from `nnx.split`, or its value on
  entry is a NumPy (host) array: donation does nothing then.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import carried_state
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.flow import dotted_name, walk_same_scope
from jaxlint.semantic.liveness import read_after
from jaxlint.semantic.model import FUNCTION_NODES, parent_of
from jaxlint.semantic.reaching import statement_list
from jaxlint.semantic.syntax import walk  # ast.walk minus ctx markers, faster

# Calls whose results share buffers with their arguments.
VIEW_CALLS = frozenset({
    "flax.nnx.split", "flax.nnx.state", "flax.nnx.graph.split", "flax.nnx.graph.state", "flax.nnx.pure",
    "flax.core.pop", "flax.core.frozen_dict.pop", "jax.tree_util.tree_leaves", "jax.tree.leaves",
    "jax.tree_util.tree_flatten", "jax.tree.flatten",
})
# Called by name: `opt_init, opt_update, get_params = optimizers.sgd(...)` (jax.example_libraries).
VIEW_CALL_NAMES = frozenset({"get_params"})
# (call, index of a tuple-unpacked result that holds no arrays); None: the whole result.
STATIC_RESULTS = {"flax.nnx.split": 0, "flax.nnx.graph.split": 0, "flax.nnx.graphdef": None}
_CONTAINER_METHODS = frozenset({"append", "extend", "insert", "add", "appendleft", "extendleft", "put", "setdefault"})


def _first_call_view(value: ast.AST, root: str, statement: ast.stmt, scope) -> bool:
    """A binding the update's own rebinding ends (carried_state.sharing_ended_by asks where): a part of
    another value (`ac = state.ac`), or the value a parameter hands in, whole (`state = initial_state`,
    perhaps in one arm of an `if` whose other arm builds a fresh state), where the function reads that
    parameter no more after the update: the caller's arrays are shared on the first call only."""
    if isinstance(value, (ast.Attribute, ast.Subscript)):
        return True
    return (
        isinstance(value, ast.Name) and value.id == root
        and (root in scope.params or root in scope.keyword_params) and not read_after(root, statement)
        and not _shared(root, statement, scope)  # (`a, b = start, start`: one value, two carried names)
    )


def _read_before_rebound(name: str, statement: ast.stmt, target: ast.AST) -> bool:
    """`name` is read after `statement` and before the later statement of the same block that binds
    `target` (or that statement is not found in the block): the argument the call was handed is still
    used after the call, through the temporary's unpacking."""
    located = statement_list(statement)
    if located is None:
        return True
    block, index = located
    for later in block[index + 1:]:
        if _contains(later, target):
            value = later.value if isinstance(later, (ast.Assign, ast.AnnAssign)) else later
            return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in walk(value))
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in walk(later)):
            return True
    return True


def _statement_targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return statement.targets
    return [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []


def unsafe_to_donate(key: str, statement: ast.stmt, scope, context, first_call_only: list | None = None) -> bool:
    """Whether donating `key` (an argument rebound by `statement`) could delete a live value.

    With `first_call_only` (a list) given, a view taken before the loop of updates that the update
    itself rebinds (`ac = state.ac`, then `ac, aux = update(ac, batch)` per iteration) is not unsafe:
    it views a part of the other value on the first call only, and from the second call on the update
    carries its own outputs, two copies per step. The viewed name is appended to the list, so the
    caller can keep the finding and withhold the fix. A plain alias of a whole live value
    (`probe = state`, then `probe = evaluate(probe, batch)`) or a copy with fields replaced
    (`state.replace(metrics=...)`) stays unsafe: the program keeps two states on purpose, and the
    update works on the one meant to leave the other intact."""
    name = key.split(".", 1)[0]
    if "." in key:
        return _escapes(key, statement, scope) or _attribute_view_read_after(key, statement, scope, context)
    ended = carried_state.sharing_ended_by(statement) if first_call_only is not None else None
    # (`results = step(state, x)` then `state, loss = results`: a binding from the call's own result is
    # the update's output, not a view of another live value)
    results = {element.id for target in _statement_targets(statement) for element in walk(target) if isinstance(element, ast.Name)}
    for target, value in _bindings_of(name, scope):
        if target is None:
            continue
        if value is None:
            continue
        if _static_result(target, value, context):
            return True
        if _contains(statement, target):
            continue
        for root in _view_roots(value, context):
            if root in results and root != name:
                if _read_before_rebound(name, statement, target):
                    return True  # (`tmp = step(x)`, `loss(tmp, x)`, then `x = tmp`: the old `x` is read after the call)
                continue
            if root != name and _source_live(root, statement, scope):
                if ended is not None and _first_call_view(value, root, statement, scope) and ended(name, target):
                    first_call_only.append(root)
                    continue
                return True
    if _loop_target(name, statement):
        return True
    if _host_on_entry(name, statement, scope, context):
        return True
    if _escapes(key, statement, scope):
        return True
    # A view of the argument bound to another name that is read after the call.
    for target, value in scope.bindings:
        if value is None or isinstance(value, ast.AugAssign):
            continue
        for element, element_value in _pairs(target, value):
            other = element.id if isinstance(element, ast.Name) else None
            if other is None or other == name or element_value is None:
                continue
            if name in _view_roots(element_value, context) and read_after(other, statement):
                return True
    return False


def _attribute_view_read_after(key: str, statement: ast.stmt, scope, context) -> bool:
    """`self.params = self.get_params(self.opt_state)` before `self.opt_state = update(self.opt_state)`,
    with `self.params` read after it: the view would hold the donated, deleted buffers."""
    for target, value in scope.bindings:
        if value is None or isinstance(value, ast.AugAssign):
            continue
        for element, element_value in _pairs(target, value):
            other = dotted_name(element)
            if other is None or other == key or element_value is None or _contains(statement, element):
                continue
            if key in _viewed_attributes(element_value, context) and _attribute_read(other, statement, scope):
                return True
    return False


def _attribute_read(attribute: str, statement: ast.stmt, scope) -> bool:
    """Whether `attribute` (`self.params`) may be read after `statement` before it is bound again:
    later in the function, or, in a loop, earlier in the body on the next iteration. (A view
    refreshed right after the update, `model.params = get_params(model.opt_state)`, is not.)"""
    start = _position(statement)
    reads: list[tuple[int, int]] = []
    binds: list[tuple[int, int]] = []
    for node in walk_same_scope(scope.node):
        if isinstance(node, ast.Attribute) and dotted_name(node) == attribute:
            (reads if isinstance(node.ctx, ast.Load) else binds).append(_position(node))
    later_binds = [p for p in binds if p > start]
    first_bind = min(later_binds) if later_binds else None
    if any(p > start and (first_bind is None or p < first_bind) for p in reads):
        return True
    if first_bind is not None:
        return False
    loops = list(_enclosing_loops(statement, scope.node))
    if not loops:
        return False
    top = _position(loops[-1])
    # Next iteration: reads in the loop before the update, unless a binding comes before them.
    earlier_binds = [p for p in binds if top <= p < start]
    first_earlier = min(earlier_binds) if earlier_binds else None
    return any(top <= p < start and (first_earlier is None or p < first_earlier) for p in reads)


# ----- bindings ---------------------------------------------------------------------------------


def _pairs(target, value):
    """(target leaf, the expression it receives or None) for an assignment."""
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and not any(
            isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)
        ):
            for element, element_value in zip(target.elts, value.elts):
                yield from _pairs(element, element_value)
        else:
            for index, element in enumerate(target.elts):
                yield from _pairs(element, _Unpacked(value, index) if not isinstance(element, ast.Starred) else value)
    elif isinstance(target, ast.Starred):
        yield from _pairs(target.value, value)
    else:
        yield target, value


class _Unpacked:
    """Element `index` of a tuple-unpacked value."""

    def __init__(self, value, index: int) -> None:
        self.value = value
        self.index = index


def _bindings_of(name: str, scope):
    for target, value in scope.bindings:
        if isinstance(value, ast.AugAssign):
            continue
        for element, element_value in _pairs(target, value):
            if isinstance(element, ast.Name) and element.id == name:
                yield element, element_value


def _static_result(target, value, context) -> bool:
    index = None
    if isinstance(value, _Unpacked):
        value, index = value.value, value.index
    if not isinstance(value, ast.Call):
        return False
    qualified = context.qualified_name(value.func)
    if qualified not in STATIC_RESULTS:
        return False
    wanted = STATIC_RESULTS[qualified]
    return wanted is None and index is None or (wanted is not None and index == wanted)


def _view_roots(value, context) -> set[str]:
    """Names whose buffers `value` may share: `x`, `x.a[0]`, `(x, y)`, `nnx.split(x)`, `get_params(x)`."""
    if isinstance(value, _Unpacked):
        value = value.value
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, (ast.Attribute, ast.Subscript, ast.Starred)):
        return _view_roots(value.value, context)
    if isinstance(value, (ast.Tuple, ast.List)):
        return set().union(*(_view_roots(e, context) for e in value.elts)) if value.elts else set()
    if isinstance(value, ast.Dict):
        return set().union(*(_view_roots(v, context) for v in value.values)) if value.values else set()
    if isinstance(value, ast.Call):
        viewed = _viewed_operand(value, context)
        if viewed is not None:
            return _view_roots(viewed, context)
    return set()


def _viewed_operand(call: ast.Call, context) -> ast.expr | None:
    """The value a call returns a view of, or None: the first argument of a view call (the rest are
    filters and keys, `nnx.split(m, nnx.Param)`), or the receiver of a shallow `.copy()`."""
    qualified = context.qualified_name(call.func)
    callee = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
    if (qualified in VIEW_CALLS or callee in VIEW_CALL_NAMES) and call.args:
        return call.args[0]
    # `eval_state = state.replace(metrics=empty)`: a new pytree around every leaf it does not replace.
    if isinstance(call.func, ast.Attribute) and call.func.attr in ("replace", "_replace") and not call.args and call.keywords:
        return call.func.value
    if qualified == "dataclasses.replace" and call.args:
        return call.args[0]
    if _shallow_copy(call, context):
        return call.func.value
    return None


def _shallow_copy(call: ast.Call, context) -> bool:
    """`params = net_params.copy()` on a list or dict of arrays: a new container around the same
    arrays. An array's own `.copy()` makes a new buffer: a receiver known to be an array (a device
    value, or bound from `jnp`/`np` calls, `.at[...]` updates, arithmetic) is not a view."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "copy" and not call.args and not call.keywords):
        return False
    if not isinstance(func.value, ast.Name):
        return False
    scope = context.scope(call)
    if scope is None or context.model.device_kind(func.value, scope) == "device":
        return False
    found = bound_values(context.model, func.value.id, scope)
    return not (found and any(_array_expression(value, context) for value in found[1]))


_ARRAY_NAMESPACES = ("jax.numpy.", "numpy.", "jax.random.", "jax.lax.", "jax.nn.")


def _array_expression(value: ast.AST, context) -> bool:
    if isinstance(value, (ast.BinOp, ast.UnaryOp)):
        return True
    if isinstance(value, ast.Call):
        if (context.qualified_name(value.func) or "").startswith(_ARRAY_NAMESPACES):
            return True
        func = value.func
        # `x.at[idx].set(v)`, and an array's own methods (`x.astype(...)`, `x.reshape(...)`).
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Subscript) and isinstance(func.value.value, ast.Attribute) and func.value.value.attr == "at":
            return True
        return isinstance(func, ast.Attribute) and func.attr in ("astype", "reshape", "transpose", "copy")
    return False


def _viewed_attributes(value, context) -> set[str]:
    """Dotted names whose buffers `value` may share, for attribute keys: `self.get_params(self.opt_state)`
    views `self.opt_state`."""
    if isinstance(value, _Unpacked):
        value = value.value
    name = dotted_name(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
    if name is not None:
        return {name}
    if isinstance(value, ast.Call):
        viewed = _viewed_operand(value, context)
        if viewed is not None:
            return _viewed_attributes(viewed, context)
    return set()


# ----- positions and loops -------------------------------------------------------------------------


def _position(node) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _enclosing_loops(node, scope_node):
    current = parent_of(node)
    while current is not None and current is not scope_node:
        if isinstance(current, FUNCTION_NODES):
            return
        if isinstance(current, (ast.For, ast.AsyncFor, ast.While)):
            yield current
        current = parent_of(current)


def _source_live(root: str, statement: ast.stmt, scope) -> bool:
    """Whether the value a view was taken from is still reachable after `statement`."""
    if root in ("self", "cls") or root in scope.params or root in scope.keyword_params or root in scope.declared_free:
        return True
    if scope.is_function and root not in scope.local_names:
        return True  # a closure or global value: held elsewhere
    if any(True for _ in _bindings_of(root, scope)) or root in scope.local_names:
        return read_after(root, statement) or _shared(root, statement, scope)
    return True


def _shared(root: str, statement: ast.stmt, scope) -> bool:
    """Whether two names are bound to `root` (`a, b = x, x`): donating one deletes the other."""
    aliases = set()
    for target, value in scope.bindings:
        if isinstance(value, ast.AugAssign) or value is None:
            continue
        for element, element_value in _pairs(target, value):
            if isinstance(element, ast.Name) and isinstance(element_value, ast.Name) and element_value.id == root:
                aliases.add(element.id)
    return len(aliases) > 1


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    current = inner
    while current is not None:
        if current is outer:
            return True
        current = parent_of(current)
    return False


def _loop_target(name: str, statement: ast.stmt) -> bool:
    for loop in _enclosing_loops(statement, None):
        if isinstance(loop, (ast.For, ast.AsyncFor)) and any(
            isinstance(n, ast.Name) and n.id == name for n in walk(loop.target)
        ):
            return True
    return False


def _host_on_entry(name: str, statement: ast.stmt, scope, context) -> bool:
    """The nearest earlier binding in the same loop iteration (or straight-line code) is a host value."""
    loops = list(_enclosing_loops(statement, scope.node))
    region_start = _position(loops[0]) if loops else (0, 0)
    start = _position(statement)
    nearest = None
    for element, value in _bindings_of(name, scope):
        position = _position(element)
        if region_start <= position < start and (nearest is None or position > nearest[0]):
            nearest = (position, value)
    if nearest is None or nearest[1] is None or isinstance(nearest[1], _Unpacked):
        return False
    return context.model.device_kind(nearest[1], scope) == "host"


def _rooted_at(expression, key: str) -> bool:
    """`key`, `key.a`, `key[0].b`, or a display holding one of those."""
    if isinstance(expression, (ast.Tuple, ast.List, ast.Set)):
        return any(_rooted_at(e, key) for e in expression.elts)
    if isinstance(expression, ast.Dict):
        return any(_rooted_at(v, key) for v in expression.values)
    if isinstance(expression, ast.Starred):
        return _rooted_at(expression.value, key)
    node = expression
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if dotted_name(node) == key:
            return True
        node = node.value
    return dotted_name(node) == key


def _escapes(key: str, statement: ast.stmt, scope) -> bool:
    """The argument (or a part of it) is stored in a container or attribute the loop or later code keeps."""
    loops = list(_enclosing_loops(statement, scope.node))
    region = loops[-1] if loops else scope.node
    start = _position(statement)
    for node in walk_same_scope(region):
        stored = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CONTAINER_METHODS:
            stored = [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.AugAssign) and isinstance(node.value, (ast.List, ast.Tuple)):
            stored = [node.value]
        elif isinstance(node, ast.Assign) and any(isinstance(t, (ast.Subscript, ast.Attribute)) and not _rooted_at(t, key) for t in node.targets):
            stored = [node.value]
        elif isinstance(node, (ast.Yield, ast.YieldFrom)) and node.value is not None:
            stored = [node.value]
        if not stored or _contains(statement, node):
            continue
        if not loops and _position(node) >= start:
            continue  # stored after the last donation: it holds the new value
        if any(_rooted_at(expression, key) for expression in stored):
            return True
    return False
