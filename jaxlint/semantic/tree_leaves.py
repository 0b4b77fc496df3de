"""How many leaves a tree holds, where the source spells it out, and what per-leaf work over it costs.

An eager tree map dispatches its function once per leaf: its cost is the leaves times the operations
of the function, plus the flattening (benchmarks/eager_update_cost.py: a hand-written SGD step
`tree_map(lambda p, g: p - lr * g, params, grads)` costs 3.4 dispatches per leaf on an H200 and 2.6
on the CPU). Over a model's parameters, hundreds of leaves, that is a whole computation; over a tree
the source builds from a handful of arrays (`params = dict(w=w, b=b)`, `{"slope": 0.0, "bias": 0.0}`,
the `init` of a linen module of two dense layers) it is a few dispatches, the same as a few `jnp`
calls.

* `known_leaves(node, scope, model)`: the number of arrays in the tree `node` holds, or None. A dict,
  list or tuple display (or `dict(w=..., b=...)`) counts its elements, each an array (an array
  builder, a number, arithmetic on arrays) or a display in turn; a name counts what its reaching
  binding holds (in module code, a notebook's cells, the last binding before the read; an element of
  a tuple a function of the module returns, `data, params = make_problem()`; a parameter, the most
  that any call of the module passes, each call known); `Module(...).init(key, x)` of a linen module
  class of the module counts the parameters its `setup` or compact `__call__` creates (`self.param`,
  library layers of the layer table, the module's own module classes), where nothing else in it may
  create any (an instance of a project class whose bases, followed through the project's modules, end
  in a root that is no linen module, `equinox.Module`, `object`, creates none); `Module(...).init(key, x)`
  of a treex module class of the module counts the layers its `__init__` stores on `self` (one each,
  in a list display, or a comprehension over a list the construction passes: `[tx.Linear(d) for d in
  features]` with `MLP([12, 8, 1])`), where every other statement stores settings and no other method
  builds a layer. Anything else (a
  loaded checkpoint, a tree from another library, a loop over layers) is None: the tree may hold the
  hundreds of leaves of a real model.
* `few_leaf_operations(call, trees, scope, model)`: the operations one eager call of a tree map over
  a handful of arrays dispatches (leaves times the operations of its function), where both are known
  and the tree holds `FEW_LEAVES` or fewer: a few eager operations, counted as such by JAX203 (a
  whole computation is the per-leaf work over a model's hundreds of leaves).
* `few_leaf_update_operations(call, scope, model)`: the same for an optimizer update that keeps no
  state arrays (plain `optax.sgd`, library data `optax.STATE_FREE`) over a handful of arrays; an
  optimizer with moments stays a whole computation (`adam`: 80 dispatches plus 31 per leaf).
"""

from __future__ import annotations

import ast

from jaxlint.semantic.library_models import layers as layer_models
from jaxlint.semantic.model import Scope, SemanticModel, is_within, parent_of
from jaxlint.semantic.syntax import passed_to_parameter, walk

_DEPTH = 6
# Calls that compute arrays: an operation each where a mapped function or a linen method calls them.
_ARRAY_NAMESPACES = ("jax.numpy.", "numpy.", "jax.random.", "jax.nn.", "jax.lax.")
# Values that are one array each: array builders, random draws and elementwise math of these, and numbers.
_ONE_ARRAY_NAMESPACES = ("jax.numpy.", "numpy.", "jax.random.", "jax.nn.")
# Calls of those namespaces that give something else than one array: several (a split, a grid, a
# factorisation), or whatever a file holds.
_NOT_ONE_ARRAY = frozenset({
    "split", "array_split", "meshgrid", "load", "loadz", "histogram", "unique", "nonzero", "where", "eig", "eigh", "svd", "qr",
    "slogdet", "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d",
})
_TREE_BUILDERS = ("jax.tree", "jax.tree_util")
_LAYER_LEAVES = {"dense": 2, "linear": 2, "conv": 2, "conv_explicit": 2, "norm": 4, "norm_explicit": 4, "embed": 1,
                 "stateless": 0, "flatten": 0}
