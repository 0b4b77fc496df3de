"""## What it does
Flags `jnp.where(c, f(x), y)` inside a differentiated function (under `jax.grad`,
`value_and_grad`, `jacrev`, `vjp`, ...) where an arm applies an operation that is undefined or
infinite on part of its domain (`log`, `log1p`, `log2`, `log10`, `sqrt`, `rsqrt`, `divide`, `/`,
`power`, `**`, `arctan2`) to a value that the condition tests, such as
`jnp.where(x > 0, jnp.log(x), 0.0)`. An arm or a condition bound to a local name first is followed
to its value (`flux = m * upper ** 0.5; keep = upper > 0; jnp.where(keep, flux, 0)`), and so is an
operand computed from the tested value (`root = (1 - 16 * z) ** 0.25` under `z <= 0`). A method
counts as differentiated also when its class is built inside a function that this module or another
module of the project hands to a reverse-mode transform (`def run(t): m = pkg.Layer(); ...;
jax.jacrev(run)`): the library module shows no transform, the project's script or check does. An operand already guarded (`jnp.log(jnp.where(...))`,
`jnp.maximum`, `jnp.clip`) or a constant denominator (a literal, or a parameter with a non-zero
numeric default that the function never rebinds, such as Huber's `beta=1.0`) is not flagged.
Neither is an operand with no path to what is differentiated: in a local function used only as
`value_and_grad(f, argnums=0)`, a divide by a value computed from the other arguments alone
(a library's public function is not exempt: its users may differentiate it with respect to anything).
Nor is code in a `jax.custom_jvp`/`custom_vjp` function: autodiff uses its rule, never its body.
Nor is a method of a class only built where no reverse-mode gradient is taken.
Nor is an operand that falls as the tested value grows on the side kept for small values
(`jnp.where(z >= 0, (1 - 16 * z) ** 0.25, 1)`: the discarded side has a positive base).
Nor is a function only forward-mode transforms differentiate (`jacfwd`, `jvp`): `where` selects
the tangents as it selects the values, so the NaN of the dropped arm never reaches the result.
Test code is not flagged (a `test*` function, a `Test*` class, a test module: `*_test.py`,
`conftest.py`, test helpers, or a `test_*.py` written as a test): a test's loss is written for the
inputs it asserts on, and a NaN there fails the test itself; every rule whose finding is a cost or
the quality of computed values follows this one policy (semantic/test_code.py).

## Why is this bad?
`jnp.where` computes both arms everywhere and selects afterwards. The forward value is fine, but
reverse-mode AD multiplies the unselected arm's derivative by zero, and `0 * inf` or `0 * nan` is
`nan`: the gradient is NaN exactly where the condition was meant to protect. See the JAX FAQ,
https://docs.jax.dev/en/latest/faq.html#gradients-contain-nan-where-using-where.

## Example
```python
def loss(x):
    return jnp.where(x > 0, jnp.log(x), 0.0).sum()

jax.grad(loss)(jnp.array([0.0, 1.0]))  # [nan, 1.]
```

## Use instead
```python
def loss(x):
    return jnp.where(x > 0, jnp.log(jnp.where(x > 0, x, 1)), 0.0).sum()
```

## Fix safety
The "double where" fix is safe: the inner `jnp.where` replaces the operand by a harmless value
(1, or 0 for `log1p`) only where the outer `where` discards the result, so the selected values are
unchanged, and the gradient of the discarded branch becomes finite. The condition is written twice,
so it must be side-effect free (it is an array expression).

## How the runtime mode confirms it
It evaluates `jax.grad` of the function at the example inputs: the original gradient contains NaN,
the fixed one is finite and the forward values agree.
"""

from __future__ import annotations

import ast

from jaxlint import fixes
from jaxlint.rules.base import Rule
from jaxlint.semantic.bindings import owning_scope
from jaxlint.semantic.flow import dotted_name
from jaxlint.semantic.jaxapi import DIFFERENTIATING
from jaxlint.semantic.gradient_elsewhere import class_differentiated_elsewhere
from jaxlint.semantic.reachability import FORWARD_MODE, forward_only_scopes
from jaxlint.semantic.model import FUNCTION_NODES
from jaxlint.semantic.syntax import parameter_defaults, walk  # ast.walk minus ctx markers, faster

