"""What a Python training loop (outside traced code) does with device values, for the loop rules.

The semantic model knows device values by the names a scope binds to them. A training loop needs
three more facts, each answered here without touching the model's own analyses:

* helpers: `m = f(key)` where `f` is a local function whose returns are device values and whose
  body runs compiled code (`jax.pmap(g)(keys)`), or only builds device values (`jnp.array(...)`);
* accumulators: `total = 0.0` before the loop and `total += loss` inside it hold a device value
  from the first iteration on;
* objects that an `nnx.jit` call mutates in place: after `train_step(model, metrics, batch)`,
  `metrics.compute()` and `model.w.value` are device values.

`LoopValues(loop, scope, model)` answers "is this expression a device value here?" and "was it
produced by this iteration?" for one loop; `loop_varying(test, loop)` tells a logging interval
(`step % 100 == 0`) from a condition that holds for the whole loop (`args.track`, `verbose`).
"""

from __future__ import annotations

import ast
import re
from typing import Iterator
from weakref import WeakKeyDictionary

from jaxlint.semantic import call_summaries, callable_chains, foreign_work, heavy_steps, held_networks, jaxapi, library_models
from jaxlint.semantic.compiled_wrappers import calls_wrapped_compiled
from jaxlint.semantic.containers import container_of_device_values
from jaxlint.semantic.flow import FEW_ITERATIONS, rebinds_handed, single_binding
from jaxlint.semantic.host_code import callee_scope, plain_decorators
from jaxlint.semantic.host_draws import common_side
from jaxlint.semantic.iteration import COMPREHENSIONS
from jaxlint.semantic.foreign_work import ForeignWork, may_be_project_call
from jaxlint.semantic.model import FUNCTION_NODES, Scope, SemanticModel, parent_of, is_within
from jaxlint.semantic.reaching import enclosing_statement, statement_list
from jaxlint.semantic.warm_up import class_counters, steady_side
from jaxlint.semantic.syntax import TIMED_CELL_MAGIC, TIMEIT_MAGIC, bound_names, chain_root, child_nodes, parameter_defaults, passed_to_parameter, root_name, walk  # child_nodes: iter_child_nodes minus ctx markers, faster

# Calls whose result does not change while a loop runs: `if jax.process_index() == 0:`.
INVARIANT_CALLS = frozenset({
    "jax.process_index", "jax.process_count", "jax.host_id", "jax.host_count", "jax.device_count",
    "jax.local_device_count", "builtins.isinstance", "builtins.hasattr", "builtins.callable", "builtins.len",
})
_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_LOOP_TYPES = frozenset(_LOOPS)
_DEFINITION_TYPES = frozenset({ast.ClassDef, *FUNCTION_NODES})
_COMPREHENSION_TYPES = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
_HELPER_DEPTH = 3

_returns_cache: "WeakKeyDictionary[SemanticModel, dict[int, tuple[bool, bool]]]" = WeakKeyDictionary()


def yields_every_iteration(loop: ast.AST) -> bool:
    """A loop that hands its consumer one item per iteration: a `yield` statement of its own body, not
    under a condition (the function is a generator, a batch loader). Each iteration then runs when the
    consumer asks for the next item, between two of the consumer's steps: a read there waits for what
    the consumer queued before asking, whatever the loop itself dispatches."""
    return isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and any(
        isinstance(statement, ast.Expr) and isinstance(statement.value, (ast.Yield, ast.YieldFrom)) for statement in loop.body
    )


def loop_body(loop: ast.AST, *, nested: bool = False) -> Iterator[ast.AST]:
    """Nodes in the loop's body and else, not inside functions or classes (nor nested loops unless `nested`).
    A comprehension is a loop too (semantic/iteration.py): its body is its element and its `if` clauses,
    with the iterables of its later `for` clauses."""
    if loop.__class__ in _COMPREHENSION_TYPES:
        elements = [loop.key, loop.value] if loop.__class__ is ast.DictComp else [loop.elt]
        stack = [*elements, *(test for generator in loop.generators for test in generator.ifs), *(g.iter for g in loop.generators[1:])]
    else:
        stack = [*loop.body, *loop.orelse]
    while stack:
        node = stack.pop()
        yield node
        kind = node.__class__  # (ast node classes have no subclasses: set lookups per node, no tuple built)
        if kind in _DEFINITION_TYPES:
            continue
        if kind in _LOOP_TYPES and not nested:
            if kind is not ast.While:
                stack.append(node.iter)
            continue
        stack.extend(child_nodes(node))


def dotted(node: ast.AST) -> str | None:
    """`self.step` -> "self.step", `cfg["log"]` -> None, `x` -> "x"."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
    return None


def assigned_in_loop(loop: ast.AST) -> set[str]:
    """Names and dotted attributes the loop (and loops nested in it) rebinds, its own target included."""
    names: set[str] = set()
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        names.update(bound_names(loop.target))
    for node in loop_body(loop, nested=True):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            targets = [node.target]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            targets = [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets = [node.optional_vars]
        for target in targets:
            for element in walk(target):
                name = dotted(element) if isinstance(element, (ast.Name, ast.Attribute)) else None
                if name is not None:
                    names.add(name)
    return names


def loop_varying(test: ast.expr, loop: ast.AST, model: SemanticModel, assigned: set[str] | None = None,
                 touched: set[str] | None = None) -> bool:
    """Whether a host condition can change from one iteration to the next: it reads something the loop
    rebinds (`step % N == 0`, `state.step % N`), an object the loop hands to calls or calls methods on,
    or calls anything but a known constant (`jax.process_index()`). Config flags are not loop-varying."""
    if holds_every_iteration(test, model, loop):
        return False  # `if epoch % 1 == 0:` holds on every iteration: no interval
    assigned = assigned_in_loop(loop) if assigned is None else assigned
    touched = (_touched_objects(loop) if touched is None else touched) - set(model.imports.aliases)
    kept: set[int] = set()  # `self` inside a `self.flag` the object keeps for its life
    for node in walk(test):
        if id(node) in kept:
            continue
        if isinstance(node, ast.Call):
            if model.qualified_name(node.func) not in INVARIANT_CALLS:
                return True
        elif isinstance(node, (ast.Name, ast.Attribute)):
            name = dotted(node)
            if name is None:
                continue
            root = name.split(".")[0]
            if root in model.imports.aliases and root not in assigned:
                continue  # a module: `jax.process_index`
            if name not in assigned and isinstance(node, ast.Attribute) and set_at_construction(node, model):
                kept.add(id(node.value))
                continue  # `self.log_to_wandb`, set in `__init__` alone: the object keeps it for its life
            if name in assigned or root in assigned:
                return True
            if "." in name and root in touched:
                return True
            if any(prefix in assigned for prefix in _prefixes(name)):
                return True
    return False


_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "setup"})


def set_at_construction(node: ast.Attribute, model: SemanticModel) -> bool:
    """`self.flag` in a method, where the class stores `self.flag` only while it is built (`__init__`,
    `__post_init__`, flax's `setup`, or a class-level field) and never mutates it in place
    (`self.flag[k] = v`, `self.flag.append(v)`, `self.flag += 1`, `setattr`): a value the object keeps
    for its whole life, whatever methods a loop calls on it. Setting it from outside the class
    (`trainer.flag = False`) is not followed."""
    if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
        return False
    holder = model.scope_for(node).enclosing_method()
    if holder is None:
        return False
    cache = model.__dict__.setdefault("_jaxlint_construction_attributes", {})
    key = id(holder.class_node)
    if key not in cache:
        cache[key] = _construction_attributes(holder.class_node)
    return node.attr in cache[key]


def _construction_attributes(class_node: ast.ClassDef) -> frozenset[str]:
    """The attributes of `self` the class stores only while the object is built (see above)."""
    built: set[str] = set()
    changed: set[str] = set()
    for statement in class_node.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] if isinstance(statement, ast.AnnAssign) else []
        built.update(t.id for t in targets if isinstance(t, ast.Name))
    for method in class_node.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        constructing = method.name in _CONSTRUCTORS
        for node in walk(method):
            if isinstance(node, ast.Call):
                function = node.func
                if isinstance(function, ast.Name) and function.id in ("setattr", "delattr", "vars"):
                    return frozenset()
                if isinstance(function, ast.Attribute) and _self_attribute(function.value) is not None:
                    changed.add(function.value.attr)  # `self.history.append(v)`: mutated in place
                continue
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension)):
                targets = [node.target]
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                targets = [node.optional_vars]
            elif isinstance(node, ast.Delete):
                targets = list(node.targets)
            for target in targets:
                for element in walk(target):
                    attribute = _self_attribute(element)
                    if attribute is None:
                        continue
                    plain = element is target and isinstance(node, (ast.Assign, ast.AnnAssign))
                    if constructing and plain:
                        built.add(attribute)
                    else:
                        changed.add(attribute)
    return frozenset(built - changed)


def _self_attribute(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def holds_every_iteration(test: ast.expr, model: SemanticModel, loop: ast.AST) -> bool:
    """`n % 1 == 0` (an interval of one, often a hyperparameter left at its default in the source:
    `step % args.log_every == 0` with `default=1`, a module constant, a parameter's default), and
    `i < limit` where `i` counts this loop's iterations and never reaches the limit the source fixes
    (`for i in range(1000): if i < MAX_LINES:` with `MAX_LINES = 100_000`)."""
    if _counter_below_limit(test, model, loop):
        return True
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.left, ast.BinOp) and isinstance(test.left.op, ast.Mod)
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0
    ):
        return False
    interval = test.left.right
    if isinstance(interval, ast.Constant):
        return interval.value == 1
    return _int_in_scope(interval, model.scope_for(loop), model) == 1


def _counter_below_limit(test: ast.expr, model: SemanticModel, loop: ast.AST) -> bool:
    """`i < limit` (or `i <= limit`) where every value the loop's counter `i` takes is below the limit:
    `for i in range(n)` (also under a progress bar) or `for i, x in enumerate(xs)`, the count and the
    limit fixed by the source (the limit as small as it gets, the count as large)."""
    if not (
        isinstance(loop, ast.For) and isinstance(test, ast.Compare) and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.Lt, ast.LtE)) and isinstance(test.left, ast.Name)
    ):
        return False
    largest = _counter_largest(test.left.id, loop, model)
    if largest is None:
        return False
    limit = _bound_over_bindings(test.comparators[0], model.scope_for(loop), model, min)
    if limit is None:
        return False
    return largest < limit if isinstance(test.ops[0], ast.Lt) else largest <= limit


def _bound_over_bindings(node: ast.expr, scope: Scope, model: SemanticModel, pick) -> int | None:
    """The constant `node` evaluates to, or, for a name bound to several constants (`n_iter = 1000` in one
    notebook cell, `n_iter = 20_000` in another), the `pick` (min or max) of them."""
    evaluator = model.constant_evaluator()
    found = evaluator.int_value(node, scope)
    if found is not None or not isinstance(node, ast.Name):
        return found
    from jaxlint.semantic.bindings import bound_values

    bound = bound_values(model, node.id, scope)
    if bound is None or not bound[1] or node.id in bound[0].param_nodes:
        return None
    owner, values = bound
    numbers = [None if isinstance(value, ast.AugAssign) else evaluator.int_value(value, owner) for value in values]
    return None if any(number is None for number in numbers) else pick(numbers)


def _counter_largest(name: str, loop: ast.For, model: SemanticModel) -> int | None:
    """The largest value the loop's counter `name` takes, where the source fixes it."""
    iterable, target = loop.iter, loop.target
    scope = model.scope_for(loop)
    while isinstance(iterable, ast.Call) and iterable.args and model.qualified_name(iterable.func) in PROGRESS_BARS:
        iterable = iterable.args[0]
    if isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) == "builtins.enumerate":
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name):
            return None
        if len(iterable.args) != 1 or iterable.keywords:
            return None
        count = iteration_count(iterable.args[0], scope, model)
        return None if count is None else count - 1
    if not (isinstance(target, ast.Name) and target.id == name and isinstance(iterable, ast.Call) and not iterable.keywords):
        return None
    qualified = model.qualified_name(iterable.func)
    if qualified != "builtins.range" and qualified not in _PROGRESS_RANGES:
        return None
    if not 1 <= len(iterable.args) <= 2:
        return None  # (a step may count down or skip: not followed)
    stop = _int_in_scope(iterable.args[-1], scope, model)
    if stop is None:
        stop = _bound_over_bindings(iterable.args[-1], scope, model, max)
    return None if stop is None else stop - 1


def _prefixes(name: str) -> Iterator[str]:
    parts = name.split(".")
    for end in range(1, len(parts)):
        yield ".".join(parts[:end])


def touched_objects(loop: ast.AST) -> set[str]:
    """`_touched_objects`, for a caller asking `loop_varying` of many tests of one loop (worked out once)."""
    return _touched_objects(loop)


def _touched_objects(loop: ast.AST) -> set[str]:
    """Names the loop passes to calls or calls methods on: their attributes may change under us."""
    touched: set[str] = set()
    for node in loop_body(loop, nested=True):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            touched.add(node.func.value.id)
        for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
            if isinstance(argument, ast.Starred):
                argument = argument.value
            if isinstance(argument, ast.Name):
                touched.add(argument.id)
    return touched


# ----- helpers ----------------------------------------------------------------------------------


_tree_mapper_cache: WeakKeyDictionary = WeakKeyDictionary()


def maps_its_tree_on_device(call: ast.Call, model: SemanticModel) -> bool:
    """`f(tree)` where `f` is a function of the module (a `def`, or a lambda bound once to a name) of
    one parameter whose every `return` maps that tree leaf by leaf on the device: `jax.tree.map(lambda
    x: x[0], tree)` (the first replica), or an index of it (`tree[0]`). What comes out is device
    values exactly when what goes in is (the caller decides); an untraced helper, judged once."""
    function = call.func
    if not isinstance(function, ast.Name):
        return False
    scope = model.scope_for(call)
    resolved = model.resolve_function(function, scope)
    target = resolved[0] if resolved is not None and not resolved[1] and not resolved[2] else None
    if target is None and resolved is None:
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, function.id, scope)
        if found is not None and len(found[1]) == 1 and isinstance(found[1][0], ast.Lambda):
            target = model.scope_of_node.get(found[1][0])
    if target is None or target.traced or target.transforms:
        return False
    cache = _tree_mapper_cache.setdefault(model, {})
    key = id(target.node)
    if key not in cache:
        cache[key] = _maps_tree(target, model)
    return cache[key]


def _maps_tree(target: Scope, model: SemanticModel) -> bool:
    node = target.node
    arguments = node.args
    if len(arguments.posonlyargs) + len(arguments.args) != 1 or arguments.vararg or arguments.kwonlyargs or arguments.kwarg:
        return False
    parameter = (arguments.posonlyargs or arguments.args)[0].arg
    if isinstance(node, ast.Lambda):
        returns = [node.body]
    else:
        returns = [n.value for n in walk(node) if isinstance(n, ast.Return)]
        if not returns or any(value is None for value in returns) or len(node.body) != 1:
            return False  # a body of more than the `return` may rebind or convert the tree

    def is_parameter(tree: ast.AST) -> bool:
        return isinstance(tree, ast.Name) and tree.id == parameter

    for value in returns:
        if isinstance(value, ast.Subscript) and is_parameter(value.value):
            continue
        if not isinstance(value, ast.Call):
            return False
        entry = library_models.call_model(model, value, target)
        if entry is None or entry.returns != "tree_of_function" or len(value.args) != 2 or not is_parameter(value.args[1]):
            return False
        if library_models.mapped_tree_kind(model, value, is_parameter) != "device":
            return False
    return True


