"""JAX401's fix: add `donate_argnums`/`donate_argnames` to the jit (decorator, call or partial form),
merging with existing options, only when every call site in the module rebinds the argument.

`fix_for` returns a Fix, a string saying why no fix is offered, or None. The fix is unsafe (see the
rule's "Fix safety"): a donated input is deleted by the call, so any later read of the old value raises.

Donation is offered only when, at every call site, the donated value is provably owned by the code
that calls and dead after the call:
- owned: a local name (not a parameter of the enclosing function, whose caller still holds the
  array; not an attribute or a global, which other code may hold) whose every binding before the
  call is a fresh value (a call result or arithmetic), not another name, attribute or item, and not
  built from a name that is read after the call (`state = create(params=params)` shares `params`),
  nor from a parameter of the enclosing function by a call not shown to return new buffers (`state =
  init(params)` with an `init` nothing models may hold the caller's arrays);
  which calls return fresh buffers and which may return their input's arrays comes from the library
  models (semantic/library_models/): `jax.random` draws, `jnp.zeros_like`, `model.init(key, x)`, an
  optax `init` and `jax.tree.map` of arithmetic are fresh, and a key they draw from, an imported
  module, argparse `args` or a `NamedSharding` share nothing with them; `jnp.asarray` of an array,
  `device_put` of a placed array and the `init` of `jax.example_libraries.optimizers` return their
  argument's arrays, and the reason given names that alias (a parameter of the enclosing function
  is still its caller's); a call of a project function, method or record class whose every return
  value is fresh (semantic/fresh_values.py: `init_adam(params)` returning `jax.tree.map(jnp.zeros_like,
  params)`, through any number of project calls and modules) shares nothing with its arguments;
  a binding replaced before the call by a fresh copy in the same block (`state = replicate(state)`,
  `jnp.copy`) no longer counts, nor does an imported module or a parameter annotated as a string,
  number, path or config dict (`workdir: str`);
- dead: the call rebinds it, it is passed once, no other name is bound to it, and no part of it read
  out by attribute, item or a call not known to compute (`getter(state, "scale")`) is kept past the
  next call: appended to a history, stored in a dict or on an object, or bound to a name read after
  the call (a host copy, arithmetic, a derivative or a network's output is computed, not a part);
- one buffer per position: a state built by repetition (`[x] * n`, `[entry for _ in range(n)]`)
  holds one array several times, and XLA rejects a buffer donated twice in one call.

Forms handled:
- `@jax.jit` becomes `@jax.jit(donate_argnums=(0,))` (the decorator-factory form, jax >= 0.4.36)
  where the project states it needs jax 0.4.36 or newer; otherwise (an older pin, or no pin at all,
  fixes/versions.py), and for `@jax.pmap`, which has no factory form, it becomes
  `@functools.partial(jax.jit, donate_argnums=(0,))`, which every JAX runs.
- `@jax.jit(...)`, `@partial(jax.jit, ...)`, `jax.jit(f, ...)`: the option is appended after the last
  argument (a trailing comma or comment stays where it was), or merged into an existing literal
  `donate_argnums`/`donate_argnames` value.
"""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit
from jaxlint import fixes
from jaxlint.fixes import versions
from jaxlint.semantic import effects, fresh_values, jaxapi, library_models
from jaxlint.semantic.arrays import is_jax_array_call
from jaxlint.semantic.bindings import owning_scope
from jaxlint.semantic.flow import dotted_name, enclosing_loops, target_elements, walk_same_scope
from jaxlint.semantic.liveness import read_after
from jaxlint.semantic.model import argument, literal_tuple, parent_of, is_within


