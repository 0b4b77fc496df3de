"""## What it does
Flags Python side effects that store a traced value outside a traced function: assignments to a
`global` or `nonlocal` name, `.append`/`.extend`/`.insert` on a list (or item assignment into a
dict) created outside the function, and `self.attr = ...` in a method that is itself jitted
(or vmapped, ...), when the stored value is traced.

## Why is this bad?
JAX runs the Python body of a traced function once, at trace time; later calls run the compiled
computation and never execute the side effect again. What was stored is a tracer that escapes its
trace: using it later raises `UnexpectedTracerError` ("an intermediate value of this computation has
escaped the scope of its transformation"). See "Pure functions" in
https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html and
https://docs.jax.dev/en/latest/errors.html#jax.errors.UnexpectedTracerError.

Not flagged: writes of static values (a trace counter `nonlocal calls; calls += 1` is a deliberate
idiom), lists and dicts local to the traced code, state managed by a framework (flax `nn.Module`
`setup`/`compact`, `nnx.Module`, equinox modules: any class whose bases the module cannot show to
be plain Python classes), and objects created inside the trace.

## Example
```python
losses = []

@jax.jit
def step(x):
    loss = jnp.mean(x ** 2)
    losses.append(loss)
    return x - 0.1 * x
```

## Use instead
```python
@jax.jit
def step(x):
    loss = jnp.mean(x ** 2)
    return x - 0.1 * x, loss

x, loss = step(x)
losses.append(loss)
```
Return the value from the traced function (or carry it through `lax.scan`), or use
`jax.debug.callback` for host-side effects that should run on every call.

## Fix safety
No fix is offered: returning the value changes the function's signature and every call site.

## How the runtime mode confirms it
It calls the function twice under `jax.jit` with the example inputs: the side effect runs once (at
trace time) and the stored value is a tracer; reading it raises `UnexpectedTracerError`.
"""

from __future__ import annotations

import ast

from jaxlint.rules.base import Rule
from jaxlint.semantic.bindings import bound_values, owning_scope
from jaxlint.semantic.flow import target_elements
from jaxlint.semantic.model import TRACED, parent_of

_LIST_METHODS = frozenset({"append", "extend", "insert"})
_PLAIN_BASES = frozenset({"builtins.object", "abc.ABC", "typing.Generic", "typing.Protocol"})


class SideEffectInTraced(Rule):
    code = "JAX107"
    name = "side-effect-in-traced"
    summary = "Side effect that stores a traced value outside the traced function"
    node_types = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)
    traced_code_only = True
    fix_availability = "none"

    def check(self, node: ast.AST, context) -> None:
        if not context.is_traced_code(node):
            return
        scope = context.scope(node)
        if isinstance(node, ast.Call):
            self._check_mutation(node, scope, context)
            return
        if node.value is None or context.level(node.value, scope) < TRACED:
            return
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for element in target_elements(target):
                self._check_target(element, node, scope, context)

    def _check_target(self, target: ast.AST, node: ast.AST, scope, context) -> None:
        if isinstance(target, ast.Name) and target.id in scope.declared_free:
            owner = owning_scope(context.model, target.id, scope)
            if owner is not None and owner.in_traced:
                return  # the enclosing traced function's own variable: same trace
            keyword = "global" if owner is None or owner.parent is None else "nonlocal"
            context.report(
                target,
                f"traced function `{scope.name}` assigns a traced value to {keyword} `{target.id}`: it runs once at trace "
                "time and leaks a tracer; return the value instead",
            )
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            if _method_is_transformed(scope) and _plain_class(scope.class_node, context):
                context.report(
                    target,
                    f"traced method `{scope.name}` stores a traced value in `self.{target.attr}`: it runs once at trace time "
                    "and leaks a tracer; return the value instead",
                )
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            if _outer_container(target.value, scope, context, ("dict",)):
                context.report(
                    target,
                    f"traced function `{scope.name}` stores a traced value in outer dict `{target.value.id}`: it runs once "
                    "at trace time and leaks a tracer; return the value instead",
                )

    def _check_mutation(self, node: ast.Call, scope, context) -> None:
        function = node.func
        if not (isinstance(function, ast.Attribute) and function.attr in _LIST_METHODS and isinstance(function.value, ast.Name)):
            return
        if not any(context.level(arg, scope) >= TRACED for arg in node.args):
            return
        if not _outer_container(function.value, scope, context, ("list",)):
            return
        context.report(
            node,
            f"traced function `{scope.name}` appends a traced value to outer list `{function.value.id}`: it runs once at "
            "trace time and leaks a tracer; return the value instead",
        )


def _outer_container(name: ast.Name, scope, context, kinds: tuple[str, ...]) -> bool:
    """`name` is a list (or dict) created in a scope that is not traced: it outlives the trace."""
    found = bound_values(context.model, name.id, scope)
    if found is None:
        return False
    owner, values = found
    if owner.in_traced:
        return False
    for value in values:
        if isinstance(value, (ast.List, ast.ListComp)) and "list" in kinds:
            continue
        if isinstance(value, (ast.Dict, ast.DictComp)) and "dict" in kinds:
            continue
        if isinstance(value, ast.Call) and not value.args and context.qualified_name(value.func) in {f"builtins.{kind}" for kind in kinds}:
            continue
        return False
    return True


def _method_is_transformed(scope) -> bool:
    """A method that a transform wraps directly (`@jax.jit def method(self, ...)`), so `self` lives outside."""
    return scope.class_node is not None and scope.has_self and bool(scope.transforms - {"helper"})


def _plain_class(class_node: ast.ClassDef | None, context, depth: int = 0) -> bool:
    """A class whose bases are all plain Python classes this module defines (so no framework manages state)."""
    if class_node is None or depth > 5 or class_node.keywords or class_node.decorator_list:
        return False
    for base in class_node.bases:
        qualified = context.qualified_name(base)
        if qualified in _PLAIN_BASES:
            continue
        local = _local_class(base, context)
        if local is None or not _plain_class(local, context, depth + 1):
            return False
    return True


def _local_class(base: ast.AST, context) -> ast.ClassDef | None:
    if not isinstance(base, ast.Name):
        return None
    found = [node for node in context.model.class_methods if node.name == base.id and isinstance(parent_of(node), ast.Module)]
    return found[0] if len(found) == 1 else None


RULE = SideEffectInTraced()