def _helper_scope(call: ast.Call, model: SemanticModel) -> Scope | None:
    if model.jit_binding_for_call(call) is not None:
        return None
    resolved = model.resolve_function(call.func, model.scope_for(call))
    if resolved is None:
        # A method of an instance of one of the module's classes (`learner.step(b)`, `self.learner.step(b)`).
        scope = callee_scope(call, model) if isinstance(call.func, ast.Attribute) else None
    elif resolved[0] is None or resolved[1]:
        return None
    else:
        scope = resolved[0]
    if scope is None or not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope.traced or scope.transforms:
        return None
    return scope


def helper_facts(scope: Scope, model: SemanticModel, depth: int = 0) -> tuple[bool, bool]:
    """(every `return` of this untraced helper is a device value, its body runs compiled code)."""
    cache = _returns_cache.setdefault(model, {})
    key = id(scope.node)
    if key in cache:
        return cache[key]
    cache[key] = (False, False)  # recursion guard
    runs_compiled = any(_runs_compiled(call, model, depth) for call in scope.calls)
    returns = scope.returns
    returns_device = bool(returns) and all(_returned_device(value, scope, model, depth) for value in returns)
    cache[key] = (returns_device, runs_compiled)
    return cache[key]


def _runs_compiled(call: ast.Call, model: SemanticModel, depth: int) -> bool:
    if model.jit_binding_for_call(call) is not None:
        return True
    if model.qualified_name(call.func) in _LAX_LOOPS:
        return True  # an eager `lax.scan`/`fori_loop`/`while_loop` compiles its body and runs it as one program
    if calls_wrapped_compiled(call, model):
        return True  # `vmap`/`partial` of a jitted callable, also handed in as a parameter: one compiled program a call
    if depth >= _HELPER_DEPTH:
        return False
    helper = _helper_scope(call, model)
    return helper is not None and helper_facts(helper, model, depth + 1)[1]


def _returned_device(value: ast.expr, scope: Scope, model: SemanticModel, depth: int) -> bool:
    if isinstance(value, ast.Tuple):
        return bool(value.elts) and all(_returned_device(element, scope, model, depth) for element in value.elts)
    if model.device_kind(value, scope) == "device":
        return True
    if isinstance(value, ast.Call) and depth < _HELPER_DEPTH:
        helper = _helper_scope(value, model)
        return helper is not None and helper_facts(helper, model, depth + 1)[0]
    return False


def call_runs_compiled(call: ast.Call, model: SemanticModel) -> bool:
    """The plain function the call runs (semantic/call_summaries.py) runs compiled code, in its body or
    through a function it calls."""
    found = call_summaries.callee(call, model)
    if found is None:
        return False
    answer = helper_facts(found.scope, found.model)[1]  # (a side cut off calls nothing the whole body does not)
    specialised = found.specialised() if answer and found.fixed else None
    if specialised is not None:
        answer = helper_facts(*specialised)[1]
    elif answer and found.fixed:
        answer = False
    call_summaries.record_reads([found.model, specialised[1] if specialised else None], model)
    return answer


def _foreign_method_returns_device(call: ast.Call, model: SemanticModel) -> bool:
    """Every `return` of the plain method of another module's class that `obj.method(...)` runs gives a
    device value, read in that module's own model: `loss = learner.update(batch)` whose body runs
    `self.params, self.opt_state, loss = step(...)` and returns `loss` (the project summary's light
    reading of returns does not see a value unpacked from a compiled call)."""
    found = call_summaries.callee(call, model)
    if found is None or found.member is None:
        return False
    call_summaries.record_reads([found.model], model)
    return found.model.returns_device(found.scope)


def call_returns_device_at(call: ast.Call, model: SemanticModel, position: int | None, width: int) -> bool:
    """Every `return` of the plain function the call runs (semantic/call_summaries.py) gives a device
    value at `position` of a tuple of `width` (the whole value where `position` is None)."""
    found = call_summaries.callee(call, model)
    if found is None:
        return False
    answer = _returns_device_at(found.scope, found.model, position, width)
    specialised = found.specialised() if not answer and found.fixed else None
    if specialised is not None:
        answer = _returns_device_at(*specialised, position, width)
    call_summaries.record_reads([found.model, specialised[1] if specialised else None], model)
    return answer


def _returns_device_at(scope: Scope, home: SemanticModel, position: int | None, width: int) -> bool:
    """At `position` of a tuple of `width`, the kind the value model gives the function's returns
    (values.returned_device_positions, the one reading of returns by position); the whole return
    where `position` is None."""
    if position is None:
        return bool(scope.returns) and all(_returned_device(value, scope, home, 0) for value in scope.returns)
    positions = home.returned_device_positions(scope, width)
    return positions is not None and positions[position]


def call_eager_work(call: ast.Call, model: SemanticModel):
    """The whole computation the plain function a call runs (semantic/call_summaries.py: in any module,
    through `functools.partial`, read with what the call fixes) runs eagerly on every call (`eager_work_in`):
    a node of the caller's tree (or of a copy of its module, same lines), or a ForeignWork; else None."""
    found = call_summaries.callee(call, model)
    if found is None:
        return None
    work = eager_work_in(found.scope, found.model)
    where = found.model
    if work is None and (found.fixed or found.kinds) and call_summaries.mentions_work(found):
        specialised = found.specialised()
        if specialised is not None:
            work = eager_work_in(*specialised)
            where = specialised[1]
    call_summaries.record_reads([found.model, where], model)
    if work is None:
        return None
    if isinstance(work, ForeignWork):
        return ForeignWork(work.text, work.line, work.path, found.label)
    if found.path is None:
        return work  # (of this module, or of a copy of it: the same lines)
    text = ast.unparse(work.func) if isinstance(work, ast.Call) else ast.unparse(work)
    return ForeignWork(text if len(text) <= 60 else text[:57] + "...", work.lineno, found.path or "", found.label)


def transformed_call(call: ast.Call, model: SemanticModel) -> bool:
    """A function transformed and called at once (`jax.value_and_grad(f)(p, b)`, `jax.vmap(f)(xs)`): its
    result is an array the transform computed, eagerly or compiled."""
    return isinstance(call.func, ast.Call) and model.qualified_name(call.func.func) in jaxapi.ARRAY_RESULT_TRANSFORMS


def eager_model_call(call: ast.Call, model: SemanticModel, depth: int = 0, *, other_modules: bool = True):
    """The call inside `call` (or `call` itself) that runs a whole network or optimizer update op by op
    when `call` runs outside `jit`: a library call whose model says `runs_model` (`module.apply(...)`,
    `state.apply_gradients(...)`), a function differentiated and called at once (`jax.grad(f)(p)`), or
    either of these in the body of an undecorated function of the project that does not loop itself
    (one that does is a whole run of steps), through any number of such functions: called by name,
    on `self` (`self.update(batch)`) or on an instance of a class of the module (`agent.update(batch)`),
    or of another module of the project (then a foreign_work.ForeignWork, not a node of this tree;
    not asked when `other_modules` is false). None for compiled calls."""
    if model.jit_binding_for_call(call) is not None:
        return None
    if isinstance(call.func, ast.Call) and model.qualified_name(call.func.func) in jaxapi.DIFFERENTIATING:
        return call
    if isinstance(call.func, (ast.Call, ast.Name)):
        # The transforms around the function called, inline or through names and `partial`
        # (`jax.vmap(partial(jax.grad(loss), p))(xs)`, `batched = jax.vmap(forward)` then `batched(p, x)`).
        chain = callable_chains.callable_chain(call.func, model.scope_for(call), model)
        if chain is not None and chain.transforms and not chain.compiled and (chain.differentiated is not None or chain.only_batching):
            return chain_eager_work(chain, call, model)
        if chain is None and isinstance(call.func, ast.Call) and call.func.args \
                and model.qualified_name(call.func.func) in jaxapi.VMAP_LIKE \
                and library_models.instance_runs_model(model, call.func.args[0], model.scope_for(call)):
            return call  # (a name bound to the instance ends the chain: `net = Net(...)` is no transform)
    entry = library_models.call_model(model, call)
    if entry is not None:
        return call if entry.runs_model else None
    # The function called, undecorated: this call runs its body eagerly even where other code jits it
    # (`step = jax.jit(plain_step)` beside a plain `plain_step(state, batch)`) or traces it.
    helper = callee_scope(call, model)
    if helper is None:
        scope = model.scope_for(call)
        if held_networks.layer_call(call, model, scope):
            return call  # `x = block(x)` in `for block in self.blocks:`: one of the network's layers, a module's forward pass
        helper = held_networks.instance_call(call, model, scope)  # `self(x)`, `net(x)` of a plain wrapper: its `__call__`
    if helper is not None and differentiated_by_decorator(helper, model):
        return call  # `@jax.value_and_grad def loss_and_grad(...)` called: a forward and backward pass, op by op
    if helper is None:
        # (through `functools.partial`, or with branches and kinds the call fixes: semantic/call_summaries.py)
        target = call_summaries.callee(call, model)
        if target is not None and (other_modules or target.path is None):
            return call_eager_work(call, model)
        if not other_modules:
            return None
        from jaxlint.semantic.foreign_work import imported_eager_work

        # (a function or method of another project module, asked of a model of that module)
        return imported_eager_work(call, model, eager_work_in, chain_eager_work)
    found = eager_work_in(helper, model)
    if found is None and helper.parent is model.module_scope:
        # (read again with the branches the call's literal arguments decide: `step(s, b, train=True)`)
        found = call_eager_work(call, model)
    return found


def chain_eager_work(chain: callable_chains.Chain, call: ast.Call, model: SemanticModel) -> ast.Call | None:
    """The whole computation a call (`call`, or the binding it is read through) of the callable
    `chain` runs outside `jit`: the call itself where the chain takes a gradient op by op (batched or
    not) or batches a network instance, the work of the function it batches, else None (compiled)."""
    if not chain.transforms or chain.compiled:
        return None
    if chain.differentiated is not None:
        return call  # a gradient taken op by op, batched or not
    if chain.only_batching:
        found = _batched_eager_work(chain.function, chain.scope, model)
        if found is None and library_models.instance_runs_model(model, chain.function, chain.scope):
            return call  # `jax.vmap(net)(xs)` of a network instance: its whole forward pass, batched, op by op
        return found
    return None


def _batched_eager_work(function: ast.expr, scope: Scope, model: SemanticModel) -> ast.Call | None:
    """`jax.vmap(f)(xs)` run outside `jit`: vmap traces `f` with batching tracers and dispatches each of
    its operations on its own, so the whole computation `f` runs on every call (a plain function of the
    module, or a lambda whose body is such a call: `jax.vmap(lambda x: net.apply(params, x))(obs)`) runs
    there, batched, op by op. A decorated function (perhaps compiled) has none."""
    if isinstance(function, ast.Lambda):
        body = function.body
        return eager_model_call(body, model) if isinstance(body, ast.Call) else None
    resolved = model.resolve_function(function, scope)
    if resolved is None or resolved[0] is None:
        return None
    return eager_work_in(resolved[0], model)


def differentiated_by_decorator(helper: Scope, model: SemanticModel) -> bool:
    """A function of the module whose decorators differentiate it and none compiles it
    (`@jax.value_and_grad`, `@partial(jax.grad, has_aux=True)`, `@eqx.filter_value_and_grad`): each call
    outside jit runs its forward and backward pass op by op, as `jax.value_and_grad(f)(p, b)` does."""
    decorators = getattr(helper.node, "decorator_list", ())
    uses = [model.decorator_transform(decorator) for decorator in decorators]
    return (
        any(use is not None and use.qualified in jaxapi.DIFFERENTIATING for use in uses)
        and not any(use is None or use.qualified in jaxapi.COMPILING for use in uses)
    )


_EAGER_DEPTH = 6
_eager_work_cache: "WeakKeyDictionary[SemanticModel, dict[int, ast.Call | None]]" = WeakKeyDictionary()


