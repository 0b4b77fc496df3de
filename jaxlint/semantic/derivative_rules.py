"""Custom derivative rules: functions JAX calls with the primal's own arguments.

A `jax.custom_jvp` function's rule (`@f.defjvp def f_jvp(primals, tangents)`, or `f.defjvp(f_jvp)`)
and a `jax.custom_vjp` function's forward and backward rules (`f.defvjp(f_fwd, f_bwd)`, `@f.def_fwd`,
`@f.def_bwd`, `f.defjvps(...)`) are handed the very values the primal got (the forward and `jvp` rules
its arguments, the backward rule the residuals the forward rule saved). Such a rule recomputes the
primal's output (`primal_out = f(key, x)`) and its derivative from the same values: a draw there from
a key among them reproduces the primal's draw on purpose, since the derivative is that of the noise
the primal added (`1 + normal(key) / (2 * sqrt(x))` for `x + sqrt(x) * normal(key)`).

`rule_parameter_keys(function)`: for a function registered as such a rule, the names of its body that
hold what JAX handed it: its parameters and the names unpacked from them or indexed out of them
(`key, image = primals`, `key = residuals[0]`), not names it computes (`k1, k2 = split(key)`, a key
made from a literal seed). A key named there is the primal's key.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.model import FUNCTION_NODES
from jaxlint.semantic.syntax import bound_names

# The methods of a `custom_jvp`/`custom_vjp` object that register a rule.
RULE_REGISTRATIONS = frozenset({"defjvp", "defjvps", "defvjp", "def_fwd", "def_bwd"})


def is_derivative_rule(function: ast.AST, model) -> bool:
    """`function` is registered as a derivative rule: decorated with `@f.defjvp` (`def_fwd`, `def_bwd`),
    or named as an argument of `f.defjvp(...)`/`f.defvjp(...)` in the module (the registration methods
    of JAX's and Equinox's custom derivative objects)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    cache = model.__dict__.setdefault("_derivative_rules", None)
    if cache is None:
        cache = model.__dict__["_derivative_rules"] = _registered_names(model)
    if id(function) in cache[1]:
        return True
    return function.name in cache[0]


def _registered_names(model) -> tuple[frozenset[str], frozenset[int]]:
    names: set[str] = set()
    decorated: set[int] = set()
    for scope in model.scopes:
        node = scope.node
        for decorator in getattr(node, "decorator_list", ()):
            if isinstance(decorator, ast.Attribute) and decorator.attr in RULE_REGISTRATIONS:
                decorated.add(id(node))
        for call in scope.calls:
            if isinstance(call.func, ast.Attribute) and call.func.attr in RULE_REGISTRATIONS:
                names.update(argument.id for argument in call.args if isinstance(argument, ast.Name))
    return frozenset(names), frozenset(decorated)


def rule_parameter_keys(function: ast.AST, model) -> frozenset[str]:
    """The names in a derivative rule's body that hold values JAX handed it (empty for any other
    function): its parameters, and names bound only by unpacking or indexing them."""
    if not is_derivative_rule(function, model):
        return frozenset()
    arguments = function.args
    handed = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg) if a is not None}
    computed: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in ast.walk(function):
            if node is not function and isinstance(node, FUNCTION_NODES):
                continue
            if not isinstance(node, ast.Assign):
                continue
            from_handed = _part_of(node.value, handed)
            for target in node.targets:
                for name in bound_names(target):
                    if from_handed and name not in computed and name not in handed:
                        handed.add(name)
                        changed = True
                    elif not from_handed and name not in computed:
                        computed.add(name)
                        handed.discard(name)
                        changed = True
    return frozenset(handed - computed)


def _part_of(value: ast.AST, handed: set[str]) -> bool:
    """`primals`, `primals[0]`, `(key, x)` of handed names: the value is (a part of) what JAX handed."""
    while isinstance(value, ast.Subscript):
        value = value.value
    if isinstance(value, ast.Name):
        return value.id in handed
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_part_of(element, handed) for element in value.elts)
    return False