# Adding updates to parameters leaf by leaf: the result has the parameters' structure.
_APPLY_UPDATES = frozenset({"optax.apply_updates", "equinox.apply_updates"})
_OPTIMIZER_UPDATE = "optax.GradientTransformation.update"
_OPTIMIZER_INIT = "optax.GradientTransformation.init"
_LINEN_MODULE = frozenset({"flax.linen.Module", "flax.linen.module.Module"})
_TREEX_MODULE = frozenset({"treex.Module"})


def known_leaves(node: ast.AST | None, scope: Scope, model: SemanticModel, depth: int = 0) -> int | None:
    """The number of arrays in the tree `node` holds where the source spells it out, else None."""
    if node is None or depth > _DEPTH:
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        return _sum(node.elts, scope, model, depth)
    if isinstance(node, ast.Dict):
        return None if any(key is None for key in node.keys) else _sum(node.values, scope, model, depth)
    if isinstance(node, ast.Constant):
        return 1 if isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool) else None
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return 1 if _one_array(node, scope, model, depth) else None
    if isinstance(node, ast.Name):
        return _name_leaves(node, scope, model, depth)
    if isinstance(node, ast.Call):
        qualified = model.qualified_name(node.func) or ""
        if qualified == "builtins.dict" and not node.args and node.keywords and all(k.arg for k in node.keywords):
            return _sum([k.value for k in node.keywords], scope, model, depth)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "init":
            return _linen_init_leaves(node, scope, model, depth)
        if _one_array(node, scope, model, depth):
            return 1
    return None


def _sum(values, scope: Scope, model: SemanticModel, depth: int) -> int | None:
    total = 0
    for value in values:
        if isinstance(value, ast.Starred):
            return None
        count = known_leaves(value, scope, model, depth + 1)
        if count is None:
            return None
        total += count
    return total


def _one_array(node: ast.AST, scope: Scope, model: SemanticModel, depth: int) -> bool:
    """`node` is one array: a call of the array namespaces that builds or computes one (not a split
    into several, not a tree utility), a number, or arithmetic on such values and names bound to them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _one_array(node.left, scope, model, depth + 1) and _one_array(node.right, scope, model, depth + 1)
    if isinstance(node, ast.UnaryOp):
        return _one_array(node.operand, scope, model, depth + 1)
    if isinstance(node, ast.Name):
        return _name_leaves(node, scope, model, depth + 1) == 1
    if isinstance(node, ast.Call):
        qualified = model.qualified_name(node.func) or ""
        return (qualified.startswith(_ONE_ARRAY_NAMESPACES) and not qualified.startswith(_TREE_BUILDERS)
                and qualified.rsplit(".", 1)[-1] not in _NOT_ONE_ARRAY)
    return False


def _name_leaves(name: ast.Name, scope: Scope, model: SemanticModel, depth: int) -> int | None:
    from jaxlint.semantic.bindings import owning_scope
    from jaxlint.semantic.flow import enclosing_loops, enclosing_statement, target_elements

    if depth > _DEPTH:
        return None
    owner = owning_scope(model, name.id, scope)
    if owner is None:
        return None
    if name.id in owner.param_nodes:
        return _parameter_leaves(owner, name.id, model, depth)
    read = enclosing_statement(name)
    bindings = [(target, value) for target, value in owner.bindings
                if any(isinstance(e, ast.Name) and e.id == name.id for e in target_elements(target))
                and not _keeps_structure(target, value, name.id, model)]
    if not bindings or any(value is None or isinstance(value, ast.AugAssign) for _, value in bindings):
        return None
    if len(bindings) > 1:
        # Module code (a script, a notebook's cells run in order) read in module code: the last binding
        # before the read. A function reads a global when called, and a function's own names may be
        # rebound by a branch or a loop: one binding only.
        if owner.is_function or scope.is_function or read is None:
            return None
        # (A later cell's rebinding, in a loop of its own, reaches no read above it; one in a loop
        # around the read carries back to it.)
        statements = [enclosing_statement(value) for _, value in bindings]
        if any(statement is None for statement in statements):
            return None
        around = [loop for loop in enclosing_loops(read) if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))]
        if any(statement.lineno >= read.lineno and any(is_within(statement, loop) for loop in around) for statement in statements):
            return None
        before = [(target, value) for (target, value), statement in zip(bindings, statements) if statement.lineno < read.lineno]
        if not before or not all(isinstance(parent_of(statement), ast.Module) for statement in statements if statement.lineno < read.lineno):
            return None
        bindings = [max(before, key=lambda pair: pair[1].lineno)]
    target, value = bindings[0]
    if isinstance(target, ast.Name):
        return known_leaves(value, owner, model, depth + 1)
    position = _position_in(target, name.id)
    if position is None:
        return None
    if isinstance(value, (ast.Tuple, ast.List)):
        return known_leaves(value.elts[position], owner, model, depth + 1) if position < len(value.elts) else None
    if isinstance(value, ast.Call):
        return _returned_leaves(value, position, owner, model, depth)
    return None


def _keeps_structure(target: ast.AST, value: ast.AST | None, name: str, model: SemanticModel) -> bool:
    """`name = tree_map(f, name, ...)`: a tree map gives a tree of its first tree's structure, so a
    rebinding by one (an update step in a loop) keeps the leaves the name held."""
    from jaxlint.semantic.tree_work import mapped_trees, tree_arguments

    if not (isinstance(target, ast.Name) and isinstance(value, ast.Call)):
        return False
    if model.qualified_name(value.func) in _APPLY_UPDATES:
        first = value.args[0] if value.args else None
        return isinstance(first, ast.Name) and first.id == name
    trees = tree_arguments(value, model)
    if trees:
        return isinstance(trees[0], ast.Name) and trees[0].id == name
    # (`params = descend(params, grads)`: a plain function of the module mapping that parameter)
    return any(isinstance(tree, ast.Name) and tree.id == name for tree in mapped_trees(value, model))


def _position_in(target: ast.AST, name: str) -> int | None:
    """The position of `name` in a flat tuple target (`a, b, params = ...`), None if nested or starred."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return None
    for index, element in enumerate(target.elts):
        if not isinstance(element, ast.Name):
            return None
        if element.id == name:
            return index
    return None


