"""Code that runs only while `jit` is switched off: a branch that tests JAX's `jax_disable_jit` flag.

`if jax.config.jax_disable_jit: assert not jnp.any(jnp.isnan(h))` is a debugging check written to run
only when the program is run op by op (`JAX_DISABLE_JIT=1`, `with jax.disable_jit():`): then `jit`
calls the Python function on concrete arrays, and `lax.scan`, `fori_loop`, `while_loop`, `cond` and
`lax.map` run their bodies as Python code on concrete values. Under a trace the test is False and the
branch never runs. So what it does (an `assert`, a `float()`, a NumPy call, a shape taken from a
value, a `print`) sees values, not tracers, and none of the rules that say "this fails, or shows a
tracer, when traced" (JAX101-JAX108) applies to it.

The branch is: the body of an `if` whose test is the flag (`jax.config.jax_disable_jit`,
`jax.config.read("jax_disable_jit")`, `jax.config.values["jax_disable_jit"]`, `config.jax_disable_jit`
after `from jax import config`, or a name bound once to one of them), alone or as one operand of an
`and`; the `else` of `if not <flag>:`; and what follows `if not <flag>: return` (or `raise`) in the
same block. A function that `vmap` traces outside any `jit` still sees batched tracers with `jit`
off, so its code is not taken out.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import jaxapi
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.syntax import parent_of

_FLAG = "jax_disable_jit"
_EXITS = (ast.Return, ast.Raise)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def runs_only_without_jit(node: ast.AST, scope, model) -> bool:
    """Whether `node` (in `scope`) lies in a branch that runs only when `jax_disable_jit` is on (see
    the module docstring). Modules that never name the flag answer at once."""
    if not _names_flag(model):
        return False
    if _only_vmapped(scope):
        return False
    child = node
    current = parent_of(node)
    while current is not None:
        if isinstance(current, ast.If) and child is not current.test:
            polarity = _flag_polarity(current.test, scope, model)
            if polarity is True and child in current.body:
                return True
            if polarity is False and child in current.orelse:
                return True
        block = _block_holding(current, child)
        if block is not None and _after_exit_unless_disabled(block, child, scope, model):
            return True
        if isinstance(current, _FUNCTIONS):
            return False
        child = current
        current = parent_of(current)
    return False


def _names_flag(model) -> bool:
    found = model.__dict__.get("_jaxlint_names_disable_jit")
    if found is None:
        found = model._jaxlint_names_disable_jit = any(
            (node.__class__ is ast.Attribute and node.attr == _FLAG) or (node.__class__ is ast.Constant and node.value == _FLAG)
            for node in model.nodes
        )
    return found


def _only_vmapped(scope) -> bool:
    """Traced by `vmap` only (itself, or the function around it): batched tracers even with `jit` off."""
    current = scope
    while current is not None:
        if current.traced:
            return bool(current.transforms) and current.transforms <= jaxapi.VMAP_LIKE
        current = current.parent
    return False


def _block_holding(statement: ast.AST, child: ast.AST) -> list[ast.stmt] | None:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(statement, field, None)
        if isinstance(block, list) and child in block:
            return block
    return None


def _after_exit_unless_disabled(block: list[ast.stmt], child: ast.AST, scope, model) -> bool:
    """A statement before `child` in its block is `if not <flag>: return` (or `raise`)."""
    for statement in block:
        if statement is child:
            return False
        if (
            isinstance(statement, ast.If) and not statement.orelse and statement.body and isinstance(statement.body[-1], _EXITS)
            and _flag_polarity(statement.test, scope, model) is False
        ):
            return True
    return False


def _flag_polarity(test: ast.expr, scope, model, depth: int = 0) -> bool | None:
    """True: the test holds only when jit is disabled (the flag, or an `and` with it); False: the
    test holds only when jit is on (`not <flag>`); None: neither is known."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _flag_polarity(test.operand, scope, model, depth)
        return None if inner is None or not _plain_flag(test.operand, scope, model, depth) else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return True if any(_flag_polarity(value, scope, model, depth) is True for value in test.values) else None
    return True if _plain_flag(test, scope, model, depth) else None


def _plain_flag(test: ast.expr, scope, model, depth: int) -> bool:
    """The expression reads the flag itself: `jax.config.jax_disable_jit`, `config.jax_disable_jit`,
    `jax.config.read("jax_disable_jit")`, `jax.config.values["jax_disable_jit"]`, or a name bound
    (only) to one of these."""
    if isinstance(test, ast.Attribute):
        return test.attr == _FLAG and _is_config(test.value, model)
    if isinstance(test, ast.Call):
        return (
            isinstance(test.func, ast.Attribute) and test.func.attr in ("read", "_read") and _is_config(test.func.value, model)
            and len(test.args) == 1 and isinstance(test.args[0], ast.Constant) and test.args[0].value == _FLAG
        )
    if isinstance(test, ast.Subscript):
        return (
            isinstance(test.slice, ast.Constant) and test.slice.value == _FLAG and isinstance(test.value, ast.Attribute)
            and test.value.attr == "values" and _is_config(test.value.value, model)
        )
    if isinstance(test, ast.Name) and depth < 2:
        found = bound_values(model, test.id, scope)
        return found is not None and bool(found[1]) and all(_plain_flag(value, found[0], model, depth + 1) for value in found[1])
    return False


def _is_config(node: ast.expr, model) -> bool:
    """JAX's configuration object: `jax.config`, `config` imported from `jax` or `jax.config`."""
    qualified = model.qualified_name(node) or ""
    return qualified in ("jax.config", "jax.config.config", "jax._src.config.config")
