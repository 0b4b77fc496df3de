"""Which functions of a module run on the host, outside traced code: a whole-module fact.

A loop of eager JAX operations is slow only where it really runs eagerly. A helper that looks eager
may be traced by a caller in another module, so a function counts as host code only on evidence:

* module-level code (scripts, notebooks, the `if __name__ == "__main__":` block) runs on the host;
* a function with visible host-only work: it times (`time.time()`), waits (`block_until_ready`),
  fetches (`jax.device_get`, `.item()`), opens files, shows a progress bar, or calls compiled code
  (a jitted call is dispatched from the host: nothing traces a function to call a jitted one);
* a function whose own body cannot be traced (`untraceable`): a Python `if`/`while` on a device array
  it computes, or `float()` of one, raises under `jit`, so it runs eagerly wherever it is called;
* a method of a network class that decodes with its own network (`self(tokens)` on every iteration
  of a loop that grows the sequence it carries, semantic/decoding.py): no one compiles such a loop;
* a function that such host code calls, through any number of calls of the module's own functions,
  methods on `self` and methods of instances of the module's classes (`agent = Agent(...)`, then
  `agent.train(batches)` runs `Agent.train` on the host), constructors included (`Agent(...)` runs
  `__init__`).

A function the module traces (decorated with or passed to a transform, or called from traced code)
is not host code here, even when host code also calls it: its loops are the traced rules' business.
Nor is a method that a library's compiled entry points run (`traced_by_library`): `step` and `reset`
of an environment class deriving from brax, gymnax, jumanji or MuJoCo Playground (the library's
training jits them), and the methods only those call; its call of a jitted helper is inlined in the
trace, no evidence of host code. Where the module itself calls it from host code, it is host code.
Except where it is traced only by transforms that run op by op outside `jit`, applied on the spot by
host code (`jax.vmap(f)(xs)`, `jax.grad(f)(p)`, `g = jax.jacfwd(f)` then `g(x)`; a lambda or a method
as well, and the helpers only such bodies call): batching and JVP tracers over concrete arrays dispatch
every operation on its own, so the body runs as host code does (`runs_eagerly_transformed`).
Worked out on demand, upwards from the function a rule asks about through an index of the module's
calls of its own functions built once per module from the scopes' call lists (no re-walk of the tree).
"""

from __future__ import annotations

import ast
from weakref import WeakKeyDictionary

from jaxlint.semantic import jaxapi
from jaxlint.semantic.model import Scope, SemanticModel
from jaxlint.semantic.syntax import parent_of, walk

# Host-only work: calls that only make sense outside traced code.
HOST_CALLS = frozenset({
    "builtins.open", "builtins.input", "jax.device_get", "jax.block_until_ready", "time.sleep",
    "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm",
}) | jaxapi.CLOCKS
# Methods that read a value back to the host (`x.item()`), wait for it, or turn a framework tensor
# into NumPy (`t.numpy()` of a TensorFlow or torch batch): never inside traced code.
HOST_METHODS = frozenset({"item", "tolist", "block_until_ready", "numpy", "_numpy"})

# Command-line runners: handed a function (`tyro.cli(main)`, `fire.Fire(main)`, `app.run(main)`), they
# parse the arguments and call it, on the host, once.
ENTRY_RUNNERS = frozenset({"absl.app.run", "fire.Fire", "tyro.cli", "typer.run", "defopt.run", "clize.run"})

_host_cache: "WeakKeyDictionary[SemanticModel, dict[int, bool]]" = WeakKeyDictionary()


def visibly_host(scope: Scope, model: SemanticModel) -> bool:
    """The function's own body does host-only work, or calls compiled code."""
    return _host_only_work(scope, model) or any(model.jit_binding_for_call(call) is not None for call in scope.calls)


def _host_only_work(scope: Scope, model: SemanticModel) -> bool:
    for call in scope.calls:
        function = call.func
        if isinstance(function, ast.Attribute) and function.attr in HOST_METHODS and not call.args:
            return True
        if model.qualified_name(function) in HOST_CALLS:
            return True
    return False


def runs_on_host(scope: Scope, model: SemanticModel) -> bool:
    """Module-level code, or a function of the module that host code reaches (see the module docstring).
    Worked out upwards from the function asked about, through its callers, and remembered per module."""
    if scope.parent is None:
        return True
    known = _host_cache.setdefault(model, {})
    found = known.get(id(scope))
    if found is None:
        known[id(scope)] = False  # (recursion: not host while being worked out)
        found = known[id(scope)] = _reached_from_host(scope, model)
    return found


