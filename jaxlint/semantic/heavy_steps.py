"""What one call of a compiled step runs: a loop on the device, wherever the program reaches it.

A compiled step is as heavy as the loops its program runs on the device: a call whose program solves a
linear system by GMRES, minimises by BFGS or integrates a wave equation over a few thousand time steps
runs for milliseconds to seconds, and one host read per call (a loss for a progress bar, a convergence
test) costs nothing beside it. The program is everything the compiled function reaches, not only its
own body and the module's functions it calls by name (training_loops.calls_reached): a name bound to a
transform of a function (`loss_with_grad = jax.value_and_grad(full_loss)`, a `partial`, a jitted
helper), inline transforms (`jax.grad(f)(x)`), and the functions of other modules of the project it
calls (`helmholtz_solver(...)` imported from the project's package, read from its source, through the
package's re-exports).

`program_device_loop(function, model)` answers with the first such loop met, breadth first, and whether
it runs inside the function a gradient is taken of (the loss is computed by the solve: every step runs
the solve forward and its adjoint backwards). The loops that count, each many device iterations per
call whatever the data:

* an iterative solver (`jaxapi.ITERATIVE_SOLVERS`: `cg`, `gmres`, `bicgstab`, `minimize`) or a
  `lax.while_loop` (a loop to convergence); an implicit layer's fixed point (`lax.custom_root`) is a
  layer of the network the step trains, not a forward model, and is not counted here;
* a time integration: a `lax.scan` over a range of step indices (`jnp.arange(0, nt)`, `range(n)`, or
  no inputs and a `length`), or a `lax.fori_loop`, unless the source fixes its count to a handful.

A `lax.scan` over stacked data (layers' parameters, minibatches) is not a time integration and is not
counted here: scanning a transformer's layers is the network's forward pass, one training step.

A Python loop of optimizer steps in a compiled function is a chunk of steps too, unrolled into one
program (training_loops.unrolled_training_steps, asked beside `program_device_loop`).
"""

from __future__ import annotations

import ast
from pathlib import Path

from jaxlint.semantic import jaxapi, run_memo
from jaxlint.semantic.flow import value_at_read
from jaxlint.semantic.model import Scope, SemanticModel
from jaxlint.semantic.syntax import top_level_statements, walk

# How many calls deep a program is followed (functions of the module, transform bindings and other
# modules of the project together).
_DEPTH = 5
# Of another module's functions: how many of that module's own functions deep.
_FOREIGN_DEPTH = 2
_SOLVER_LOOPS = (jaxapi.ITERATIVE_SOLVERS - {"jax.lax.custom_root"}) | {"jax.lax.while_loop", "flax.nnx.while_loop"}
_STEP_RANGES = frozenset({"jax.numpy.arange", "numpy.arange", "builtins.range"})
# A `fori_loop` or a scan over at most this many steps the source fixes is a handful, not an integration.
HANDFUL = 8


def heavy_loop(call: ast.Call, qualify, scope, evaluate) -> bool:
    """`call` runs many device iterations per call: an iterative solver, a `while_loop`, a `fori_loop`
    or a `scan` over step indices whose count is not fixed to a handful. `qualify(node)` names a callee,
    `evaluate(node, scope)` gives an integer the source fixes, or None."""
    qualified = qualify(call.func)
    if qualified in _SOLVER_LOOPS:
        return True
    if qualified in ("jax.lax.fori_loop", "flax.nnx.fori_loop") and len(call.args) >= 2:
        lower, upper = evaluate(call.args[0], scope), evaluate(call.args[1], scope)
        return lower is None or upper is None or upper - lower > HANDFUL
    if qualified == "jax.lax.scan":
        inputs = call.args[2] if len(call.args) > 2 else next((k.value for k in call.keywords if k.arg == "xs"), None)
        length = call.args[3] if len(call.args) > 3 else next((k.value for k in call.keywords if k.arg == "length"), None)
        if inputs is None or (isinstance(inputs, ast.Constant) and inputs.value is None):
            if length is None:
                return False
            count = evaluate(length, scope)
            return count is None or count > HANDFUL
        return _step_indices(inputs, scope, evaluate, qualify)
    return False


