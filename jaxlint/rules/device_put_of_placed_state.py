"""## What it does
Flags `jax.device_put(x, ...)` on every iteration of a Python loop where `x` provably already has
the placement asked for, so the call returns `x` itself:

* `jax.device_put(x)` (no device) of the output of a compiled call (`jax.jit`, `jax.pmap`) or of an
  earlier `device_put`: a value that is already on the device stays where it is;
* `jax.device_put(x, sharding)` of the output of a step jitted with `out_shardings=sharding`
  (the same object, or an equal `NamedSharding(mesh, P(...))` spelled the same way), or of an
  earlier `jax.device_put(..., sharding)`: the output already has that sharding.

The call must run on every iteration (directly in the loop's body, not under an `if`), and the
value it receives must come, on every path, from such a producer: the statement that last binds
`x` earlier in the same iteration, or for a loop-carried `x = jax.device_put(x, sharding)`, the
binding just before the loop.

## Why is this bad?
`device_put` of an array that already has the requested placement is an identity: JAX checks the
sharding and hands back the same array. The call costs a dispatch and a sharding comparison per
step, and it misleads the reader into thinking state moves between devices each step. When the
placement is not what the step produced, the same line is a per-step reshard or copy of the whole
state, which belongs in the step's `out_shardings` instead (the compiler then writes the output
where it must go): see https://docs.jax.dev/en/latest/sharded-computation.html.

## Example
```python
train_step = jax.jit(update, out_shardings=replicated)
state = jax.device_put(state, replicated)      # the first placement: fine
for batch in loader:
    state = train_step(state, batch)
    state = jax.device_put(state, replicated)  # already replicated: returns `state` itself
```

## Use instead
```python
train_step = jax.jit(update, out_shardings=replicated)
state = jax.device_put(state, replicated)
for batch in loader:
    state = train_step(state, batch)
```
To move a step's output to another placement, name it in the step's `out_shardings`.

## Fix safety
No automatic fix. The finding rests on two source expressions (the step's `out_shardings` and the
`device_put` target) being the same object at run time, which the linter proves only for names
bound once; removing the line would make the program depend on that proof silently holding after
every later edit (a changed `out_shardings` would turn the deleted no-op into a missing reshard).
The author deletes it, or moves the placement into `out_shardings`.

## How the runtime mode confirms it
Not directly: it counts host-to-device uploads per source line, and a `device_put` of a device array
is none, so the flagged line shows no upload (a host array there would). The claim itself, that the
call hands back its input, is tested on two CPU devices in tests/test_rules_multidevice.py.

## Not flagged
The first placement before the loop; host values (NumPy arrays, batches from a data loader, a
parameter of unknown origin); the output of a step with no visible `out_shardings` put with a
sharding (the compiler chooses that output's sharding, so the call may be a real reshard); a
sharding other than the step's (`out_shardings=sharded`, `device_put(x, replicated)`); a sharding
name the loop rebinds or its scope binds twice; `donate=` or `may_alias=` (a copy on purpose); a
value changed in between (`state["step"] = ...`, a method call on it, an unknown call it is passed
to); a call under `if step % N == 0:` or any other condition; a loop over a handful of literal cases;
code inside a traced function.

`pmap`-era code (`jax.pmap` where current JAX documents `jax.shard_map` or `jit` with shardings) is
JAX603's, a preview rule.
"""

from __future__ import annotations

import ast

from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import flow
from jaxlint.semantic.model import FUNCTION_NODES, Scope, parent_of