def _returned_leaves(call: ast.Call, position: int, scope: Scope, model: SemanticModel, depth: int) -> int | None:
    """Leaves of element `position` of the tuple every `return` of the module's function `call` calls
    gives (`return train, val, params`); the largest, all known."""
    callee = _module_function(call, model)
    if callee is None:
        return None
    inner = model.scope_for(callee.body[0]) if callee.body else None
    counts = []
    for node in walk(callee):
        if not isinstance(node, ast.Return) or model.scope_for(node) is not inner:
            continue
        if not isinstance(node.value, ast.Tuple) or position >= len(node.value.elts) or any(isinstance(e, ast.Starred) for e in node.value.elts):
            return None
        count = known_leaves(node.value.elts[position], inner, model, depth + 1)
        if count is None:
            return None
        counts.append(count)
    return max(counts) if counts else None


def _module_function(call: ast.Call, model: SemanticModel) -> ast.FunctionDef | None:
    """The one module-level `def` a plain call by name calls."""
    if not isinstance(call.func, ast.Name):
        return None
    defs = [s for s in model.tree.body if isinstance(s, ast.FunctionDef) and s.name == call.func.id]
    return defs[0] if len(defs) == 1 else None


def _parameter_leaves(function_scope: Scope, name: str, model: SemanticModel, depth: int) -> int | None:
    """The most leaves any call of the module passes to the parameter `name` (each call known, at least one)."""
    function = function_scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    calls = [call for call in model.calls_by_name().get(function.name, ()) if isinstance(call.func, ast.Name)]
    passed = passed_to_parameter(calls, function, name) if calls else None
    if not passed or any(value is None for value in passed):
        return None
    counts = []
    for call, value in zip(calls, passed):
        count = known_leaves(value, model.scope_for(call), model, depth + 1)
        if count is None:
            return None
        counts.append(count)
    return max(counts)


# ----- linen modules ------------------------------------------------------------------------------