def _step_indices(inputs: ast.expr, scope, evaluate, qualify) -> bool:
    """`inputs` is a range of step indices (`jnp.arange(0, nt)`, `range(n)`), directly or through a name
    its function binds once to one, whose count is not a handful."""
    if isinstance(inputs, ast.Name) and scope is not None:
        bound = [value for target, value in getattr(scope, "bindings", ()) if isinstance(target, ast.Name) and target.id == inputs.id]
        if len(bound) != 1:
            return False
        inputs = bound[0]
    if not (isinstance(inputs, ast.Call) and qualify(inputs.func) in _STEP_RANGES):
        return False
    stop = inputs.args[1] if len(inputs.args) > 1 else inputs.args[0] if inputs.args else None
    count = evaluate(stop, scope) if stop is not None else None
    return count is None or count > HANDFUL


def program_device_loop(function: Scope, model: SemanticModel) -> tuple[ast.AST, bool] | None:
    """The first heavy device loop (`heavy_loop`) the program of `function` reaches, breadth first, as
    (the call that runs it, or the call of another module's function that does; whether it is reached
    inside a function a gradient is taken of), or None. Memoised per model."""
    memo = model.__dict__.setdefault("_program_device_loop_memo", {})
    key = id(function.node)
    if key not in memo:
        memo[key] = _search(function, model)
    return memo[key]


def _search(function: Scope, model: SemanticModel) -> tuple[ast.AST, bool] | None:
    """Breadth first over the program; a loop reached inside a differentiated function is preferred
    to one reached otherwise (a function nested in the step and differentiated there is walked with
    the step's body too, then again as the gradient's function)."""
    from jaxlint.semantic.callable_chains import callable_chain

    evaluate = model.constant_evaluator().int_value
    seen: set[tuple[int, bool]] = {(id(function.node), False)}
    frontier: list[tuple[Scope, bool]] = [(function, False)]
    first: tuple[ast.AST, bool] | None = None
    for _ in range(_DEPTH + 1):
        following: list[tuple[Scope, bool]] = []
        for holder, differentiated in frontier:
            for node in walk(holder.node):
                if not isinstance(node, ast.Call):
                    continue
                found = None
                if heavy_loop(node, model.qualified_name, model.scope_for(node), evaluate):
                    found = (node, differentiated)
                for callee, through_gradient in _callees(node, model, callable_chain):
                    inside = differentiated or through_gradient
                    if isinstance(callee, str):
                        if found is None and foreign_device_loop(callee, model):
                            found = (node, inside)
                    elif (id(callee.node), inside) not in seen:
                        seen.add((id(callee.node), inside))
                        following.append((callee, inside))
                if found is not None:
                    if found[1]:
                        return found
                    first = first or found
        frontier = following
        if not frontier:
            break
    return first


def _callees(call: ast.Call, model: SemanticModel, callable_chain):
    """What `call` runs: (a function of the module or the qualified name of another module's function,
    whether a gradient is taken of it on the way). Also the functions handed to a transform applied on
    the spot (`jax.value_and_grad(loss)(params)`) and to a `lax` loop (its body runs in the program)."""
    scope = model.scope_for(call)
    func = call.func
    if isinstance(func, (ast.Name, ast.Call, ast.Attribute)):
        chain = callable_chain(func, scope, model) if isinstance(func, (ast.Name, ast.Call)) else None
        if chain is None and isinstance(func, ast.Name):
            # A name bound more than once (a notebook's cells each binding `loss_with_grad`): the binding
            # that reaches the read, in the order the module runs.
            reaching = _standing_binding(func, scope, model)
            if reaching is not None and isinstance(reaching[1], ast.Call):
                chain = callable_chain(reaching[1], reaching[0], model)
        if chain is not None and chain.transforms:
            differentiated = chain.first(jaxapi.DIFFERENTIATING) is not None
            inner = chain.function
            resolved = model.resolve_function(inner, chain.scope) if isinstance(inner, (ast.Name, ast.Lambda)) else None
            if resolved is not None and resolved[0] is not None:
                yield resolved[0], differentiated
            else:
                qualified = model.qualified_name(inner)
                if qualified is not None and "." in qualified and model.project is not None:
                    yield qualified, differentiated
            return
        if isinstance(func, ast.Name):
            resolved = model.resolve_function(func, scope)
            function = resolved[0] if resolved is not None else _standing_function(func, scope, model)
            if function is not None:
                yield function, False
                return
        qualified = model.qualified_name(func)
        if qualified is not None and "." in qualified and model.project is not None and not qualified.startswith(_LIBRARIES):
            yield qualified, False