# Compiled callables whose every output leaf is a device array (`eqx.filter_jit` passes non-arrays
# through, and `device_put` would turn those into arrays: not a no-op).
_ARRAY_OUTPUT_TRANSFORMS = frozenset({"jax.jit", "jax.pmap"})
# Calls whose results compare equal when their arguments are the same objects: two spellings of one
# placement (`NamedSharding(mesh, P("data"))` in `out_shardings` and in `device_put`) are equal.
_SHARDING_CONSTRUCTORS = frozenset({
    "jax.sharding.NamedSharding", "jax.sharding.PartitionSpec", "jax.P", "jax.sharding.SingleDeviceSharding",
})
# Arguments that make `device_put` copy on purpose.
_COPY_OPTIONS = ("donate", "may_alias")
_SMALL_RANGE = 4
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class DevicePutOfPlacedState(Rule):
    code = "JAX205"
    name = "device-put-of-placed-state"
    summary = "`device_put` on every step of a value that already has that placement: it returns the value itself"
    node_types = (ast.Call,)
    required_text = ("device_put",)

    def check(self, node: ast.Call, context) -> None:
        if context.qualified_name(node.func) != "jax.device_put" or len(node.args) not in (1, 2):
            return
        if not isinstance(node.args[0], ast.Name) or any(isinstance(a, ast.Starred) for a in node.args):
            return
        if any(k.arg in _COPY_OPTIONS or k.arg is None for k in node.keywords):
            return
        scope = context.scope(node)
        if scope.in_traced:
            return
        placement = _requested_placement(node)
        if placement is _UNKNOWN:
            return
        statement = flow.enclosing_statement(node)
        loop = parent_of(statement) if statement is not None else None
        if not isinstance(loop, _LOOPS) or statement not in loop.body:
            return  # only a call on every iteration: not under `if`, `with`, `try` or a nested block
        if flow.spells_out_few_iterations(loop, context.qualified_name, _SMALL_RANGE) or flow.runs_at_most_once(loop):
            return
        value = node.args[0].id
        checker = _Placement(context, scope, loop)
        producers = checker.producers(value, statement)
        if not producers:
            return
        for producer, position in producers:
            if not checker.places(producer, position, placement):
                return
        compiled = [producer for producer, _ in producers if context.qualified_name(producer.func) != "jax.device_put"]
        if compiled:
            source = f"the output of compiled `{snippet(context.text(compiled[0].func), 30)}`"
            advice = "remove the call (to move the output elsewhere, name the placement in the step's `out_shardings`)"
        else:
            source = "put there before the loop and by this very call on the iteration before"
            advice = "remove the call"
        target = "" if placement is None else f", {snippet(context.text(placement))}"
        where = ("on the device" if placement is None else "placed there") if compiled else "nowhere else since"
        context.report(
            node,
            f"`jax.device_put({value}{target})` returns `{value}` itself on every step: `{value}` is {source}, "
            f"{'already ' if compiled else ''}{where}; {advice}",
        )


_UNKNOWN = object()


def _requested_placement(call: ast.Call):
    """The `device` argument's expression; None when there is none (or it is `None`); _UNKNOWN otherwise odd."""
    devices = [*call.args[1:], *(k.value for k in call.keywords if k.arg == "device")]
    if not devices:
        return None
    if len(devices) > 1:
        return _UNKNOWN
    device = devices[0]
    if isinstance(device, ast.Constant) and device.value is None:
        return None
    return device