def rebound_to_compiled(method: Scope, model: SemanticModel) -> bool:
    """A method its class rebinds on the instance to a compiled version of itself
    (`self.step = jax.jit(self.step)` in `__init__`, also `jax.pmap` or `partial(jax.jit, ...)`):
    calls through the instance (`agent.step(...)`) run the compiled function, not its body op by op."""
    class_node = method.class_node
    if class_node is None or not isinstance(method.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    name = method.node.name
    for item in class_node.body:
        if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(item):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
                continue
            target, value = node.targets[0], node.value
            if not (isinstance(target, ast.Attribute) and target.attr == name and isinstance(target.value, ast.Name) and target.value.id == "self"):
                continue
            transform = model.transform_of(value.func)
            if transform is None and isinstance(value.func, ast.Call) and model.qualified_name(value.func.func) == "functools.partial" and value.func.args:
                transform = model.transform_of(value.func.args[0])  # `partial(jax.jit, static_argnums=...)(self.step)`
            wrapped = value.args[0] if value.args else None
            if (
                transform in jaxapi.COMPILING
                and isinstance(wrapped, ast.Attribute) and wrapped.attr == name
                and isinstance(wrapped.value, ast.Name) and wrapped.value.id == "self"
            ):
                return True
    return False


def eager_work_in(helper: Scope, model: SemanticModel) -> ast.Call | None:
    """The whole computation (see `eager_model_call`) a plain function of the module runs op by op on
    every call, or None: the function summary "does eager device work when called outside jit".
    A function decorated (jitted, or by anything that may compile it), or that loops, has none."""
    cache = _eager_work_cache.setdefault(model, {})
    key = id(helper.node)
    if key in cache:
        return cache[key]
    cache[key] = None  # (recursion: none while being worked out)
    depth = model.__dict__.get("_eager_work_depth", 0)
    if depth >= _EAGER_DEPTH:
        del cache[key]
        return None
    if isinstance(helper.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and differentiated_by_decorator(helper, model):
        # (asked of a function of another module: the transform itself is the work, named by its decorator)
        decorator = next(d for d in helper.node.decorator_list if model.decorator_transform(d).qualified in jaxapi.DIFFERENTIATING)
        found = ast.copy_location(ast.Call(func=decorator.func if isinstance(decorator, ast.Call) else decorator, args=[], keywords=[]), decorator)
        cache[key] = found
        return found
    if not isinstance(helper.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or helper.node.decorator_list:
        return None
    if rebound_to_compiled(helper, model):
        return None  # `self.step = jax.jit(self.step)` in `__init__`: the instance's calls run compiled
    if _runs_steps(helper, model):
        return None  # a whole run of steps (a sweep's trial): its own loop is where a per-step cost is
    from jaxlint.semantic.effects import unconditional_calls

    model.__dict__["_eager_work_depth"] = depth + 1
    try:
        found = None
        # (work under an `if` is not done on every call; but once a warm-up is over, its steady side is:
        # `if len(self.buffer) > batch_size:` around an agent's update, semantic/warm_up)
        # and the side of a draw test that chance takes on most calls, `else:` of `if rand < self.epsilon:`,
        # semantic/host_draws)
        counters = class_counters(helper.class_node)

        def steady(test):
            side = steady_side(test, helper.node, counters, helper.class_node or helper.node)
            return side if side is not None else common_side(test, model)

        for inner in unconditional_calls(helper.node, steady):
            if model.scope_for(inner).node is not helper.node:
                continue  # in a lambda: runs when the lambda is called, if ever
            found = eager_model_call(inner, model)
            if found is not None:
                break
    finally:
        model.__dict__["_eager_work_depth"] = depth
    cache[key] = found
    return found


_eager_ops_cache: "WeakKeyDictionary[SemanticModel, dict[int, tuple[int, ast.Call | None]]]" = WeakKeyDictionary()


def eager_operations_in(helper: Scope, model: SemanticModel) -> tuple[int, ast.Call | None]:
    """(how many array operations one call of a plain function of the module dispatches on every call
    when called outside `jit`, the first of them): its own `jnp`/`lax`/`jax.nn`/`jax.random` calls,
    and those of the module's plain functions it calls, each counted once (a loop over the layers of a
    hand-written network counts its body once). None counted, (0, None), for a decorated function, one
    that runs compiled code (its eager work is preparation beside it), one with a `while` loop or a
    loop that calls functions of the project (a run of steps)."""
    cache = _eager_ops_cache.setdefault(model, {})
    key = id(helper.node)
    if key in cache:
        return cache[key]
    cache[key] = (0, None)  # (recursion: none while being worked out)
    depth = model.__dict__.get("_eager_ops_depth", 0)
    node = helper.node
    if depth >= _EAGER_DEPTH or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not plain_decorators(node):
        return cache[key]  # (a `@staticmethod` is a plain function kept in its class)
    from jaxlint.semantic.effects import unconditional_calls

    model.__dict__["_eager_ops_depth"] = depth + 1
    try:
        found = _count_eager_operations(helper, unconditional_calls(node), model)
    finally:
        model.__dict__["_eager_ops_depth"] = depth
    cache[key] = found
    return found


# Conversions: `jnp.asarray(x)` / `jnp.array(x)` of host data is a transfer to the device, the same under
# `jit` (the data has to get there), and of a device array a no-op or a copy; a loop of them (loading a
# checkpoint layer by layer) moves data, it does not dispatch a computation `fori_loop` would fuse.
_CONVERSIONS = frozenset({"jax.numpy.array", "jax.numpy.asarray"})


def is_eager_operation(qualified: str) -> bool:
    """A call of an array namespace (`jnp`, `lax`, `jax.random`, ...) that dispatches a computation when
    run outside `jit`: not a dtype query, nor a conversion of data to an array."""
    return qualified not in _CONVERSIONS and not qualified.startswith(("jax.numpy.dtype", "jax.numpy.iinfo", "jax.numpy.finfo"))


def _step_like(call: ast.Call, model: SemanticModel) -> bool:
    """A call that runs compiled code, or a function of the module that does or loops itself: a loop of
    such calls is a run of steps. (A loop over a network's layers calls plain array helpers.)"""
    if model.jit_binding_for_call(call) is not None:
        return True
    callee = callee_scope(call, model)
    if callee is None or not isinstance(callee.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return helper_facts(callee, model)[1] or _runs_steps(callee, model)


def batched_plain_function(call: ast.Call, scope: Scope, model: SemanticModel) -> Scope | None:
    """`jax.vmap(f)(xs)` (or `nnx.vmap`, with `in_axes` or not), `f` a plain undecorated function of
    the module and no `partial`: called where it runs eagerly, vmap traces `f` with batching tracers
    and dispatches each of its operations on its own, batched, as a direct call of `f` would. The
    scope of `f`, or None. Wherever the call is, at a loop's level or in a helper the loop calls
    (`predict(params, x)` returning `jax.vmap(forward, in_axes=(None, 0))(params, x)`): `f`'s operations
    are dispatched on every call."""
    if not isinstance(call.func, (ast.Call, ast.Name)):
        return None
    chain = callable_chains.callable_chain(call.func, scope, model)  # (inline, or a name bound to the vmap: `batched = jax.vmap(f)`)
    if chain is None or not chain.only_batching or chain.partial:
        return None
    target = chain.function
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return None
    resolved = model.resolve_function(target, chain.scope)
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2]:
        return None
    function = resolved[0]
    if not isinstance(function.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.node.decorator_list:
        return None
    return function


def _count_eager_operations(helper: Scope, calls: list[ast.Call], model: SemanticModel) -> tuple[int, ast.Call | None]:
    for loop in (n for n in walk(helper.node) if isinstance(n, _LOOPS) and model.scope_for(n) is helper):
        if isinstance(loop, ast.While):
            return 0, None
        if any(isinstance(n, ast.Call) and _step_like(n, model) for n in loop_body(loop, nested=True)):
            return 0, None  # a loop of steps (compiled, or functions that loop): a run, reported at its own loop
    count = 0
    first: ast.Call | None = None
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        if model.scope_for(call) is not helper:
            continue  # in a lambda: runs when it is called, if ever
        batched = batched_plain_function(call, helper, model)
        if batched is not None and batched is not helper:
            inner, inner_first = eager_operations_in(batched, model)  # (`jax.vmap(forward)(params, x)`: forward's operations, batched)
            if inner_first is None:
                return 0, None  # (nothing counted there: compiled, a run of steps, another library's work)
            count += inner
            first = first or call
            continue
        if model.jit_binding_for_call(call) is not None or transformed_call(call, model):
            return 0, None
        qualified = model.qualified_name(call.func)
        if qualified is not None and qualified.startswith(jaxapi.ARRAY_NAMESPACES) and qualified not in jaxapi.STATIC_CALLS:
            if is_eager_operation(qualified):
                count += 1
                first = first or call
            continue
        plain = library_models.eager_operations(qualified)
        if plain:
            count += plain  # (a library function that is plain array code: optax's losses)
            first = first or call
            continue
        if qualified is not None and not known_plain_call(qualified):
            return 0, None  # a call of another library or module (a solver, a sampler): work it does not count
        callee = callee_scope(call, model)
        if callee is not None and callee is not helper:
            inner, inner_first = eager_operations_in(callee, model)
            if inner_first is None and inner == 0 and helper_facts(callee, model)[1]:
                return 0, None  # it runs compiled code through that function
            count += inner
            first = first or inner_first
    return count, first


# Packages whose functions are array operations, host bookkeeping or Python itself: a function calling
# only these (and the module's own functions) does no work its operation count would miss.
_PLAIN_PACKAGES = ("jax.", "numpy.", "builtins.", "math.", "time.", "functools.", "itertools.", "operator.", "random.",
                   "logging.", "collections.", "tqdm.", "typing.")


def known_plain_call(qualified: str) -> bool:
    return qualified.startswith(_PLAIN_PACKAGES) and qualified not in jaxapi.COMPILING


def _runs_steps(helper: Scope, model: SemanticModel, depth: int = 0) -> bool:
    """The function loops: a Python loop in its own body, a comprehension whose element runs a whole
    computation for each item (`comprehension_work`), a `lax` loop it calls, or a function of the
    project it calls that loops (`final = run_solver(...)`)."""
    if any(isinstance(node, _LOOPS) and model.scope_for(node) is helper and not held_networks.layer_loop(node, model, helper)
           and not one_step_loop(node, model) for node in walk(helper.node)):
        return True  # (a loop over the layers a wrapper holds is one forward pass: semantic/held_networks.py; micro-batches are one step)
    if any(isinstance(node, COMPREHENSIONS) and model.scope_for(node) is helper and comprehension_work(node, model)
           for node in walk(helper.node)):
        return True  # (`[evaluate(p, b) for b in loader]`: a run over the items, reported at the comprehension)
    for call in helper.calls:
        if model.qualified_name(call.func) in _LAX_LOOPS:
            return True
        if depth < 1:
            resolved = model.resolve_function(call.func, model.scope_for(call))
            if resolved is not None and resolved[0] is not None and not resolved[1] and resolved[0] is not helper:
                if isinstance(resolved[0].node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _runs_steps(resolved[0], model, depth + 1):
                    return True
    return False


_CONDITIONAL_PARTS = (ast.IfExp, ast.BoolOp, ast.Lambda, *COMPREHENSIONS)
# More items than this, or a number the source does not fix, make a comprehension a run of computations.
_FEW_ITEMS = 10


def element_calls(comprehension: ast.AST) -> list[ast.Call]:
    """The calls a comprehension's element makes for every item: not under a conditional expression or
    `and`/`or`, not in a lambda or a nested comprehension (a loop of its own)."""
    elements = [comprehension.key, comprehension.value] if isinstance(comprehension, ast.DictComp) else [comprehension.elt]
    found = []
    stack = list(elements)
    while stack:
        node = stack.pop()
        if isinstance(node, _CONDITIONAL_PARTS):
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        stack.extend(child_nodes(node))
    return sorted(found, key=lambda call: (call.lineno, call.col_offset))


def comprehension_work(comprehension: ast.AST, model: SemanticModel, *, other_modules: bool = False) -> list[tuple[ast.Call, object]]:
    """A comprehension is a loop (semantic/iteration.py): the (call, whole computation) pairs its element
    runs outside `jit` for each item (`[evaluate(params, b) for b in loader]` with an un-jitted `evaluate`
    that applies the network; `eager_model_call`), the outer of nested ones. Empty where the comprehension
    walks a handful of items the source spells out (ten or fewer), a literal display, a mapping's entries
    or the networks a list attribute holds (an ensemble's members: one pass over its parts)."""
    cache = model.__dict__.setdefault("_comprehension_work", {})
    key = (id(comprehension), other_modules)
    if key in cache:
        return cache[key]
    cache[key] = []  # (recursion: none while being worked out)
    scope = model.scope_for(comprehension)
    if any(_named_cases(generator.iter) or held_networks.holds_networks(generator.iter, model, scope)
           for generator in comprehension.generators):
        return []
    if _few_items(comprehension, model):
        return []
    pairs = []
    for call in element_calls(comprehension):
        inner = eager_model_call(call, model, other_modules=False)
        if inner is None and other_modules and may_be_project_call(call, model):
            inner = eager_model_call(call, model)
        if inner is not None:
            pairs.append((call, inner))
    calls = {id(call) for call, _ in pairs}
    pairs = [(call, inner) for call, inner in pairs if not any(id(a) in calls for a in _ancestors_within(call, comprehension))]
    cache[key] = pairs
    return pairs


def _few_items(comprehension: ast.AST, model: SemanticModel) -> bool:
    """The comprehension walks `range` of constants, ten items or fewer in all its `for` clauses."""
    total = 1
    for generator in comprehension.generators:
        iterable = generator.iter
        if not (isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) == "builtins.range" and iterable.args
                and not iterable.keywords and all(isinstance(a, ast.Constant) and type(a.value) is int for a in iterable.args)):
            return False
        total *= len(range(*(a.value for a in iterable.args)))
    return total <= _FEW_ITEMS


def _ancestors_within(node: ast.AST, top: ast.AST) -> Iterator[ast.AST]:
    parent = parent_of(node)
    while parent is not None and parent is not top:
        yield parent
        parent = parent_of(parent)


def _named_cases(iterable: ast.expr) -> bool:
    """`d.items()`, `d.keys()`, `d.values()`, or a literal display: a few named cases."""
    if isinstance(iterable, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        return True
    return isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) \
        and iterable.func.attr in ("items", "keys", "values") and not iterable.args


def through_transform(call: ast.Call, model: SemanticModel) -> bool:
    """A call of a function under a JAX transform: applied on the spot (`jax.vmap(f)(x)`), through a
    name bound to one (`batched = jax.vmap(f)`, semantic/callable_chains.py), or through a top-level
    name of another project module bound once to one (`vstep = jax.vmap(step)` there, imported by
    name or by a star import). Its body runs traced: the call is device work, with no host work inside."""
    function = call.func
    if isinstance(function, ast.Call):
        return model.transform_of(function.func) is not None
    if isinstance(function, ast.Name):
        chain = callable_chains.callable_chain(function, model.scope_for(call), model)
        if chain is not None and chain.transforms:
            return True
    return foreign_work.imported_transform(call, model) if isinstance(function, (ast.Name, ast.Attribute)) else False


def runs_compiled(call: ast.Call, model: SemanticModel) -> bool:
    """The call runs compiled code: a jitted callable, or a local helper that calls one."""
    return _runs_compiled(call, model, 0)


def library_device_work(call: ast.Call, model: SemanticModel) -> bool:
    """A call the library models say computes new device values: a JAX environment's `reset` or `step`
    (gymnax, brax, jumanji: pure JAX, the same work whether it runs eagerly or inside a `lax.while_loop`),
    a network's forward pass (`model.apply(params, x)`), an optimizer's update. Device work, not host
    code deciding on what it is handed; not a call that hands back parts of what it was given
    (`eqx.partition`), nor one whose results are host arrays (envpool's `env.step`)."""
    entry = library_models.call_model(model, call)
    return entry is not None and entry.returns in ("device", "device_tree") and (entry.runs_model or entry.result == "fresh")


def helper_returns_device(call: ast.Call, model: SemanticModel) -> bool:
    helper = _helper_scope(call, model)
    return helper is not None and helper_facts(helper, model)[0]


def helper_runs_training_loop(call: ast.Call, model: SemanticModel) -> bool:
    """A call of a local helper whose body has a loop that calls jitted code (`train_one_epoch(...)`),
    on the sides of its branches the call takes (semantic/call_summaries.py): a Python fallback loop
    under `if rollout_fn is None:` does not run where the call hands a compiled rollout."""
    helper = _helper_scope(call, model)
    if helper is None:
        # A function or method of another module (semantic/call_summaries.py: `learner.epoch(...)`, read
        # in a model of its module), asked the same of its body.
        found = call_summaries.callee(call, model) if isinstance(call.func, ast.Attribute) else None
        if found is None or found.path is None or not runs_training_loop(found.scope, found.model):
            return False
        specialised = found.specialised() if found.fixed else None
        call_summaries.record_reads([found.model, specialised[1] if specialised else None], model)
        return not found.fixed or specialised is None or runs_training_loop(*specialised)
    if not runs_training_loop(helper, model):
        return False
    found = call_summaries.callee(call, model)
    if found is None or not found.fixed or found.scope is not helper:
        return True
    specialised = found.specialised()
    return specialised is None or runs_training_loop(*specialised)


def runs_training_loop(helper: Scope, model: SemanticModel) -> bool:
    """The function's own body has a loop that calls jitted code: one call of it is a whole run."""
    cache = _training_loop_cache.setdefault(model, {})
    if id(helper.node) not in cache:
        cache[id(helper.node)] = any(
            isinstance(node, _LOOPS) and model.scope_for(node) is helper and not one_step_loop(node, model)
            and any(isinstance(n, ast.Call) and model.jit_binding_for_call(n) is not None for n in loop_body(node, nested=True))
            for node in walk(helper.node)
        )
    return cache[id(helper.node)]



def micro_step_loops(loop: ast.AST, model: SemanticModel) -> list[ast.AST]:
    """The loops nested in `loop`, on every iteration (under no branch), whose compiled calls are the
    parts of one step of `loop`: a few iterations the source fixes (`for _ in range(4): g, loss =
    step(p, x)`, 8 or fewer, a parameter's default included) or a `one_step_loop` (micro-batches whose
    gradients are summed). Each iteration of `loop` then runs one step, so the values they bind are
    this iteration's device values, and a read after them waits once per step."""
    found = []
    for node in loop_body(loop):
        if node.__class__ not in (ast.For, ast.AsyncFor) or node is loop:
            continue
        parent = parent_of(node)
        while parent is not None and parent is not loop and not isinstance(parent, (ast.If, ast.Try, *_LOOP_TYPES)):
            parent = parent_of(parent)
        if parent is not loop:
            continue
        if not any(isinstance(n, ast.Call) and model.jit_binding_for_call(n) is not None for n in loop_body(node)):
            continue
        scope = model.scope_for(node)
        count = iteration_count(node.iter, scope, model) if scope is not None else None
        if (count is not None and count <= FEW_ITERATIONS) or one_step_loop(node, model) or _accumulates_one_update(node, loop, model):
            found.append(node)
    return found


def _accumulates_one_update(inner: ast.AST, outer: ast.AST, model: SemanticModel) -> bool:
    """Gradient accumulation written across two loops: `inner`, a `range` loop, sums what its compiled
    calls return into a name (`grads = tree_map(add, grads, g)`, `acc += g`), and after it `outer`'s
    iteration hands that sum to a call that rebinds state the compiled calls are handed (`params, opt =
    update(acc, params, opt)`): the inner laps are micro-batches of the one update an outer lap makes. A
    sum of losses only shown (an epoch's total) updates nothing."""
    iterable = inner.iter
    if not (isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) == "builtins.range"):
        return False
    calls = [n for n in loop_body(inner) if isinstance(n, ast.Call) and model.jit_binding_for_call(n) is not None]
    produced = {name for call in calls for name in _result_names(call)}
    handed = {n.id for call in calls for arg in [*call.args, *(k.value for k in call.keywords)] for n in walk(arg) if isinstance(n, ast.Name)}
    sums = {node.target.id if isinstance(node, ast.AugAssign) else node.targets[0].id
            for node in loop_body(inner) if _accumulates(node, produced)}
    if not sums or not handed:
        return False
    end = getattr(inner, "end_lineno", inner.lineno)
    for node in loop_body(outer):
        if isinstance(node, ast.Assign) and node.lineno > end and isinstance(node.value, ast.Call):
            arguments = {n.id for arg in [*node.value.args, *(k.value for k in node.value.keywords)] for n in walk(arg) if isinstance(n, ast.Name)}
            bound = {n.id for target in node.targets for n in walk(target) if isinstance(n, ast.Name)}
            if arguments & sums and bound & handed:
                return True
    return False


def one_step_loop(loop: ast.AST, model: SemanticModel) -> bool:
    """A loop of compiled calls whose count is fixed per call of its function, not by the length of a
    data set: together its iterations make one step, not a pass of steps (an epoch). Either it sums
    what a compiled gradient returns over micro-batches (`for x, y in zip(xs, ys): g = grad_fn(p, x,
    y); acc = tree_map(add, acc, g)`), state carried by nothing in the loop, the update applied once
    after it; or, nested in a loop of the same function that does not name an epoch, it runs a
    compiled integrator step a parameter's number of times, its counter unused and no data drawn
    (`for _ in range(n_leapfrog): p, x = leapfrog(p, x, eps)`: one proposal of a sampler). A loop over
    a data loader, or one whose compiled call updates carried state from data, is still a pass."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    scope = model.scope_for(loop)
    calls = [n for n in loop_body(loop) if isinstance(n, ast.Call) and model.jit_binding_for_call(n) is not None]
    if not calls or scope is None:
        return False
    results = {id(call): _result_names(call) for call in calls}
    passed = {id(call): {n.id for arg in [*call.args, *(k.value for k in call.keywords)] for n in walk(arg) if isinstance(n, ast.Name)} for call in calls}
    # State carried from one call into the next: a result passed back in, or a name the loop body
    # rebinds (`w = w - lr * grads`) that a compiled call is handed: a step per item, not a sum.
    rebound = {n.id for node in loop_body(loop) if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
               for target in (node.targets if isinstance(node, ast.Assign) else [node.target]) for n in walk(target) if isinstance(n, ast.Name)}
    carried = any((results[id(call)] | rebound) & passed[id(call)] for call in calls)
    if not carried:
        return all(_differentiates(model.jit_binding_for_call(call), model) for call in calls) and any(
            _accumulates(node, results[id(call)]) for call in calls for node in loop_body(loop))
    iterable = loop.iter
    if not (isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) == "builtins.range" and len(iterable.args) == 1
            and isinstance(iterable.args[0], ast.Name) and iterable.args[0].id in scope.param_nodes):
        return False
    counter = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
    if any(isinstance(n, ast.Name) and n.id in counter for n in loop_body(loop, nested=True)):
        return False
    if any(isinstance(n, ast.Call) and model.qualified_name(n.func) == "builtins.next" for n in loop_body(loop, nested=True)):
        return False
    outer = parent_of(loop)
    while outer is not None and not isinstance(outer, (*_LOOPS, *FUNCTION_NODES)):
        outer = parent_of(outer)
    return isinstance(outer, _LOOPS) and not _names_an_epoch(outer)


def _result_names(call: ast.Call) -> set[str]:
    """The names an assignment binds from the call's results (`(loss, aux), grads = f(...)`)."""
    statement = parent_of(call)
    if isinstance(statement, ast.Assign) and statement.value is call:
        return {n.id for target in statement.targets for n in walk(target) if isinstance(n, ast.Name)}
    return set()


def _accumulates(node: ast.AST, produced: set[str]) -> bool:
    """`acc += g` or `acc = f(acc, g)` (`tree_map(add, acc, g)`): a name rebound from itself and a result."""
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return any(isinstance(n, ast.Name) and n.id in produced for n in walk(node.value))
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        used = {n.id for n in walk(node.value) if isinstance(n, ast.Name)}
        return node.targets[0].id in used and bool(used & produced)
    return False


def _differentiates(binding, model: SemanticModel) -> bool:
    """The compiled callable is a gradient: `jax.jit(jax.value_and_grad(loss))`, or a function decorated
    with a grad-like transform under its jit."""
    grads = jaxapi.GRAD_LIKE | jaxapi.FILTERED_GRAD
    node = binding.node
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Call):
        inner = node.args[0]
        if model.qualified_name(inner.func) in grads:
            return True
    function = binding.function.node if binding.function is not None else None
    return function is not None and any(
        model.qualified_name(d.func if isinstance(d, ast.Call) else d) in grads for d in getattr(function, "decorator_list", ()))

_training_loop_cache: "WeakKeyDictionary[SemanticModel, dict[int, bool]]" = WeakKeyDictionary()


def unknown_epoch_pass(call: ast.Call, model: SemanticModel) -> bool:
    """A call of a function jaxlint cannot read (another package's, or a project module it cannot
    find) whose name says it runs a whole pass over the data (`bbb.train_epoch(key, state, X, y)`,
    `run_epoch(...)`; not `train_epoch_step`): one iteration of the loop calling it is a pass of
    many steps. Not a function it can read: a local or project helper is read for its loop
    (helper_runs_training_loop, project.runs_device_loop), and a jitted `train_epoch` that loops on
    no device is a full-batch step."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    lowered = name.lower()
    if "epoch" not in lowered or "step" in lowered:
        return False  # (`train_epoch_step`: one step of an epoch)
    if model.jit_binding_for_call(call) is not None or model.resolve_function(func, model.scope_for(call)) is not None:
        return False
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return False  # a method of the class at hand: its body is in this module
    qualified = model.qualified_name(func)
    if qualified is None:
        return False  # a method of an object whose class is unknown: not a function named by an import
    project = model.project
    if project is not None and (project.function(qualified) is not None or project.runs_device_loop(qualified)):
        return False
    return not qualified.startswith(("jax.", "numpy.", "builtins."))


_LAX_LOOPS = frozenset({"jax.lax.fori_loop", "jax.lax.scan", "jax.lax.while_loop"})


def runs_epoch_on_device(loop: ast.AST, model: SemanticModel) -> bool:
    """The loop names an epoch and calls a jitted
    function that loops on the device (`lax.fori_loop` over the batches, `lax.scan` over a rollout),
    or calls such a loop itself (`params = lax.fori_loop(0, steps, train, params)`):
    each iteration is a whole pass, and reporting once per pass is the normal way.
    (A full-batch loop named `for epoch in ...` whose jitted step has no loop is a per-step loop.)
    A loop that strides by a chunk and hands the chunk to such a call (`for i in range(0, n, chunk):
    state = run_chunk(state, i, chunk)`, whose body runs `lax.fori_loop(start, start + count, ...)`)
    runs a chunk of steps on the device per iteration: the same."""
    chunk = _range_stride(loop, model)
    epoch = _names_an_epoch(loop)
    if not epoch and chunk is None:
        return False
    for node in loop_body(loop):
        if isinstance(node, ast.Call):
            if not epoch and not any(
                ast.dump(part) == chunk for value in (*node.args, *(k.value for k in node.keywords)) for part in walk(value)
            ):
                continue  # a chunked loop: the device loop must be handed the chunk (`start + chunk` too)
            if model.qualified_name(node.func) in _LAX_LOOPS:
                return True  # `params = lax.fori_loop(0, steps_per_epoch, train, params)` called right here
            binding = model.jit_binding_for_call(node)
            if binding is None:
                continue
            for function in _compiled_functions(binding, model):
                if any(isinstance(call, ast.Call) and model.qualified_name(call.func) in _LAX_LOOPS for call in walk(function.node)):
                    return True
    return False


def compiled_call_loops_on_device(call: ast.Call, model: SemanticModel) -> bool:
    """The compiled function `call` runs loops on the device: its body, or a function of the module it
    calls (two calls deep), runs a `lax` loop or an iterative solver (`jaxapi.DEVICE_LOOPS`: a rollout
    scanned over time, epochs of minibatch updates scanned inside the update, a GMRES solve). One
    call is then many device steps, and what the host does around it is small beside it.
    Not a solve inside one optimizer step (solve_inside_step): its loop computes part of the step."""
    binding = model.jit_binding_for_call(call)
    if binding is None:
        return False
    for function in _compiled_functions(binding, model):
        reached = calls_reached(function, model, 2)
        for node, holder, _ in reached:
            qualified = model.qualified_name(node.func)
            if qualified not in jaxapi.DEVICE_LOOPS or _few_device_iterations(node, holder, model):
                continue
            if qualified in jaxapi.ITERATIVE_SOLVERS and solve_inside_step(reached, model):
                continue
            return True
        # Deeper, through transform bindings and other modules of the project (semantic/heavy_steps.py):
        # a solve or a time integration the program reaches; a solve inside an optimizer step counts
        # only where the loss itself is computed by it (the gradient is taken through the solve).
        found = heavy_steps.program_device_loop(function, model)
        if found is not None and (found[1] or not solve_inside_step(reached, model)):
            return True
        if unrolled_training_steps(function, model) is not None:
            return True  # a Python loop of optimizer steps, unrolled in the program: a chunk of steps per call
    return False


def solve_inside_step(reached: list[tuple[ast.Call, Scope, int]], model: SemanticModel) -> bool:
    """The program whose calls are `reached` (calls_reached) takes the gradient of a loss
    (`jax.value_and_grad(loss_fn)`, `jax.grad`, `eqx.filter_value_and_grad`): one call is one optimizer
    step, and an iterative solve in it (a natural-gradient direction by `cg`, an implicit layer's
    `custom_root`) computes part of that step. It does not make the call many steps: the loop that
    calls it is a step loop. A solve alone in its program (`field = gmres(A, b, x0=field)`, rounds of a
    solver) is the call's whole work and stays a device loop. The gradient may be taken through a name
    bound to the transform (`grad_fn = jax.value_and_grad(loss_fn)`, then `grad_fn(params, batch)`)."""
    for node, holder, _ in reached:
        if model.qualified_name(node.func) in jaxapi.LOSS_GRADIENTS:
            return True
        if isinstance(node.func, ast.Name):
            chain = callable_chains.callable_chain(node.func, holder, model)
            link = chain.first(jaxapi.DIFFERENTIATING) if chain is not None else None
            if link is not None and link[0] in jaxapi.LOSS_GRADIENTS:
                return True
    return False


def calls_reached(function: Scope, model: SemanticModel, depth: int) -> list[tuple[ast.Call, Scope, int]]:
    """(call, the function whose body holds it, calls left) for every call in `function`'s body
    (functions nested in it included) and in the functions of the module it calls by name, `depth`
    calls deep, each function once, at the most calls left it is reached with (breadth first).
    What a compiled program runs, as far as the module shows it. Memoised per model."""
    memo = model.__dict__.setdefault("_calls_reached_memo", {})
    key = (id(function.node), depth)
    if key in memo:
        return memo[key]
    found: list[tuple[ast.Call, Scope, int]] = []
    seen = {id(function.node)}
    frontier = [function]
    left = depth
    while frontier:
        following = []
        for holder in frontier:
            for node in walk(holder.node):
                if not isinstance(node, ast.Call):
                    continue
                found.append((node, holder, left))
                if left > 0 and isinstance(node.func, ast.Name):
                    resolved = model.resolve_function(node.func, model.scope_for(node))
                    callee = resolved[0] if resolved is not None else None
                    if callee is not None and id(callee.node) not in seen:
                        seen.add(id(callee.node))
                        following.append(callee)
        frontier, left = following, left - 1
    memo[key] = found
    return found


def _few_device_iterations(call: ast.Call, scope: Scope, model: SemanticModel) -> bool:
    """A `lax.fori_loop` whose bounds, or a `lax.scan` over no inputs whose `length`, the source fixes
    to a handful (flow.FEW_ITERATIONS): a few device steps, not a pass."""
    qualified = model.qualified_name(call.func)
    evaluate = model.constant_evaluator().int_value
    if qualified in ("jax.lax.fori_loop", "flax.nnx.fori_loop") and len(call.args) >= 2:
        lower, upper = evaluate(call.args[0], scope), evaluate(call.args[1], scope)
        return lower is not None and upper is not None and upper - lower <= FEW_ITERATIONS
    if qualified == "jax.lax.scan":
        inputs = call.args[2] if len(call.args) > 2 else next((k.value for k in call.keywords if k.arg == "xs"), None)
        length = next((k.value for k in call.keywords if k.arg == "length"), call.args[3] if len(call.args) > 3 else None)
        if length is not None and (inputs is None or (isinstance(inputs, ast.Constant) and inputs.value is None)):
            count = evaluate(length, scope)
            return count is not None and count <= FEW_ITERATIONS
    if qualified == "flax.nnx.scan":
        # `nnx.scan(body, length=3, ...)(carry, None)`: the length sits on the transform.
        length = next((k.value for k in call.keywords if k.arg == "length"), None)
        count = evaluate(length, scope) if length is not None else None
        return count is not None and count <= FEW_ITERATIONS
    return False


def _compiled_functions(binding, model: SemanticModel) -> list[Scope]:
    """The function a compiled callable runs: its own, or, for `jax.jit(make_train(config))`, the
    functions the module's factory returns (`def train(...)` nested in `make_train`, `return train`)."""
    if binding.function is not None:
        return [binding.function]
    compiled = binding.node
    if not (isinstance(compiled, ast.Call) and compiled.args and isinstance(compiled.args[0], ast.Call)):
        return []
    return factory_functions(compiled.args[0], model)


def factory_functions(made: ast.Call, model: SemanticModel) -> list[Scope]:
    """The functions a call of a factory of the module returns (`make_train(config)` whose every
    `return` hands back a nested `def` or a lambda), or [] when any return is something else."""
    resolved = model.resolve_function(made.func, model.scope_for(made))
    factory = resolved[0] if resolved is not None and not resolved[1] else None
    if factory is None or not factory.returns:
        return []
    functions = []
    for returned in factory.returns:
        inner = model.resolve_function(returned, factory) if isinstance(returned, (ast.Name, ast.Lambda)) else None
        if inner is None or inner[0] is None or inner[0] is factory:
            return []
        functions.append(inner[0])
    return functions


def _range_stride(loop: ast.AST, model: SemanticModel) -> str | None:
    """The dumped step of `for i in range(start, stop, step)` (also a progress bar's `trange` or
    `tqdm(range(...))`, as `iteration_count` reads them), when it is not a literal: a chunk size the
    source names; None otherwise."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    iterated = loop.iter
    if isinstance(iterated, ast.Call) and iterated.args and model.qualified_name(iterated.func) in PROGRESS_BARS:
        iterated = iterated.args[0]
    if not isinstance(iterated, ast.Call):
        return None
    ranging = isinstance(iterated.func, ast.Name) and iterated.func.id == "range"
    if not ranging and model.qualified_name(iterated.func) not in _PROGRESS_RANGES:
        return None
    if len(iterated.args) != 3 or isinstance(iterated.args[2], ast.Constant):
        return None
    return ast.dump(iterated.args[2])


# An epoch. An update of on-policy RL (`for i in range(num_updates)` around a jitted update that scans
# a rollout) is not named one; what makes its reads nil is the cost of the iteration, not its name
# (compiled_call_loops_on_device, asked by JAX201 of loops that only count).
_EPOCH_WORDS = re.compile(r"epoch", re.IGNORECASE)


def _names_an_epoch(loop: ast.AST) -> bool:
    """`for epoch in ...`, `for i in range(args.num_epochs)`, or a body that calls `*epoch*(...)`."""
    header = [loop.target, loop.iter] if isinstance(loop, (ast.For, ast.AsyncFor)) else [loop.test]
    for part in header:
        for node in walk(part):
            text = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
            if _EPOCH_WORDS.search(text):
                return True
    for node in loop_body(loop):
        if isinstance(node, ast.Call):
            func = node.func
            text = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if "epoch" in text.lower():
                return True
    return False


# ----- one loop -----------------------------------------------------------------------------------


_WRAPPERS = frozenset({"jax.numpy.asarray", "jax.numpy.array"})


class LoopValues:
    """Device values in one loop outside traced code, and which of them this iteration produced."""

    def __init__(self, loop: ast.AST, scope: Scope, model: SemanticModel) -> None:
        self.loop = loop
        self.scope = scope
        self.model = model
        self.body = list(loop_body(loop))
        self._names_ready = False

    def _prepare(self) -> None:
        """Device names, computed on first use (most loops call no compiled code and never need them)."""
        if self._names_ready:
            return
        self._names_ready = True
        self.device_names = dict(self.model.device_names(self.scope))
        self.mutated_by_nnx = self._nnx_arguments()
        assigned = {name for node in self.body for name in _assigned_by(node)}
        assigned |= {name for node in self.micro_steps_body for name in _assigned_by(node)}  # (the parts of this iteration's step)
        self._add_helper_and_accumulator_names(assigned)
        self.per_iteration = {name for name in assigned if self.device_names.get(name)}
        self._add_mapping_view_names()

    def _add_mapping_view_names(self) -> None:
        """Loop targets over a view of a dict of device values the loop walks (`for k, v in
        metrics.items()`, `for v in metrics.values()`, `metrics` a compiled step's dict): each value is a
        device value (of this iteration when the dict is), each key a host one. A name counts only when
        every binding of it in the scope is such a target, bindings outside this loop apart where every
        read of the name in the loop is in the body of a walk binding it (`for k, v in d.items():` after
        the loop, averaging lists: the walk rebinds the name each time, nothing outside reaches it)."""
        found: dict[str, bool] = {}
        inside = {name for target, _ in self.scope.bindings if is_within(target, self.loop) for name in bound_names(target)}
        other = {name for target, _ in self.scope.bindings for name in bound_names(target)} - self._rebound_by_walks_only(inside)
        for target, iterable in self.scope.loops:
            value = _mapping_view_value(target, iterable)
            for name in bound_names(target):
                if not is_within(target, self.loop) and name in self._rebound_by_walks_only(inside):
                    continue  # (another loop's target elsewhere in the scope: it does not reach these reads)
                if name in other or (value is not None and name != value) or not is_within(target, self.loop):
                    found[name] = False
                    continue
                owner = iterable.func.value if value is not None else None
                known = owner is not None and self.is_device(owner)
                fresh = known and self.is_fresh(owner)
                found[name] = found.get(name, True) and known
                if fresh:
                    self.per_iteration.add(name)
        self.device_names.update((name, True) for name, device in found.items() if device)
        self.view_walks = [
            node for node in self.body
            if isinstance(node, ast.For) and (
                (_mapping_view_value(node.target, node.iter) in self.per_iteration
                 and self.device_names.get(_mapping_view_value(node.target, node.iter)))
                or self._walks_keys_of_fresh_dict(node)
            )
        ]

    def _rebound_by_walks_only(self, inside: set[str]) -> set[str]:
        """Names no statement of this loop assigns (`inside`) and every read of which in the loop lies in
        the body of a nested `for` over a mapping view binding it: what the name holds there is the
        walk's value, whatever the scope binds to it elsewhere."""
        cached = self.__dict__.get("_walk_only")
        if cached is not None:
            return cached
        nodes = list(loop_body(self.loop, nested=True))
        walks = [node for node in nodes if isinstance(node, ast.For) and _mapping_view_value(node.target, node.iter) is not None]
        result = set()
        for walk_loop in walks:
            for name in bound_names(walk_loop.target):
                if name in inside:
                    continue
                reads = [n for n in nodes if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
                if reads and all(any(is_within(n, statement) for w in walks if name in bound_names(w.target) for statement in w.body)
                                 for n in reads):
                    result.add(name)
        self._walk_only = result
        return result

    def _walks_keys_of_fresh_dict(self, loop: ast.For) -> bool:
        """`for k in metrics.keys():` (or `for k in metrics:`) over this iteration's dict of device values,
        the body indexing it with the key (`metrics[k]`): a walk of its values, as `.items()` is. The walk
        runs on every iteration of this loop however few keys it has."""
        iterable = loop.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and iterable.func.attr == "keys" \
                and not iterable.args and not iterable.keywords:
            iterable = iterable.func.value
        if not (isinstance(iterable, ast.Name) and isinstance(loop.target, ast.Name)):
            return False
        if not ((iterable.id in self.per_iteration and self.device_names.get(iterable.id)) or self._reaching_device(iterable)):
            return False
        return any(
            isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id == iterable.id
            and isinstance(sub.slice, ast.Name) and sub.slice.id == loop.target.id and isinstance(sub.ctx, ast.Load)
            for statement in loop.body for sub in walk(statement)
        )

    def walked_views_body(self) -> list[ast.AST]:
        """The bodies of loops nested here that walk a view of this iteration's dict of device values
        (`for k, v in metrics.items(): writer.add_scalar(k, v)`): they run on every iteration of this
        loop, so their reads are this loop's reads."""
        self._prepare()
        return [node for walk_loop in self.view_walks for node in loop_body(walk_loop)]

    @property
    def assigned(self) -> set[str]:
        """Names and dotted attributes the loop rebinds (`assigned_in_loop`), worked out once per loop."""
        found = self.__dict__.get("_assigned")
        if found is None:
            found = self._assigned = assigned_in_loop(self.loop)
        return found

    # -- names --

    def _nnx_arguments(self) -> set[str]:
        names: set[str] = set()
        for node in self.body:
            if isinstance(node, ast.Call):
                binding = self.model.jit_binding_for_call(node)
                if binding is not None and binding.transform == "flax.nnx.jit":
                    names.update(a.id for a in node.args if isinstance(a, ast.Name))
        return names

    def _add_helper_and_accumulator_names(self, assigned_here: set[str]) -> None:
        """Names the loop binds, bound only to device values once helpers and accumulators are counted."""
        bindings: dict[str, list[tuple[ast.AST, ast.AST | None]]] = {}
        for target, value in self.scope.bindings:
            # Bindings outside this loop do not reach a read the loop's own binding precedes (a
            # validation loop after the training loop rebinding `loss` to a host value); only a numeric
            # start (`total = 0.0`) matters there, to tell an accumulator.
            if not is_within(target, self.loop) and not (isinstance(value, ast.Constant) and isinstance(value.value, (int, float))):
                continue
            for name in bound_names(target):
                if name in assigned_here:
                    bindings.setdefault(name, []).append((target, value))
        loop_targets = {name for target, _ in self.scope.loops for name in bound_names(target)}
        for _ in range(3):
            changed = False
            for name, bound in bindings.items():
                if self.device_names.get(name) or name in loop_targets:
                    continue
                if name in self.scope.params and not bound:
                    continue
                # Optimistic for self-reference (`loss = loss ** 0.5` after `state, loss = step(...)`).
                previous = self.device_names.get(name)
                self.device_names[name] = True
                if self._all_device(name, bound):
                    changed = True
                elif previous is None:
                    del self.device_names[name]
                else:
                    self.device_names[name] = previous
            if not changed:
                break

    def _all_device(self, name: str, bound: list[tuple[ast.AST, ast.AST | None]]) -> bool:
        accumulated = False
        for target, value in bound:
            if value is None:
                return False
            if isinstance(value, ast.AugAssign):
                if not (isinstance(value.op, (ast.Add, ast.Sub, ast.Mult)) and self.is_device(value.value)):
                    return False
                accumulated = accumulated or (value is not self.loop and is_within(value, self.loop))
                continue
            if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
                continue  # `total = 0.0`: the start of an accumulator (checked below)
            if isinstance(target, ast.Name):
                if self._accumulates(name, value):
                    accumulated = accumulated or (value is not self.loop and is_within(value, self.loop))
                    continue
                if not self.is_device(value):
                    return False
            elif not (isinstance(value, ast.Call) and (self.is_device(value) or self._returned_device_at(name, target, value))):
                return False  # a tuple target: a jitted call, or a helper whose every return is a device value (there)
        constants = [v for _, v in bound if isinstance(v, ast.Constant)]
        return accumulated or not constants

    def _returned_device_at(self, name: str, target: ast.AST, value: ast.Call) -> bool:
        """`loss, aux, state = step(state)` with `step` a plain project function (of another module, or
        through `functools.partial`) whose every `return` gives a device value where `name` stands."""
        if not isinstance(target, (ast.Tuple, ast.List)):
            return False
        position = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name), None)
        if position is None or any(isinstance(e, ast.Starred) for e in target.elts):
            return False
        return call_returns_device_at(value, self.model, position, len(target.elts))

    def _accumulates(self, name: str, value: ast.AST) -> bool:
        """`total = total + loss` with a device `loss`."""
        if not (isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub, ast.Mult))):
            return False
        operands = [value.left, value.right]
        own = [o for o in operands if isinstance(o, ast.Name) and o.id == name]
        others = [o for o in operands if not (isinstance(o, ast.Name) and o.id == name)]
        return bool(own) and bool(others) and all(self.is_device(o) for o in others)

    # -- expressions --

    def is_device(self, node: ast.AST) -> bool:
        self._prepare()
        model, scope = self.model, self.scope
        if isinstance(node, ast.Name):
            return bool(self.device_names.get(node.id)) or self._reaching_device(node)
        if isinstance(node, ast.Attribute):
            if node.attr in jaxapi.STATIC_ATTRIBUTES:
                return False
            if isinstance(node.value, ast.Name) and node.value.id in self.mutated_by_nnx:
                return node.attr == "value"
            return self.is_device(node.value)
        if isinstance(node, ast.Subscript):
            return self.is_device(node.value) or self._device_container_item(node) is not None
        if isinstance(node, ast.BinOp):
            return self.is_device(node.left) or self.is_device(node.right)
        if isinstance(node, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                return False
            return any(self.is_device(operand) for operand in [node.left, *node.comparators])
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self.is_device(node.operand)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and model.qualified_name(func) is None:
                owner = func.value
                if isinstance(owner, ast.Name) and owner.id in self.mutated_by_nnx:
                    return func.attr not in ("split", "graphdef")  # `metrics.compute()`
                if self.is_device(owner):
                    if func.attr in jaxapi.HOST_METHODS:
                        return False
                    return func.attr in jaxapi.ARRAY_METHODS or func.attr in ("block_until_ready", "copy")
            if helper_returns_device(node, model) or _computes_on_device(node, model):
                return True
            if isinstance(func, ast.Attribute) and may_be_project_call(node, model) and _foreign_method_returns_device(node, model):
                return True
            entry = library_models.call_model(model, node, scope)
            if entry is not None and entry.returns == "tree_of_function":
                # `metrics = jax.tree.map(lambda x: x[0], metrics)`: judged with what the loop knows of the tree
                return library_models.mapped_tree_kind(model, node, self.is_device) == "device"
            if len(node.args) == 1 and not node.keywords and maps_its_tree_on_device(node, model):
                # `unreplicate = lambda t: jax.tree.map(lambda x: x[0], t)`: device leaves in, device leaves out
                return self.is_device(node.args[0])
            return model.device_kind(node, scope) == "device"
        return model.device_kind(node, scope) == "device"

    def is_fresh(self, node: ast.AST) -> bool:
        """A device value this iteration produced: it reads a name the loop rebinds to a device value,
        an object an `nnx.jit` call in the loop mutates, or is the result of a device call made here."""
        if not self.is_device(node):
            return False
        self._prepare()
        for sub in walk(node):
            if isinstance(sub, ast.Name) and (sub.id in self.per_iteration or sub.id in self.mutated_by_nnx or self._reaching_device(sub)):
                return True
            if isinstance(sub, ast.Subscript) and self._device_container_item(sub) == "this iteration":
                return True
            if isinstance(sub, ast.Call) and (self.model.jit_binding_for_call(sub) is not None or helper_returns_device(sub, self.model)):
                return True
        return False

    def holds_fresh(self, node: ast.AST) -> bool:
        """A Python container holding device values this iteration produced: a tuple or list display
        with such an element (`(loss, acc)`), or a list or dict the scope fills only with device values
        and this loop stores into (`history.append(metrics)`). A copy of it reads every leaf."""
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self.is_fresh(element) for element in node.elts if not isinstance(element, ast.Starred))
        if not isinstance(node, ast.Name) or self.is_device(node):
            return False
        cache = self.__dict__.setdefault("_container_cache", {})
        if node.id not in cache:
            cache[node.id] = None
            cache[node.id] = self._device_container(node.id)
        stores = cache[node.id]
        return stores is not None and any(is_within(store, self.loop) for store in stores)

    def _device_container_item(self, item: ast.Subscript) -> str | None:
        """`metrics["loss"]` of a dict or list the scope makes empty or from a display (`{}`, `dict()`,
        `defaultdict(float)`, `{"loss": 0.0}`) and fills only with device values (`metrics["loss"] +=
        loss`, `metrics[k] = v`, `losses.append(loss)`, numeric starts aside): a device value,
        "this iteration" where the loop stores into it, else "before"."""
        container = item.value
        if not isinstance(container, ast.Name) or not isinstance(item.ctx, ast.Load):
            return None
        cache = self.__dict__.setdefault("_container_cache", {})
        if container.id not in cache:
            cache[container.id] = None  # (recursion: not a device container while being worked out)
            cache[container.id] = self._device_container(container.id)
        stores = cache[container.id]
        if stores is None:
            return None
        return "this iteration" if any(is_within(store, self.loop) for store in stores) else "before"

    def _device_container(self, name: str) -> list[ast.AST] | None:
        made = [value for target, value in self.scope.bindings if isinstance(target, ast.Name) and target.id == name]
        if not made or not all(_empty_container(value, self.model) for value in made):
            return None
        stores: list[ast.AST] = []
        for node in walk(self.scope.node):
            if self.model.scope_for(node) is not self.scope:
                continue
            stored = None
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name for t in targets):
                    stored = node.value
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend")
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == name and len(node.args) == 1):
                stored = node.args[0]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == name and node.func.attr in ("update", "setdefault", "insert"):
                return None  # filled in ways this reading does not follow
            if stored is None:
                continue
            if isinstance(stored, ast.Constant) and isinstance(stored.value, (int, float)) and not isinstance(stored.value, bool):
                continue  # `metrics[k] = 0.0`: the start of an accumulator
            if not self.is_device(stored):
                return None
            stores.append(node)
        return stores or None

    def _reaching_device(self, use: ast.Name) -> bool:
        """Flow-sensitive reading of a name the scope also binds to host values: the binding that reaches
        this use within the iteration, in straight-line code before it (`metrics = {"step": i}` then
        `state, metrics = step(state, batch)` then `wandb.log(metrics)`), is a device value. A binding
        under a condition or in a nested block before the use, or none in the iteration, decides nothing."""
        if not isinstance(use.ctx, ast.Load):
            return False
        cache = self.__dict__.setdefault("_reaching_cache", {})
        key = id(use)
        if key not in cache:
            cache[key] = False  # (recursion through the bound value: unknown while being worked out)
            cache[key] = self._reaching_binding_is_device(use)
        return cache[key]

    def _reaching_binding_is_device(self, use: ast.Name) -> bool:
        # The statements before the read in its block, then before each enclosing statement in its own
        # block, up to the loop's body (semantic/reaching.py's statement helpers).
        statement = enclosing_statement(use)
        while statement is not None:
            place = statement_list(statement)
            if place is not None:
                block, index = place
                for earlier in reversed(block[:index]):
                    found = self._binding_in(earlier, use.id)
                    if found is not None:
                        return found
            parent = parent_of(statement)
            if parent is None or parent is self.loop or isinstance(parent, FUNCTION_NODES):
                return False
            statement = enclosing_statement(parent)
        return False

    def _binding_in(self, statement: ast.stmt, name: str) -> bool | None:
        """True/False when `statement` binds `name` to a device value / to something else or possibly;
        None when it does not bind it."""
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name) and target.id == name:
                return self.is_device(statement.value)
            if isinstance(target, (ast.Tuple, ast.List)) and any(isinstance(e, ast.Name) and e.id == name for e in target.elts):
                # `state, metrics = step(state, batch)`: every element of a compiled call's result is a device
                # value (a plain function's tuple may mix host counters in: `..., global_step = rollout(...)`)
                return isinstance(statement.value, ast.Call) and self.model.jit_binding_for_call(statement.value) is not None
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in walk(statement)):
            return False
        return None

    def built_from_host_data(self, node: ast.AST) -> bool:
        """Whether every device value a sync reads is host data the loop only wrapped in device arrays
        (`done = jnp.array(done)` after a host environment's step, `dones = jnp.logical_or(dones,
        done)`, a helper that builds device arrays without running compiled code): reading that back
        waits for no computation, it is a round trip. False as soon as one part comes from compiled
        code or from anywhere the loop does not show."""
        self._prepare()
        if isinstance(node, ast.Call) and not self._array_function(node):
            # The sync itself (`float(x)`, `print(...)`, `writer.add_scalar("x", x)`, `x.item()`) only reads.
            parts = [*node.args, *(k.value for k in node.keywords)]
            if isinstance(node.func, ast.Attribute):
                parts.append(node.func.value)
        else:
            parts = [node]
        device_parts = [part for part in parts if self.is_device(part)]
        return bool(device_parts) and all(self._host_built(part, set()) for part in device_parts)

    def _known_host(self, node: ast.AST) -> bool:
        """A value known to live on the host: a constant, the loop's own item, or a name the loop binds
        only to constants, NumPy or builtin results, or `jax.device_get`. A name bound to what some
        other call returned is unknown (`dataset = get_batch(state, key)` may be a device value)."""
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            return self._known_host(chain_root(node))
        if not isinstance(node, ast.Name):
            return all(self._known_host(child) for child in child_nodes(node) if isinstance(child, ast.expr))
        iterable = getattr(self.loop, "iter", None)
        if iterable is not None and any(node.id in bound_names(target) for target, source in self.scope.loops if source is iterable):
            return True  # the loop's own item: host data from its iterator
        values = self.bound_in_loop(node.id)
        if not values:
            return False
        for value in values:
            if isinstance(value, ast.Constant):
                continue
            if isinstance(value, ast.Call) and (self.model.qualified_name(value.func) or "").startswith(("numpy.", "builtins.", "jax.device_get")):
                continue
            return False
        return True

    def _array_function(self, call: ast.Call) -> bool:
        qualified = self.model.qualified_name(call.func) or ""
        return qualified.startswith(("jax.numpy.", "jax.lax.", "jax.nn."))

    def _host_built(self, node: ast.AST, visiting: set[str]) -> bool:
        model = self.model
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not self._built_here(node):
            return False  # `self.regrets`: produced somewhere the loop does not show
        if not self.is_device(node):
            return self._known_host(node)
        if isinstance(node, ast.Name):
            if node.id in visiting:
                return True
            if node.id not in self.per_iteration or node.id in self.mutated_by_nnx:
                return False
            visiting.add(node.id)
            values = self.bound_in_loop(node.id)
            return bool(values) and all(
                self._host_built(value.value if isinstance(value, ast.AugAssign) else value, visiting) for value in values
            )
        if isinstance(node, ast.Call):
            if _runs_compiled(node, model, 0) or transformed_call(node, model):
                return False  # (`jax.vmap(f)(x)`, `jax.grad(f)(p)`: a computation, even run eagerly)
            if self._array_function(node):
                parts = [*node.args, *(k.value for k in node.keywords)]
                if (model.qualified_name(node.func) or "") in _WRAPPERS:
                    # `jnp.asarray(done)` of what a plain call returned (`env.step(a)`): nobody wraps
                    # a JAX array again, so that value is host data.
                    return all(self._host_built(part, visiting) or self._plain_call_result(part) for part in parts)
                return all(self._host_built(part, visiting) for part in parts)
            if isinstance(node.func, ast.Attribute) and self.is_device(node.func.value):
                return self._host_built(node.func.value, visiting)  # `flags.astype(bool)`
            helper = _helper_scope(node, model)
            return (
                helper is not None and helper_facts(helper, model) == (True, False)
                and not any(transformed_call(call, model) for call in helper.calls)
                # (a helper that runs no compiled code of its own computes from what it is handed: a
                # compiled step's result handed in, `env_step(state, action)`, is no host data)
                and all(
                    self._host_built(part, visiting)
                    for part in [*node.args, *(k.value for k in node.keywords)] if self.is_device(part)
                )
            )
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Tuple, ast.List, ast.IfExp)):
            return all(self._host_built(child, visiting) for child in child_nodes(node) if isinstance(child, ast.expr))
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            return self._host_built(node.value, visiting)  # (built here: checked on entry)
        return False

    def _plain_call_result(self, node: ast.AST) -> bool:
        """A name the loop binds only to what calls that run no compiled code returned."""
        if not isinstance(node, ast.Name):
            return False
        values = self.bound_in_loop(node.id)
        return bool(values) and all(
            isinstance(value, ast.Call) and not _runs_compiled(value, self.model, 0) and not helper_returns_device(value, self.model)
            and not (self.model.qualified_name(value.func) or "").startswith("jax.")
            for value in values
        )

    def _built_here(self, node: ast.AST) -> bool:
        """An attribute or item of a name this iteration binds (`timestep.done`)."""
        return root_name(node) in self.per_iteration

    def bound_in_loop(self, name: str) -> list[ast.AST]:
        """The values this loop's body binds `name` to."""
        return [
            value for target, value in self.scope.bindings
            if value is not None and name in bound_names(target) and is_within(value, self.loop)
        ]

    def truth_test_syncs(self, test: ast.expr) -> ast.expr | None:
        """The fresh device value whose truth a test reads: `if loss < best`, `not done`, `a or b`."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.truth_test_syncs(test.operand)
        if isinstance(test, ast.BoolOp):
            for value in test.values:
                found = self.truth_test_syncs(value)
                if found is not None:
                    return found
            return None
        if isinstance(test, ast.Name) and container_of_device_values(test, self.scope, self.model):
            return None  # `if metrics:` on a dict of device arrays: its length, known on the host
        if (
            isinstance(test, ast.Call) and len(test.args) == 1 and not test.keywords
            and isinstance(test.args[0], (ast.GeneratorExp, ast.ListComp))
            and self.model.qualified_name(test.func) in ("builtins.any", "builtins.all")
        ):
            # `any(jnp.isnan(p).any() for p in jax.tree.leaves(state))`: Python asks each element for
            # its truth, one device read per element of what this iteration produced.
            comprehension = test.args[0]
            element = comprehension.elt
            if self.is_fresh(element):
                return element
            if self.is_device(element) and any(
                isinstance(n, ast.Name) and self.is_fresh(n) for generator in comprehension.generators for n in walk(generator.iter)
            ):
                return element
            return None
        return test if self.is_fresh(test) else None

    def calls_compiled_code(self) -> ast.Call | None:
        """The first call in the loop that runs compiled code (a jitted callable or a helper around one),
        or of the loops of micro-steps nested in it where one comes first (`micro_step_loops`)."""
        call = self._calls_compiled_code()
        if call is None or not any(n.__class__ in (ast.For, ast.AsyncFor) for n in self.body):
            return call
        micro = self._first_micro_step()
        if micro is not None and (micro.lineno, micro.col_offset) < (call.lineno, call.col_offset):
            return micro  # (the step runs in a loop of micro-steps before this call: name it)
        return call

    def _calls_compiled_code(self) -> ast.Call | None:
        calls = sorted((n for n in self.body if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
        model = self.model
        for call in calls:
            if model.jit_binding_for_call(call) is not None or model.qualified_name(call.func) in _LAX_LOOPS:
                return call  # (an eager `lax.scan` compiles its body and dispatches it as one program)
        for call in calls:
            # None of them is jitted: only calls of local functions can still run compiled code.
            if not isinstance(call.func, (ast.Name, ast.Attribute)):
                continue
            resolved = model.resolve_function(call.func, model.scope_for(call))
            if resolved is not None:
                helper = resolved[0] if not resolved[1] else None
            else:
                helper = callee_scope(call, model)  # (a method of an instance of the module's class)
            if helper is None or not isinstance(helper.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or helper.traced or helper.transforms:
                continue
            if helper_facts(helper, model)[1]:
                return call
        for call in calls:
            # A plain function of another module, or one called through `functools.partial`, read with
            # what the call fixes (semantic/call_summaries.py).
            if isinstance(call.func, ast.Name) or may_be_project_call(call, model):
                if call_runs_compiled(call, model):
                    return call
        for call in calls:
            # A whole computation run eagerly (a network's forward, an optimizer update, a project
            # function computing device arrays from its arguments): dispatched asynchronously too.
            if eager_model_call(call, model, other_modules=False) is not None or _computes_on_device(call, model):
                return call
        return self._first_micro_step()  # (every compiled call is in a loop of micro-steps: each iteration is one step)

    def _first_micro_step(self) -> ast.Call | None:
        """The first compiled call of the loops of micro-steps nested here (`micro_step_loops`)."""
        calls = [n for n in self.micro_steps_body if isinstance(n, ast.Call) and self.model.jit_binding_for_call(n) is not None]
        return min(calls, key=lambda n: (n.lineno, n.col_offset)) if calls else None

    @property
    def micro_steps_body(self) -> list[ast.AST]:
        """The nodes of the loops nested here whose compiled calls make one step of this loop
        (`micro_step_loops`), worked out once per loop."""
        found = self.__dict__.get("_micro_steps_body")
        if found is None:
            found = self._micro_steps_body = [n for inner in micro_step_loops(self.loop, self.model) for n in loop_body(inner)]
        return found


def _computes_on_device(call: ast.Call, model: SemanticModel) -> bool:
    """A plain function of the project whose every `return` is a device array computed from its
    parameters by array operations or a transformed call (`forward(params, x)` of a hand-written
    network, `jax.vmap(predict)(params, x)`)."""
    if model.jit_binding_for_call(call) is not None:
        return False
    resolved = model.resolve_function(call.func, model.scope_for(call))
    helper = resolved[0] if resolved is not None and not resolved[1] else None
    # Undecorated: called here it runs eagerly, even where traced code calls it too.
    if helper is None or not isinstance(helper.node, ast.FunctionDef) or helper.node.decorator_list or not helper.params:
        return False
    if not helper.returns or not all(_returned_device(value, helper, model, 0) for value in helper.returns):
        return False
    operations = 0
    for inner in helper.calls:
        if not any(isinstance(n, ast.Name) and n.id in helper.params for a in inner.args for n in walk(a)):
            continue
        if transformed_call(inner, model):
            operations += 2  # (`jax.vmap(predict)(params, x)`: a whole batched computation)
        elif (model.qualified_name(inner.func) or "").startswith(("jax.numpy.", "jax.lax.", "jax.nn.")):
            operations += 1
    return operations >= 2


def _mapping_view_value(target: ast.AST, iterable: ast.AST) -> str | None:
    """The name a loop binds to each value of a dict: `v` of `for k, v in d.items()`, of `for v in
    d.values()`."""
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and not iterable.args and not iterable.keywords):
        return None
    if iterable.func.attr == "values" and isinstance(target, ast.Name):
        return target.id
    if iterable.func.attr == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name):
        return target.elts[1].id
    return None


def _assigned_by(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from bound_names(target)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
        yield from bound_names(node.target)


# ----- code that runs many times ----------------------------------------------------------------------


def in_loop(node: ast.AST) -> bool:
    """Inside a loop (or comprehension) of its own function or module body, or in code a notebook's
    `%timeit` runs many times: the expression a `%timeit` line times (`__jaxlint_timeit__(lambda:
    f(x))`) or the body of a `%%timeit` cell."""
    current = parent_of(node)
    statement = node
    while current is not None:
        if isinstance(current, (*_LOOPS, ast.comprehension, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return True
        if isinstance(current, (*FUNCTION_NODES, ast.ClassDef)):
            return timed_repeatedly(current)
        if isinstance(current, ast.Module):
            return isinstance(statement, ast.stmt) and _in_timeit_cell(statement, current)
        statement = current
        current = parent_of(current)
    return False


def _in_timeit_cell(statement: ast.stmt, module: ast.Module) -> bool:
    """A module-level statement of a `%%timeit` cell (masked as `__jaxlint_timed_cell__("timeit", n)`
    before the `n` lines it times): IPython runs the cell's body many times."""
    spans = getattr(module, "_jaxlint_timeit_cells", None)
    if spans is None:
        spans = []
        for top in module.body:
            value = top.value if isinstance(top, ast.Expr) else None
            if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == TIMED_CELL_MAGIC
                    and len(value.args) == 2 and all(isinstance(a, ast.Constant) for a in value.args)
                    and value.args[0].value == "timeit" and isinstance(value.args[1].value, int)):
                spans.append((top.lineno, top.lineno + value.args[1].value))
        module._jaxlint_timeit_cells = spans
    return any(first < statement.lineno <= last for first, last in spans)


