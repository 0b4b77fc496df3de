"""Per-leaf work over the whole state a loop carries: what an eager tree map over a model costs.

A tree map outside `jit` dispatches its function once per leaf: over a model's parameters (hundreds of
arrays) an EMA or Polyak average (`tree_map(lambda e, p: d * e + (1 - d) * p, ema, params)`), a
hand-written SGD step, `optax.incremental_update` or flax's `unreplicate` (an `x[0]` per leaf) is
hundreds of small dispatches, where the same work jitted is one program.

What decides it is the tree, not the call: a tree map over a few metrics or a config costs nothing.
The tree is taken to be a model's whole state when the loop carries it through a step: the loop
rebinds the name from a call that also takes it (`state = step(state, batch)`, `loss, state =
train_step(state, b)`, `params = optax.apply_updates(params, updates)`). Metrics a step returns are
not passed back into it, and a name the loop never rebinds is not carried. A tree the loop rebinds only by
tree work is carried where that work combines it with a tree the iteration computes from it (a hand-written
update: `grads = grad_fn(params, b)`, then `params = tree_map(lambda p, g: p - lr * g, params, grads)`), or where that work folds into it a gradient the
iteration takes (gradient accumulation: `loss, grads = grad_fn(params, b)`, then `acc = tree_map(lambda a, g:
a + g, acc, grads)`): a gradient has the leaves of what it differentiates, the model's parameters. Folding
the value or the auxiliary outputs of the same call (`(loss, logits), grads = ...`) is a fold of metrics.

Reached directly in the loop or through a plain function of the module that maps its own parameters
on every call (`target = polyak(params, target, tau)`), one level deep; a view of a parameter's arrays
(a name bound from a call whose library model returns that argument's own leaves, `result: alias:<i>`:
`arrays, static = eqx.partition(model, eqx.is_array)`) is the parameter.
"""

from __future__ import annotations

import ast
from weakref import WeakKeyDictionary

from jaxlint.semantic import jaxapi, library_models
from jaxlint.semantic.syntax import walk

# Tree maps the library tables do not hold (removed from jax, still in code) and the two library
# calls that are, by what they are for, per-leaf work over a whole model: the Polyak average of
# online and target parameters, and taking one replica of a replicated train state.
_TREE_MAPS_REMOVED = jaxapi.TREE_MAPS_REMOVED
_WHOLE_TREE_CALLS = {"optax.incremental_update": (0, 1), "flax.jax_utils.unreplicate": (0,)}


def tree_arguments(call: ast.Call, model) -> tuple[ast.expr, ...]:
    """The trees a per-leaf call walks: the trees of a tree map whose function combines two or more
    of them (an average, an update; a map of one tree is often a cast or a replica), or the tree
    arguments of a whole-tree library call. Empty for any other call."""
    qualified = model.qualified_name(call.func)
    if qualified in _WHOLE_TREE_CALLS:
        return tuple(call.args[i] for i in _WHOLE_TREE_CALLS[qualified] if i < len(call.args))
    if qualified not in _TREE_MAPS_REMOVED:
        entry = library_models.call_model(model, call)
        if entry is None or entry.returns != "tree_of_function":
            return ()
    if len(call.args) < 3 or call.keywords:
        return ()
    return tuple(call.args[1:])