class _Placement:
    """Where the value a `device_put` receives comes from, and whether that source placed it already."""

    def __init__(self, context, scope: Scope, loop: ast.AST) -> None:
        self.context = context
        self.model = context.model
        self.scope = scope
        self.loop = loop

    # -- where the value comes from --

    def producers(self, name: str, statement: ast.stmt) -> list[tuple[ast.Call, int | None]]:
        """(call, position in a tuple target) for every binding that reaches `statement`; [] when one
        does not resolve to a call, or the value may be changed in place on the way."""
        body = self.loop.body
        index = body.index(statement)
        for earlier in reversed(body[:index]):
            binding = self._binding_of(name, earlier)
            if binding is _UNKNOWN:
                return []
            if binding is not None:
                return [binding]
            if self._may_change(name, earlier):
                return []
        # Nothing earlier in this iteration binds it: the value is carried around the loop. Only
        # `x = jax.device_put(x, ...)` itself may rebind it in the loop, and the binding just before
        # the loop starts it.
        if not _rebinds(statement, name) or any(
            self._binding_of(name, later) is not None or self._may_change(name, later) for later in body[index + 1:]
        ) or self._may_change(name, statement):
            return []
        if isinstance(self.loop, (ast.For, ast.AsyncFor)) and name in flow.target_names(self.loop.target):
            return []
        before = self._binding_before_loop(name)
        if before is None:
            return []
        own = statement.value
        return [before, (own, None)] if isinstance(own, ast.Call) else []

    def _binding_of(self, name: str, statement: ast.stmt):
        """(call, position) when `statement` is `name = call(...)` or `..., name, ... = call(...)` at
        its top level; None when it does not bind `name`; _UNKNOWN when it binds it some other way."""
        if name not in flow.assigned_in(statement):
            return None
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.value, ast.Call)):
            return _UNKNOWN
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            return (statement.value, None) if target.id == name else _UNKNOWN
        if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            positions = [i for i, e in enumerate(target.elts) if e.id == name]
            return (statement.value, positions[0]) if len(positions) == 1 else _UNKNOWN
        return _UNKNOWN

    def _binding_before_loop(self, name: str) -> tuple[ast.Call, int | None] | None:
        """The binding of `name` by the last statement before the loop in the loop's own block."""
        located = flow.statement_list(self.loop)
        if located is None:
            return None
        block, index = located
        for earlier in reversed(block[:index]):
            binding = self._binding_of(name, earlier)
            if binding is _UNKNOWN:
                return None
            if binding is not None:
                return binding
            if self._may_change(name, earlier):
                return None
        return None

    def _may_change(self, name: str, statement: ast.stmt) -> bool:
        """`statement` may change the object `name` holds: a store into it (`x["k"] = v`), a method
        call on it, or a call it is handed to that is not compiled JAX code (which never mutates)."""
        for node in flow.walk_same_scope(statement):
            if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
                root = node.value
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if isinstance(root, ast.Name) and root.id == name:
                    return True
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                return True
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
                    return True
                handed = any(
                    isinstance(a, ast.Name) and a.id == name
                    for a in [*(getattr(a, "value", a) for a in node.args), *(k.value for k in node.keywords)]
                )
                if handed and not self._never_mutates(node):
                    return True
        return False

    def _never_mutates(self, call: ast.Call) -> bool:
        qualified = self.context.qualified_name(call.func) or ""
        if qualified.startswith(("jax.", "numpy.")) or qualified in ("builtins.float", "builtins.print", "builtins.len"):
            return True
        return self.model.jit_binding_for_call(call) is not None

    # -- whether the source placed it already --

    def places(self, producer: ast.Call, position: int | None, placement) -> bool:
        """Whether the value at `position` of what `producer` returns has `placement` (None: any device)."""
        qualified = self.context.qualified_name(producer.func)
        if qualified == "jax.device_put":
            if any(k.arg in _COPY_OPTIONS or k.arg is None for k in producer.keywords) or position is not None:
                return False
            if not producer.args or isinstance(producer.args[0], ast.Starred):
                return False
            placed = _requested_placement(producer)
            if placement is None:
                return placed is not _UNKNOWN
            return placed is not None and placed is not _UNKNOWN and self._same_object(placed, placement, producer)
        binding = self.model.jit_binding_for_call(producer)
        if binding is None or binding.transform not in _ARRAY_OUTPUT_TRANSFORMS:
            return False
        if placement is None:
            return True
        if binding.transform != "jax.jit":
            return False
        out_shardings = binding.options.get("out_shardings")
        if out_shardings is None:
            return False  # the compiler picks the output's sharding: the call may be a real reshard
        if position is not None:
            if not isinstance(out_shardings, (ast.Tuple, ast.List)) or position >= len(out_shardings.elts):
                return False
            assignment = parent_of(producer)
            unpacked = assignment.targets[0] if isinstance(assignment, ast.Assign) else None
            if not isinstance(unpacked, ast.Tuple) or len(unpacked.elts) != len(out_shardings.elts):
                return False  # `out_shardings` a prefix of some other output structure
            out_shardings = out_shardings.elts[position]
        return self._same_object(out_shardings, placement, binding.node)

    def _same_object(self, first: ast.expr, second: ast.expr, first_site: ast.AST) -> bool:
        """Two expressions (at `first_site` and at the `device_put`) that evaluate to the same or an
        equal placement: the same name bound once in the scope both resolve it in and not rebound by
        the loop, attributes of such names, or a sharding constructor of such arguments."""
        if type(first) is not type(second):
            return False
        if isinstance(first, ast.Constant):
            return first.value == second.value and type(first.value) is type(second.value)
        if isinstance(first, ast.Name):
            return first.id == second.id and self._bound_once_for_both(first.id, first_site)
        if isinstance(first, ast.Attribute):
            return first.attr == second.attr and self._same_object(first.value, second.value, first_site)
        if isinstance(first, ast.Call):
            qualified = self.context.qualified_name(first.func)
            if qualified not in _SHARDING_CONSTRUCTORS or qualified != self.context.qualified_name(second.func):
                return False
            if len(first.args) != len(second.args) or [k.arg for k in first.keywords] != [k.arg for k in second.keywords]:
                return False
            if any(isinstance(a, ast.Starred) for a in [*first.args, *second.args]) or any(k.arg is None for k in first.keywords):
                return False
            pairs = [*zip(first.args, second.args), *((a.value, b.value) for a, b in zip(first.keywords, second.keywords))]
            return all(self._same_object(a, b, first_site) for a, b in pairs)
        return False

    def _bound_once_for_both(self, name: str, first_site: ast.AST) -> bool:
        here = _resolving_scope(name, self.scope)
        there = _resolving_scope(name, self.model.scope_for(first_site))
        if here is None or here is not there:
            return False
        count = sum(1 for target, _ in here.bindings if name in flow.target_names(target))
        count += sum(1 for target, _ in here.loops if name in flow.target_names(target))
        count += name in here.all_params()
        count += name in here.defs
        if count != 1:
            return False
        return name not in flow.assigned_in(self.loop)


def _resolving_scope(name: str, scope: Scope | None) -> Scope | None:
    """The scope whose binding of `name` a read in `scope` sees (None: a builtin or an unbound name)."""
    while scope is not None:
        if name not in scope.declared_free and (
            name in scope.local_names or name in scope.defs or name in scope.all_params()
        ):
            return scope
        scope = scope.parent
    return None


def _rebinds(statement: ast.stmt, name: str) -> bool:
    return (
        isinstance(statement, ast.Assign) and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name
    )


RULE = DevicePutOfPlacedState()