def timed_repeatedly(function: ast.AST) -> bool:
    """The lambda a notebook's `%timeit` line times (masked as `__jaxlint_timeit__(lambda: f(x))`,
    also kept, `t = %timeit -o f(x)`): IPython calls it many times, a loop of its own. Not a `%time`
    line's (`__jaxlint_timeit__(lambda: f(x), "time")`): that runs once."""
    if not isinstance(function, ast.Lambda):
        return False
    timer = parent_of(function)
    return (isinstance(timer, ast.Call) and isinstance(timer.func, ast.Name) and timer.func.id == TIMEIT_MAGIC
            and len(timer.args) == 1 and timer.args[0] is function)


def function_called_in_loop(scope: Scope, model: SemanticModel, depth: int = 2) -> bool:
    """A function of this module that some call inside a loop reaches (directly, or through `depth`
    levels of callers)."""
    if depth < 0 or not scope.is_function or isinstance(scope.node, ast.Lambda):
        return False
    for caller, call in _calls_by_callee(model).get(scope, ()):
        if in_loop(call):
            return True
        if caller.is_function and function_called_in_loop(caller, model, depth - 1):
            return True
    return False


def runs_in_loop(scope: Scope, model: SemanticModel, depth: int = 2) -> bool:
    """`function_called_in_loop`, counting also the calls that reach a method through an object of its
    class (model.method_scope: `self.dynamics.step(...)` with `self.dynamics = Dynamics(...)`, `agent.act(s)`
    with `agent = Agent()`), and through `depth` levels of callers reached either way: a method an
    environment loop calls on an object every step runs every step, whichever object holds it."""
    if depth < 0 or not scope.is_function or isinstance(scope.node, ast.Lambda):
        return False
    for caller, call in (*_calls_by_callee(model).get(scope, ()), *_object_calls_by_callee(model).get(scope, ())):
        if caller.in_traced:
            continue
        if in_loop(call) or (caller.is_function and runs_in_loop(caller, model, depth - 1)):
            return True
    return False


