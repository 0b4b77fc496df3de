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
  (`rays[tuple(ix), ...]`), which NumPy converts on the host;
- `device_slice_bound(subscript, scope, model, made_in_iteration)`: a slice bound that is a device
  scalar (`ts[:, start:end]` with `start = jax.random.randint(key, (), 0, n)`, or `end = start + length`):
  slicing converts each bound with `operator.index`, which copies the number to the host and waits
  for it, the draw and everything queued before it;
- `host_sequence(node, scope, model)`: a Python list or tuple (a display, a comprehension, `list(...)`,
  a name bound only to one, a parameter every call in sight fills with one): indexing it with a device
  scalar, `tasks[i]` for `i` in a drawn permutation, calls `i.__index__()`, which copies the number to
  the host and waits for it (a device array indexed the same way gathers on the device: no read);
- `element_reads_per_iteration(loop, scope, model)`: the reads on the host, every iteration of a `for`
  loop, of one element of any device array made before it (`float(values[t])`, `if coins[i] < p:`,
  `for v in values: total += float(v)`): each is a slice dispatched and one number copied back. The
  index changes every iteration where it is the loop's index, that index shifted by names and numbers
  (`values[t + 1]`, `probs[start - 1 + i, j]`), the position a loop over host integer positions takes
  (`for i in np.nonzero(mask)[0]`), or the counter a `while` loop raises once per iteration and binds
  nowhere else (`step += 1`).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Iterable, NamedTuple

from jaxlint.semantic import jaxapi
from jaxlint.semantic.syntax import bound_names, child_nodes, walk

if TYPE_CHECKING:
    from jaxlint.semantic.model import Scope, SemanticModel

# `jax.random` functions that return keys, not numbers: never host indices.
_KEY_FUNCTIONS = frozenset({
    "jax.random.split", "jax.random.fold_in", "jax.random.PRNGKey", "jax.random.key", "jax.random.key_data",
    "jax.random.wrap_key_data", "jax.random.clone",
})
_CONSTRUCTION_PREFIXES = ("jax.numpy.", "jax.random.")


def element_read_on_host(generators: Iterable[ast.comprehension] | None, elements: list[ast.AST], loop: ast.For | None = None,
                         iterated_ok: Callable[[ast.AST], bool] = lambda node: True,
                         host_indexed: Callable[[ast.AST], bool] = lambda node: False) -> ast.expr | None:
    """The expression a comprehension (or a `for` loop, `loop`) iterates when its element is read as a
    host value in `elements`: a truth test, `float(d)`/`int(d)`/`bool(d)`, `d.item()`, a slice bound
    `x[d : d + n]`, or the index of an item that is then looked up by a string key (`data[d]["ids"]`:
    an array's item has no string keys, so `data` is a host container and `d` becomes a host integer),
    or the index of a Python list or tuple, `tasks[d]` where `host_indexed(tasks)` (`host_sequence`)."""
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
            if element is not None and _reads_item(element, item, host_indexed):
                return iterated
    return None


def _reads_item(element: ast.AST, item: str, host_indexed: Callable[[ast.AST], bool]) -> bool:
    for node in walk(element):
        tested = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _index_of(node.slice, item) and host_indexed(node.value):
            return True  # `tasks[i]`: a Python sequence converts its index with `__index__`
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


def _index_of(index: ast.AST, item: str) -> bool:
    """`i`, `i + 1`, `n - i`: an index that is the item, or arithmetic on it (a device scalar still)."""
    if isinstance(index, ast.Name):
        return index.id == item
    return isinstance(index, (ast.BinOp, ast.UnaryOp)) and any(isinstance(n, ast.Name) and n.id == item for n in walk(index))


_SEQUENCE_DISPLAYS = (ast.List, ast.Tuple, ast.ListComp)
_SEQUENCE_BUILDERS = frozenset({"builtins.list", "builtins.tuple", "builtins.sorted"})