def _outermost_function(scope: Scope, model: SemanticModel) -> Scope | None:
    while scope.parent is not None and scope.parent is not model.module_scope:
        scope = scope.parent
    return None if scope is model.module_scope else scope


def _standing_function(name: ast.Name, scope: Scope, model: SemanticModel) -> Scope | None:
    """The module-level `def` of `name` that stands where a function of the module reads it, where the
    module defines the name more than once (a notebook redefining `get_field` in a later cell): the last
    definition above the reading function's own."""
    outermost = _outermost_function(scope, model)
    if outermost is None:
        return None
    above = [statement for statement in model.module_scope.node.body
             if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == name.id
             and statement.lineno <= outermost.node.lineno]
    if not above:
        return None
    found = model.scope_for(max(above, key=lambda statement: statement.lineno).body[0])
    return found if found is not None and found.node is not model.module_scope.node else None


def _standing_binding(name: ast.Name, scope: Scope, model: SemanticModel):
    """(scope, value) of the binding of `name` that stands where it is read: the one that reaches the
    read (flow.value_at_read), or, for a read in a function of the module of a name the module body
    binds more than once, the last binding above that function's definition by line (a notebook's
    cells run in order: the function defined in a cell sees what the cells above it bound)."""
    reaching = value_at_read(name, scope, model, in_line_order=True)
    if reaching is not None:
        return reaching
    from jaxlint.semantic.bindings import bound_values

    found = bound_values(model, name.id, scope)
    if found is None or found[0] is not model.module_scope:
        return None
    outermost = _outermost_function(scope, model)
    if outermost is None:
        return None
    above = [value for value in found[1] if getattr(value, "lineno", 0) < outermost.node.lineno]
    if not above:
        return None
    return found[0], max(above, key=lambda value: value.lineno)


_LIBRARIES = ("jax.", "jaxlib.", "numpy.", "builtins.", "flax.", "optax.", "equinox.", "haiku.", "scipy.", "functools.")


def foreign_device_loop(qualified: str, model: SemanticModel) -> bool:
    """The function `qualified` of another module of the project runs a heavy device loop (`heavy_loop`)
    in its body or in a function of its module it calls by name (`_FOREIGN_DEPTH` deep). Every top-level
    definition of the name must (a function defined once per argument type by a dispatch decorator:
    each definition is one version of it). Read from the module's source when first asked."""
    return _answer_in_module(qualified, model, "heavy-device-loop", _module_function_loops)


def _answer_in_module(qualified: str, model: SemanticModel, question: str, answer) -> bool:
    """`answer(path, name)` for the function `qualified` of another module of the project, read from
    that module's source once per content (run_memo), following the package re-exports that lead to
    the defining module (five at most)."""
    project = model.project
    if project is None:
        return False
    for _ in range(5):
        module_name, _, name = qualified.rpartition(".")
        summary = project.module(module_name) if module_name else None
        if summary is None:
            return False
        if name not in summary.reexports:
            return run_memo.answer((question, summary.path, summary.digest, name), answer, Path(summary.path), name)
        qualified = summary.reexports[name]
    return False