def _object_calls_by_callee(model: SemanticModel) -> dict[Scope, list[tuple[Scope, ast.Call]]]:
    """The module's calls `obj.method(...)` of its own classes' methods through an object
    (model.method_scope), by the method's scope; kept on the model."""
    index = model.__dict__.get("_object_calls_by_callee")
    if index is None:
        index = {}
        if model.class_methods:
            for caller in model.scopes:
                for call in caller.calls:
                    if call.func.__class__ is ast.Attribute:
                        method = model.method_scope(call.func)
                        if method is not None:
                            index.setdefault(method, []).append((caller, call))
        model._object_calls_by_callee = index
    return index


def calls_in_host_loops(scope: Scope, model: SemanticModel) -> list[ast.Call]:
    """The calls of this module's function `scope` that sit in a loop (or comprehension) of code that
    runs on the host, on evidence (semantic/host_code.py: module-level code, or a function that host
    code reaches or that does host-only work; a library helper's loop may be traced by a caller in
    another module): each such call runs the function once per iteration. A call after which the code
    leaves the loop (`return retry(...)` on divergence: flow.leaves_its_loops) runs at most once per
    run of the loop, not per iteration: it is not one."""
    from jaxlint.semantic.flow import leaves_its_loops
    from jaxlint.semantic.host_code import runs_on_host

    return [
        call for caller, call in _calls_by_callee(model).get(scope, ())
        if not caller.in_traced and in_loop(call) and not leaves_its_loops(call) and runs_on_host(caller, model)
    ]


