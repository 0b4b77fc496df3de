"""## What it does
Flags a list, dict, set, or NumPy/JAX array passed at a `static_argnums`/`static_argnames`
position of a jitted function (also one made by `partial(jax.jit, static_argnames=...)(f)` or an
alias `jit_static = partial(jax.jit, ...)` used as a decorator): a literal (`[0, 1]`, `{"a": 1}`),
a comprehension, a call known to make one (`list(...)`, `sorted(...)`, `vars(...)`, `s.split()`,
`np.array(...)`, any `jnp` call, `[0] + rest`), or a variable whose every assignment in the scope is
one of those.

Not flagged: a mutable default of a static parameter (`def f(x, axes=[0])`) that callers leave out.
`jit` hashes only the static arguments a call passes, so the default never reaches the cache and
the call works (checked on jax 0.10.2 and 0.11.2).

## Why is this bad?
`jit` caches compiled code keyed on the values of static arguments, so they must be hashable.
Passing a list raises `ValueError: Non-hashable static arguments are not supported`. NumPy and JAX
arrays are unhashable too. See the `static_argnums` documentation of `jax.jit`
(https://docs.jax.dev/en/latest/_autosummary/jax.jit.html).

## Example
```python
@partial(jax.jit, static_argnames=("axes",))
def total(x, axes):
    return x.sum(axis=axes)

total(x, axes=[0, 1])
```

## Use instead
```python
total(x, axes=(0, 1))
```

## Fix safety
A list or set literal becomes a tuple literal of the same elements as written, `list(...)` and
`set(...)` become `tuple(...)`, and a list or set comprehension becomes `tuple(...)` of a generator:
marked safe, since the jitted function receives the elements in the order the code lists them (for
a set that is not the set's own iteration order, and repeated elements stay repeated). A variable
becomes `tuple(var)`: unsafe, since a dict variable would become a tuple of its keys and a nested
list stays unhashable. Dicts and arrays get no fix.

## How the runtime mode confirms it
Calling the jitted function with the example inputs raises the non-hashable `ValueError`; the fixed
call compiles once for equal values (the cache size stays at 1 across repeated calls).
"""

from __future__ import annotations

import ast

from jaxlint.fixes import static_tuple
from jaxlint.rules.base import Rule
from jaxlint.semantic import jit_aliases
from jaxlint.semantic.model import passed_arguments
from jaxlint.semantic.syntax import walk  # ast.walk minus ctx markers, faster

_ARRAY_FACTORIES = ("numpy.", "jax.numpy.")
_ARRAY_FACTORY_NAMES = frozenset({"array", "asarray", "zeros", "ones", "arange", "full", "empty", "linspace", "eye", "stack", "concatenate"})


class UnhashableStaticArg(Rule):
    code = "JAX301"
    name = "unhashable-static-arg"
    summary = "Unhashable value passed as a static argument of a jitted function"
    node_types = (ast.Call,)
    # Only a jitted callable with a `static_*` option has static arguments; options of an imported
    # one are in its own module.
    required_text = ("static_arg", "static_broadcasted_arg")
    fires_through_project_imports = True
    fix_availability = "sometimes"

    def check(self, node: ast.Call, context) -> None:
        scope = context.scope(node)
        # Most calls pass nothing that could be unhashable: tell that before looking up the callee.
        if not any(_may_be_unhashable(argument, scope, context) for argument, _, _ in passed_arguments(node)):
            return
        binding = context.model.jit_binding_for_call(node) or jit_aliases.binding_for_call(node, context.model)
        if binding is None:
            return
        for argument, position, keyword in passed_arguments(node):
            if binding.is_static(position, keyword):
                self._check_value(argument, context, scope, binding, f"argument {position}" if keyword is None else f"`{keyword}`")

    def _check_value(self, value: ast.AST, context, scope, binding, where: str) -> None:
        kind = _unhashable_kind(value, context)
        variable = None
        if kind is None and isinstance(value, ast.Name):
            kind = _variable_kind(value.id, scope, context)
            variable = value.id if kind else None
        if kind is None:
            return
        callee = binding.key if binding.key != "<inline>" else "the jitted function"
        fix = static_tuple.tuple_fix(value, kind, variable, context)
        context.report(
            value,
            f"static {where} of `{callee}` is a {kind}, which is unhashable: jit raises `ValueError: Non-hashable static "
            f"arguments are not supported`; pass a tuple{' or a frozen mapping' if kind == 'dict' else ''}",
            fix=fix,
        )