def host_sequence(node: ast.AST, scope: Scope, model: SemanticModel, _depth: int = 0) -> bool:
    """A Python list or tuple: a display or list comprehension (`[next(gen) for _ in range(n)]`),
    `list(...)`, `tuple(...)`, `sorted(...)`, a name every binding of which in its scope is one (`xs = []`
    then `xs += [x]`; appending keeps it a list), `self.<name>` every assignment of which in the class is
    one, or a parameter of a plain function of the module every call of which passes one
    (semantic/fixed_parameters.passed_arguments). Whatever it holds, a device array among them, its
    `__getitem__` takes a host integer."""
    if isinstance(node, _SEQUENCE_DISPLAYS):
        return True
    if isinstance(node, ast.Call):
        return model.qualified_name(node.func) in _SEQUENCE_BUILDERS
    if _depth > 2:
        return False
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        from jaxlint.semantic.arrays import instance_attribute_values

        values = instance_attribute_values(model, node.attr, scope)
        return bool(values) and all(host_sequence(v, scope, model, _depth + 1) for v in values)
    if not isinstance(node, ast.Name):
        return False
    from jaxlint.semantic.bindings import bound_values, owning_scope

    found = bound_values(model, node.id, scope)
    if found is not None:
        owner, values = found
        values = [v.value if isinstance(v, ast.AugAssign) else v for v in values]
        return bool(values) and all(host_sequence(v, owner, model, _depth + 1) for v in values)
    owner = owning_scope(model, node.id, scope)
    if owner is None or node.id not in owner.param_nodes:
        return False
    from jaxlint.semantic.fixed_parameters import passed_arguments

    passed = passed_arguments(owner, node.id, model)
    return bool(passed) and all(host_sequence(value, caller, model, _depth + 1) for caller, value in passed)


def drawn_on_device(value: ast.AST, scope: Scope, model: SemanticModel, _depth: int = 0) -> bool:
    """A `jax.random` draw of numbers or a `jax.numpy` construction (`jnp.arange(0, n, k)`), sliced or
    indexed or not (`jax.random.permutation(key, n)[:batch]`), or a name bound only to such in its scope."""
    while isinstance(value, ast.Subscript) or _reshaped(value, model):
        value = value.value if isinstance(value, ast.Subscript) else value.func.value
    if isinstance(value, ast.Call):
        qualified = model.qualified_name(value.func) or ""
        return (qualified.startswith(_CONSTRUCTION_PREFIXES) and qualified not in _KEY_FUNCTIONS
                and qualified not in jaxapi.STATIC_CALLS)
    if isinstance(value, ast.Name) and _depth < 2:
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, value.id, scope)
        if found is None:
            tables = _walked_tables(value.id, scope, model)  # `for step, perm in enumerate(perms)`: a row of the table
            return bool(tables) and all(drawn_on_device(table, scope, model, _depth + 1) for table in tables)
        if not found[1]:
            return False
        owner, values = found
        # (`perms = perms[:n].reshape(steps, size)`: a rebinding to the same numbers, reshaped, is drawn
        # where the first binding is)
        values = [v for v in values if not _same_numbers(v, value.id, model)]
        return bool(values) and all(drawn_on_device(v, owner, model, _depth + 1) for v in values)
    return False


def _reshaped(value: ast.AST, model: SemanticModel) -> bool:
    """`draw.reshape(steps, size)`, `draw.ravel()`: a method of the array (no library function), the
    same numbers on the device in another shape."""
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in ("reshape", "ravel", "flatten") and model.qualified_name(value.func) is None)


def _same_numbers(value: ast.AST, name: str, model: SemanticModel) -> bool:
    """`name[:n]`, `name.reshape(...)`: the numbers `name` holds, cut or reshaped."""
    while isinstance(value, ast.Subscript) or _reshaped(value, model):
        value = value.value if isinstance(value, ast.Subscript) else value.func.value
    return isinstance(value, ast.Name) and value.id == name