def _calls_by_callee(model: SemanticModel) -> dict[Scope | None, list[tuple[Scope, ast.Call]]]:
    """The module's calls of its own functions, by the callee's scope, in the module's order:
    resolved once per module (kept on the model), not once per question."""
    index = model.__dict__.get("_calls_by_callee")
    if index is None:
        index = {}
        for caller in model.scopes:
            for call in caller.calls:
                resolved = model.resolve_function(call.func, caller)
                if resolved is not None:
                    index.setdefault(resolved[0], []).append((caller, call))
        model._calls_by_callee = index
    return index


def runs_repeatedly(node: ast.AST, model: SemanticModel) -> bool:
    """`node` is evaluated many times: inside a loop, or in a function called inside a loop."""
    if in_loop(node):
        return True
    return function_called_in_loop(model.scope_for(node), model)


def bound_value_called_repeatedly(value: ast.AST, model: SemanticModel) -> bool:
    """`f = <value>` then `f(...)` inside a loop, or in a function called inside a loop."""
    parent = parent_of(value)
    if not (isinstance(parent, ast.Assign) and parent.value is value and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    owner = model.scope_for(value)
    for scope in model.scopes:
        current: Scope | None = scope
        while current is not None and current is not owner:
            if name in current.local_names:
                break
            current = current.parent
        if current is not owner:
            continue  # the name means something else there
        if scope.in_traced:
            continue  # called inside traced code: compiled into the caller's program, not called from Python
        for call in scope.calls:
            if isinstance(call.func, ast.Name) and call.func.id == name and runs_repeatedly(call, model):
                return True
    return False


# Run-once facts: evidence that a function body (or one statement of it) runs once per process or
# per object, so a callable it builds and compiles is compiled once. The rules combine them with the
# visible callers of the function (`function_called_in_loop` wins over all of them but the guard).

_INITIALISER_NAME = re.compile(r"(^|_)(init|initiali[sz]e)(_|$)|^init_|_init$|^init$")
_ENTRY_RUNNERS = frozenset({"absl.app.run", "app.run", "fire.Fire", "jax.distributed.initialize"})


def _guarded_targets(test: ast.expr) -> list[str]:
    """`X is None`, `not X`, or a conjunction holding one (`in_review and not built`): the dotted
    names the guard waits to be set (once one is, the whole test is false)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [target for operand in test.values for target in _guarded_targets(operand)]
    target = _guarded_target(test)
    return [target] if target is not None else []


def _guarded_target(test: ast.expr) -> str | None:
    """`X is None` (or `not X`): the dotted name X the guard waits to be set."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is):
        right = test.comparators[0]
        if isinstance(right, ast.Constant) and right.value is None:
            return dotted(test.left)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return dotted(test.operand)
    return None


def _assigns(statements: list[ast.stmt], target: str) -> bool:
    """Some statement (outside nested functions) binds the dotted name `target`."""
    for statement in statements:
        for node in walk(statement):
            if isinstance(node, (*FUNCTION_NODES, ast.ClassDef)):
                continue
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets = [node.target]
            for each in targets:
                for leaf in walk(each):
                    if isinstance(leaf, (ast.Name, ast.Attribute)) and dotted(leaf) == target:
                        return True
    return False


def lazily_initialised(node: ast.AST, within: ast.AST | None = None) -> bool:
    """`node` runs only while `X is None` (or `not X`, alone or in a conjunction), and that branch
    sets X (lazy initialisation, also of a loop's first pass through a branch:
    `if self._params is None: ...; self._params = init(...)`), so it runs once per object or process.
    A guard whose branch never sets X runs every time it is reached. With `within` (a loop), only
    guards inside it count: the node runs on one pass of that loop."""
    child = node
    current = parent_of(node)
    while current is not None and not isinstance(current, (*FUNCTION_NODES, ast.ClassDef)) and current is not within:
        if isinstance(current, ast.If) and any(child is statement for statement in current.body):
            if any(_assigns(current.body, target) for target in _guarded_targets(current.test)):
                return True
        child = current
        current = parent_of(current)
    if within is not None:
        return False
    function = current
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    # `if X is not None: return X` early in the body, then the body sets X.
    for statement in function.body:
        if statement is child:
            break
        if (
            isinstance(statement, ast.If)
            and isinstance(statement.test, ast.Compare)
            and len(statement.test.ops) == 1
            and isinstance(statement.test.ops[0], ast.IsNot)
            and isinstance(statement.test.comparators[0], ast.Constant)
            and statement.test.comparators[0].value is None
            and statement.body
            and isinstance(statement.body[-1], ast.Return)
        ):
            target = dotted(statement.test.left)
            if target is not None and _assigns(function.body, target):
                return True
    return False


def runs_once_initialiser(scope: Scope, model: SemanticModel) -> bool:
    """A function named as an initialiser (`init_params`, `initialize`, `build_init`) that no loop of
    the module is seen calling: it runs once per model or process, so a loop in it (over the layers
    it builds) runs once too."""
    return scope.is_function and bool(_INITIALISER_NAME.search(scope.name)) and not function_called_in_loop(scope, model)


def builds_its_class_once(scope: Scope, model: SemanticModel) -> bool:
    """An alternative constructor no loop of the module calls: a class's `@classmethod` or
    `@staticmethod` that builds an instance of that class (`cls(...)`, or the class by name) and
    returns it (`Net.load_pretrained(path)` filling layer after layer). It runs once per object, so a
    loop in it (over the layers it fills) is setup, not a per-step cost."""
    node = scope.node
    owner = scope.class_node
    if owner is None or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    kinds = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
    if not kinds & {"classmethod", "staticmethod"}:
        return False
    names = {owner.name}
    if "classmethod" in kinds and node.args.args:
        names.add(node.args.args[0].arg)
    built = {
        target.id
        for each in walk(node) if isinstance(each, ast.Assign) and isinstance(each.value, ast.Call)
        and isinstance(each.value.func, ast.Name) and each.value.func.id in names
        for target in each.targets if isinstance(target, ast.Name)
    }
    returns_one = any(
        isinstance(each, ast.Return) and each.value is not None and (
            (isinstance(each.value, ast.Name) and each.value.id in built)
            or (isinstance(each.value, ast.Call) and isinstance(each.value.func, ast.Name) and each.value.func.id in names)
        )
        for each in walk(node)
    )
    if not returns_one or function_called_in_loop(scope, model):
        return False
    # `Net.load(path)` inside a loop of the module (a call through the class or an instance that the
    # callers index does not resolve): then it builds per iteration.
    return not any(in_loop(call) for call in model.calls_by_name().get(scope.name, ()) if isinstance(call.func, ast.Attribute))


def classmethod_constructor(scope: Scope) -> bool:
    """A `@classmethod` that builds an instance with `cls(...)`: an alternative constructor, once per object."""
    node = scope.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope.class_node is None or not node.args.args:
        return False
    if not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list):
        return False
    first = node.args.args[0].arg
    return any(isinstance(each, ast.Call) and isinstance(each.func, ast.Name) and each.func.id == first for each in walk(node))


