"""Host numbers made on the device: an array of indices drawn with `jax.random` (or built with
`jax.numpy`) whose elements the host then reads one at a time.

```python
ix = jax.random.randint(key, (batch_size,), 0, len(tokens) - block)
x = jnp.stack([tokens[i : i + block] for i in ix])    # a slice bound is a host integer
rows = [dataset[int(i)] for i in ix]                  # so is an index made with int()
```

Iterating a device array hands out device scalars; each slice bound, `int(i)` or truth test then
asks the device for one number and waits for it. The first wait also waits for everything queued
before the draw (a stream runs in order: the previous training step), so a batch sampler written
this way stops the pipeline on every step, and pays one transfer per element on top. The numbers
had no reason to be on the device: the host needs them, so drawing them with NumPy costs nothing.

What it answers, for JAX201 (host-sync-in-loop):
- `element_read_on_host(generators, elements)`: which iterated expression a comprehension or a
  `for` loop reads element by element on the host (shared by every "one read per element" check);
- `drawn_on_device(value, scope, model)`: whether an expression is such an array: a
  `jax.random` draw or a `jax.numpy` construction (`jnp.arange`), sliced or not, or a name every
  binding of which in its scope is one;
- `index_read_in_function(scope, model)`: the first such element-wise read a function makes on every
  call, so that a loop calling that function (`batch = get_batch(key, data)`) is known to wait;
- `drawn_index_of_host_array(subscript, ...)`: a NumPy array indexed by such an array
  (`rays[tuple(ix), ...]`), which NumPy converts on the host.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Iterable

from jaxlint.semantic import jaxapi
from jaxlint.semantic.syntax import walk

if TYPE_CHECKING:
    from jaxlint.semantic.model import Scope, SemanticModel

# `jax.random` functions that return keys, not numbers: never host indices.
_KEY_FUNCTIONS = frozenset({
    "jax.random.split", "jax.random.fold_in", "jax.random.PRNGKey", "jax.random.key", "jax.random.key_data",
    "jax.random.wrap_key_data", "jax.random.clone",
})
_CONSTRUCTION_PREFIXES = ("jax.numpy.", "jax.random.")


def element_read_on_host(generators: Iterable[ast.comprehension] | None, elements: list[ast.AST], loop: ast.For | None = None,
                         iterated_ok: Callable[[ast.AST], bool] = lambda node: True) -> ast.expr | None:
    """The expression a comprehension (or a `for` loop, `loop`) iterates when its element is read as a
    host value in `elements`: a truth test, `float(d)`/`int(d)`/`bool(d)`, `d.item()`, a slice bound
    `x[d : d + n]`, or the index of an item that is then looked up by a string key (`data[d]["ids"]`:
    an array's item has no string keys, so `data` is a host container and `d` becomes a host integer)."""
    pairs = [(g.target, g.iter, list(g.ifs)) for g in generators] if generators is not None else [(loop.target, loop.iter, [])]
    for target, iterated, conditions in pairs:
        if (
            isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "enumerate"
            and len(iterated.args) == 1 and isinstance(target, ast.Tuple) and len(target.elts) == 2
        ):
            target, iterated = target.elts[1], iterated.args[0]  # `for i, v in enumerate(x)`: v is an element of x
        elif isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and not iterated.args:
            # `for k, v in metrics.items()`, `for v in metrics.values()`: v is a leaf of a pytree of device values
            if iterated.func.attr == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                target, iterated = target.elts[1], iterated.func.value
            elif iterated.func.attr == "values":
                iterated = iterated.func.value
        if not isinstance(target, ast.Name) or not iterated_ok(iterated):
            continue
        item = target.id
        if any(isinstance(c, ast.Name) and c.id == item for c in conditions):
            return iterated
        for element in [*elements, *conditions]:
            if element is not None and _reads_item(element, item):
                return iterated
    return None


def _reads_item(element: ast.AST, item: str) -> bool:
    for node in walk(element):
        tested = None
        if isinstance(node, (ast.IfExp, ast.If, ast.While)):
            tested = node.test
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int", "bool") and len(node.args) == 1:
            tested = node.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item" and not node.args:
            tested = node.func.value
        elif isinstance(node, ast.Slice):
            # `x[start : start + size]`: a slice bound is a host integer (`__index__` reads it)
            bounds = [b for b in (node.lower, node.upper, node.step) if b is not None]
            if any(isinstance(n, ast.Name) and n.id == item for b in bounds for n in walk(b)):
                return True
        elif (
            isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript)
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
            and isinstance(node.value.slice, ast.Name) and node.value.slice.id == item
        ):
            return True  # `dataset[i]["input_ids"]`: a record of a host dataset, looked up by a device scalar
        if tested is None:
            continue
        if isinstance(tested, ast.UnaryOp) and isinstance(tested.op, ast.Not):
            tested = tested.operand
        if isinstance(tested, ast.Name) and tested.id == item:
            return True
    return False