def _reached_from_host(scope: Scope, model: SemanticModel) -> bool:
    if not scope.is_function:
        return False
    if scope.in_traced or scope.transforms:
        return runs_eagerly_transformed(scope, model)
    if _host_only_work(scope, model) or handed_to_entry_runner(scope, model) or untraceable(scope, model):
        return True
    from jaxlint.semantic.decoding import decodes_with_own_network

    if decodes_with_own_network(scope, model):
        return True  # (a network's decoding loop: never compiled, semantic/decoding.py)
    for caller, call in _callers(model).get(id(scope), ()):
        if model.jit_binding_for_call(call) is None and runs_on_host(caller, model):
            return True
    if traced_by_library(scope, model):
        return False  # (an environment's step: the library's training compiles it, semantic/host_code.py)
    return any(model.jit_binding_for_call(call) is not None for call in scope.calls)


# Environment classes of libraries written to run under `jit`: their training loops, wrappers and
# rollouts compile what the environment does (brax's `train` jits `env.step` and `env.reset`, gymnax
# and jumanji environments are stepped inside jitted, vmapped or scanned rollouts).
_TRACED_ENV_BASES = ("brax.envs.", "gymnax.environments.", "jumanji.env.", "jumanji.Environment", "mujoco_playground.")
# The methods such a library calls: the environment's transition, reset and observation.
_TRACED_ENV_METHODS = frozenset({"step", "reset", "step_env", "reset_env", "get_obs", "is_terminal", "observation"})
_MAX_BASE_DEPTH = 4


def traced_by_library(scope: Scope, model: SemanticModel) -> bool:
    """A method that a library's compiled entry points run: `step`, `reset` (and gymnax's `step_env`,
    `reset_env`, `get_obs`, `is_terminal`) of a class deriving, here or through the project's own
    base classes, from an environment class of brax, gymnax, jumanji or MuJoCo Playground; or a method
    of such a class that only such methods call (its reward, its observation helper). The library
    compiles them (the training jits `env.step`), so their loops unroll at trace time and a call of a
    jitted helper there is inlined; where the module itself calls the method from host code, it is
    host code there (asked before this)."""
    owner = scope.class_node
    if owner is None or scope.node.__class__ not in (ast.FunctionDef, ast.AsyncFunctionDef) or scope.parent is None \
            or scope.parent.class_node is not None or not _environment_class(owner, model, 0):
        return False
    if scope.name in _TRACED_ENV_METHODS:
        return True
    callers = _callers(model).get(id(scope), ())
    return bool(callers) and all(
        caller.class_node is owner and caller is not scope and caller.name in _TRACED_ENV_METHODS for caller, _ in callers
    )


def _environment_class(node: ast.ClassDef, model: SemanticModel, depth: int) -> bool:
    if depth > _MAX_BASE_DEPTH:
        return False
    for base in node.bases:
        qualified = model.qualified_name(base)
        if qualified is not None and qualified.startswith(_TRACED_ENV_BASES):
            return True
        local = local_class(base.id, model) if isinstance(base, ast.Name) else None
        if local is not None and local is not node:
            if _environment_class(local, model, depth + 1):
                return True
            continue
        project = getattr(model, "project", None)
        if qualified is not None and project is not None and _environment_summary(project, project.class_(qualified), depth + 1):
            return True
    return False


def _environment_summary(project, summary, depth: int) -> bool:
    """The same through the project's summaries of classes defined in other modules."""
    if summary is None or depth > _MAX_BASE_DEPTH:
        return False
    if any(base.startswith(_TRACED_ENV_BASES) for base in summary.bases):
        return True
    home = project.home_of_class(summary) if summary.local_bases else None
    bases = [home.classes.get(local) for local in summary.local_bases] if home is not None else []
    bases += [project.class_(base) for base in summary.bases]
    return any(base is not summary and _environment_summary(project, base, depth + 1) for base in bases)


# Conversions of a value to a Python scalar: of a device array computed in the body, a read that `jit`
# cannot trace (ConcretizationTypeError).
_SCALAR_CONVERSIONS = frozenset({"builtins.float", "builtins.int", "builtins.bool", "builtins.complex"})