def _linen_init_leaves(call: ast.Call, scope: Scope, model: SemanticModel, depth: int) -> int | None:
    """`Net(...).init(key, x)` or `net.init(...)` with `net = Net(...)`: the parameters a linen module
    class of the module creates."""
    receiver = call.func.value
    if isinstance(receiver, ast.Name):
        from jaxlint.semantic.flow import value_at_read

        found = value_at_read(receiver, scope, model, in_line_order=True)  # (module code: the last binding above)
        if found is None:
            return None
        receiver = found[1]
    if not isinstance(receiver, ast.Call) or not isinstance(receiver.func, ast.Name):
        return None
    line = None if scope.is_function else receiver.lineno
    class_node = _module_class(receiver.func.id, model, line)
    if class_node is not None and any((model.qualified_name(base) or "") in _TREEX_MODULE for base in class_node.bases):
        return _treex_leaves(class_node, receiver, scope, model)
    return _class_leaves(receiver.func.id, model, depth + 1, set(), line)


def _treex_leaves(class_node: ast.ClassDef, construction: ast.Call, scope: Scope, model: SemanticModel) -> int | None:
    """The arrays of a treex module class of the module, built by `Class(...)`: its `__init__` stores
    library layers on `self`, one each (`self.head = tx.Linear(1)`), in a list display, or in a list
    comprehension over a list the call passes (`[tx.Linear(d) for d in features]` with
    `MLP([12, 8, 1])`): each layer's arrays per the layer table. Its `__call__` must build no layer
    (no `@compact` module), and every other statement of `__init__` stores settings only."""
    methods = {s.name: s for s in class_node.body if isinstance(s, ast.FunctionDef)}
    init = methods.get("__init__")
    if init is None or any(isinstance(a, ast.Starred) for a in construction.args) or any(k.arg is None for k in construction.keywords):
        return None
    for name, method in methods.items():
        if name != "__init__" and any(isinstance(node, ast.Call) and _layer_leaves(node, model) is not None for node in walk(method)):
            return None  # (a layer built outside `__init__`: a compact module, its count not read here)
    parameters = [a.arg for a in init.args.args[1:]]
    passed = dict(zip(parameters, construction.args))
    passed.update((k.arg, k.value) for k in construction.keywords if k.arg in parameters)
    total = 0
    for statement in init.body:
        if isinstance(statement, ast.Expr):
            if isinstance(statement.value, ast.Constant):
                continue  # (a docstring)
            call = statement.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call) \
                    and isinstance(call.func.value.func, ast.Name) and call.func.value.func.id == "super":
                continue  # `super().__init__()`
            return None
        if not (isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None):
            return None
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if len(targets) != 1 or not (isinstance(targets[0], ast.Attribute) and isinstance(targets[0].value, ast.Name) and targets[0].value.id == "self"):
            return None
        count = _stored_leaves(statement.value, passed, model)
        if count is None:
            return None
        total += count
    return total


def _stored_leaves(value: ast.AST, passed: dict, model: SemanticModel) -> int | None:
    """Arrays of one value a treex `__init__` stores: a setting (a literal, a parameter bound to one)
    holds none; a library layer its table's; a list display or a comprehension over a passed list, the
    layers it holds."""
    if isinstance(value, ast.Constant):
        return 0
    if isinstance(value, ast.Name) and value.id in passed and isinstance(passed[value.id], ast.Constant):
        return 0
    if isinstance(value, ast.Call):
        return _layer_leaves(value, model)
    if isinstance(value, (ast.List, ast.Tuple)):
        counts = [_stored_leaves(element, passed, model) for element in value.elts]
        return None if None in counts or any(isinstance(e, ast.Starred) for e in value.elts) else sum(counts)
    if isinstance(value, ast.ListComp) and len(value.generators) == 1 and not value.generators[0].ifs:
        generator = value.generators[0]
        items = generator.iter
        if isinstance(items, ast.Name) and items.id in passed:
            items = passed[items.id]
        if not isinstance(items, (ast.List, ast.Tuple)) or any(isinstance(e, ast.Starred) for e in items.elts):
            return None
        per_item = _layer_leaves(value.elt, model) if isinstance(value.elt, ast.Call) else None
        return None if per_item is None else per_item * len(items.elts)
    return None