def fix_for(call, binding, donated, context):
    """Donate every argument of `donated` ([(position, keyword), ...]: a position, or a keyword for an
    argument passed by name), all or nothing. A string says why no fix is offered."""
    keywords = [keyword for _, keyword in donated if keyword is not None]
    if keywords and len(keywords) != len(donated):
        return None  # some by position, some by name: two options to edit at once
    if keywords and binding.transform == "jax.pmap":
        return None  # `jax.pmap` has no `donate_argnames`, and `donate_argnums` does not donate a keyword argument
    option = "donate_argnums" if not keywords else "donate_argnames"
    if keywords and not versions.supports(context, versions.DONATE_ARGNAMES):
        return None  # `donate_argnames` arrived in jax 0.4.14
    values = []
    for position, keyword in donated:
        if keyword is None and position is None:
            return None
        sites = _call_sites(call, binding, position, keyword, context)
        if sites is None:
            return None
        for site in sites:
            reason = _ownership_problem(site, binding, position, keyword, context)
            if reason:
                if site is not call:
                    # (the fix edits the shared `jit`, so every call site must own what it donates)
                    reason = f"at its call on line {site.lineno}, {reason}"
                return f"no automatic fix: {reason}"
        if keyword is None and binding.via_decorator and binding.function is not None and binding.function.has_self:
            # `@jax.jit` on a method wraps the plain function: `self` is argument 0 of what jit sees.
            position += 1
        values.append(position if keyword is None else keyword)
    values = tuple(values)
    node = binding.node
    if isinstance(node, ast.Call) and _jit_call_of(node, binding, context):
        edits = _add_option(node, option, values, context)
    elif binding.via_decorator:
        edits = _decorate(node, binding, option, values, context)
    else:
        return None
    if not edits:
        return None
    described = f"{option}={tuple_literal(values)}"
    noun = "argument" if len(values) == 1 else "arguments"
    return context.fix(f"Donate the {noun}: add `{described}` to the `{binding.transform.rsplit('.', 1)[-1]}`", edits, safe=False)


def _jit_call_of(node: ast.Call, binding, context) -> bool:
    """`jax.jit(f, ...)`, `jax.jit(...)` as a decorator factory, or `partial(jax.jit, ...)`."""
    if context.model.transform_of(node.func) is not None:
        return True
    return context.qualified_name(node.func) == "functools.partial" and bool(node.args) and context.model.transform_of(node.args[0]) is not None


def _add_option(node: ast.Call, option: str, values: tuple, context) -> list[Edit] | None:
    for item in node.keywords:
        if item.arg is None:
            return None  # `**options`: we cannot tell what is already donated
        if item.arg == option:
            existing = literal_tuple(item.value)
            if existing is None:
                return None
            added = tuple(value for value in values if value not in existing)
            if not added:
                return None
            merged = tuple(existing) + added
            if all(isinstance(v, int) for v in merged):
                merged = tuple(sorted(merged))
            return [context.replace(item.value, tuple_literal(merged))]
    last = [*node.args, *node.keywords]
    text = f"{option}={tuple_literal(values)}"
    if not last:
        # `@jax.jit()`: insert between the parentheses.
        end = context.source.end(node)
        start = context.source.position(context.source.offset(end) - 1)
        return [Edit(text, start, start)]
    anchor = context.source.end(last[-1])
    return [Edit(f", {text}", anchor, anchor)]


def _decorate(decorator: ast.expr, binding, option: str, values: tuple, context) -> list[Edit] | None:
    if not isinstance(decorator, (ast.Name, ast.Attribute)):
        return None
    text = f"{option}={tuple_literal(values)}"
    if binding.transform == "jax.jit" and versions.stated_at_least(context, versions.JIT_DECORATOR_FACTORY):
        return [context.replace(decorator, f"{context.text(decorator)}({text})")]
    partial, import_edits = fixes.reference(context, "functools.partial")
    if not partial:
        return None
    return [context.replace(decorator, f"{partial}({context.text(decorator)}, {text})"), *import_edits]