def untraceable(scope: Scope, model: SemanticModel) -> bool:
    """A function whose own body needs concrete device values, so that no `jit` (or `vmap`) can trace
    it: a Python `if`, `elif` or `while` whose test is a device array the body computes (`if
    jnp.linalg.norm(fx) < tol:`, raising TracerBoolConversionError under a trace), or a conversion of one
    to a Python number (`float(jnp.max(delta))`). Its body runs eagerly wherever it is called from, even
    where nothing visible calls it. A test on a parameter (its kind is not known here), on a shape or a
    rank (`jnp.ndim(u) == 2`: static under a trace) is no such evidence."""
    if not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope.in_traced:
        return False
    for node in walk(scope.node):
        if isinstance(node, (ast.If, ast.While)):
            test = node.test
        elif isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and model.qualified_name(node.func) in _SCALAR_CONVERSIONS:
            test = node.args[0]
        else:
            continue
        if model.scope_for(node) is scope and model.device_kind(test, scope) == "device" and _computed_in_body(test, scope, model):
            return True
    return False


def _computed_in_body(test: ast.expr, scope: Scope, model: SemanticModel) -> bool:
    """The device value is computed by the body itself: an array operation in the test, or a name the
    body binds (never a parameter, whose incoming kind the caller decides)."""
    from jaxlint.semantic import jaxapi

    for node in walk(test):
        if isinstance(node, ast.Call) and (model.qualified_name(node.func) or "").startswith(jaxapi.ARRAY_NAMESPACES):
            return True
        if isinstance(node, ast.Name) and node.id not in scope.params and node.id not in scope.keyword_params \
                and model.device_names(scope).get(node.id):
            return True
    return False


def runs_eagerly_transformed(scope: Scope, model: SemanticModel) -> bool:
    """Traced, but only by transforms that run op by op outside `jit`, applied in host code: a function
    (def, lambda or method) whose every tracing is `jax.vmap(f)(xs)`, `jax.grad(f)(p)` or `jax.jacfwd(f)`
    (nested in any order) called where it is built, or bound to a name that the scope only calls, in
    code that runs on the host; or a helper that only such functions call. Its body runs eagerly, each
    operation dispatched on its own (batching or JVP tracers over concrete arrays), as host code does.
    A transform whose result leaves its scope (returned, passed on: the receiver may jit it), a site
    that is not host code, and tracing from an unknown site (a decorator, another module) do not count."""
    if not scope.traced or not model.runs_uncompiled(scope):
        return False
    sites = [*scope.trace_sites, *scope.helper_callers]
    if not sites or any(site is None for site in sites):
        return False
    for site in scope.trace_sites:
        if not _applied_where_built(scope, site, model):
            return False
    return all(runs_on_host(site, model) for site in sites)


def _applied_where_built(target: Scope, site: Scope, model: SemanticModel) -> bool:
    """Every transform call of `site` that traces `target` is called there: `jax.vmap(f)(xs)`, or
    bound to a name of the site that is only ever called (`g = jax.grad(f)` then `g(p)`)."""
    found = False
    for call in site.calls:
        if model.transform_of(call.func) is None or not call.args:
            continue
        outer = parent_of(call)
        if isinstance(outer, ast.Call) and outer.args and outer.args[0] is call and model.transform_of(outer.func) is not None:
            continue  # (the inner transform of `vmap(grad(f))`: asked at the outer one)
        inner: ast.expr = call.args[0]
        while isinstance(inner, ast.Call) and inner.args and model.transform_of(inner.func) is not None:
            inner = inner.args[0]
        resolved = model.resolve_function(inner, site)
        if resolved is None or resolved[0] is not target:
            continue
        found = True
        if isinstance(outer, ast.Call) and outer.func is call:
            continue
        if not (isinstance(outer, ast.Assign) and len(outer.targets) == 1 and isinstance(outer.targets[0], ast.Name)
                and _only_called(outer.targets[0].id, site)):
            return False
    return found


def _only_called(name: str, site: Scope) -> bool:
    """Every read of `name` in the site's own body (nested functions included) is the function of a call."""
    reads = [node for node in walk(site.node) if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)]
    return bool(reads) and all(isinstance(parent_of(read), ast.Call) and parent_of(read).func is read for read in reads)


def handed_to_entry_runner(scope: Scope, model: SemanticModel) -> bool:
    """A module-level function the module's top-level code hands to a command-line runner
    (`if __name__ == "__main__": tyro.cli(main)`): the runner calls it on the host."""
    if scope.parent is None or scope.parent.parent is not None or scope.class_node is not None:
        return False
    handed = model.__dict__.get("_host_code_entry_runs")
    if handed is None:  # (the names handed to a runner, from the module scope's calls: once per module)
        handed = model.__dict__["_host_code_entry_runs"] = {
            call.args[0].id for call in model.module_scope.calls
            if call.args and isinstance(call.args[0], ast.Name) and model.qualified_name(call.func) in ENTRY_RUNNERS
        }
    return scope.name in handed