def _may_be_unhashable(value: ast.AST, scope, context) -> bool:
    """`_check_value` could report `value`: it is of an unhashable kind, or a name some binding in
    the scope gives one (what `_variable_kind` needs of every binding)."""
    if value.__class__ is ast.Name:
        return value.id in context.memo(("JAX301", "names", id(scope)), _names_bound_unhashable, scope, context)
    return _unhashable_kind(value, context) is not None


def _names_bound_unhashable(scope, context) -> frozenset[str]:
    return frozenset(
        target.id for target, value in scope.bindings
        if isinstance(target, ast.Name) and value is not None and not isinstance(value, ast.AugAssign)
        and _unhashable_kind(value, context) is not None
    )


# Displays and comprehensions, by class (ast node classes have no subclasses): one lookup for the
# argument of nearly every call of a module.
_DISPLAY_KINDS = {ast.List: "list", ast.ListComp: "list", ast.Set: "set", ast.SetComp: "set", ast.Dict: "dict", ast.DictComp: "dict"}


def _unhashable_kind(value: ast.AST, context) -> str | None:
    kind = value.__class__
    display = _DISPLAY_KINDS.get(kind)
    if display is not None:
        return display
    if kind is not ast.BinOp and kind is not ast.Call:
        return None  # names, constants, attributes, subscripts: most arguments
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        # `[0] + extra` is a list whatever `extra` is (list + non-list raises before jit sees it).
        left, right = _unhashable_kind(value.left, context), _unhashable_kind(value.right, context)
        return "list" if "list" in (left, right) else None
    if isinstance(value, ast.Call):
        qualified = context.qualified_name(value.func) or ""
        if qualified in ("builtins.list", "builtins.set", "builtins.dict", "builtins.sorted", "builtins.vars"):
            return {"builtins.sorted": "list", "builtins.vars": "dict"}.get(qualified, qualified[9:])
        if qualified.startswith(_ARRAY_FACTORIES) and qualified.rsplit(".", 1)[-1] in _ARRAY_FACTORY_NAMES:
            return "NumPy array" if qualified.startswith("numpy.") else "JAX array"
        if qualified.startswith("jax.numpy.") and qualified not in _JNP_NON_ARRAYS:
            return "JAX array"  # every jnp function returns an array, `jnp.float32(1)` included
        if qualified.startswith("numpy.random.") and qualified.rsplit(".", 1)[-1] not in _NUMPY_RANDOM_NON_ARRAYS and (value.args or value.keywords):
            return "NumPy array"
        if not qualified and isinstance(value.func, ast.Attribute) and value.func.attr == "split" and not value.keywords:
            return "list"
    return None


_JNP_NON_ARRAYS = frozenset({
    "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size", "jax.numpy.dtype", "jax.numpy.result_type",
    "jax.numpy.issubdtype", "jax.numpy.iinfo", "jax.numpy.finfo", "jax.numpy.isdtype", "jax.numpy.isscalar",
    "jax.numpy.can_cast", "jax.numpy.promote_types",
})
_NUMPY_RANDOM_NON_ARRAYS = frozenset({"seed", "default_rng", "RandomState", "Generator", "get_state", "set_state", "PCG64"})


def _variable_kind(name: str, scope, context) -> str | None:
    """The unhashable kind a variable holds, when every binding of it in the scope agrees."""
    kinds = set()
    for target, value in scope.bindings:
        if isinstance(target, ast.Name) and target.id == name:
            if value is None or isinstance(value, ast.AugAssign):
                return None
            kinds.add(_unhashable_kind(value, context))
        elif name in {n.id for n in walk(target) if isinstance(n, ast.Name)}:
            return None
    for target, _ in scope.loops:
        if name in {n.id for n in walk(target) if isinstance(n, ast.Name)}:
            return None
    if name in scope.params or name in scope.keyword_params or len(kinds) != 1:
        return None
    return kinds.pop()


RULE = UnhashableStaticArg()
