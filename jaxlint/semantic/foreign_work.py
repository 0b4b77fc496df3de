"""Facts of functions in other modules of the project, for a call site's loop: eager device work
(training_loops.eager_work_in), reads on the host of values they compute (helper_syncs.py) and
reads from storage (storage_reads.py).

`from steps import update` then `state = update(state, batch)` in a loop: whether `update` runs a
whole network or optimizer update op by op (training_loops.eager_work_in) is a fact of the module
that defines it, read from a semantic model of that module. The same for a method of an instance
of a project class (`learner = Learner(...)` then `learner.learn(batch)`).

Asked only for calls of project functions in loops a rule looks at, and answered from a model of
the defining module built once per process and run (memoised by path and content digest); the
defining module is recorded as a dependency of the asking file's findings (through its summary).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from jaxlint.semantic import returned_kinds, run_memo
from jaxlint.semantic.bindings import bound_values, partial_value
from jaxlint.semantic.host_code import attribute_constructor, bound_to_calls
from jaxlint.semantic.reaching import reaching_value_outside
from jaxlint.semantic.syntax import bound_names

# Callee prefixes that are never the project's own code.
_LIBRARY_PREFIXES = ("jax.", "numpy.", "builtins.", "flax.", "equinox.", "optax.", "haiku.", "chex.", "orbax.")
_MAX_REEXPORTS = 5
# Names of calls without which a function runs no whole computation the models know (`apply`,
# `grad`, an optimizer `update`, a module's forward), or reads no value on the host: a function
# (with the module's functions it calls) that calls none of them is not worth a model of its module.
_WORK_NAMES = frozenset({
    "apply", "apply_fn", "apply_gradients", "update", "grad", "value_and_grad", "filter_grad",
    "filter_value_and_grad", "jacrev", "jacfwd", "hessian", "vjp",
})
_MAX_MODULE_BYTES = 400_000
# Names of the calls that compile (or run a compiled loop): a function that calls none of them, itself or
# through a function of its module, dispatches no compiled work of its own module's making.
_COMPILING_NAMES = frozenset({"jit", "pjit", "pmap", "filter_jit", "scan", "fori_loop", "while_loop"})
# Names of the calls the library models say read from storage (`reads_storage`): a checkpoint restore, an unpickling.
_STORAGE_NAMES = frozenset({"restore_checkpoint", "restore", "load"})
_SYNC_NAMES = frozenset({"float", "int", "bool", "item", "tolist", "asarray", "array", "device_get", "print", "<f-string>"})


@dataclass(frozen=True)
class ForeignWork:
    """A whole computation in another module: its text as written, its line, the file and the helper."""

    text: str
    line: int
    path: str
    helper: str


_models: dict[tuple[str, str], object] = {}
_trees: dict[tuple[str, str], ast.Module | None] = {}
_mentions: dict[tuple, bool] = {}
_active: set[tuple[str, str]] = set()


def imported_eager_work(call: ast.Call, model, eager_work_in, chain_eager_work) -> ForeignWork | None:
    """The whole computation a call of a project function or method of another module runs eagerly
    on every call, or None (`eager_work_in(scope, model)`: the question, training_loops.eager_work_in;
    `chain_eager_work(chain, call, model)`: the same for a name bound to a transform, training_loops.chain_eager_work)."""
    located = _located_callee(call, model)
    if located is None:
        return None
    summary, name, member = located
    key = ("eager-work", summary.path, summary.digest, name, member)
    return run_memo.answer(key, _eager_work, summary.path, summary.digest, name, member, eager_work_in, chain_eager_work)


def imported_helper_sync(call: ast.Call, model, helper_sync):
    """The read on the host of a value it computed that a function or method of another project module
    does on every call (helper_syncs.HelperSync), or None (`helper_sync(scope, model)`: the question)."""
    located = _located_callee(call, model)
    if located is None:
        return None
    summary, name, member = located
    if not _compiles_something(summary):
        return None  # its model sees compiled values only from compiled functions of its own
    key = ("helper-sync", summary.path, summary.digest, name, member)
    return run_memo.answer(key, _helper_sync, summary.path, summary.digest, name, member, helper_sync)


def imported_work_left_running(call: ast.Call, model, work_left_running):
    """(text, line) of the compiled call a function or method of another project module leaves
    running when it returns (timed_work.work_left_running), or None (`work_left_running(scope, model)`:
    the question)."""
    located = _located_callee(call, model)
    if located is None:
        return None
    summary, name, member = located
    key = ("work-left-running", summary.path, summary.digest, name, member)
    return run_memo.answer(key, _work_left_running, summary.path, summary.digest, name, member, work_left_running)


def _work_left_running(path: str, digest: str, name: str, member: str | None, work_left_running):
    key = (path, digest)
    if key in _active:
        return None  # (modules calling each other: none while being worked out)
    located = _foreign_scope(path, digest, name, member, _COMPILING_NAMES)
    if located is None:
        return None
    scope, model = located
    _active.add(key)
    try:
        found = work_left_running(scope, model)
    finally:
        _active.discard(key)
    return None if found is None else (ast.unparse(found.func)[:60], found.lineno)


def imported_storage_read(call: ast.Call, model, storage_read_in):
    """The call reading from storage that a function or method of another project module makes on
    every call (semantic/storage_reads.py), or None (`storage_read_in(scope, model)`: the question)."""
    located = _located_callee(call, model)
    if located is None:
        return None
    summary, name, member = located
    key = ("storage-read", summary.path, summary.digest, name, member)
    return run_memo.answer(key, _storage_read, summary.path, summary.digest, name, member, storage_read_in)


def _storage_read(path: str, digest: str, name: str, member: str | None, storage_read_in):
    located = _foreign_scope(path, digest, name, member, _STORAGE_NAMES)
    if located is None:
        return None
    scope, model = located
    found = storage_read_in(scope, model)
    return None if found is None else found.lineno


def may_be_project_call(call: ast.Call, model) -> bool:
    """A cheap first test: the call may run a function or method of another project module."""
    project = getattr(model, "project", None)
    if project is None:
        return False
    function = call.func
    if isinstance(function, ast.Attribute):
        receiver = function.value
        if isinstance(receiver, ast.Call) or (isinstance(receiver, ast.Name) and receiver.id in bound_to_calls(model)):
            return True
        if isinstance(receiver, ast.Attribute) and (attribute_constructor(receiver, model) is not None or _handed_class(receiver, model) is not None):
            return True
    if isinstance(function, ast.Name) and function.id not in ("self", "cls") and function.id in bound_to_calls(model) \
            and model.instance_class(function) is not None and not isinstance(model.instance_class(function), ast.ClassDef):
        return True  # `net(x)` of an instance of another module's class: its `__call__`
    if isinstance(function, ast.Name):
        partial = partial_value(function, model.scope_for(call), model)
        function = partial.args[0] if partial is not None else function  # `step = partial(train_step, ...)`
    if not isinstance(function, (ast.Name, ast.Attribute)):
        return False
    qualified = model.qualified_name(function)
    return qualified is not None and not qualified.startswith(_LIBRARY_PREFIXES) and project.may_hold(qualified.partition(".")[0])


def _compiles_something(summary) -> bool:
    """The module defines a compiled function or method (`@jax.jit`, `step = jax.pmap(f)`)."""
    if any(function.transform is not None for function in summary.functions.values()):
        return True
    return any(method.transform is not None for owner in summary.classes.values() for method in owner.methods.values())


def _located_callee(call: ast.Call, model):
    """(summary of the defining module, top-level name, method or None) of a call of a plain function
    or of a method of an instance of a class of another project module."""
    project = getattr(model, "project", None)
    if project is None:
        return None
    function = call.func
    qualified = model.qualified_name(function) if isinstance(function, (ast.Name, ast.Attribute)) else None
    member = None
    if qualified is None and isinstance(function, ast.Attribute):
        qualified = _constructor_of(function.value, model)
        member = function.attr
    elif isinstance(function, ast.Name) and function.id not in model.imports.aliases:
        made = _constructor_of(function, model)  # `net(x)` of an instance: its class's `__call__` (semantic/held_networks.py)
        if made is not None:
            qualified, member = made, "__call__"
    if qualified is None or qualified.startswith(_LIBRARY_PREFIXES) or not project.may_hold(qualified.partition(".")[0]):
        return None
    located = _locate(project, qualified)
    if located is None:
        return None
    summary, name = located
    if member is not None and name not in summary.classes:
        return None
    if member is None and name in summary.functions and summary.functions[name].transform is not None:
        return None  # compiled
    return summary, name, member


def _handed_class(holder: ast.AST, model) -> str | None:
    """The qualified name (as this module's imports find it) of the project class `self.obj` holds
    where `__init__` binds it from a parameter every construction fills with an instance of that class
    (SemanticModel.self_attribute_class, semantic/constructed_objects.py); None otherwise."""
    if not (isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name) and holder.value.id == "self"):
        return None
    project = getattr(model, "project", None)
    owner = model.self_attribute_class(holder) if project is not None else None
    if owner is None or isinstance(owner, ast.ClassDef):
        return None
    return project.qualified_class(owner)


def _scope_in(model, name: str, member: str | None):
    node = next((n for n in model.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name), None)
    if node is None:
        return None
    if member is not None:
        return model.class_methods.get(node, {}).get(member) if isinstance(node, ast.ClassDef) else None
    return model.scope_of_node.get(node) if not isinstance(node, ast.ClassDef) else None


def _foreign_scope(path: str, digest: str, name: str, member: str | None, words):
    """(scope, model) of the function or method `name`/`member` of another module, when its text
    mentions one of `words` (the cheap test first) and its module models; else None."""
    if not _function_mentions(path, digest, name, member, words):
        return None
    model = _model_of(path, digest)
    if model is None:
        return None
    scope = _scope_in(model, name, member)
    return None if scope is None else (scope, model)


def _helper_sync(path: str, digest: str, name: str, member: str | None, helper_sync):
    located = _foreign_scope(path, digest, name, member, _SYNC_NAMES)
    if located is None:
        return None
    scope, model = located
    from dataclasses import replace

    found = helper_sync(scope, model)
    if found is None:
        return None
    return replace(found, function=f"{name}.{found.function}" if member else found.function, path=path)


def _constructor_of(node: ast.AST, model) -> str | None:
    """`learner` bound once to `pkg.Learner(...)` (or `pkg.Learner(...)` itself, or `self.learner` only
    ever assigned one): the class's qualified name."""
    if isinstance(node, ast.Call):
        constructor = node.func
    elif isinstance(node, ast.Name) and node.id not in ("self", "cls"):
        if node.id not in bound_to_calls(model):
            return None
        found = bound_values(model, node.id, model.scope_for(node))
        # (bound more than once, `env = Wrapper(env)`: the binding that surely reaches the read)
        reached = reaching_value_outside(node, found[1]) if found is not None and found[1] else None
        if not isinstance(reached, ast.Call):
            return None
        constructor = reached.func
        made = _factory_made(reached, node, model)
        if made is not None:
            return made
    else:
        constructor = attribute_constructor(node, model)  # `self.learner`, only ever `Learner(...)`
        if constructor is None:
            return _handed_class(node, model)  # `self.learner = learner`, every construction passing one
    if not isinstance(constructor, (ast.Name, ast.Attribute)):
        return None
    return model.qualified_name(constructor)


def _factory_made(call: ast.Call, name: ast.Name, model) -> str | None:
    """The qualified class a factory call builds, where the name bound to it holds an instance of one
    project class (`agent = make_agent(cfg)`, every return of `make_agent` an `Agent(...)`: the model's
    instance_class): a function of this module or of another; None for a constructor or when not known."""
    qualified = model.qualified_name(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
    if qualified is not None and model.project is not None and model.project.class_(qualified) is not None:
        return None  # a constructor: its own name answers
    owner = model.instance_class(name)
    if owner is None or isinstance(owner, ast.ClassDef):
        return None
    scope = model.scope_for(call)
    made = returned_kinds.project_call_class_name(model, call, scope)
    if made is None and isinstance(call.func, ast.Name):
        resolved = model.resolve_function(call.func, scope)
        factory = resolved[0] if resolved is not None and not resolved[1] and not resolved[2] else None
        # (a factory of this module: the constructor every return names, qualified as written there)
        returned = [value for value in factory.returns if isinstance(value, ast.Call)] if factory is not None else []
        names = {model.qualified_name(value.func) for value in returned if isinstance(value.func, (ast.Name, ast.Attribute))}
        made = names.pop() if len(names) == 1 and len(returned) == len(factory.returns) else None
    return made if made is not None and model.project.class_(made) is owner else None


def _locate(project, qualified: str):
    """(summary of the defining module, top-level name there), following re-exports."""
    for _ in range(_MAX_REEXPORTS):
        module_name, _, name = qualified.rpartition(".")
        if not module_name:
            return None
        summary = project.module(module_name)
        if summary is None:
            return None
        if name in summary.reexports:
            qualified = summary.reexports[name]
            continue
        return summary, name
    return None


def _eager_work(path: str, digest: str, name: str, member: str | None, eager_work_in, chain_eager_work) -> ForeignWork | None:
    key = (path, digest)
    if key in _active:
        return None  # (modules calling each other: none while being worked out)
    # (Traced elsewhere in its module or not: called from here, an undecorated body runs eagerly.)
    located = _foreign_scope(path, digest, name, member, _WORK_NAMES)
    if located is None:
        return _alias_work(path, digest, name, chain_eager_work) if member is None else None
    scope, model = located
    _active.add(key)
    try:
        found = eager_work_in(scope, model)
    finally:
        _active.discard(key)
    if found is None:
        return None
    helper = f"{name}.{member}" if member else name
    if isinstance(found, ForeignWork):
        return ForeignWork(found.text, found.line, found.path, helper)
    text = ast.unparse(found.func)
    return ForeignWork(text if len(text) <= 60 else text[:57] + "...", found.lineno, path, helper)


def _alias_work(path: str, digest: str, name: str, chain_eager_work) -> ForeignWork | None:
    """A top-level name of another module bound once to a transform of a function (`batched =
    jax.vmap(forward)`, `grad_fn = jax.grad(loss)`): its call runs what the same call runs in that
    module (training_loops.chain_eager_work, read from the chain of the binding there), or None."""
    bound = _transform_binding(path, digest, name)
    if bound is None:
        return None
    chain, model, value = bound
    key = (path, digest)
    _active.add(key)
    try:
        found = chain_eager_work(chain, chain.differentiated or value, model)
    finally:
        _active.discard(key)
    if found is None:
        return None
    if isinstance(found, ForeignWork):
        return ForeignWork(found.text, found.line, found.path, name)
    text = ast.unparse(found.func)
    return ForeignWork(text if len(text) <= 60 else text[:57] + "...", found.lineno, path, name)


def _transform_binding(path: str, digest: str, name: str):
    """(chain, model of its module, bound value) of a top-level name of another module bound once, at the top
    level and nowhere else, to a transform of a function (callable_chains.Chain with transforms);
    None for anything else."""
    tree = _tree_of(path, digest)
    if tree is None:
        return None
    bindings = [n for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and name in {
        t.id for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}]
    if len(bindings) != 1 or not isinstance(bindings[0].value, ast.Call):
        return None  # (the cheap test first: one plain binding to a call)
    if (path, digest) in _active:
        return None
    model = _model_of(path, digest)
    if model is None:
        return None
    from jaxlint.semantic import callable_chains

    value = bindings[0].value
    found = bound_values(model, name, model.module_scope)
    if found is None or found[1] != [value] or any(name in bound_names(target) for target, _ in found[0].loops):
        return None  # (bound anywhere else in the module, or in a loop, by anything: the same test as in one module)
    chain = callable_chains.callable_chain(value, model.module_scope, model)
    return (chain, model, value) if chain is not None and chain.transforms else None


def imported_transform(call: ast.Call, model) -> bool:
    """A call of a top-level name of another project module bound once to a JAX transform of a
    function there (`vstep = jax.vmap(step)`, reached by name, through its module or a star import)."""
    located = _located_callee(call, model)
    if located is None or located[2] is not None:
        return False
    summary, name, _ = located
    return run_memo.answer(("imported-transform", summary.path, summary.digest, name), _transform_binding, summary.path, summary.digest, name) is not None


def _tree_of(path: str, digest: str) -> ast.Module | None:
    key = (path, digest)
    if key in _trees:
        return _trees[key]
    tree = None
    try:
        data = Path(path).read_bytes()
        if len(data) <= _MAX_MODULE_BYTES:
            tree = ast.parse(data.decode("utf-8-sig"))
    except Exception:  # unreadable, undecodable, unparsable, too deep: no answer
        tree = None
    if len(_trees) > 64:
        _trees.clear()
    _trees[key] = tree
    return tree


def imported_host_library_work(call: ast.Call, model, host_library_in) -> bool:
    """A function or method of another project module that does host library work (a sparse solve,
    a PETSc object, a mesh file written: semantic/host_library.py), itself or through the functions
    of its module (`host_library_in(scope, model)`: the question)."""
    return _asked_of_callee("host-library", call, model, _HOST_LIBRARY_ROOTS, host_library_in)


def imported_drawing(call: ast.Call, model, draws_in) -> bool:
    """A function or method of another project module that draws a figure or a frame (a plotting
    helper of a `vis` module: semantic/display_work.py), itself or through the functions of its module
    (`draws_in(scope, model)`: the question)."""
    return _asked_of_callee("drawing", call, model, _DRAWING_ROOTS, draws_in)


# The top-level packages of the host libraries (library_models/host_libraries.py): a module that
# imports none of them does no host library work of its own (the cheap test before a model).
_HOST_LIBRARY_ROOTS = frozenset({"scipy", "petsc4py", "pyamgx", "meshio"})

# The top-level packages that draw (semantic/display_work.py): a module that imports none of them
# draws nothing of its own (the cheap test before a model).
_DRAWING_ROOTS = frozenset({"matplotlib", "pygame", "cv2", "mediapy", "seaborn", "plotly"})


def _asked_of_callee(kind: str, call: ast.Call, model, roots: frozenset[str], question) -> bool:
    """`question(scope, model)` asked of the function or method of another project module that `call`
    runs, in that module's model; False where the module imports none of `roots` (it cannot do that
    work itself), where the callee is not found, or while that module is already being asked."""
    located = _located_callee(call, model)
    if located is None:
        return False
    summary, name, member = located
    key = (kind, summary.path, summary.digest, name, member)
    return bool(run_memo.answer(key, _asked_in_module, summary.path, summary.digest, name, member, roots, question))


def _asked_in_module(path: str, digest: str, name: str, member: str | None, roots: frozenset[str], question) -> bool:
    key = (path, digest)
    tree = _tree_of(path, digest)
    if tree is None or key in _active or not _imports_any(tree, roots):
        return False
    model = _model_of(path, digest)
    scope = _scope_in(model, name, member) if model is not None else None
    if scope is None:
        return False
    _active.add(key)
    try:
        return question(scope, model)
    finally:
        _active.discard(key)


def _imports_any(tree: ast.Module, roots: frozenset[str]) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Import) and any(alias.name.partition(".")[0] in roots for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").partition(".")[0] in roots:
            return True
    return False


def _function_mentions(path: str, digest: str, name: str, member: str | None, names: frozenset[str]) -> bool:
    """The function (or method) calls something named one of `names`, itself or through a function of
    its module it calls (one level): a cheap test before a model of the module is built."""
    key = (path, digest, name, member, names)
    if key not in _mentions:
        if len(_mentions) > 4096:
            _mentions.clear()
        _mentions[key] = _mentions_names(path, digest, name, member, names)
    return _mentions[key]


def _mentions_names(path: str, digest: str, name: str, member: str | None, names: frozenset[str]) -> bool:
    tree = _tree_of(path, digest)
    if tree is None:
        return False
    top = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    node = top.get(name)
    if member is not None:
        node = next((n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == member), None) if isinstance(node, ast.ClassDef) else None
    if node is None or isinstance(node, ast.ClassDef):
        return False
    # Its decorators too: a function decorated by a differentiating transform runs the gradient when
    # called (`@eqx.filter_value_and_grad` over a loss), though its body calls none of `names`.
    called = {_decorator_name(decorator) for decorator in node.decorator_list}
    for each in ast.walk(node):
        if isinstance(each, ast.Call):
            function = each.func
            called.add(function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None))
        elif isinstance(each, ast.JoinedStr):
            called.add("<f-string>")
    if called & names:
        return True
    if member is not None and "self" in called and names is _WORK_NAMES:
        return True  # `self(x)` in a method: the instance's forward, when the class is a model (asked of its model)
    if member is not None and names is _WORK_NAMES and any(
            isinstance(each, ast.For) and isinstance(each.target, ast.Name) and each.target.id in called for each in ast.walk(node)):
        return True  # `for block in self.blocks: x = block(x)`: the layers it holds, when they are networks (asked of its model)
    methods = top.get(member and name)
    # A name bound to what one of `names` returns (`grad_fn = jax.value_and_grad(loss)` at the top
    # level, `self.grad_fn = jax.grad(loss)` in a method of the class), called here by that name.
    if called & _names_bound_to_calls(tree.body, methods.body if isinstance(methods, ast.ClassDef) else [], names):
        return True
    local = {n.name: n for n in methods.body if isinstance(n, ast.FunctionDef)} if isinstance(methods, ast.ClassDef) else {}
    for callee in called:
        inner = local.get(callee) or top.get(callee)
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner is not node:
            if {_decorator_name(decorator) for decorator in inner.decorator_list} & names:
                return True  # (`@jax.jit def denoise(...)` of the module, called here)
            for each in ast.walk(inner):
                if isinstance(each, ast.Call) and (each.func.attr if isinstance(each.func, ast.Attribute) else getattr(each.func, "id", None)) in names:
                    return True
                if isinstance(each, ast.JoinedStr) and "<f-string>" in names:
                    return True
    return False


def _decorator_name(decorator: ast.expr) -> str | None:
    """The last name of a decorator, with or without arguments: `eqx.filter_grad(has_aux=True)` -> `filter_grad`,
    `partial(jax.grad, argnums=1)` -> `grad`."""
    if isinstance(decorator, ast.Call):
        partial = decorator.func.attr if isinstance(decorator.func, ast.Attribute) else getattr(decorator.func, "id", None)
        decorator = decorator.args[0] if partial == "partial" and decorator.args else decorator.func
    if isinstance(decorator, ast.Attribute):
        return decorator.attr
    return getattr(decorator, "id", None)


def _names_bound_to_calls(module_body: list[ast.stmt], class_body: list[ast.stmt], names: frozenset[str]) -> set[str]:
    """Names bound at the module's top level, and `self.<name>` attributes bound in the methods of the
    class, to the result of a call of something named one of `names`."""
    bound: set[str] = set()
    assignments = [s for s in module_body if isinstance(s, ast.Assign)]
    for method in class_body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assignments.extend(s for s in ast.walk(method) if isinstance(s, ast.Assign))
    for assignment in assignments:
        value = assignment.value
        if not isinstance(value, ast.Call):
            continue
        function = value.func
        if (function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)) not in names:
            continue
        for target in assignment.targets:
            if isinstance(target, ast.Name):
                bound.add(target.id)
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                bound.add(target.attr)
    return bound


def _model_of(path: str, digest: str):
    key = (path, digest)
    if key in _models:
        return _models[key]
    tree = _tree_of(path, digest)
    model = None
    if tree is not None:
        from jaxlint.semantic.model import SemanticModel

        try:
            # No project view of its own: what it calls in further modules is not followed, so every
            # file an answer depends on is one the asking file's view recorded (the results cache).
            model = SemanticModel(tree, (), None)
        except Exception:  # too deep: no answer
            model = None
    if len(_models) > 32:
        _models.clear()
    _models[key] = model
    return model