def _walked_tables(name: str, scope: Scope, model: SemanticModel) -> list[ast.expr] | None:
    """The arrays whose rows every binding of `name` in `scope` walks, when it is bound only as a loop
    target: `for row in table` or `for i, row in enumerate(table)` (None when bound any other way)."""
    if any(name in bound_names(target) for target, _ in scope.bindings):
        return None
    from jaxlint.semantic.iteration import same_items

    tables: list[ast.expr] = []
    for target, iterable in scope.loops:
        if name not in bound_names(target):
            continue
        iterable = same_items(iterable, model)  # `for row in tqdm(table)`: the rows of the table
        if isinstance(target, ast.Name):
            tables.append(iterable)
        elif (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name)
              and target.elts[1].id == name and isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
              and iterable.func.id == "enumerate" and len(iterable.args) == 1):
            tables.append(same_items(iterable.args[0], model))
        else:
            return None
    return tables or None


def index_read_in_function(scope: Scope, model: SemanticModel) -> tuple[ast.AST, ast.expr] | None:
    """(the comprehension or `for` loop, the array it iterates) that reads, element by element on the host, an array the function
    itself drew on the device, on every call: it is a statement of the function body (or the value of
    one, the returned value included: `return jnp.stack([xs[i] for i in ix])`), not under a condition,
    and no `return` comes before it. Worked out once per function (a loop
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
    host_indexed = lambda node: host_sequence(node, scope, model)  # noqa: E731
    for statement in function.body:
        if not isinstance(statement, ast.Return) and any(isinstance(n, ast.Return) for n in walk(statement)):
            return None  # from here on the body may not run on every call
        if isinstance(statement, (ast.If, ast.Try, ast.While, ast.With, ast.AsyncWith, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # (conditional, or not run by the call)
        if isinstance(statement, ast.For):
            iterated = element_read_on_host(None, statement.body, statement, drawn_here, host_indexed)
            if iterated is not None:
                return statement, iterated
            continue
        for node in walk(statement):
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
                iterated = element_read_on_host(node.generators, elements, iterated_ok=drawn_here, host_indexed=host_indexed)
                if iterated is not None:
                    return node, iterated
        if isinstance(statement, ast.Return):
            return None  # (a `return` of the body's own level runs on every call that reaches it: its value is read above)
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


def stores_into_host_array(target: ast.AST, scope: Scope, model: SemanticModel) -> bool:
    """`target` of an assignment is an element or a slice of a NumPy array the host holds: `trace[i]`
    with `trace` such an array (host_numpy_array), or `history[name][i]` where every binding of
    `history` is a dict (a display or a comprehension) whose values are all NumPy constructions
    (`{"loss": np.zeros(n), "acc": np.zeros(n)}`). NumPy converts what is stored there on the host:
    storing a device value copies it, and the copy waits for the device to compute it."""
    if not isinstance(target, ast.Subscript):
        return False
    holder = target.value
    if host_numpy_array(holder, scope, model):
        return True
    if not (isinstance(holder, ast.Subscript) and isinstance(holder.value, ast.Name)):
        return False
    from jaxlint.semantic.bindings import bound_values

    found = bound_values(model, holder.value.id, scope)
    if found is None or not found[1]:
        return False
    for value in found[1]:
        if isinstance(value, ast.Dict) and value.values and None not in value.keys:
            if not model.numpy_constructions(value.values):
                return False
        elif isinstance(value, ast.DictComp):
            if not model.numpy_constructions([value.value]):
                return False
        else:
            return False
    return True


def host_array_stores(target: ast.AST, value: ast.AST, scope: Scope, model: SemanticModel):
    """Each store into a NumPy array the host holds (stores_into_host_array) that an assignment of `value`
    to `target` makes, with what it stores: (store, stored, place). A single target stores the value
    (place None); every element of a tuple or list target is a store of its own (`loss[i], params =
    step(params, batch)`, `steps[i], losses[i] = i, loss`, starred ones too): paired with its element
    when the value is a display of the same length (place None), else an element of the unpacked
    value (place: its index, -1 where a starred element or a nested target makes it unknown)."""
    if isinstance(target, ast.Starred):
        target = target.value
    if not isinstance(target, (ast.Tuple, ast.List)):
        if stores_into_host_array(target, scope, model):
            yield target, value, None
        return
    elements = target.elts
    starred = any(isinstance(element, ast.Starred) for element in elements)
    if (isinstance(value, (ast.Tuple, ast.List)) and not starred and len(value.elts) == len(elements)
            and not any(isinstance(part, ast.Starred) for part in value.elts)):
        for element, part in zip(elements, value.elts):
            yield from host_array_stores(element, part, scope, model)
        return
    for index, element in enumerate(elements):
        inner = element.value if isinstance(element, ast.Starred) else element
        for store, stored, place in host_array_stores(inner, value, scope, model):
            yield store, stored, (index if place is None and not starred and inner is element else -1)


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


def device_slice_bound(subscript: ast.Subscript, scope: Scope, model: SemanticModel, made_in_iteration: Callable[[ast.AST], bool]) -> ast.expr | None:
    """The first bound of a slice in `subscript` (`x[a:b]`, `x[:, a:b]`) that is a device scalar made in
    this iteration of the loop: a `jax.random` draw or `jax.numpy` result (`drawn_on_device`), arithmetic
    with one (`start + length`), or a name every binding of which is one or a number (`start = 0` under a
    branch beside `start = randint(...)`: the draw reaches the slice on the other iterations)."""
    if not isinstance(subscript.ctx, ast.Load):
        return None
    parts = subscript.slice.elts if isinstance(subscript.slice, ast.Tuple) else [subscript.slice]
    for part in parts:
        if not isinstance(part, ast.Slice):
            continue
        for bound in (part.lower, part.upper, part.step):
            if bound is not None and _device_scalar(bound, scope, model, 0) and made_in_iteration(bound):
                return bound
    return None


def _device_scalar(value: ast.AST, scope: Scope, model: SemanticModel, depth: int) -> bool:
    if isinstance(value, ast.BinOp):
        return _device_scalar(value.left, scope, model, depth) or _device_scalar(value.right, scope, model, depth)
    if isinstance(value, ast.UnaryOp):
        return _device_scalar(value.operand, scope, model, depth)
    if isinstance(value, ast.Call):
        return drawn_on_device(value, scope, model)
    if not isinstance(value, ast.Name) or depth > 2:
        return False
    from jaxlint.semantic.bindings import bound_values

    found = bound_values(model, value.id, scope)
    if found is None or not found[1]:
        return False
    owner, values = found
    drawn = [v for v in values if not (isinstance(v, ast.Constant) or isinstance(v, ast.UnaryOp) and isinstance(v.operand, ast.Constant))]
    return bool(drawn) and all(_device_scalar(v, owner, model, depth + 1) for v in drawn)


# ----- elements of a finished device array, read one per iteration -----------------------------------

def element_reads_per_iteration(loop: ast.AST, scope: Scope, model: SemanticModel) -> list[ElementRead]:
    """(the read, the device array) for each statement of a `for` loop (not under a condition) that
    reads on the host an element of a device array made before the loop, taken with the loop's own
    index: `float(values[t])`, `if rolls[step] < eps[step]:`, `f"{scores[i]:.3f}"`, a store of it into a
    NumPy array (`out[t] = values[t] * 2`), also through a name the iteration binds to such an element
    (`delta = values[t] - base` then `out[t] = delta`), or an element the loop takes by iterating the
    array itself (`for v in values: total += float(v)`).

    Reading a whole array on the host twice costs one transfer (a JAX array keeps its host copy), but
    `values[t]` with `t` changing every iteration is a new device array each time: the host dispatches
    the slice and waits for its one number, a round trip per element, where `np.asarray(values)` once
    before the loop copies them all in one transfer."""
    if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
        return []
    from jaxlint.semantic.training_loops import assigned_in_loop

    rebound = assigned_in_loop(loop)
    if isinstance(loop, ast.While):
        index_names, element_names = _counters(loop), {}
    else:
        index_names, element_names = _loop_handles(loop, scope, model, rebound)
    if not index_names and not element_names:
        return []

    def element_of(expression: ast.AST) -> ast.expr | None:
        """The device array `expression` takes an element of (or None), through host-visible arithmetic
        only: an element handed to a call (`jnp.allclose(x[i], y)`, `random.normal(key)`, `is_valid(x)`)
        is that call's business, not a read of the element here."""
        for node in _operands(expression):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in derived:
                return derived[node.id]
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name):
                array = node.value
                if array.id in rebound or not _indexed_by(node.slice, index_names):
                    continue
                if model.device_kind(array, scope) == "device":
                    return array
        return None

    derived: dict[str, ast.expr] = dict(element_names)
    found: list[ElementRead] = []
    for statement in _unconditional_statements(loop.body):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            # `delta = values[t] - base`: the name holds an element for the rest of the iteration,
            # unless the statement itself reads it (then the read is reported here).
            array = element_of(statement.value)
            read = _host_read(statement, element_of, scope, model)
            if read is not None:
                found.append(read)
                derived.pop(statement.targets[0].id, None)
            elif array is not None:
                derived[statement.targets[0].id] = array
            else:
                derived.pop(statement.targets[0].id, None)
            continue
        read = _host_read(statement, element_of, scope, model)
        if read is not None:
            found.append(read)
    return found


