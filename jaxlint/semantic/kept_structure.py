"""Calls that hand back the pytree they are given, with its structure, and so its class, unchanged.

```python
agent = jax.device_put(agent, sharding)                  # placed on devices
agent = flax.serialization.from_state_dict(agent, d)     # restored into it as a template
agent = restore_agent(agent, path, epoch)                # a function whose every return is one of those
agent = manager.restore(step, args=ocp.args.StandardRestore(agent))          # a template handed to a restore
restored = manager.restore(step, args=ocp.args.Composite(agent=ocp.args.StandardRestore(agent), ...))
agent = restored.agent                                   # the item of a composite restore named so
```

An object bound by its constructor and then rebound by such a call is still an instance of the same
class: what its methods do (a compiled `update`, a draw, a host read) is what they did before. This
module says which argument of a call the result keeps the structure of: a library call of the table
below, or a project function (here or in another module) every `return` of which hands back one of
its parameters, as it is or through such a call, where the function rebinds that parameter only by
such calls (`agent = from_state_dict(agent, d); return agent`).

A checkpoint restore handed a template (orbax's `StandardRestore(agent)` or `PyTreeRestore(agent)`
request, passed as the `args` of a `restore` call, alone or as an item of a `Composite`) gives back
arrays in the template's structure: the restored value, or the item of the composite result read
under the request's name (`restored.agent`, `restored["agent"]`), is the template's pytree again.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.bindings import bound_values

# Library calls whose result has the structure of one argument: its position, or the keyword naming it.
STRUCTURE_KEEPING = {
    "jax.device_put": 0, "jax.device_put_replicated": 0, "flax.jax_utils.replicate": 0,
    "jax.tree_util.tree_map": 1, "jax.tree.map": 1, "jax.tree_map": 1,
    "flax.training.checkpoints.restore_checkpoint": "target",
    "flax.serialization.from_state_dict": 0, "flax.serialization.from_bytes": 0,
}
# Restore requests whose result has the structure of the template they are handed (position, keyword).
RESTORE_REQUESTS = ("orbax.checkpoint.args.StandardRestore", "orbax.checkpoint.args.PyTreeRestore")
_COMPOSITE = "orbax.checkpoint.args.Composite"
_MAX_DEPTH = 4
# Keywords by which the kept argument of a positional slot may be passed instead.
_SLOT_KEYWORDS = {0: ("x", "tree", "target")}


def passed_at(call: ast.Call, slot) -> ast.expr | None:
    """The argument a call passes at `slot` (a position, or a keyword's name)."""
    if isinstance(slot, int):
        if len(call.args) > slot and not any(isinstance(a, ast.Starred) for a in call.args[: slot + 1]):
            return call.args[slot]
        return next((k.value for k in call.keywords if k.arg in _SLOT_KEYWORDS.get(slot, ())), None)
    return next((k.value for k in call.keywords if k.arg == slot), None)


def library_kept_argument(call: ast.Call, qualified_name) -> ast.expr | None:
    """The argument a library call of the table hands back the structure of."""
    slot = STRUCTURE_KEEPING.get(qualified_name(call.func) or "")
    return passed_at(call, slot) if slot is not None else None


def returned_parameter(function: ast.AST, params: list[str], qualified_name) -> str | None:
    """The parameter every `return` of `function` hands back with its structure (itself, or through a
    structure-keeping library call of it), where the body rebinds it only by such calls of itself; None
    when a return gives anything else, or there is no return."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.decorator_list:
        return None
    returns, rebinds = [], {}
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Return):
            returns.append(node.value)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if isinstance(node, ast.With):
                targets = [item.optional_vars for item in node.items]
            for target in targets:
                for name in ast.walk(target) if target is not None else ():
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        ok = isinstance(node, ast.Assign) and target is name and isinstance(node.value, ast.Call)
                        rebinds.setdefault(name.id, []).append(node.value if ok else None)
        stack.extend(ast.iter_child_nodes(node))
    if not returns:
        return None
    found = {_handed_back(value, params, qualified_name) for value in returns}
    if len(found) != 1:
        return None
    param = found.pop()
    if param is None:
        return None
    for value in rebinds.get(param, ()):
        if value is None or _handed_back(value, [param], qualified_name) != param:
            return None
    return param


def _handed_back(value: ast.AST | None, params: list[str], qualified_name, depth: int = 0) -> str | None:
    if isinstance(value, ast.Name):
        return value.id if value.id in params else None
    if depth > _MAX_DEPTH or not isinstance(value, ast.Call):
        return None
    passed = library_kept_argument(value, qualified_name)
    return _handed_back(passed, params, qualified_name, depth + 1) if passed is not None else None


def _restore_request(call: ast.Call, item: str | None, qualified_name) -> ast.expr | None:
    """The template a `restore(..., args=...)` call's result (item=None), or its item `item` of a
    `Composite`, has the structure of; None for any other call."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr != "restore":
        return None
    request = next((k.value for k in call.keywords if k.arg == "args"), None)
    if not isinstance(request, ast.Call):
        return None
    if item is not None:
        if qualified_name(request.func) != _COMPOSITE:
            return None
        request = next((k.value for k in request.keywords if k.arg == item), None)
        if not isinstance(request, ast.Call):
            return None
    if qualified_name(request.func) not in RESTORE_REQUESTS:
        return None
    return passed_at(request, 0) or next((k.value for k in request.keywords if k.arg == "item"), None)


def restored_item(value: ast.AST, model) -> ast.expr | None:
    """`restored.agent` or `restored["agent"]`, `restored` bound once to a composite restore whose item
    `agent` is a template's request: that template."""
    if isinstance(value, ast.Attribute):
        holder, item = value.value, value.attr
    elif isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, str):
        holder, item = value.value, value.slice.value
    else:
        return None
    if not isinstance(holder, ast.Name):
        return None
    found = bound_values(model, holder.id, model.scope_for(value))
    if found is None or len(found[1]) != 1 or not isinstance(found[1][0], ast.Call):
        return None
    return _restore_request(found[1][0], item, model.qualified_name)