def _callers(model: SemanticModel) -> dict[int, list[tuple[Scope, ast.Call]]]:
    """The module's calls of its own functions, by the callee's scope id: by name, on `self`, on an
    instance of one of its classes, and constructions (`__init__`). Built once per module."""
    index = model.__dict__.get("_host_code_callers")
    if index is None:
        index = {}
        with_classes = bool(model.class_methods)
        for caller in model.scopes:
            for call in caller.calls:
                function = call.func
                if not with_classes and not isinstance(function, ast.Name):
                    continue  # (no class: only a plain name can call one of its functions)
                callee = callee_scope(call, model, caller)
                if callee is not None and callee is not caller:
                    index.setdefault(id(callee), []).append((caller, call))
                elif callee is None and isinstance(function, ast.Name):
                    # A name different runs see bound to different functions: each is called here.
                    for possible in model.possible_functions(function, caller):
                        if possible is not caller:
                            index.setdefault(id(possible), []).append((caller, call))
        model.__dict__["_host_code_callers"] = index
    return index


def callee_scope(call: ast.Call, model: SemanticModel, scope: Scope | None = None) -> Scope | None:
    """The function of this module a call runs: a function by name (or `partial` of one), a method
    on `self`, a method of an instance of one of the module's classes (`agent.update(batch)`,
    `Agent(cfg).train()`), or a class's `__init__` for a constructor call."""
    if scope is None:
        scope = model.scope_for(call)
    function = call.func
    resolved = model.resolve_function(function, scope)
    if resolved is not None:
        return resolved[0]
    if isinstance(function, ast.Attribute):
        receiver = function.value
        if isinstance(receiver, ast.Name) and receiver.id in model.imports.aliases:
            return None  # `np.mean(...)`, `utils.step(...)`: a module's function, not a method of an instance
        static = _static_method(receiver, function.attr, scope, model)
        if static is not None:
            return static  # `Sampler.top_p(key, logits)`: a static method through its class's name
        owner = instance_of_local_class(receiver, model)
        if owner is not None:
            return model.class_methods.get(owner, {}).get(function.attr)
        return None
    if isinstance(function, ast.Name):
        owner = local_class(function.id, model)
        if owner is not None and function.id not in scope.local_names:
            return model.class_methods.get(owner, {}).get("__init__")
    return None