def _carried_by(loop: ast.AST, name: str, model) -> bool:
    """The loop carries `name` through a step: it rebinds it from a call that takes it (`name =
    step(name, ...)`, `a, name = f(name)`), a step of the project or a compiled one, or a library update
    (`optax.apply_updates`, `runs_model`), and binds it nowhere else but by per-leaf tree work. A value
    a call makes fresh each iteration (`out, aux = step(state)` then `out = gather(out)`) is not carried,
    nor one only a library helper passes back (`m = replicate(m)`) or tree work accumulates (`totals =
    tree_map(add, totals, metrics)`: metrics)."""
    carried = False
    for node in walk(loop):
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) and node.target.id == name:
            return False
        if isinstance(node, (ast.For, ast.AsyncFor)) and name in _names(node.target):
            return False
        if not isinstance(node, ast.Assign) or not any(name in _names(target) for target in node.targets):
            continue
        call = node.value
        if not isinstance(call, ast.Call) or _tree_work_call(call, model):
            if not isinstance(call, ast.Call):
                return False
            if _steps_by_own_derivative(call, name, loop, model) or _folds_gradient(call, name, loop, model):
                carried = True  # (`params = tree_map(sgd, params, grads)`, `grads` computed from `params`;
                # `acc = tree_map(add, acc, grads)`: a gradient has the leaves of the model)
            continue
        passed = [*call.args, *(k.value for k in call.keywords)]
        if not any(isinstance(a, ast.Name) and a.id == name for a in passed):
            return False
        entry = library_models.call_model(model, call)
        if entry is not None and not entry.runs_model and model.qualified_name(call.func) not in _UPDATES:
            return False
        carried = True
    return carried


def _steps_by_own_derivative(call: ast.Call, name: str, loop: ast.AST, model) -> bool:
    """`call`, per-leaf tree work, combines `name` with a tree the loop computes from it by a call
    (`grads = grad_fn(params, batch)` then `params = tree_map(lambda p, g: p - lr * g, params, grads)`):
    a hand-written update step, the tree is the state it carries (the gradient has the same leaves)."""
    trees = [tree.id for tree in mapped_trees(call, model) if isinstance(tree, ast.Name)]
    return name in trees and any(_derived_from(other, name, loop, model, 0) for other in set(trees) - {name})


def _folds_gradient(call: ast.Call, name: str, loop: ast.AST, model) -> bool:
    """`call`, per-leaf tree work, folds into `name` a gradient the iteration takes (`loss, grads =
    grad_fn(params, batch)` with `grad_fn = jax.jit(jax.value_and_grad(loss))`, then `acc = tree_map(lambda
    a, g: a + g, acc, grads)`): a gradient has the leaves of what it differentiates, the model's
    parameters, so the accumulator is a model-sized tree, not a fold of a few metrics."""
    trees = [tree.id for tree in mapped_trees(call, model) if isinstance(tree, ast.Name)]
    return name in trees and any(_gradient_of_iteration(other, loop, model) for other in set(trees) - {name})


def _gradient_of_iteration(name: str, loop: ast.AST, model) -> bool:
    """The loop binds `name` to the gradient a differentiating transform returns, compiled or not: the
    whole result of `grad`-like transforms (`g = jax.grad(f)(p, b)`), the second of the pair
    `value_and_grad` returns (`loss, g = ...`, `(loss, aux), g = ...` with `has_aux`)."""
    from jaxlint.semantic.callable_chains import callable_chain
    from jaxlint.semantic.jaxapi import FILTERED_GRAD, GRAD_LIKE

    for node in walk(loop):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
            continue
        target = node.targets[0]
        if name not in _names(target):
            continue
        chain = callable_chain(node.value.func, model.scope_for(node.value), model)
        link = chain.first(GRAD_LIKE | FILTERED_GRAD) if chain is not None else None
        if link is None or link[0].endswith(("jacfwd", "jacrev", "hessian")):
            continue
        if "value_and_grad" in link[0]:
            gradient = target.elts[1] if isinstance(target, ast.Tuple) and len(target.elts) == 2 else None
        else:
            gradient = target
        if isinstance(gradient, ast.Name) and gradient.id == name:
            return True
    return False