# Operation -> (index of the operand that must stay in the domain, the harmless value).
_UNSAFE_CALLS = {
    "jax.numpy.log": (0, "1"), "jax.numpy.log2": (0, "1"), "jax.numpy.log10": (0, "1"), "jax.numpy.log1p": (0, "0"),
    "jax.numpy.sqrt": (0, "1"), "jax.lax.sqrt": (0, "1"), "jax.lax.rsqrt": (0, "1"), "jax.lax.log": (0, "1"),
    "jax.numpy.divide": (1, "1"), "jax.numpy.true_divide": (1, "1"), "jax.lax.div": (1, "1"),
    "jax.numpy.power": (0, "1"), "jax.lax.pow": (0, "1"), "jax.numpy.arctan2": (1, "1"), "jax.numpy.reciprocal": (0, "1"),
}
# Functions whose result is already kept inside the domain.
_GUARDS = frozenset({"jax.numpy.where", "jax.numpy.maximum", "jax.numpy.clip", "jax.numpy.abs", "jax.numpy.exp", "jax.nn.softplus", "jax.numpy.square", "jax.numpy.fmax"})


class NanUnsafeWhere(Rule):
    code = "JAX503"
    name = "nan-unsafe-where"
    summary = "`jnp.where` guarding log/sqrt/divide in a differentiated function: NaN gradients"
    skips_test_code = True
    node_types = (ast.Call,)
    traced_code_only = False  # (also a method of a class differentiated from another module)
    fix_availability = "sometimes"

    def check(self, node: ast.Call, context) -> None:
        if context.qualified_name(node.func) != "jax.numpy.where" or len(node.args) != 3 or node.keywords:
            return
        values = _local_values(node, context)
        condition = node.args[0]
        if isinstance(condition, ast.Name) and condition.id in values:
            condition = values[condition.id]
        tested = _names(condition, values)
        if not tested:
            return
        edits = []
        found = []
        for arm_index in (1, 2):
            for operation, operand, safe in _unsafe_operations(node.args[arm_index], context, values):
                operand_names = _names(operand, values)
                if not (operand_names & tested) or _cutoff_not_guard(condition, arm_index == 1, operand_names, operand, values):
                    continue
                if not _may_carry_gradient(operand, context):
                    continue
                found.append(operation)
                edits.append((operand, safe, arm_index == 1))
        if not found:
            return
        # Asked last: whether another module differentiates the class reads the project's files.
        if not (context.is_traced_code(node) and _differentiated(context, node)) and not _differentiated_elsewhere(context, node):
            return
        where, import_edits = fixes.reference(context, "jax.numpy.where")
        fix = None
        inside = {id(n) for n in walk(node)}
        if where and condition is node.args[0] and all(id(operand) in inside for operand, _, _ in edits) and not any(isinstance(n, (ast.NamedExpr, ast.Call)) and _has_effects(n, context) for n in walk(condition)):
            condition_text = context.text(condition)
            replacements = []
            for operand, safe, in_true_arm in edits:
                guarded = f"{where}({condition_text}, {context.text(operand)}, {safe})" if in_true_arm else f"{where}({condition_text}, {safe}, {context.text(operand)})"
                replacements.append(context.replace(operand, guarded))
            fix = context.fix("Guard the operand with a second `jnp.where`", [*replacements, *import_edits], safe=True)
        name = _operation_name(found[0], context)
        context.report(
            node,
            f"`jnp.where` selects after computing both arms: the gradient of the unselected `{name}` is NaN where "
            f"the condition excludes it; guard its operand with a second `jnp.where` (double-where)",
            fix=fix,
        )