def framework_entry_point(scope: Scope, model: SemanticModel) -> bool:
    """A module-level function the module hands to a runner that calls it once (`app.run(main)`,
    `fire.Fire(main)`), outside any loop."""
    if not scope.is_function or scope.parent is None or scope.parent.is_function or scope.class_node is not None:
        return False
    name = scope.name
    for runner in ("run", "Fire"):
        for call in model.calls_by_name().get(runner, ()):
            if in_loop(call) or model.scope_for(call).is_function:
                continue
            qualified = model.qualified_name(call.func)
            if (qualified in _ENTRY_RUNNERS or dotted(call.func) in _ENTRY_RUNNERS) and any(
                isinstance(arg, ast.Name) and arg.id == name for arg in call.args[:1]
            ):
                return True
    return False


def initialiser_name(name: str) -> bool:
    """A function named as an initialiser (`init`, `init_fn`, `_init`, `initialize_state`)."""
    return bool(_INITIALISER_NAME.search(name))


def builds_initialiser(wrapped: ast.expr, jit_call: ast.Call, scope: Scope, model: SemanticModel) -> bool:
    """The compiled callable initialises state: it wraps an `init` (`model.init`, a nested
    `def init_fn`, a lambda calling `.init(...)`) and its result is bound once (`params = pjit(init_fn)(key)`
    or returned). Initialisation runs once per model, unless a loop is seen calling the function."""
    callee: ast.AST | None = None
    if isinstance(wrapped, ast.Lambda):
        callee = wrapped.body.func if isinstance(wrapped.body, ast.Call) else None
    elif isinstance(wrapped, ast.Call) and wrapped.args:  # partial(init_fn, ...)
        callee = wrapped.args[0]
    else:
        callee = wrapped
    name = callee.attr if isinstance(callee, ast.Attribute) else callee.id if isinstance(callee, ast.Name) else None
    if name is None or not _INITIALISER_NAME.search(name):
        return False
    call = parent_of(jit_call)
    if not (isinstance(call, ast.Call) and call.func is jit_call):
        return False
    holder = parent_of(call)
    if isinstance(holder, ast.Call):  # freeze(pjit(init)(key)), jax.device_get(...)
        holder = parent_of(holder)
    if not isinstance(holder, (ast.Assign, ast.AnnAssign, ast.Return)):
        return False
    return not function_called_in_loop(scope, model)


def iteration_count(iterable: ast.expr, scope: Scope, model: SemanticModel) -> int | None:
    """How many times a `for` loop over `iterable` runs, where the source fixes it: `range(...)` of
    literals, module constants or parameter defaults that no visible call overrides (`def main(steps=20)`
    called as `main()`), a literal list or tuple, a slice `xs[:8]`, and `enumerate`/`zip` of those
    (`zip` stops at its shortest known argument). None when the source does not fix it."""
    if isinstance(iterable, (ast.List, ast.Tuple)):
        return None if any(isinstance(e, ast.Starred) for e in iterable.elts) else len(iterable.elts)
    if isinstance(iterable, ast.Name) and iterable.id in scope.param_nodes:
        # `def show(indices): for i in indices:` called as `show([0, 500, 600])`: what the calls pass.
        active = model.__dict__.setdefault("_jaxlint_passed_active", set())
        key = (id(scope), iterable.id)
        if key in active:
            return None  # a recursive call hands the parameter on
        active.add(key)
        try:
            return _passed_value(iterable.id, scope, model, lambda passed, where: iteration_count(passed, where, model))
        finally:
            active.discard(key)
    if isinstance(iterable, ast.Subscript) and isinstance(iterable.slice, ast.Slice):
        piece = iterable.slice
        if piece.step is not None or piece.upper is None:
            return None
        upper = _int_in_scope(piece.upper, scope, model)
        lower = 0 if piece.lower is None else _int_in_scope(piece.lower, scope, model)
        return None if upper is None or lower is None or not 0 <= lower <= upper else upper - lower
    if isinstance(iterable, ast.Call) and iterable.args:
        progress = model.qualified_name(iterable.func) or ""
        if progress in PROGRESS_BARS:
            return iteration_count(iterable.args[0], scope, model)  # `tqdm(range(n))`: a bar over what it wraps
        if progress in _PROGRESS_RANGES:
            return iteration_count(ast.Call(ast.Name("range", ast.Load()), iterable.args, []), scope, model)
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.args):
        return None
    name = iterable.func.id
    if name == "enumerate":
        return iteration_count(iterable.args[0], scope, model)
    if name == "zip":
        counts = [count for count in (iteration_count(a, scope, model) for a in iterable.args) if count is not None]
        return min(counts) if counts else None
    if name == "range" and not iterable.keywords and len(iterable.args) <= 3:
        return range_length(iterable.args, lambda argument: _int_in_scope(argument, scope, model))
    return None