def comprehension_element_reads(comprehension: ast.AST, scope: Scope, model: SemanticModel) -> list[ElementRead]:
    """The reads on the host, in the element of a comprehension of one generator, of one element of a
    device array made before it, taken with the generator's index: `[float(probs[i, t]) for i, t in
    enumerate(tokens)]`, `[int(ids[p]) for p in np.nonzero(mask)[0]]`. A comprehension is a loop
    (semantic/iteration.py): each item dispatches a slice and waits for its one number, where one
    `np.asarray(probs)` before it copies them all at once."""
    generators = getattr(comprehension, "generators", None)
    if not generators or len(generators) != 1 or generators[0].ifs or generators[0].is_async:
        return []
    generator = generators[0]
    rebound = {n.id for n in walk(generator.target) if isinstance(n, ast.Name)}
    index_names, element_names = _loop_handles(generator, scope, model, rebound)
    if not index_names:
        return []

    def element_of(expression: ast.AST) -> ast.expr | None:
        for node in _operands(expression):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name):
                if node.value.id not in rebound and _indexed_by(node.slice, index_names) and model.device_kind(node.value, scope) == "device":
                    return node.value
        return None

    parts = [comprehension.key, comprehension.value] if isinstance(comprehension, ast.DictComp) else [comprehension.elt]
    found: list[ElementRead] = []
    for part in parts:
        read = _host_read(ast.Expr(value=part), element_of, scope, model)
        if read is not None:
            found.append(read)
    return found


