"""Which functions of a module run on the host, outside traced code: a whole-module fact.

A loop of eager JAX operations is slow only where it really runs eagerly. A helper that looks eager
may be traced by a caller in another module, so a function counts as host code only on evidence:

* module-level code (scripts, notebooks, the `if __name__ == "__main__":` block) runs on the host;
* a function with visible host-only work: it times (`time.time()`), waits (`block_until_ready`),
  fetches (`jax.device_get`, `.item()`), opens files, shows a progress bar, or calls compiled code
  (a jitted call is dispatched from the host: nothing traces a function to call a jitted one);
* a function that such host code calls, through any number of calls of the module's own functions,
  methods on `self` and methods of instances of the module's classes (`agent = Agent(...)`, then
  `agent.train(batches)` runs `Agent.train` on the host), constructors included (`Agent(...)` runs
  `__init__`).

A function the module traces (decorated with or passed to a transform, or called from traced code)
is never host code here, even when host code also calls it: its loops are the traced rules' business.
Computed once per module, on demand, from the scopes' call lists (no re-walk of the tree).
"""

from __future__ import annotations

import ast
from weakref import WeakKeyDictionary

from jaxlint.semantic.model import Scope, SemanticModel

# Host-only work: calls that only make sense outside traced code.
HOST_CALLS = frozenset({
    "builtins.open", "builtins.input", "jax.device_get", "jax.block_until_ready", "time.time", "time.perf_counter",
    "time.monotonic", "time.sleep", "timeit.default_timer", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm",
})
# Methods that read a value back to the host (`x.item()`), wait for it, or turn a framework tensor
# into NumPy (`t.numpy()` of a TensorFlow or torch batch): never inside traced code.
HOST_METHODS = frozenset({"item", "tolist", "block_until_ready", "numpy", "_numpy"})

_host_cache: "WeakKeyDictionary[SemanticModel, set[int]]" = WeakKeyDictionary()


def visibly_host(scope: Scope, model: SemanticModel) -> bool:
    """The function's own body does host-only work, or calls compiled code."""
    for call in scope.calls:
        if model.qualified_name(call.func) in HOST_CALLS:
            return True
        function = call.func
        if isinstance(function, ast.Attribute) and function.attr in HOST_METHODS and not call.args:
            return True
        if model.jit_binding_for_call(call) is not None:
            return True
    return False


def runs_on_host(scope: Scope, model: SemanticModel) -> bool:
    """Module-level code, or a function of the module that host code reaches (see the module docstring)."""
    if scope.parent is None:
        return True
    return id(scope) in host_scopes(model)


def host_scopes(model: SemanticModel) -> set[int]:
    """ids of the module's function scopes that run on the host, by the evidence above."""
    found = _host_cache.get(model)
    if found is not None:
        return found
    reached: dict[int, Scope] = {}
    pending: list[Scope] = [model.module_scope]
    for scope in model.scopes:
        if scope.is_function and not scope.in_traced and not scope.transforms and visibly_host(scope, model):
            reached[id(scope)] = scope
            pending.append(scope)
    while pending:
        scope = pending.pop()
        for call in scope.calls:
            callee = callee_scope(call, model, scope)
            if callee is None or id(callee) in reached or not callee.is_function:
                continue
            if callee.in_traced or callee.transforms or model.jit_binding_for_call(call) is not None:
                continue
            reached[id(callee)] = callee
            pending.append(callee)
    found = _host_cache[model] = set(reached)
    return found


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
        owner = instance_of_local_class(function.value, model)
        if owner is not None:
            return model.class_methods.get(owner, {}).get(function.attr)
        return None
    if isinstance(function, ast.Name):
        owner = local_class(function.id, model)
        if owner is not None and function.id not in scope.local_names:
            return model.class_methods.get(owner, {}).get("__init__")
    return None


def instance_of_local_class(node: ast.AST, model: SemanticModel) -> ast.ClassDef | None:
    """The class of this module `node` is an instance of: a name bound once to `Class(...)`, the
    construction itself (`Agent(cfg).train()`), or an attribute of `self` the class only ever
    assigns `Class(...)` (`self.agent.update(batch)`)."""
    if isinstance(node, ast.Name):
        if node.id in ("self", "cls"):
            return None
        owner = model.instance_class(node)
        return owner if isinstance(owner, ast.ClassDef) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return local_class(node.func.id, model)
    constructor = attribute_constructor(node, model)
    if isinstance(constructor, ast.Name):
        return local_class(constructor.id, model)
    return None


def attribute_constructor(node: ast.AST, model: SemanticModel) -> ast.expr | None:
    """`self.learner` where every method of the class assigns it `Learner(...)` (one constructor, however
    many assignments): that constructor expression (`Learner`), else None."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"):
        return None
    from jaxlint.semantic.library_models import _self_attribute_values

    values = _self_attribute_values(model, node.attr, model.scope_for(node))
    if not values or not all(isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) for value in values):
        return None
    spellings = {ast.dump(value.func) for value in values}
    return values[0].func if len(spellings) == 1 else None


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