def tuple_literal(values: tuple) -> str:
    """`(0,)`, `(0, 1)`, `('state',)`: an option's value as the source spells it."""
    inner = ", ".join(repr(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def _call_sites(call: ast.Call, binding, position, keyword, context) -> list[ast.Call] | None:
    """Every call of the jitted name in the module, when each one rebinds this argument; else None."""
    if binding.key == "<inline>":
        return [call] if _rebinds(call, position, keyword, binding) else None
    sites: list[ast.Call] = []
    model = context.model
    for node in _references(binding.key, model):
        if isinstance(node, ast.Name) and binding.owner is not None and owning_scope(model, node.id, model.scope_for(node)) is not binding.owner:
            continue  # the same name bound elsewhere (`step` local to another function): another callable
        parent = parent_of(node)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            continue  # the binding itself
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            continue
        if not (isinstance(parent, ast.Call) and parent.func is node):
            return None  # passed around or stored: calls elsewhere could read the donated value
        if not _rebinds(parent, position, keyword, binding):
            return None
        sites.append(parent)
    return sites or None


def _references(key: str, model) -> list[ast.AST]:
    """Every `name` (or `self.attr`, for a key `self.attr`) in the module, in source order: read from
    the model's list of nodes, which one walk of the tree already built."""
    if key.startswith("self."):
        attr = key[5:]
        found = [
            node for node in model.nodes
            if node.__class__ is ast.Attribute and node.attr == attr and node.value.__class__ is ast.Name and node.value.id == "self"
        ]
    else:
        found = [node for node in model.nodes if node.__class__ is ast.Name and node.id == key]
    found.sort(key=lambda node: (node.lineno, node.col_offset))
    return found


def _donated_argument(call: ast.Call, position, keyword, binding) -> ast.expr | None:
    parameter = None
    if keyword is None and binding.param_names is not None and position < len(binding.param_names):
        parameter = binding.param_names[position]
    value = argument(call, position if keyword is None else None, keyword or parameter)
    if value is None and keyword is not None and binding.param_names is not None and keyword in binding.param_names:
        value = argument(call, binding.param_names.index(keyword), None)
    return value


def _rebinds(call: ast.Call, position, keyword, binding) -> bool:
    value = _donated_argument(call, position, keyword, binding)
    key = dotted_name(value) if value is not None else None
    if key is None:
        return False
    statement = parent_of(call)
    if isinstance(statement, ast.Assign) and statement.value is call:
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is call:
        targets = [statement.target]
    else:
        return False
    return key in {dotted_name(element) for target in targets for element in target_elements(target)}


# ----- owned and dead after the call ---------------------------------------------------------------


def _ownership_problem(call: ast.Call, binding, position, keyword, context) -> str | None:
    """Why donating this call's argument could delete an array someone else still holds, or None."""
    value = _donated_argument(call, position, keyword, binding)
    key = dotted_name(value)
    if not isinstance(value, ast.Name):
        return f"`{key}` is an attribute or item, and other code may hold the same arrays"
    name = value.id
    passed = [a for a in [*call.args, *(k.value for k in call.keywords)] if isinstance(a, ast.Name) and a.id == name]
    if len(passed) > 1:
        return f"`{name}` is passed more than once, and a donated buffer cannot be read by the same call"
    statement = parent_of(call)
    scope = context.scope(call)
    if name in scope.declared_free:
        return f"`{name}` is a global or nonlocal name, and other code may hold it"
    if scope.is_function and name not in scope.local_names:
        return f"`{name}` belongs to an enclosing scope, which still holds it"
    if name in scope.param_nodes and not _rebound_fresh_before(name, statement, scope, context):
        return f"`{name}` is a parameter of `{scope.name}`: its caller still holds the array that donation would delete"
    reaching = _bindings_before(name, statement, scope, context)
    copied_at = max((bound.lineno for _, bound in reaching if _fresh_copy_before(bound, statement, context)), default=0)
    for target, bound in reaching:
        if bound is statement:
            continue  # the loop-carried rebinding by this very call
        if bound.lineno < copied_at:
            continue  # replaced by a fresh copy before the call (`state = replicate(state)`): what it was built from is not shared
        if isinstance(bound, ast.AugAssign):
            continue
        expression = bound.value if isinstance(bound, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) else None
        if expression is None and not isinstance(bound, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            return f"`{name}` is bound by `{type(bound).__name__.lower()}`, so jaxlint cannot show the arrays are not shared"
        if expression is None:
            continue
        if _repeats_one_value(expression):
            return (f"`{name}` holds the same arrays more than once (`{context.text(expression)}`), and XLA rejects a buffer "
                    "donated twice in one call: the first call would fail")
        number = expression.operand if isinstance(expression, ast.UnaryOp) else expression
        if isinstance(number, ast.Constant) and isinstance(number.value, (int, float, complex)):
            return f"`{name}` starts as a Python number, which has no device buffer to donate"
        if isinstance(expression, (ast.Name, ast.Attribute, ast.Subscript)):
            return f"`{name}` is bound to `{dotted_name(expression) or 'a part of another value'}`, which may still hold the same arrays"
        if not _single_target(target, bound):
            source = f"`{dotted_name(expression.func) or 'a call'}(...)`" if isinstance(expression, ast.Call) else "a tuple"
            return f"`{name}` is unpacked from {source}, and jaxlint cannot show its other parts hold no array of it"
        # An edit applied without review wants more than the finding: any later read of `source`, even
        # of a value bound after the call, withholds it.
        aliased = _aliased_by_model(expression, context)
        for source in sorted(_argument_names(expression, context)):
            if source == name or _holds_no_arrays(source, scope) or _holds_no_buffers(source, bound, context):
                continue
            if source in aliased and source in scope.param_nodes:
                return (f"`{name}` holds the arrays of `{source}` (`{aliased[source]}` returns them), a parameter of "
                        f"`{scope.name}` whose caller still holds them")
            if (
                source in scope.param_nodes and isinstance(expression, ast.Call) and not _fresh_result(expression, context)
                and not _rebound_fresh_before(source, bound, scope, context)
            ):
                # Whether it is read later here does not matter: the caller holds `source`. A call
                # not shown to return new buffers (an optimizer `init` built by a decorator, a
                # constructor that stores its argument) may hand its leaves back.
                callee = dotted_name(expression.func) or context.text(expression.func)
                return (f"`{name}` comes from `{callee}(...)`, which jaxlint cannot show returns only new buffers, and its "
                        f"argument `{source}` is a parameter of `{scope.name}` whose caller still holds its arrays")
            if read_after(source, statement, until_rebound=False):
                if source in aliased:
                    return f"`{name}` holds the arrays of `{source}` (`{aliased[source]}` returns them), which is read after the call"
                if isinstance(expression, ast.Call) and fresh_values.project_callee(context.model, expression, scope):
                    callee = dotted_name(expression.func) or context.text(expression.func)
                    return (f"`{name}` comes from `{callee}(...)`, which jaxlint cannot show returns only new buffers "
                            f"(it may hand back arrays it is given), and its argument `{source}` is read after the call")
                return f"`{name}` is built from `{source}`, which is read after the call and may share its arrays"
    return _part_kept_past_a_call(name, statement, scope, context)


# Methods that store their argument in the object they are called on.
_STORING_METHODS = frozenset({"append", "extend", "insert", "add", "appendleft", "update", "setdefault", "put"})


def _part_kept_past_a_call(name: str, statement: ast.stmt, scope, context) -> str | None:
    """Why a part of `name` (`state.params`, `state["opt"]`, `getter(state, "scale")`) may outlive the
    donating call: stored in a list, dict, queue or object (a history kept across steps, a hand-off to
    another thread, whose entries the next step's donation deletes), directly or through names
    (`p = unreplicate(state.params); q = device_put(p, d); queue.put(q)`), or bound to a name that is
    read after the call. Arithmetic, compiled calls, host conversions (`float`, `np.asarray`) and
    calls the models call fresh copy what they read, so what they return shares nothing; any other
    call may hand back a part of it."""
    reads = [node for node in walk_same_scope(scope.node) if node.__class__ is ast.Name and isinstance(node.ctx, ast.Load)]
    call_targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
    rebound_by_call = {element.id for target in call_targets if target is not None for element in target_elements(target) if isinstance(element, ast.Name)}
    holders = {name: None}  # name -> the expression of `name` it holds a part of (None: the state itself)
    pending = [name]
    while pending:
        current = pending.pop()
        for node in reads:
            if node.id != current:
                continue
            part = _part_expression(node, context)
            if part is node and current == name:
                continue  # the whole state: passing or reading it is what the rest of the check judges
            shown = context.text(part)
            via = f"`{current}` holds `{holders[current]}`, and " if holders[current] else ""
            stored = _stored_by(part, context)
            if stored:
                return f"{via}`{shown}` is stored in {stored} and may hold arrays of `{name}` that a later donating call deletes"
            holder = parent_of(part)
            if not (isinstance(holder, (ast.Assign, ast.AnnAssign)) and holder.value is part):
                continue
            for target in holder.targets if isinstance(holder, ast.Assign) else [holder.target]:
                for element in target_elements(target):
                    if not isinstance(element, ast.Name) or element.id in holders or element.id in rebound_by_call:
                        continue  # the donating call's own result replaces what the name held
                    if read_after(element.id, statement):
                        return f"{via}`{element.id}` holds `{shown}`, which may share arrays of `{name}`, and is read after the call"
                    if len(holders) < 8:
                        holders[element.id] = shown
                        pending.append(element.id)
    return None


def _stored_by(part: ast.AST, context) -> str | None:
    """Where `part` is kept beyond its statement: `history.append(part)`, `d[k] = part`, `self.x = part`."""
    holder = parent_of(part)
    if isinstance(holder, ast.Call) and isinstance(holder.func, ast.Attribute) and holder.func.attr in _STORING_METHODS and part in holder.args:
        return f"`{context.text(holder.func)}(...)`"
    if isinstance(holder, (ast.Assign, ast.AnnAssign)) and holder.value is part:
        for target in holder.targets if isinstance(holder, ast.Assign) else [holder.target]:
            for element in target_elements(target):
                if isinstance(element, (ast.Attribute, ast.Subscript)):
                    return f"`{context.text(element)}`"
    return None


def _part_expression(node: ast.Name, context) -> ast.AST:
    """The largest expression around `node` that may still hold `node`'s own buffers: attribute and
    item reads, and calls not known to compute a new value."""
    current: ast.AST = node
    while True:
        parent = parent_of(current)
        if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is current:
            current = parent
            continue
        if isinstance(parent, ast.Call) and parent.func is not current and not _copies(parent, context):
            current = parent
            continue
        return current


def _copies(call: ast.Call, context) -> bool:
    if isinstance(call.func, ast.Attribute) and call.func.attr in _STORING_METHODS:
        return True  # `history.append(part)`: the store itself, judged by the caller
    found = library_models.call_model(context.model, call)
    if found is not None and (found.returns in ("host", "no_buffers", "host_list") or found.runs_model):
        return True  # a host copy, or a network's output: computed, not a part of its inputs
    if isinstance(call.func, ast.Name) and call.func.id in ("float", "int", "bool", "str", "len", "print", "repr", "format"):
        return True
    if isinstance(call.func, ast.Name) and _bound_only_to_derivatives(call.func.id, call, context):
        return True  # `loss_grad_fn(params, x)` of `loss_grad_fn = jax.value_and_grad(f)`: computed values
    return _fresh_result(call, context)


# Transforms whose functions return computed values (derivatives), never a part of their arguments:
# JAX's own differentiating transforms of the one table (semantic/jaxapi.py).
_DERIVATIVES = frozenset(name for name in jaxapi.GRAD_LIKE if name.startswith("jax."))


def _bound_only_to_derivatives(name: str, call: ast.Call, context) -> bool:
    scope = context.scope(call)
    bindings = _scope_bindings(scope, context).get(name)
    if not bindings:
        return False
    for _, bound in bindings:
        value = getattr(bound, "value", None)
        if not (isinstance(bound, ast.Assign) and isinstance(value, ast.Call) and context.qualified_name(value.func) in _DERIVATIVES):
            return False
    return True


def _repeats_one_value(expression: ast.AST) -> bool:
    """`[x] * n`, `n * (x,)`, `[x for _ in range(n)]`: one object at every position (a comprehension
    whose element does not read its own variables)."""
    if isinstance(expression, ast.BinOp) and isinstance(expression.op, ast.Mult):
        return any(isinstance(side, (ast.List, ast.Tuple)) for side in (expression.left, expression.right))
    if isinstance(expression, (ast.ListComp, ast.GeneratorExp)) or (isinstance(expression, ast.Call) and expression.args and isinstance(expression.args[0], ast.GeneratorExp)):
        comprehension = expression if not isinstance(expression, ast.Call) else expression.args[0]
        variables = {n.id for generator in comprehension.generators for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        element_reads = {n.id for n in ast.walk(comprehension.elt) if isinstance(n, ast.Name)}
        calls = any(isinstance(n, ast.Call) for n in ast.walk(comprehension.elt))
        return not calls and not (element_reads & variables)
    return False


def _single_target(target: ast.AST, bound: ast.AST) -> bool:
    """`name = value` (not `a, name = pair`, whose parts jaxlint cannot match to values)."""
    if isinstance(bound, ast.Assign):
        return len(bound.targets) == 1 and isinstance(bound.targets[0], ast.Name)
    return isinstance(target, ast.Name)


_COPYING = frozenset({"flax.jax_utils.replicate", "jax.device_put_replicated", "jax.numpy.copy", "jax.numpy.array"})


def _fresh_copy_before(bound: ast.AST, statement: ast.stmt, context) -> bool:
    """`bound` is `name = replicate(...)` (or another call that copies into new buffers), in a block that
    runs unconditionally before `statement` (the call, or a loop around it, comes later in the same block)."""
    if not (isinstance(bound, ast.Assign) and isinstance(bound.value, ast.Call) and bound.lineno < statement.lineno):
        return False
    if context.model.qualified_name(bound.value.func) not in _COPYING:
        return False
    block = parent_of(bound)
    current = statement
    while current is not None:
        if parent_of(current) is block:
            return True
        current = parent_of(current)
    return False


def _bindings_before(name: str, statement: ast.stmt, scope, context) -> list[tuple[ast.AST, ast.AST]]:
    """Statements binding `name` in this scope that can reach `statement`: those before it, and
    (in a loop around it) every binding inside the loop."""
    loops = [loop for loop in enclosing_loops(statement) if is_within(loop, scope.node)]
    found = []
    for target, node in _scope_bindings(scope, context).get(name, ()):
        if node.lineno < statement.lineno or node is statement or any(is_within(node, loop) for loop in loops):
            found.append((target, node))
    return found


def _scope_bindings(scope, context) -> dict[str, list[tuple[ast.AST, ast.AST]]]:
    """name -> [(target, binding statement)] for one scope, built in one walk and kept for every
    call site the fix checks."""
    cache = context.model.__dict__.setdefault("_jaxlint_donation_bindings", {})
    bindings = cache.get(id(scope.node))
    if bindings is not None:
        return bindings
    bindings = {}
    for node in walk_same_scope(scope.node):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for element in target_elements(t):
                    if isinstance(element, ast.Name):
                        bindings.setdefault(element.id, []).append((element, node))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr, ast.Import, ast.ImportFrom)):
            for bound in _other_binding_targets(node):
                bindings.setdefault(bound, []).append((node, node))
    cache[id(scope.node)] = bindings
    return bindings


def _other_binding_targets(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return {n.id for item in node.items if item.optional_vars is not None for n in ast.walk(item.optional_vars) if isinstance(n, ast.Name)}
    if isinstance(node, ast.NamedExpr):
        return {node.target.id}
    return {(alias.asname or alias.name).split(".")[0] for alias in node.names}


def _rebound_fresh_before(name: str, statement: ast.stmt, scope, context) -> bool:
    """A parameter replaced, unconditionally and before `statement`, by a value the function owns."""
    body = getattr(scope.node, "body", [])
    top = statement
    while top is not None and top not in body:
        top = parent_of(top)
    if top is None:
        return False
    for earlier in body[: body.index(top)]:
        if (
            isinstance(earlier, ast.Assign) and len(earlier.targets) == 1 and isinstance(earlier.targets[0], ast.Name)
            and earlier.targets[0].id == name and isinstance(earlier.value, (ast.Call, ast.BinOp))
            and name not in _argument_names(earlier.value, context)
        ):
            return True
    return False


def _fresh_result(call: ast.Call, context) -> bool:
    """Calls whose result is a new buffer: compiled functions, and what the library models call fresh
    (`jax.numpy` constructors and operations, `jax.random`, `model.init(rng, x)`, optax `init`, not
    `jnp.asarray` or `device_put`, which may return their argument), and `jax.tree.map` of a function
    that computes (`lambda p, g: p - lr * g`, `jnp.zeros_like`)."""
    if context.model.jit_binding_for_call(call) is not None:
        return True
    found = library_models.call_model(context.model, call)
    if found is not None and found.result is not None:
        return found.result == "fresh"
    if found is not None and found.returns == "tree_of_function" and call.args:
        return _computes(call.args[0], context)
    if fresh_values.initialises_from_key(call):
        return True
    if is_jax_array_call(context.model, call):
        return True
    # A function, method or record class of the project whose every return value is fresh
    # (`init_adam(params)` returning `jax.tree.map(jnp.zeros_like, params)`), through any number of
    # project calls: its whole-program summary (semantic/fresh_values.py).
    return fresh_values.call_returns_fresh(context.model, call, context.model.scope_for(call))


def _computes(function: ast.AST, context) -> bool:
    """A function whose result is computed into new buffers: a fresh-result library function, or a
    lambda whose body is arithmetic or such calls (not `lambda x: x`)."""
    if isinstance(function, ast.Lambda):
        body = function.body
        if isinstance(body, ast.BinOp) or (isinstance(body, ast.UnaryOp) and not isinstance(body.op, ast.Not)):
            return True
        return isinstance(body, ast.Call) and _fresh_result(body, context)
    if isinstance(function, (ast.Name, ast.Attribute)):
        qualified = context.qualified_name(function)
        found = library_models.models().entry(qualified) if qualified else None
        return found is not None and found.result == "fresh"
    return False


def _aliased_by_model(expression: ast.AST, context) -> dict[str, str]:
    """Names whose arrays the value may hold because a library model says the call returns them
    (`opt_init(params)` of `jax.example_libraries.optimizers`, `jnp.asarray(x)`): name -> callee."""
    if not isinstance(expression, ast.Call):
        return {}
    found = library_models.call_model(context.model, expression)
    argument = found.aliased_argument(expression) if found is not None else None
    if argument is None:
        return {}
    callee = dotted_name(expression.func) or "the call"
    return {name: callee for name in _argument_names(argument, context)}


def _holds_no_buffers(source: str, bound: ast.AST, context) -> bool:
    """A name that cannot share a device buffer with the value built from it: an imported module
    (`jnp` in `jax.tree.map(jnp.zeros_like, params)`), a value the library models say holds no
    arrays (argparse `args`, a `NamedSharding`, a `Mesh`) or a host value. (Keys a call draws from
    are left out by `_argument_names`: `model.init(key, x)` returns new buffers, not the key's.)"""
    model = context.model
    scope = model.scope_for(bound)
    if source in model.imports.aliases and source not in scope.local_names:
        target = model.imports.aliases[source]
        if any(target == prefix or target.startswith(prefix + ".") for prefix in _MODULE_ROOTS):
            return True
    name = ast.Name(id=source, ctx=ast.Load())
    kind = library_models.value_kind(model, name, scope)
    if kind in ("no_buffers", "host", "host_list"):
        return True
    return False


def _drawn_keys(call: ast.Call, context) -> list[ast.expr]:
    """Arguments a call draws keys from: by the library models and the project's function effects."""
    model = context.model
    scope = model.scope_for(call)
    return effects.consumed_key_arguments(model, call, scope)


# Modules whose attributes are functions and constants, never the caller's arrays.
_MODULE_ROOTS = ("jax", "numpy", "optax", "flax", "equinox", "haiku", "chex", "functools", "math", "operator")



def _argument_names(expression: ast.AST, context) -> set[str]:
    """Names whose arrays a computed value may hold: arguments and owners of calls that may return
    (part of) their inputs, and operands; not the callee's name, not inputs of fresh-result calls."""
    if isinstance(expression, ast.Name):
        return {expression.id}
    if isinstance(expression, ast.Call):
        if _fresh_result(expression, context):
            return set()
        names = set()
        # Keys the call (or a call inside its arguments) draws from: what it returns is drawn, not the key's buffer.
        drawn = {id(a) for call in ast.walk(expression) if isinstance(call, ast.Call) for a in _drawn_keys(call, context)}
        for item in [*expression.args, *(k.value for k in expression.keywords)]:
            if id(item) in drawn:
                continue
            if isinstance(item, ast.Call) or (isinstance(item, ast.Subscript) and isinstance(item.value, ast.Call)):
                names |= _argument_names(item, context)  # (`params=net.init(key, x)["params"]`: fresh by itself)
            else:
                names |= _values_named(item, drawn)
        if isinstance(expression.func, ast.Attribute):
            # The owner of a method may return its own parts; an imported module
            # (`checkpoints.restore_checkpoint(...)`) holds no arrays.
            modules = context.model.imports.aliases
            names |= {n.id for n in ast.walk(expression.func.value) if isinstance(n, ast.Name) and n.id not in modules}
        return names
    names = set()
    for child in ast.iter_child_nodes(expression):
        names |= _argument_names(child, context)
    return names


_NON_ARRAY_ANNOTATIONS = frozenset({
    "str", "int", "float", "bool", "bytes", "Path", "pathlib.Path", "os.PathLike", "ml_collections.ConfigDict", "ConfigDict",
})


def _values_named(expression: ast.AST, skipped: set[int] = frozenset()) -> set[str]:
    """Names read as values in `expression`: not a called function or its module (`hasattr` in
    `lambda x: x.value if hasattr(x, "value") else x`, `jax` in `jax.tree.map`) and not a lambda's own
    parameters. (The owner of a method, `self` in `self.f(x)`, is the caller's business.)"""
    callees = {id(part) for n in ast.walk(expression) if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute)) for part in ast.walk(n.func)}
    parameters = {a.arg for n in ast.walk(expression) if isinstance(n, ast.Lambda) for a in n.args.args}
    return {n.id for n in ast.walk(expression) if isinstance(n, ast.Name) and id(n) not in callees and id(n) not in skipped and n.id not in parameters}


def _holds_no_arrays(name: str, scope) -> bool:
    """A parameter annotated as a string, number, path or config dict (`workdir: str`), or a name bound only to
    string literals: it cannot share an array with the state built from it."""
    node = scope.param_nodes.get(name)
    if node is not None:
        return node.annotation is not None and dotted_name(node.annotation) in _NON_ARRAY_ANNOTATIONS
    values = [value for target, value in scope.bindings if isinstance(target, ast.Name) and target.id == name]
    return bool(values) and all(
        isinstance(value, ast.JoinedStr) or (isinstance(value, ast.Constant) and isinstance(value.value, str)) for value in values
    )