def _static_method(receiver: ast.expr, name: str, scope: Scope, model: SemanticModel) -> Scope | None:
    """The static method `name` of the module's class `receiver` names (`Cls.f(x)`: a plain function
    kept in the class's namespace; its only decorator is `@staticmethod`)."""
    if not isinstance(receiver, ast.Name) or receiver.id in scope.local_names:
        return None
    owner = local_class(receiver.id, model)
    method = model.class_methods.get(owner, {}).get(name) if owner is not None else None
    if method is None or not isinstance(method.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    decorators = method.node.decorator_list
    if len(decorators) == 1 and isinstance(decorators[0], ast.Name) and decorators[0].id == "staticmethod":
        return method
    return None


def plain_decorators(node: ast.AST) -> bool:
    """A function with no decorator, or only `@staticmethod`: its body runs as written when called."""
    decorators = getattr(node, "decorator_list", [])
    return all(isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators)


def instance_of_local_class(node: ast.AST, model: SemanticModel) -> ast.ClassDef | None:
    """The class of this module `node` is an instance of: a name bound once to `Class(...)`, the
    construction itself (`Agent(cfg).train()`), or an attribute of `self` the class only ever
    assigns `Class(...)` (`self.agent.update(batch)`) or binds from an `__init__` parameter every
    construction fills with one (semantic/constructed_objects.py)."""
    if isinstance(node, ast.Name):
        if node.id in ("self", "cls") or node.id not in _constructed_names(model):
            return None
        owner = model.instance_class(node)
        return owner if isinstance(owner, ast.ClassDef) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return local_class(node.func.id, model)
    constructor = attribute_constructor(node, model)
    if isinstance(constructor, ast.Name):
        return local_class(constructor.id, model)
    if constructor is None and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        owner = model.self_attribute_class(node)  # `self.model = model`, every construction passing one class
        return owner if isinstance(owner, ast.ClassDef) else None
    return None


def _constructed_names(model: SemanticModel) -> set[str]:
    """Names some scope binds to a construction of one of the module's classes (`agent = Agent(cfg)`):
    the only names worth asking the model for the class of their instance. Built once per module."""
    names = model.__dict__.get("_host_code_constructed")
    if names is None:
        names = set()
        if model.class_methods:
            for scope in model.scopes:
                for target, value in scope.bindings:
                    if isinstance(target, ast.Name) and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and local_class(value.func.id, model) is not None:
                        names.add(target.id)
            names |= _parameters_handed_instances(model, names)
        model.__dict__["_host_code_constructed"] = names
    return names


def _parameters_handed_instances(model: SemanticModel, constructed: set[str]) -> set[str]:
    """Parameters some call of their function in the module hands a construction of one of the
    module's classes or a name bound to one (`roll_out(env, Actor(...))`, `roll_out(env, actor)`),
    also a parameter passed on so (two rounds): worth asking `instance_class`, which decides from all
    the calls."""
    from jaxlint.semantic.library_models import in_module_callers

    names: set[str] = set()
    for _ in range(2):
        known = constructed | names
        for scope in model.scopes:
            if not scope.is_function or not scope.params:
                continue
            for _, call in in_module_callers(model, scope):
                for position, argument in enumerate(call.args[: len(scope.params)]):
                    if isinstance(argument, ast.Starred):
                        break
                    if _instance_like(argument, known, model):
                        names.add(scope.params[position])
                for keyword in call.keywords:
                    if keyword.arg in scope.params and _instance_like(keyword.value, known, model):
                        names.add(keyword.arg)
    return names


def _instance_like(argument: ast.expr, known: set[str], model: SemanticModel) -> bool:
    if isinstance(argument, ast.Name):
        return argument.id in known
    return isinstance(argument, ast.Call) and isinstance(argument.func, ast.Name) and local_class(argument.func.id, model) is not None


def _class_attribute_constructors(model: SemanticModel, class_node: ast.ClassDef) -> dict[str, ast.expr | None]:
    """For each attribute of `self` the class's methods assign: the one constructor every assignment
    calls (`self.learner = Learner(...)`), or None (another value, or two constructors). Once per class."""
    cache = model.__dict__.setdefault("_host_code_attribute_constructors", {})
    found = cache.get(id(class_node))
    if found is None:
        spellings: dict[str, set[str]] = {}
        first: dict[str, ast.expr] = {}
        broken: set[str] = set()
        for scope in model.class_methods.get(class_node, {}).values():
            for target, value in scope.bindings:
                for element in walk(target):
                    if not (isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) and element.value.id == "self"):
                        continue
                    name = element.attr
                    if element is not target or not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
                        broken.add(name)
                        continue
                    spellings.setdefault(name, set()).add(ast.dump(value.func))
                    first.setdefault(name, value.func)
        found = cache[id(class_node)] = {
            name: (first[name] if name not in broken and len(spellings[name]) == 1 else None) for name in spellings
        }
    return found


def bound_to_calls(model: SemanticModel) -> set[str]:
    """Names some scope of the module binds to a call of a name (`learner = Learner(...)`, `x = f(y)`):
    the only names that may hold an instance built here. Built once per module."""
    names = model.__dict__.get("_host_code_call_names")
    if names is None:
        names = set()
        for scope in model.scopes:
            for target, value in scope.bindings:
                if isinstance(target, ast.Name) and isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
                    names.add(target.id)
        model.__dict__["_host_code_call_names"] = names
    return names


def attribute_constructor(node: ast.AST, model: SemanticModel) -> ast.expr | None:
    """`self.learner` where every method of the class assigns it `Learner(...)` (one constructor, however
    many assignments): that constructor expression (`Learner`), else None."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"):
        return None
    method = model.scope_for(node).enclosing_method()
    if method is None:
        return None
    return _class_attribute_constructors(model, method.class_node).get(node.attr)


def local_class(name: str, model: SemanticModel) -> ast.ClassDef | None:
    """The module-level class of this module called `name`, when exactly one is defined and nothing
    else at module level is bound to the name."""
    index = model.__dict__.get("_host_code_classes")
    if index is None:
        counts: dict[str, list[ast.ClassDef]] = {}
        for node in model.class_methods:
            if model.scope_for(node) is model.module_scope:
                counts.setdefault(node.name, []).append(node)
        index = model.__dict__["_host_code_classes"] = {
            key: nodes[0] for key, nodes in counts.items()
            if len(nodes) == 1 and key not in model.imports.aliases and key not in model.module_scope.defs
        }
    return index.get(name)