def _derived_from(other: str, name: str, loop: ast.AST, model, depth: int) -> bool:
    """The loop binds `other` from a call that takes `name` (`grads = grad_fn(params, batch)`), or by
    per-leaf tree work over such a tree (`velocity = tree_map(f, velocity, grads)`), two levels at most."""
    if depth > 2:
        return False
    for node in walk(loop):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and other in {n for t in node.targets for n in _names(t)}):
            continue
        value = node.value
        if _tree_work_call(value, model):
            if any(isinstance(tree, ast.Name) and tree.id not in (other, name) and _derived_from(tree.id, name, loop, model, depth + 1)
                   for tree in mapped_trees(value, model)):
                return True
            continue
        passed = [*value.args, *(k.value for k in value.keywords)]
        if any(isinstance(a, ast.Name) and a.id == name for a in passed):
            return True
    return False


def _names(target: ast.AST) -> set[str]:
    return {n.id for n in walk(target) if isinstance(n, ast.Name)}


_UPDATES = frozenset({"optax.apply_updates"})


_mapped_parameters_cache: "WeakKeyDictionary" = WeakKeyDictionary()


def _mapped_parameters(helper, model) -> frozenset[int]:
    """Positions of the parameters a plain function of the module maps leaf by leaf on every call."""
    cache = _mapped_parameters_cache.setdefault(model, {})
    key = id(helper.node)
    if key in cache:
        return cache[key]
    cache[key] = frozenset()
    node = helper.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list or helper.traced or helper.transforms:
        return cache[key]
    from jaxlint.semantic.effects import unconditional_calls

    names = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    views = _parameter_views(helper, names, model)
    found = set()
    for inner in unconditional_calls(node):
        if model.scope_for(inner) is not helper:
            continue
        for tree in tree_arguments(inner, model):
            if isinstance(tree, ast.Name) and tree.id in names:
                found.add(names.index(tree.id))
            elif isinstance(tree, ast.Name) and tree.id in views:
                found.add(names.index(views[tree.id]))
    cache[key] = frozenset(found)
    return cache[key]


def _parameter_views(helper, names: list[str], model) -> dict[str, str]:
    """Local names that hold the leaves of a parameter: bound from a call the library models say returns
    that argument's own arrays (`result: alias:<i>`), directly or as an element of the tuple it returns
    (`params, static = eqx.partition(model, eqx.is_array)`: `params` is the model's arrays). A map over
    such a name is a map over the parameter's leaves."""
    views: dict[str, str] = {}
    for target, value in helper.bindings:
        if not isinstance(value, ast.Call):
            continue
        entry = library_models.call_model(model, value)
        result = entry.result if entry is not None else None
        if result is None or not result.startswith("alias:") or not result[len("alias:"):].isdigit():
            continue
        position = int(result[len("alias:"):])
        source = value.args[position] if position < len(value.args) else None
        if isinstance(source, ast.Name) and source.id in names:
            for name in _names(target):
                if name not in names:
                    views.setdefault(name, source.id)
    return views


def mapped_trees(call: ast.Call, model) -> tuple[ast.expr, ...]:
    """The trees `call` maps leaf by leaf: its own tree arguments, or those a plain function of the
    module it calls maps on every call."""
    trees = tree_arguments(call, model)
    if trees:
        return trees
    from jaxlint.semantic.host_code import callee_scope

    if model.jit_binding_for_call(call) is not None:
        return ()
    helper = callee_scope(call, model)
    if helper is None or not isinstance(helper.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ()
    positions = _mapped_parameters(helper, model)
    first = helper.node.args.args[:1]
    offset = 1 if isinstance(call.func, ast.Attribute) and first and first[0].arg == "self" else 0
    return tuple(call.args[p - offset] for p in positions if 0 <= p - offset < len(call.args))


def _tree_work_call(call: ast.Call, model) -> bool:
    return bool(mapped_trees(call, model))


def maps_carried_tree(call: ast.Call, loop: ast.AST, model) -> bool:
    """`call`, run in `loop` outside `jit`, maps leaf by leaf over a tree the loop carries as its state
    (directly, or through a plain function of the module that maps that parameter)."""
    return any(isinstance(tree, ast.Name) and _carried_by(loop, tree.id, model) for tree in mapped_trees(call, model))