def _layer_leaves(call: ast.Call, model: SemanticModel) -> int | None:
    """The arrays a library layer construction holds, per the layer table; None for anything else."""
    spec = layer_models.LAYERS.get(model.qualified_name(call.func) or "")
    if spec is None:
        return None
    leaves = _LAYER_LEAVES.get(spec["kind"])
    if leaves == 2 and any(k.arg in ("use_bias", "bias") and isinstance(k.value, ast.Constant) and k.value.value is False for k in call.keywords):
        return 1
    return leaves


def _module_class(name: str, model: SemanticModel, line: int | None = None) -> ast.ClassDef | None:
    """The module's class `name`: its one definition, or, read at `line` in module code (a notebook
    redefining a class in a later cell), the last definition before it."""
    classes = [s for s in model.tree.body if isinstance(s, ast.ClassDef) and s.name == name]
    if len(classes) > 1 and line is not None:
        classes = [c for c in classes if c.lineno < line][-1:]
    return classes[0] if len(classes) == 1 else None


def _is_linen(class_node: ast.ClassDef, model: SemanticModel) -> bool:
    return any((model.qualified_name(base) or "") in _LINEN_MODULE for base in class_node.bases)


def _class_leaves(name: str, model: SemanticModel, depth: int, seen: set[str], line: int | None = None) -> int | None:
    """Parameters a linen module class of the module creates in `setup` and `__call__` (compact): one
    per `self.param`, a library layer's per the layer table, a module class of the module's in turn.
    None where a method loops, or calls anything that may create parameters the table does not know."""
    class_node = _module_class(name, model, line)
    if class_node is None or not _is_linen(class_node, model) or name in seen or depth > _DEPTH:
        return None
    seen = seen | {name}
    methods = [s for s in class_node.body if isinstance(s, ast.FunctionDef) and s.name in ("setup", "__call__")]
    if not methods:
        return None
    total = 0
    for method in methods:
        for node in walk(method):
            if isinstance(node, (ast.For, ast.While, ast.AsyncFor, ast.comprehension)):
                return None  # (a loop over layers: how many is not read here)
            if not isinstance(node, ast.Call):
                continue
            count = _call_parameters(node, model, depth, seen)
            if count is None:
                return None
            total += count
    return total


def _call_parameters(call: ast.Call, model: SemanticModel, depth: int, seen: set[str]) -> int | None:
    """Parameters one call in a linen module's method creates: 1 for `self.param`, a library layer's,
    a module class's; 0 for array math, a call of what a call returned (a layer applied), a builtin or a
    method of a value; None for anything else."""
    function = call.func
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "self":
        if function.attr in ("param", "variable"):
            # (one array, unless its initialiser is another module's `init`: a tree of them)
            initialiser = call.args[1] if len(call.args) > 1 else None
            return None if isinstance(initialiser, ast.Attribute) and initialiser.attr == "init" else 1
        return 0  # (`self.dense(x)`: built in `setup`, counted there)
    if isinstance(function, ast.Call):
        return 0  # (`nn.Dense(4)(x)`: the layer is counted where it is built, the inner call)
    if isinstance(function, ast.Name) and _bound_in_method(function, model):
        return 0  # (`layer = nn.Dense(4); layer(x)`: likewise, counted where the method built it)
    qualified = model.qualified_name(function) or ""
    spec = layer_models.LAYERS.get(qualified)
    if spec is not None:
        leaves = _LAYER_LEAVES.get(spec["kind"])
        if leaves is None:
            return None
        if leaves == 2 and any(k.arg == "use_bias" and isinstance(k.value, ast.Constant) and k.value.value is False for k in call.keywords):
            return 1
        return leaves
    if isinstance(function, ast.Name) and _module_class(function.id, model) is not None:
        return _class_leaves(function.id, model, depth + 1, seen)
    if qualified and model.project is not None and not qualified.startswith(_LIBRARY_PREFIXES):
        summary = model.project.class_(qualified)
        if summary is not None:
            # (a class of another module of the project: a linen submodule may create parameters, any
            # other class, an equinox module, a record, creates none in a linen method)
            return 0 if _outside_linen(summary, model.project, 0) else None
    if qualified.startswith(("flax.linen.", "flax.nnx.", "haiku.", "equinox.")):
        # (an activation or pooling function creates nothing; a layer class the table does not hold may)
        return 0 if qualified.rsplit(".", 1)[-1][:1].islower() else None
    if qualified.startswith(_ARRAY_NAMESPACES) or qualified.startswith("builtins.") or qualified.startswith("math."):
        return 0
    if isinstance(function, ast.Attribute) and not qualified:
        return 0  # (a method of a value: `x.reshape(...)`, `x.mean()`)
    return None