def kept_argument(call: ast.Call, model) -> ast.expr | None:
    """The argument of `call` whose structure its result has: a library call of the table, a restore
    handed a template, a function of this module (`returned_parameter`), or one of another module (its
    summary's `keeps_structure_of`)."""
    found = library_kept_argument(call, model.qualified_name) or _restore_request(call, None, model.qualified_name)
    if found is not None:
        return found
    if isinstance(call.func, ast.Name):
        resolved = model.resolve_function(call.func, model.scope_for(call))
        function = resolved[0] if resolved is not None and not resolved[1] and not resolved[2] else None
        if function is not None and function.is_function and not function.in_traced:
            node = function.node
            params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
            return _argument_for(call, params, returned_parameter(node, params, model.qualified_name))
    project = getattr(model, "project", None)
    qualified = model.qualified_name(call.func)
    if project is None or qualified is None or "." not in qualified or qualified.startswith(("jax.", "flax.", "numpy.", "builtins.")):
        return None
    summary = project.function(qualified)
    if summary is None or summary.keeps_structure_of is None or summary.has_self:
        return None
    return _argument_for(call, list(summary.params), summary.keeps_structure_of)


def _argument_for(call: ast.Call, params: list[str], param: str | None) -> ast.expr | None:
    if param is None or param not in params:
        return None
    index = params.index(param)
    return passed_at(call, index) if index < len(call.args) else next((k.value for k in call.keywords if k.arg == param), None)


def keeps_structure_of(value: ast.AST, name: str, model, depth: int = 0) -> bool:
    """`value` is the object `name` passed through calls that keep its structure
    (`jax.device_put(jax.tree.map(jnp.array, agent), sharding)`, `restore(agent, path)`)."""
    if isinstance(value, ast.Name):
        return value.id == name
    if depth > _MAX_DEPTH:
        return False
    if isinstance(value, (ast.Attribute, ast.Subscript)):
        passed = restored_item(value, model)  # `agent = restored.agent` after a composite restore
        return passed is not None and keeps_structure_of(passed, name, model, depth + 1)
    if not isinstance(value, ast.Call):
        return False
    passed = kept_argument(value, model)
    return passed is not None and keeps_structure_of(passed, name, model, depth + 1)