def drawn_on_device(value: ast.AST, scope: Scope, model: SemanticModel, _depth: int = 0) -> bool:
    """A `jax.random` draw of numbers or a `jax.numpy` construction (`jnp.arange(0, n, k)`), sliced or
    indexed or not (`jax.random.permutation(key, n)[:batch]`), or a name bound only to such in its scope."""
    while isinstance(value, ast.Subscript):
        value = value.value
    if isinstance(value, ast.Call):
        qualified = model.qualified_name(value.func) or ""
        return (qualified.startswith(_CONSTRUCTION_PREFIXES) and qualified not in _KEY_FUNCTIONS
                and qualified not in jaxapi.STATIC_CALLS)
    if isinstance(value, ast.Name) and _depth < 2:
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, value.id, scope)
        if found is None or not found[1]:
            return False
        owner, values = found
        return all(drawn_on_device(v, owner, model, _depth + 1) for v in values)
    return False


def index_read_in_function(scope: Scope, model: SemanticModel) -> tuple[ast.AST, ast.expr] | None:
    """(the comprehension or `for` loop, the array it iterates) that reads, element by element on the host, an array the function
    itself drew on the device, on every call: it is a statement of the function body (or the value of
    one), not under a condition, and no `return` comes before it. Worked out once per function (a loop
    asks it of every call in its body)."""
    cache = model.__dict__.setdefault("_jaxlint_index_reads", {})
    key = id(scope.node)
    if key not in cache:
        cache[key] = _index_read_in_function(scope, model)
    return cache[key]


def _index_read_in_function(scope: Scope, model: SemanticModel) -> tuple[ast.AST, ast.expr] | None:
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope.in_traced or function.decorator_list:
        return None
    drawn_here = lambda node: _own_draw(node, scope, model)  # noqa: E731
    for statement in function.body:
        if any(isinstance(n, ast.Return) for n in walk(statement)):
            return None  # from here on the body may not run on every call
        if isinstance(statement, (ast.If, ast.Try, ast.While, ast.With, ast.AsyncWith, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # (conditional, or not run by the call)
        if isinstance(statement, ast.For):
            iterated = element_read_on_host(None, statement.body, statement, drawn_here)
            if iterated is not None:
                return statement, iterated
            continue
        for node in walk(statement):
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
                iterated = element_read_on_host(node.generators, elements, iterated_ok=drawn_here)
                if iterated is not None:
                    return node, iterated
    return None


def _own_draw(node: ast.AST, scope: Scope, model: SemanticModel) -> bool:
    """A device-drawn array the function makes itself: a draw written in place, or a name it binds to one
    (a parameter is the caller's value: not the function's own draw)."""
    if isinstance(node, ast.Name) and (node.id in scope.params or node.id in scope.keyword_params):
        return False
    return drawn_on_device(node, scope, model)


def host_numpy_array(node: ast.AST, scope: Scope, model: SemanticModel) -> bool:
    """A NumPy array the host holds: a name every binding of which in its scope is a NumPy construction
    (`rays = np.stack(...)`), or `self.<name>` every assignment of which in the class is one."""
    if isinstance(node, ast.Name):
        return model.numpy_buffer(node, scope)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        from jaxlint.semantic.arrays import instance_attribute_values

        values = instance_attribute_values(model, node.attr, scope)
        return bool(values) and model.numpy_constructions(values)
    return False


def drawn_index_of_host_array(subscript: ast.Subscript, scope: Scope, model: SemanticModel, made_in_iteration: Callable[[ast.AST], bool]) -> ast.expr | None:
    """The device-drawn index of a NumPy array lookup (`rays[tuple(idx), ...]`, `x_train[perm[i:i + b]]`):
    NumPy converts the index on the host, so each lookup waits for the draw and what is queued before it.
    `made_in_iteration` says whether an index part is a new device value in this iteration of the loop."""
    if not isinstance(subscript.ctx, ast.Load) or not host_numpy_array(subscript.value, scope, model):
        return None
    parts = subscript.slice.elts if isinstance(subscript.slice, ast.Tuple) else [subscript.slice]
    for part in parts:
        candidate = part
        if isinstance(candidate, ast.Call) and isinstance(candidate.func, ast.Name) and candidate.func.id in ("tuple", "list") and len(candidate.args) == 1:
            candidate = candidate.args[0]  # `tuple(idx)`: its elements are device scalars
        if isinstance(candidate, (ast.Name, ast.Subscript, ast.Call)) and drawn_on_device(candidate, scope, model) and made_in_iteration(candidate):
            return part
    return None