def _bound_in_method(name: ast.Name, model: SemanticModel) -> bool:
    """`name` is a local of the method it is called in, every binding of it a call there (built there)."""
    scope = model.scope_for(name)
    if not scope.is_function or name.id in scope.param_nodes:
        return False
    from jaxlint.semantic.flow import target_elements

    values = [value for target, value in scope.bindings
              if any(isinstance(e, ast.Name) and e.id == name.id for e in target_elements(target))]
    return bool(values) and all(isinstance(value, (ast.Call, ast.IfExp)) for value in values)


# Bases that make a class no linen module (its instances create no linen parameters).
_OTHER_ROOTS = frozenset({
    "equinox.Module", "builtins.object", "typing.NamedTuple", "typing.Generic", "abc.ABC", "flax.struct.PyTreeNode",
})
_LIBRARY_PREFIXES = ("jax.", "flax.", "equinox.", "numpy.", "builtins.", "haiku.", "optax.")


def _outside_linen(summary, project, depth: int) -> bool:
    """A project class whose every base, followed through the project's modules, ends in a known root
    that is not a linen module (`equinox.Module`, `object`, a NamedTuple): no linen submodule."""
    if depth > _DEPTH:
        return False
    home = project.home_of_class(summary)
    for base in summary.local_bases:
        local = home.classes.get(base) if home is not None else None
        if local is None or not _outside_linen(local, project, depth + 1):
            return False
    for base in summary.bases:
        if base in _OTHER_ROOTS:
            continue
        if base.startswith(_LIBRARY_PREFIXES):
            return False
        inner = project.class_(base)
        if inner is None or not _outside_linen(inner, project, depth + 1):
            return False
    return True


# ----- per-leaf work ------------------------------------------------------------------------------

# A tree of this many leaves or fewer is a handful of arrays (a line's slope and bias, two dense
# layers): per-leaf work over it is a few eager operations, not a whole computation.
FEW_LEAVES = 8


def few_leaf_operations(call: ast.Call, trees: tuple[ast.expr, ...], scope: Scope, model: SemanticModel) -> int | None:
    """The eager operations one call of the tree map `call` over `trees` dispatches where its trees are a
    handful of arrays (`FEW_LEAVES` or fewer, counted from the source) and its function is read here (a
    lambda, or a function of the module whose body is one `return`): leaves times the function's
    operations. None otherwise: the tree may be a model's hundreds of leaves."""
    operations = _mapped_operations(call, scope, model)
    if operations is None:
        return None
    leaves = next((count for tree in trees if (count := known_leaves(tree, scope, model)) is not None), None)
    if leaves is None or leaves > FEW_LEAVES:
        return None
    return leaves * operations


def _mapped_operations(call: ast.Call, scope: Scope, model: SemanticModel) -> int | None:
    """Operations per leaf of a tree map (those of its function), or of a plain function of the module
    that maps its parameters (`params = descend(params, grads, rate)`: the tree maps in its body, each
    a function read here)."""
    from jaxlint.semantic.host_code import callee_scope
    from jaxlint.semantic.tree_work import tree_arguments

    if tree_arguments(call, model):
        return _function_operations(call.args[0], scope, model) if call.args else None
    helper = callee_scope(call, model)
    if helper is None:
        return None
    total = 0
    for node in walk(helper.node):
        if isinstance(node, ast.Call) and tree_arguments(node, model):
            operations = _function_operations(node.args[0], model.scope_for(node), model) if node.args else None
            if operations is None:
                return None
            total += operations
    return total or None