def range_length(arguments, bound_value) -> int | None:
    """How many numbers `range(*arguments)` yields, each bound read by `bound_value` (None: unknown)."""
    bounds = [bound_value(argument) for argument in arguments]
    if None in bounds:
        return None
    try:
        return len(range(*bounds))
    except (TypeError, ValueError):
        return None


# Progress bars that iterate their first argument (`tqdm(range(n))`, rich's `track(range(n), description=...)`).
PROGRESS_BARS = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm", "rich.progress.track"})
_PROGRESS_RANGES = frozenset({"tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange"})


def iterates_counter(iterable: ast.expr, model: SemanticModel) -> bool:
    """`range(...)`, `enumerate(range(...))`, a progress bar over a range (`tqdm(range(n))`, `trange(n)`),
    also through a name bound once to one (`bar = tqdm(range(n))`): a loop that counts iterations, not
    one that iterates host data. A name bound more than once means the binding that reaches the loop
    (`bar = tqdm(range(n))` in each of two notebook cells); a function of another project module whose
    every return is one of these counts too (heavy_steps.counts_iterations)."""
    scope = model.scope_for(iterable)
    bound = single_binding(iterable, scope)
    if bound is iterable and isinstance(iterable, ast.Name):
        from jaxlint.semantic.flow import value_at_read

        reaching = value_at_read(iterable, scope, model, in_line_order=True)
        bound = reaching[1] if reaching is not None else iterable
    iterable = bound
    if isinstance(iterable, ast.Call) and heavy_steps.counts_iterations(iterable, model):
        return True  # `pbar = make_progress(num_iters, verbose)` of another module: a bar or a range by verbosity
    while isinstance(iterable, ast.Call) and iterable.args and (
        model.qualified_name(iterable.func) in ("builtins.enumerate", *PROGRESS_BARS)
    ):
        iterable = iterable.args[0]
    return isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) in ("builtins.range", *_PROGRESS_RANGES)


def _passed_value(name: str, scope: Scope, model: SemanticModel, measure) -> int | None:
    """The largest `measure(expression, scope)` over what parameter `name` of the function `scope`
    can hold: its default, if it has one, and what each visible call passes (each must pass
    something measurable or leave the default). None when any is unknown or nothing is visible."""
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    default = parameter_defaults(function.args).get(name)
    calls = model.calls_by_name().get(function.name, ())
    if not calls and default is None:
        return None
    definition_scope = model.scope_for(function)
    passed_by_call = passed_to_parameter(calls, function, name)
    if passed_by_call is None:
        return None
    values = []
    for call, passed in zip(calls, passed_by_call):
        if passed is None and default is None:
            return None
        if passed is not None:
            values.append(measure(passed, model.scope_for(call)))
    if default is not None:
        # The default is what the function is written for (`steps_per_epoch=1000`), whatever a smoke
        # run in its own module passes (`train(cfg, steps_per_epoch=10)`).
        values.append(measure(default, definition_scope))
    return None if not values or None in values else max(values)


def _int_in_scope(node: ast.expr, scope: Scope, model: SemanticModel) -> int | None:
    """A literal, a constant, or a parameter of the enclosing function, as large as it gets: its
    default, if it has one, and what each visible call passes, when each passes a constant or leaves
    the default (`optimize(num_steps=15)` in a later notebook cell). An upper bound, for "how many
    times at most"."""
    evaluator = model.constant_evaluator()
    found = evaluator.int_value(node, scope)
    if found is not None or not isinstance(node, ast.Name) or node.id not in scope.param_nodes:
        return found
    return _passed_value(node.id, scope, model, lambda passed, where: _int_where_read(passed, where, model))


def _int_where_read(node: ast.expr, scope: Scope, model: SemanticModel) -> int | None:
    """An integer the source fixes where `node` is read: a constant, or a name whose binding standing
    there (flow.value_at_read, in the module's line order: `steps = 15` in each of two notebook cells,
    read by the call in the later one) is one."""
    found = model.constant_evaluator().int_value(node, scope)
    if found is not None or not isinstance(node, ast.Name):
        return found
    from jaxlint.semantic.flow import value_at_read

    reaching = value_at_read(node, scope, model, in_line_order=True)
    return model.constant_evaluator().int_value(reaching[1], reaching[0]) if reaching is not None else None


ENTRY_POINT_NAMES = re.compile(r"^(main|_main|run|app)$")


def runs_whole_run(scope: Scope, model: SemanticModel) -> bool:
    """The function's own body has a loop that calls compiled code, directly or through a local helper
    (`for it in range(n): state = run_epoch(state)` with `run_epoch` calling a pmapped step): one call
    of it is a whole training or evaluation run."""
    from jaxlint.semantic.flow import walk_same_scope

    if runs_training_loop(scope, model):
        return True
    for node in walk_same_scope(scope.node):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and not one_step_loop(node, model):
            if any(isinstance(call, ast.Call) and runs_compiled(call, model) for call in loop_body(node, nested=True)):
                return True
    return False


def runs_device_loop_per_call(scope: Scope, model: SemanticModel) -> bool:
    """The function's own body (not traced) runs a `lax` loop (`scan`, `fori_loop`, `while_loop`) outside
    `jit`: every call traces that loop's body and compiles it again, so one call is a whole run of
    device iterations (`carry = jax.lax.scan(self.step, init, xs)` in a `train(self, rng)`)."""
    from jaxlint.semantic.flow import walk_same_scope

    if not scope.is_function or scope.in_traced:
        return False
    return any(
        isinstance(node, ast.Call) and model.qualified_name(node.func) in _LAX_LOOPS
        for node in walk_same_scope(scope.node)
    )


# A function whose name gives it the role of setting up state once per object or per run: an
# initialiser (`initialize`, `init_state`, `initialization`, `setup`), a restore from saved state or
# an alternate construction from a source (`restore_checkpoint`, `from_restart_file`, `from_config`).
_SETUP_ROLE_NAME = re.compile(r"^_*(init|initiali[sz]e|initiali[sz]ation|setup|set_up|restore|from)(_|$)|_init$")


def setup_by_role(scope: Scope) -> bool:
    """The function initialises, restores or builds from a source by its name (see `_SETUP_ROLE_NAME`):
    it runs once per object or per run, unless a caller is seen running it repeatedly."""
    return scope.is_function and bool(_SETUP_ROLE_NAME.search(scope.name))


def runs_once_per_program(scope: Scope, model: SemanticModel) -> bool:
    """Code that runs once per program or per run, told from the function itself: module-level code,
    an entry point (`main`, `run`, `app`, or handed to `app.run`), or a function whose own loop runs a
    whole training or evaluation run."""
    if not scope.is_function:
        return not scope.in_traced
    if scope.parent is not None and scope.parent.parent is None and ENTRY_POINT_NAMES.match(scope.name):
        return True
    return framework_entry_point(scope, model) or runs_whole_run(scope, model)


_SHOWING_CALLS = frozenset({"builtins.print", "IPython.display.display"})


def shows_every_iteration(loop: ast.AST, scope: Scope, model: SemanticModel) -> bool:
    """An inspection loop: on every iteration (not under a branch of it), it prints a device value
    that the iteration computed (`xt = step(xt); print("xt", xt)`). The host waits for each result and
    formats it by design; the loop cannot move under `lax.fori_loop` without losing its output."""
    values: LoopValues | None = None
    for node in loop_body(loop):
        if not (isinstance(node, ast.Call) and node.args and model.qualified_name(node.func) in _SHOWING_CALLS):
            continue
        if under_loop_branch(node, loop, try_blocks=True):
            continue  # (a print a `try` guards may be skipped too: not shown every iteration)
        if values is None:
            values = LoopValues(loop, scope, model)
            produced = assigned_in_loop(loop)
        for shown in node.args:
            for name in walk(shown):
                if isinstance(name, ast.Name) and name.id in produced and values.is_device(name):
                    return True
    return False


_BRANCHES = (ast.If, ast.IfExp, ast.ExceptHandler, ast.BoolOp)


def under_loop_branch(node: ast.AST, loop: ast.AST, try_blocks: bool = False) -> bool:
    """Inside an `if`, a conditional expression, a boolean operator or an exception handler of the
    loop's body (with `try_blocks`, anywhere in a `try` statement): it may not run every iteration."""
    branches = (*_BRANCHES, ast.Try) if try_blocks else _BRANCHES
    parent = parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, branches):
            return True
        parent = parent_of(parent)
    return False



def _empty_container(value, model: SemanticModel) -> bool:
    """`{}`, `[]`, `dict()`, `list()`, `defaultdict(float)`, or a display of numeric starts (`{"loss": 0.0}`)."""
    if isinstance(value, (ast.Dict, ast.List)):
        elements = value.values if isinstance(value, ast.Dict) else value.elts
        return all(isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool) for e in elements) \
            and (not isinstance(value, ast.Dict) or None not in value.keys)
    if isinstance(value, ast.Call) and not value.keywords:
        qualified = model.qualified_name(value.func)
        if qualified in ("builtins.dict", "builtins.list") and not value.args:
            return True
        if qualified == "collections.defaultdict" and len(value.args) <= 1:
            return not value.args or (isinstance(value.args[0], ast.Name) and value.args[0].id in ("float", "int", "list"))
    return False


def opaque_state_step(call: ast.Call, model: SemanticModel) -> bool:
    """A call that steps state the loop carries (`state, stats, rng = step(rng, state, batch)`: it is
    handed a name its own statement rebinds) through a callable another module of the project makes
    (`step = make_step(...)` or an element of the tuple `setup_model(...)` returns, with the maker
    in another module): the model does not read what the maker returns, so the call may well be the
    compiled step. The loop's work is then that call, of unknown kind: the eager operations beside it
    are not shown to be the loop's work. (A callable of this module, a parameter, or one named by an
    import is decided by what jaxlint knows of it.)"""
    from jaxlint.semantic.model import parent_of

    func = call.func
    if not isinstance(func, ast.Name):
        return False
    if not rebinds_handed(parent_of(call), call):
        return False
    scope = model.scope_for(call)
    return _made_by_other_module(func.id, scope, model, 0)


def _made_by_other_module(name: str, scope: Scope, model: SemanticModel, depth: int) -> bool:
    """Every binding of `name` in `scope` is the result of a call of another project module's function,
    or unpacks a name so bound (`setup = utils.setup(...)`, then `a, step = setup`)."""
    from jaxlint.semantic.flow import target_names

    if depth > 3 or name in scope.param_nodes:
        return False
    project = model.project
    values = [value for target, value in scope.bindings if name in target_names(target)]
    if not values or project is None:
        return False
    for value in values:
        while isinstance(value, ast.Subscript):
            value = value.value  # (`setup(...)[1]`: an element of what the call returns)
        if isinstance(value, ast.Name):
            if not _made_by_other_module(value.id, scope, model, depth + 1):
                return False
            continue
        if not isinstance(value, ast.Call):
            return False
        qualified = model.qualified_name(value.func)
        module_name, _, function = (qualified or "").rpartition(".")
        summary = project.module(module_name) if module_name else None
        if summary is None or function not in summary.public_names or function in summary.classes:
            return False  # (not another module of the project; a class builds an object, not a step)
    return True


def unrolled_training_steps(function: Scope, model: SemanticModel) -> ast.AST | None:
    """A Python `for` in the body of the compiled `function` (unrolled when it is traced: one program
    holds every iteration) that runs a training step on each iteration: a call whose program takes the
    gradient of a loss (`jax.grad`, `value_and_grad`, also through a jitted step of the module) and
    whose statement rebinds what it hands the call (`loss, state, opt = step(x[i], y[i], state, opt)`:
    the parameters carried from one step to the next). One call of `function` is then a chunk of that
    many optimizer steps, as a `lax.fori_loop` of them is, where the chunk is many steps: a count the
    source fixes above a handful (`range(64)`, a parameter every visible call fills with 64), or a
    count it does not fix while each iteration takes its own batch by the loop's counter (`x[i]`,
    stacked batches). Not gradient accumulation (the step's result is summed, the parameters updated
    after the loop: nothing rebound), nor a few adaptation steps of a meta-learner (`range(5)`, or an
    unknown count over the same batch). Returns the loop, or None. Memoised per model."""
    memo = model.__dict__.setdefault("_unrolled_training_steps_memo", {})
    key = id(function.node)
    if key not in memo:
        memo[key] = _unrolled_training_steps(function, model)
    return memo[key]


def _unrolled_training_steps(function: Scope, model: SemanticModel) -> ast.AST | None:
    for node in walk(function.node):
        if not isinstance(node, ast.For) or model.scope_for(node) is not function:
            continue
        bounds = _range_stop(node.iter, model)
        if bounds is None:
            continue
        count = _int_in_scope(bounds, function, model)
        if count is not None and count <= heavy_steps.HANDFUL:
            continue
        counter = node.target.id if isinstance(node.target, ast.Name) else None
        if count is None and (counter is None or not _indexes_by(node, counter)):
            continue
        for statement in node.body:
            call = getattr(statement, "value", None)
            if not isinstance(call, ast.Call):
                continue
            if not rebinds_handed(statement, call):
                continue
            resolved = model.resolve_function(call.func, function) if isinstance(call.func, ast.Name) else None
            callee = resolved[0] if resolved is not None else None
            if callee is None:
                binding = model.jit_binding_for_call(call)
                callee = binding.function if binding is not None else None
            if callee is not None and solve_inside_step(calls_reached(callee, model, 2), model):
                return node
    return None


def _range_stop(iterable: ast.expr, model: SemanticModel) -> ast.expr | None:
    """The stop of `range(stop)` or `range(0, stop)` (a count of steps), or None."""
    if not (isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) == "builtins.range") or iterable.keywords:
        return None
    if len(iterable.args) == 1:
        return iterable.args[0]
    if len(iterable.args) == 2 and isinstance(iterable.args[0], ast.Constant) and iterable.args[0].value == 0:
        return iterable.args[1]
    return None


def _indexes_by(loop: ast.For, counter: str) -> bool:
    """The loop's body indexes something by its counter (`x[i]`, `x[i, ...]`): each iteration takes its
    own slice of stacked data."""
    for node in walk(loop):
        if isinstance(node, ast.Subscript):
            index = node.slice
            parts = index.elts if isinstance(index, ast.Tuple) else [index]
            if parts and isinstance(parts[0], ast.Name) and parts[0].id == counter:
                return True
    return False
