"""Decoding loops: a method that runs its own network on every iteration of a loop that grows an array.

A network class's `generate` (or `sample`, `decode`, whatever its name) calls the network itself,
`self(tokens)`, once per new element, and extends the sequence it carries by one element per
iteration (`tokens = jnp.concatenate([tokens, next_token], axis=1)`, `jnp.append(tokens, t)`).
Such a method is a driver of the network, not a part of it: under `jit` each iteration would be a new
shape and a new copy of the whole network in one program (a loop `lax` cannot carry: its carry
changes shape), so nobody compiles it; a traced caller jits the forward pass and runs the loop on
the host. The method therefore runs on the host, eagerly, wherever it is called from, and also
where nothing visible calls it (a model library's `generate`, called by its users).

Not a decoding loop: a loop that calls sub-networks (`for layer in self.layers: x = layer(x)`, the
forward pass itself), a loop that runs the network on a fixed-size state (a rollout of a dynamics
model, an ODE step: traceable, `fori_loop` carries it), a sequence grown in a Python list, and a
method that is traced in its module (decorated with or passed to a transform, called from traced
code: host_code asks that first).
"""

from __future__ import annotations

import ast
from weakref import WeakKeyDictionary

from jaxlint.semantic import jaxapi
from jaxlint.semantic.model import FUNCTION_NODES, Scope, SemanticModel
from jaxlint.semantic.syntax import child_nodes

# Calls that return their first argument's elements with more appended: `x = jnp.concatenate([x, y])`
# makes `x` one row longer on every iteration.
GROWING_CALLS = frozenset({
    "jax.numpy.concatenate", "jax.numpy.concat", "jax.numpy.append", "jax.numpy.hstack", "jax.numpy.vstack",
    "jax.numpy.column_stack", "jax.numpy.row_stack", "jax.numpy.dstack",
})

_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_cache: "WeakKeyDictionary[SemanticModel, dict[int, bool]]" = WeakKeyDictionary()


def decodes_with_own_network(scope: Scope, model: SemanticModel) -> bool:
    """A method of a network class of the module (nnx, equinox or linen) with a loop that calls the
    network itself (`self(x)`) and grows an array it carries (see the module docstring)."""
    if not scope.is_function or scope.class_node is None or not scope.calls:
        return False
    known = _cache.setdefault(model, {})
    found = known.get(id(scope))
    if found is None:
        found = known[id(scope)] = (
            any(_decoding_loop(loop, model) for loop in _loops(scope.node))
            and getattr(scope.node, "name", None) not in _traced_method_names(model)
        )
    return found


def _traced_method_names(model: SemanticModel) -> set[str]:
    """Names of methods the module's traced code calls on any object (`model.greedy(p, n)` in a jitted
    function, whose parameter's class may not be known) or hands to a transform (`jax.jit(net.sample)`):
    such a method may run traced. Once per module."""
    names = model.__dict__.get("_decoding_traced_names")
    if names is None:
        names = set()
        for scope in model.scopes:
            traced = scope.in_traced or bool(scope.transforms)
            for call in scope.calls:
                if traced and isinstance(call.func, ast.Attribute):
                    names.add(call.func.attr)
                if model.qualified_name(call.func) in jaxapi.JIT_LIKE | jaxapi.COMPILING:
                    names.update(a.attr for a in call.args if isinstance(a, ast.Attribute))
        model.__dict__["_decoding_traced_names"] = names
    return names


def _loops(function: ast.AST):
    stack = [*getattr(function, "body", ())]
    while stack:
        node = stack.pop()
        if node.__class__ in FUNCTION_NODES or isinstance(node, ast.ClassDef):
            continue
        if isinstance(node, _LOOPS):
            yield node
        stack.extend(child_nodes(node))


def _decoding_loop(loop: ast.AST, model: SemanticModel) -> bool:
    from jaxlint.semantic import library_models

    runs_self = grows = False
    for node in _body(loop):
        if not isinstance(node, ast.Call):
            if isinstance(node, ast.Assign) and _grows_target(node, model):
                grows = True
            continue
        if isinstance(node.func, ast.Name) and node.func.id == "self":
            entry = library_models.call_model(model, node)
            runs_self = runs_self or (entry is not None and entry.runs_model)
    return runs_self and grows


def _body(loop: ast.AST):
    """Nodes of the loop's body, not inside nested functions or classes (nested loops included)."""
    stack = [*loop.body]
    while stack:
        node = stack.pop()
        yield node
        if node.__class__ in FUNCTION_NODES or isinstance(node, ast.ClassDef):
            continue
        stack.extend(child_nodes(node))


def _grows_target(assign: ast.Assign, model: SemanticModel) -> bool:
    """`x = jnp.concatenate([x, y], ...)` or `x = jnp.append(x, y)`: the name bound is the first piece."""
    value = assign.value
    if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name) or not isinstance(value, ast.Call) or not value.args:
        return False
    if model.qualified_name(value.func) not in GROWING_CALLS:
        return False
    name = assign.targets[0].id
    first = value.args[0]
    pieces = first.elts if isinstance(first, (ast.List, ast.Tuple)) else [first]
    return bool(pieces) and isinstance(pieces[0], ast.Name) and pieces[0].id == name