def _has_effects(node: ast.AST, context) -> bool:
    """A walrus, or a call that is not a JAX array function: writing the condition twice could change behaviour."""
    if isinstance(node, ast.NamedExpr):
        return True
    qualified = context.qualified_name(node.func) or ""
    return not qualified.startswith(("jax.numpy.", "jax.lax.", "builtins.abs"))


def _cutoff_not_guard(condition: ast.AST, true_arm: bool, operand_names: set[str], operand=None, values=None) -> bool:
    """`jnp.where(r < cutoff, r ** -12, 0)`: the unsafe arm is the one kept for small values, so the
    singular point (zero) is on the selected side and the discarded side is finite: no NaN. An
    operand that falls as the tested value grows (`(1 - 16 * z) ** 0.25` under `z <= 0`) turns this
    round: its singular side is the large values of `z`, the ones discarded."""
    if not (isinstance(condition, ast.Compare) and len(condition.ops) == 1):
        return False
    operator = condition.ops[0]
    if not isinstance(operator, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return False
    left = {n.id for n in walk(condition.left) if isinstance(n, ast.Name)}
    right = {n.id for n in walk(condition.comparators[0]) if isinstance(n, ast.Name)}
    less = isinstance(operator, (ast.Lt, ast.LtE))
    # The varying side: the one whose names all feed the operand (`z < cutoff + eps` with operand `z + eps`: z).
    left_node, right_node = condition.left, condition.comparators[0]
    if isinstance(left_node, ast.Name) and left_node.id in operand_names and not isinstance(right_node, ast.Name):
        on_left, on_right = True, False
    elif isinstance(right_node, ast.Name) and right_node.id in operand_names and not isinstance(left_node, ast.Name):
        on_left, on_right = False, True
    else:
        on_left = bool(left) and left <= operand_names
        on_right = bool(right) and right <= operand_names
    if on_left and not on_right:
        variable_small_when_true = less
    elif on_right and not on_left:
        variable_small_when_true = not less
    else:
        return False
    varying = left_node if on_left else right_node
    if operand is not None and isinstance(varying, ast.Name) and _direction(operand, varying.id, values or {}, set()) == -1:
        variable_small_when_true = not variable_small_when_true
    return variable_small_when_true == true_arm


def _direction(node: ast.AST, name: str, values: dict, seen: set) -> int | None:
    """+1 where `node` grows with `name`, -1 where it falls, 0 where it does not depend on it, None
    unknown: sums, differences, negation, products and quotients by a literal, positive powers."""
    if isinstance(node, ast.Name):
        if node.id == name:
            return 1
        if node.id in values and node.id not in seen:
            return _direction(values[node.id], name, values, seen | {node.id})
        return 0
    if isinstance(node, ast.Constant):
        return 0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _direction(node.operand, name, values, seen)
        return None if inner is None else -inner
    if isinstance(node, ast.BinOp):
        left = _direction(node.left, name, values, seen)
        right = _direction(node.right, name, values, seen)
        if left is None or right is None:
            return None
        if isinstance(node.op, (ast.Add, ast.Sub)):
            right = -right if isinstance(node.op, ast.Sub) else right
            return left if not right else right if not left else left if left == right else None
        literal = node.right if isinstance(node.right, ast.Constant) else node.left if isinstance(node.op, ast.Mult) and isinstance(node.left, ast.Constant) else None
        if isinstance(node.op, (ast.Mult, ast.Div)) and literal is not None and isinstance(literal.value, (int, float)):
            varying = right if literal is node.left else left
            return varying * (1 if literal.value > 0 else -1 if literal.value < 0 else 0)
        if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and isinstance(node.right.value, (int, float)) and node.right.value > 0:
            return left
        return 0 if not left and not right else None
    return None if name in _names(node, values) else 0


def _local_values(node: ast.AST, context) -> dict:
    """Names of the function around `node` bound once, by a plain assignment before it: their values."""
    scope = context.scope(node)
    if scope is None or not scope.is_function:
        return {}
    counts: dict[str, int] = {}
    values = {}
    for target, value in scope.bindings:
        for bound in walk(target):
            if isinstance(bound, ast.Name):
                counts[bound.id] = counts.get(bound.id, 0) + 1
        if isinstance(target, ast.Name) and value is not None and getattr(value, "lineno", node.lineno) < node.lineno:
            values[target.id] = value
    for target, _ in scope.loops:
        for bound in walk(target):
            if isinstance(bound, ast.Name):
                counts[bound.id] = 2
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def _names(node: ast.AST, values: dict) -> set[str]:
    """The names `node` reads, and those the local values it reads are computed from; an attribute
    of `self` by its dotted name (`self.lower` and `self.upper` are different values)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Attribute):
            dotted = dotted_name(current)
            if dotted is not None and dotted.startswith("self."):
                found.add(dotted)
                continue
        if isinstance(current, ast.Name):
            if current.id not in found and current.id != "self":
                found.add(current.id)
                if current.id in values:
                    stack.append(values[current.id])
            continue
        stack.extend(ast.iter_child_nodes(current))
    return found


# Functions differentiated through their own rule: autodiff never goes through their bodies.
_CUSTOM_DERIVATIVES = frozenset({"jax.custom_jvp", "jax.custom_vjp"})


def _differentiated_elsewhere(context, node) -> bool:
    """A method of a module-level class that another module of the project builds inside a function
    it differentiates in reverse mode (semantic/gradient_elsewhere.py); not one with its own rule."""
    scope = context.scope(node)
    method = scope.enclosing_method() if scope is not None else None
    probe = scope
    while probe is not None:
        if probe.transforms & _CUSTOM_DERIVATIVES or probe.transforms & FORWARD_MODE:
            return False
        probe = probe.parent
    if method is None or method.class_node not in context.model.module_scope.node.body:
        return False
    return class_differentiated_elsewhere(method.class_node, context.model.module_scope.node, context.source.filename, context.model.project)


def _differentiated(context, node) -> bool:
    """Under a transform that transposes: a function only `jacfwd`/`jvp` differentiate (forward
    mode) drops the NaN tangent of the arm `where` does not select, so its gradient is finite."""
    scope = context.scope(node)
    forward_only = forward_only_scopes(context.model)
    while scope is not None:
        if scope.transforms & _CUSTOM_DERIVATIVES:
            return False
        if scope.differentiated:
            return id(scope) not in forward_only
        scope = scope.parent
    return False


def _may_carry_gradient(operand: ast.AST, context) -> bool:
    """Whether the operand may depend on what the derivative is taken with respect to. In
    `value_and_grad(f, argnums=0)` with `def f(c, s31)`, `1 / s31` has no path to `c`: its NaN
    cotangent is never accumulated into any gradient. Known only for a function a `grad`-like
    transform differentiates directly (not as a helper of differentiated code), and only for a local
    function used nowhere else: a library's public function may be differentiated by its users with
    respect to anything."""
    scope = context.scope(operand)
    if scope is None or not scope.differentiated or scope.differentiated_wrt is None:
        return True
    if not _local_and_only_differentiated(scope, context):
        return True
    carrying = _names_carrying_gradient(scope)
    for name in walk(operand):
        if not isinstance(name, ast.Name):
            continue
        owner = owning_scope(context.model, name.id, scope)
        if owner is None:
            continue  # a builtin
        if owner is scope:
            if name.id in carrying:
                return True
            continue
        # A free name is a constant of this derivative unless its own function is differentiated too.
        while owner is not None:
            if owner.differentiated:
                return True
            owner = owner.parent
    return False


def _local_and_only_differentiated(scope, context) -> bool:
    """`def f(c, s31): ...` inside a function, and every use of `f` there is `grad(f, ...)`-like."""
    parent = scope.parent
    if not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or parent is None or not parent.is_function:
        return False
    name = scope.node.name
    uses = differentiated = 0
    for node in walk(parent.node):
        if isinstance(node, ast.Name) and node.id == name:
            uses += 1
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            if context.qualified_name(node.func) in DIFFERENTIATING:
                differentiated += 1
    return uses == differentiated


def _names_carrying_gradient(scope) -> set[str]:
    """The function's names whose value may depend on the differentiated parameters: those, and
    every local assigned (or looped over) from one of them; `self` and local functions count too."""
    carrying = set(scope.differentiated_wrt) | set(scope.defs)
    if scope.has_self:
        carrying.add("self")
    sources = [*scope.bindings, *scope.loops]
    changed = True
    while changed:
        changed = False
        for target, value in sources:
            targets = {n.id for n in walk(target) if isinstance(n, ast.Name)} - carrying
            if not targets:
                continue
            if value is None or any(isinstance(n, ast.Name) and n.id in carrying for n in walk(value)):
                carrying |= targets
                changed = True
    return carrying


def _unsafe_operations(arm: ast.AST, context, values=None):
    """(operation node, operand, harmless value) for each unguarded unsafe operation in an arm, and
    in the values of the local names it reads (`flux = m * top ** 0.5; jnp.where(c, flux, 0)`)."""
    values = values or {}
    stack = [arm]
    followed = set()
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and node.id in values and node.id not in followed:
            followed.add(node.id)
            stack.append(values[node.id])
            continue
        if isinstance(node, (*FUNCTION_NODES,)):
            continue
        if isinstance(node, ast.Call) and context.qualified_name(node.func) == "jax.numpy.where":
            continue  # a nested where guards its own arms
        operand = safe = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            operand, safe = node.right, "1"
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            exponent = node.right
            if not (isinstance(exponent, ast.Constant) and isinstance(exponent.value, int) and exponent.value >= 0):
                operand, safe = node.left, "1"
        elif isinstance(node, ast.Call):
            entry = _UNSAFE_CALLS.get(context.qualified_name(node.func) or "")
            if entry is not None and len(node.args) > entry[0] and not node.keywords:
                operand, safe = node.args[entry[0]], entry[1]
                if context.qualified_name(node.func) in ("jax.numpy.power", "jax.lax.pow") and len(node.args) == 2:
                    exponent = node.args[1]
                    if isinstance(exponent, ast.Constant) and isinstance(exponent.value, int) and exponent.value >= 0:
                        operand = None
        if operand is not None and not _guarded(operand, context):
            yield node, operand, safe
            stack.extend(child for child in ast.iter_child_nodes(node) if child is not operand)
            # (an operand's own local values are followed: their operations are written elsewhere)
            stack.extend(name for name in walk(operand) if isinstance(name, ast.Name) and name.id in values)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _guarded(operand: ast.AST, context) -> bool:
    if isinstance(operand, ast.Constant):
        return True
    if isinstance(operand, ast.Name) and _nonzero_default(operand, context):
        return True
    for node in walk(operand):
        if isinstance(node, ast.Call) and context.qualified_name(node.func) in _GUARDS:
            return True
    if isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Add):
        # `x + eps` with a literal: the author keeps it off zero on purpose.
        if isinstance(operand.right, ast.Constant) or isinstance(operand.left, ast.Constant):
            return True
    return False


def _nonzero_default(name: ast.Name, context) -> bool:
    """A hyperparameter: a parameter of the enclosing function whose default is a non-zero number
    (`def huber(pred, target, beta=1.0)`), not rebound in the function."""
    scope = context.scope(name)
    function = scope.node if scope is not None else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    default = parameter_defaults(function.args).get(name.id)
    if isinstance(default, ast.UnaryOp) and isinstance(default.op, ast.USub):
        default = default.operand
    if not (isinstance(default, ast.Constant) and isinstance(default.value, (int, float)) and default.value):
        return False
    return not any(dotted_name(target) == name.id for target, _ in scope.bindings)


def _operation_name(node: ast.AST, context) -> str:
    if isinstance(node, ast.BinOp):
        return "/" if isinstance(node.op, ast.Div) else "**"
    qualified = context.qualified_name(node.func) or ""
    return qualified.rsplit(".", 1)[-1]


RULE = NanUnsafeWhere()