def _function_operations(function: ast.expr, scope: Scope, model: SemanticModel) -> int | None:
    body: ast.AST | None = None
    if isinstance(function, ast.Lambda):
        body = function.body
    elif isinstance(function, ast.Name):
        defs = [s for s in model.tree.body if isinstance(s, ast.FunctionDef) and s.name == function.id]
        if len(defs) == 1 and len(defs[0].body) == 1 and isinstance(defs[0].body[0], ast.Return):
            body = defs[0].body[0].value
    if body is None:
        return None
    operations = 0
    for node in walk(body):
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Subscript)):
            operations += 1
        elif isinstance(node, ast.Call):
            qualified = model.qualified_name(node.func) or ""
            if not qualified.startswith(_ARRAY_NAMESPACES) and not isinstance(node.func, ast.Attribute):
                return None  # (a call of other code: its cost is not read here)
            operations += 1
    return operations


def few_leaf_update_operations(call: ast.Call, scope: Scope, model: SemanticModel) -> int | None:
    """The eager operations one optimizer update dispatches where the optimizer keeps no state arrays
    (plain `optax.sgd` without momentum, clipping, scaling, a chain of those: library data
    `optax.STATE_FREE`) and the tree it updates is a handful of arrays (`FEW_LEAVES` or fewer: the
    gradients, or the parameters its state was initialised for, `opt_state = opt.init(params)` with
    `params` a dict display of five scalars): a scale per leaf, and the Python around it; measured,
    an eager `optax.sgd` update and `apply_updates` cost 5 dispatches plus 5.3 per leaf on an H200
    (benchmarks/eager_update_cost.py), the scale of a few `jnp` calls. An optimizer that keeps moments
    (`adam`: 80 dispatches plus 31 per leaf), or a tree of unknown size, is a whole computation: None."""
    from jaxlint.semantic import library_models
    from jaxlint.semantic.carried_state import _state_sizes

    entry = library_models.call_model(model, call)
    if entry is None or entry.name != _OPTIMIZER_UPDATE or not call.args:
        return None
    sizes = _state_sizes(model)
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else call.func
    if not sizes._state_free(sizes._optimizer_call(receiver, scope), scope):
        return None
    leaves = known_leaves(call.args[0], scope, model)
    if leaves is None and len(call.args) > 1:
        leaves = _initialised_for(call.args[1], scope, model)
    if leaves is None or leaves > FEW_LEAVES:
        return None
    return leaves


def _initialised_for(state: ast.expr, scope: Scope, model: SemanticModel) -> int | None:
    """Leaves of the tree an optimizer state was built for: `state = opt.init(tree)`, its one binding
    by a call of `init` (the update's own rebinding, `updates, state = opt.update(...)`, keeps it)."""
    from jaxlint.semantic.bindings import owning_scope
    from jaxlint.semantic.flow import target_elements

    if not isinstance(state, ast.Name):
        return None
    owner = owning_scope(model, state.id, scope)
    if owner is None:
        return None
    inits = []
    for target, value in owner.bindings:
        if not any(isinstance(e, ast.Name) and e.id == state.id for e in target_elements(target)):
            continue
        if isinstance(target, ast.Name) and isinstance(value, ast.Call) and len(value.args) == 1 and (
                (isinstance(value.func, ast.Attribute) and value.func.attr == "init")
                or _library_call_name(value, model) == _OPTIMIZER_INIT):
            inits.append(value)
        elif not (isinstance(value, ast.Call) and _library_call_name(value, model) == _OPTIMIZER_UPDATE):
            return None
    if len(inits) != 1:
        return None
    return known_leaves(inits[0].args[0], owner, model)


def _library_call_name(call: ast.Call, model: SemanticModel) -> str | None:
    from jaxlint.semantic import library_models

    entry = library_models.call_model(model, call)
    return None if entry is None else entry.name