def _loop_handles(loop: ast.For, scope: Scope, model: SemanticModel, rebound: set[str]):
    """(index names, {element name: device array}) of a `for` loop: `for t in range(n)` gives the
    index `t`; `for i, v in enumerate(values)` the index `i` and the element `v` of `values`; `for v in
    values` and `zip(values, ...)` elements, where `values` is a device array the loop does not rebind."""
    index_names: set[str] = set()
    elements: dict[str, ast.expr] = {}
    target, iterated = loop.target, loop.iter
    qualified = model.qualified_name(iterated.func) if isinstance(iterated, ast.Call) else None
    from jaxlint.semantic.training_loops import PROGRESS_BARS

    if qualified in PROGRESS_BARS and iterated.args:
        iterated = iterated.args[0]
        qualified = model.qualified_name(iterated.func) if isinstance(iterated, ast.Call) else None
    if qualified == "builtins.enumerate" and len(iterated.args) == 1 and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        if isinstance(target.elts[0], ast.Name):
            index_names.add(target.elts[0].id)
        target, iterated = target.elts[1], iterated.args[0]
        qualified = model.qualified_name(iterated.func) if isinstance(iterated, ast.Call) else None
    if qualified in ("builtins.range", "builtins.reversed") and isinstance(target, ast.Name):
        if qualified == "builtins.reversed" and not (iterated.args and isinstance(iterated.args[0], ast.Call) and model.qualified_name(iterated.args[0].func) == "builtins.range"):
            return index_names, elements
        index_names.add(target.id)
        return index_names, elements
    pairs = []
    if qualified == "builtins.zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(iterated.args):
        pairs = list(zip(target.elts, iterated.args))
    elif isinstance(target, ast.Name):
        pairs = [(target, iterated)]
    if isinstance(target, ast.Name) and _host_integers(iterated, model):
        # `for i in np.nonzero(mask)[0]`: host integers, one per iteration, each a new index
        index_names.add(target.id)
        return index_names, elements
    for name, array in pairs:
        if not isinstance(name, ast.Name) or model.device_kind(array, scope) != "device":
            continue
        if isinstance(array, ast.Name) and array.id not in rebound:
            elements[name.id] = array
        elif isinstance(array, ast.Call) and _one_array(array, model) and not {n.id for n in walk(array) if isinstance(n, ast.Name)} & rebound:
            elements[name.id] = array  # `zip(ids, jnp.squeeze(preds))`: an array made once, as the loop starts
    return index_names, elements