def _parsed(path: Path):
    """The module at `path` and a map of the names its imports bind (module level, under `if`/`try`
    too), or None where it does not parse. Names the module also binds otherwise are not imports."""
    from jaxlint.semantic.imports import ImportMap

    try:
        tree = ast.parse(path.read_bytes().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    statements = list(top_level_statements(tree.body))
    imports = [node for node in statements if isinstance(node, (ast.Import, ast.ImportFrom))]
    bound: set[str] = set()
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(statement.name)
        elif isinstance(statement, ast.Assign):
            bound.update(node.id for target in statement.targets for node in walk(target) if isinstance(node, ast.Name))
    return tree, ImportMap(imports, bound)


def _module_function_loops(path: Path, name: str) -> bool:
    parsed = _parsed(path)
    if parsed is None:
        return False
    tree, light = parsed
    defs: dict[str, list[ast.AST]] = {}
    for statement in top_level_statements(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(statement.name, []).append(statement)
    definitions = defs.get(name)
    if not definitions:
        return False

    def loops(function: ast.AST, depth: int, seen: set[str]) -> bool:
        bindings = [(target, statement.value) for statement in walk(function) if isinstance(statement, ast.Assign)
                    for target in statement.targets]
        holder = _Bindings(bindings)
        for node in walk(function):
            if not isinstance(node, ast.Call):
                continue
            if heavy_loop(node, light.qualified_name, holder, _literal_int):
                return True
            helper = node.func.id if isinstance(node.func, ast.Name) else None
            if depth > 0 and helper in defs and helper not in seen:
                seen.add(helper)
                if all(loops(inner, depth - 1, seen) for inner in defs[helper]):
                    return True
        return False

    return all(loops(definition, _FOREIGN_DEPTH, {name}) for definition in definitions)


class _Bindings:
    """The plain assignments of a function read without a model: what `_step_indices` asks of a scope."""

    def __init__(self, bindings) -> None:
        self.bindings = bindings


def _literal_int(node: ast.expr, scope) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


# What a loop that counts its iterations walks: `range(n)`, a progress bar over a count.
_COUNTERS = frozenset({"builtins.range", "tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange"})
_BARS = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm", "rich.progress.track"})


def counts_iterations(call: ast.Call, model: SemanticModel) -> bool:
    """`call` is a call of a function of another module of the project whose every return is a counter
    (`range(n)`, `trange(n)`, `tqdm(range(n))`, or a local name bound only to those): a helper that
    picks a progress bar or a plain range by verbosity. A loop over it counts iterations."""
    qualified = model.qualified_name(call.func)
    if qualified is None or "." not in qualified or qualified.startswith(_LIBRARIES):
        return False
    return _answer_in_module(qualified, model, "counter-factory", _module_function_counts)


def _module_function_counts(path: Path, name: str) -> bool:
    parsed = _parsed(path)
    if parsed is None:
        return False
    tree, light = parsed
    definitions = [s for s in top_level_statements(tree.body) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name]
    if len(definitions) != 1:
        return False
    function = definitions[0]

    def counter(value: ast.expr | None) -> bool:
        if not isinstance(value, ast.Call):
            return False
        qualified = light.qualified_name(value.func)
        if qualified in _COUNTERS:
            return True
        return qualified in _BARS and bool(value.args) and counter(value.args[0])

    returns = [node.value for node in walk(function) if isinstance(node, ast.Return)]
    if not returns or any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in walk(function)):
        return False
    for value in returns:
        if isinstance(value, ast.Name):
            bound = [statement.value for statement in walk(function) if isinstance(statement, ast.Assign)
                     and any(isinstance(t, ast.Name) and t.id == value.id for t in statement.targets)]
            rebound = any(isinstance(node, ast.Name) and node.id == value.id and isinstance(node.ctx, ast.Store)
                          for node in walk(function) if not any(node is t for s in walk(function) if isinstance(s, ast.Assign) for t in s.targets))
            if not bound or rebound or not all(counter(v) for v in bound):
                return False
        elif not counter(value):
            return False
    return True

