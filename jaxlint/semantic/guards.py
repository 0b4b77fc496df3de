"""Guards against a failed step: tests that stop a loop only when a value is not finite.

`if jnp.isnan(loss): break` (or `return`, or `any(isinf(...))`) is not how the loop decides its
length: in a run that goes well it never fires, so the loop's iterations do not depend on it, and
the host did not need the value before the guard existed. On a device value it is a wait every step
that can be paid every N steps instead (or moved onto the device with `checkify`, `jax_debug_nans`).
A convergence or early-stopping test (`if loss < tol: break`, `if patience > 10: break`) decides
the loop's length: the host needs its value every step by design.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.syntax import walk

_NONFINITE_TESTS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf"})
_MODULES = ("jax.numpy.", "numpy.", "math.", "jax.lax.")
_REDUCTIONS = frozenset({"any", "all"})


def nonfinite_guard(test: ast.expr, context) -> bool:
    """Whether a stopping test asks only whether values are finite: its calls are the non-finite
    tests of NumPy, `jax.numpy` or `math` (with `any`/`all` over them, array methods `.any()` included),
    joined by `and`/`or`/`not`; no comparison or other call that could be a convergence test."""
    found = False
    for node in walk(test):
        kind = node.__class__
        if kind is ast.Call:
            qualified = context.qualified_name(node.func) or ""
            name = qualified.rsplit(".", 1)[-1]
            if qualified.startswith(_MODULES) and name in _NONFINITE_TESTS:
                found = True
            elif name in _REDUCTIONS and (qualified.startswith(_MODULES) or qualified in ("builtins.any", "builtins.all", "any", "all")):
                continue
            elif node.func.__class__ is ast.Attribute and node.func.attr in _REDUCTIONS and not node.args:
                continue
            else:
                return False
        elif kind in (ast.Compare, ast.Lambda, ast.NamedExpr, ast.IfExp):
            return False
    return found