def _one_array(call: ast.Call, model: SemanticModel) -> bool:
    """A `jax.numpy` call that makes one array (not a list of pieces)."""
    qualified = model.qualified_name(call.func) or ""
    from jaxlint.semantic.iteration import PIECES

    return qualified.startswith("jax.numpy.") and qualified not in PIECES


def _indexed_by(index: ast.expr, names: set[str]) -> bool:
    """`x[t]`, `x[t, 0]`, `x[0, t]`, `x[t + 1]`, `x[offset - 1 + t, j]`: an integer index that is one of
    `names`, or sums and differences of one with names and numbers (a shifted index changes with the
    loop's index just as well; a slice is a sub-array, not one number)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(_shifted_index(part, names) for part in parts) and not any(isinstance(part, ast.Slice) for part in parts)


def _shifted_index(part: ast.expr, names: set[str]) -> bool:
    """`t`, or `t` plus or minus names and numbers (`t + 1`, `start - 1 + t`)."""
    if isinstance(part, ast.Name):
        return part.id in names
    if not (isinstance(part, ast.BinOp) and isinstance(part.op, (ast.Add, ast.Sub))):
        return False
    leaves = []
    stack = [part]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            stack.extend((node.left, node.right))
        else:
            leaves.append(node)
    if not all(isinstance(leaf, ast.Name) or isinstance(leaf, ast.Constant) and type(leaf.value) is int for leaf in leaves):
        return False
    return any(isinstance(leaf, ast.Name) and leaf.id in names for leaf in leaves)


# NumPy functions whose result is an array of integer positions (`np.nonzero(mask)[0]`, `np.argsort(x)`).
_INDEX_FUNCTIONS = frozenset({
    "numpy.nonzero", "numpy.flatnonzero", "numpy.argwhere", "numpy.where", "numpy.argsort", "numpy.arange",
})


def _host_integers(iterated: ast.expr, model: SemanticModel) -> bool:
    """`np.nonzero(mask)[0]`, `np.flatnonzero(mask)`, `np.argsort(x)[:k]`, `np.arange(n)`: host integer
    positions (a NumPy result: the host already holds each one). A `np.where` of three arguments
    selects values, not positions."""
    node = iterated
    while isinstance(node, ast.Subscript):
        node = node.value
    if not isinstance(node, ast.Call):
        return False
    qualified = model.qualified_name(node.func) or ""
    if qualified == "numpy.where" and len(node.args) != 1:
        return False
    return qualified in _INDEX_FUNCTIONS


def _counters(loop: ast.While) -> set[str]:
    """The counters of a `while` loop: names its body raises by a number once on every iteration, at
    its own level (`step += 1` at the end of the body), and binds nowhere else in it. Each iteration
    reads `values[step]` at a new place, as a `for` loop's index."""
    raises = [
        statement for statement in loop.body
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) and isinstance(statement.target, ast.Name)
        and isinstance(statement.value, ast.Constant) and type(statement.value.value) is int and statement.value.value > 0
    ]
    counted = {id(statement.target) for statement in raises}
    stored: dict[str, int] = {}
    for node in walk(loop):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stored[node.id] = stored.get(node.id, 0) + (0 if id(node) in counted else 2)
    for statement in raises:
        stored[statement.target.id] = stored.get(statement.target.id, 0) + 1
    return {statement.target.id for statement in raises if stored.get(statement.target.id) == 1}


def _unconditional_statements(body: list[ast.stmt]):
    """The statements a loop body runs on every iteration, in order, up to the first that may leave it."""
    for statement in body:
        if isinstance(statement, (ast.Break, ast.Continue, ast.Return, ast.Raise)):
            return
        if isinstance(statement, (ast.If, ast.Try, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match)):
            if isinstance(statement, ast.If):
                yield statement  # (its test runs every iteration; _host_read looks at the test only)
            if isinstance(statement, (ast.With, ast.AsyncWith)):
                yield from _unconditional_statements(statement.body)
            if any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Raise)) for n in walk(statement)):
                return
            continue
        yield statement


def _operands(expression: ast.AST):
    """`expression` and what it is computed from by operators, subscripts and formatting, not by calls."""
    stack = [expression]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Subscript, ast.JoinedStr, ast.FormattedValue, ast.Tuple, ast.List)):
            stack.extend(child_nodes(node))
        elif isinstance(node, ast.Call):
            qualified_float = isinstance(node.func, ast.Name) and node.func.id in ("float", "int", "bool", "abs", "round")
            if qualified_float:
                stack.extend(node.args)


# (`np.asarray(images[i])` copies one item out on purpose, an image to save or a record to keep: the copy
# is the output; a host scalar made of an element is a number the loop could have read from a host copy.)
_HOST_CONVERSIONS = frozenset({"builtins.float", "builtins.int", "builtins.bool"})


class ElementRead(NamedTuple):
    """A read on the host of one element of a device array: where, the array, and whether it only shows
    the number (printed or formatted)."""

    read: ast.AST
    array: ast.Name
    show: bool


def _host_read(statement: ast.stmt, element_of, scope: Scope, model: SemanticModel) -> ElementRead | None:
    """(the read, the array) where `statement` reads an element on the host: a truth test, a host
    conversion, `.item()`, formatting, or a store into a NumPy array."""
    if isinstance(statement, ast.If):
        array = element_of(statement.test)
        return ElementRead(statement.test, array, False) if array is not None else None
    if isinstance(statement, ast.Assign) and any(
        isinstance(t, ast.Subscript) and model.numpy_buffer(t.value, scope) for t in statement.targets
    ):
        array = element_of(statement.value)
        if array is not None:
            return ElementRead(statement, array, False)  # NumPy converts what it stores
    for node in walk(statement):
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        read = None
        show = False
        if isinstance(node, ast.Call):
            qualified = model.qualified_name(node.func) or ""
            if qualified in _HOST_CONVERSIONS and len(node.args) == 1:
                read = node.args[0]
            elif qualified == "builtins.print":
                read = next((a for a in node.args if element_of(a) is not None), None)
                show = True
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "item" and not node.args:
                read = node.func.value
        elif isinstance(node, ast.FormattedValue):
            read = node.value
            show = True
        elif isinstance(node, ast.IfExp):
            read = node.test
        if read is not None:
            array = element_of(read)
            if array is not None:
                return ElementRead(node, array, show)
    return None
