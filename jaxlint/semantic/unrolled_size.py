"""How big a program an unrolled loop makes: the operations one iteration traces, times the trip count.

Tracing a Python loop copies its body into the program once per iteration, so the program holds
`count x operations` equations, and XLA's compile time grows with that size (measured on CPU, jax
0.10.2, a 1000x1000 array: 600 equations of elementwise arithmetic and an `.at[].set` compile in
0.9 s, 1800 in 1.6 s, 6000 in 12 s). A loop whose every operation is a known array operation can be
sized from the source: arithmetic, comparisons and indexing (one operation each), calls of `jax.numpy`,
`jax.lax` (not its loops and branches, which carry bodies of their own), `jax.nn`, `jax.random`,
`numpy` and `math`, and the `.at[...]` updates (`x.at[i].set(v)`). A body that calls anything else
(a function of the project, a network's `apply`, a method of an unknown object), or holds a loop, a
function or a class of its own, has no size the source shows: `operations_per_iteration` says None.

* `operations_per_iteration(loop, model)`: the operations one pass of a `for`/`while` body (or a
  comprehension's element) traces, or None.
* `SMALL_PROGRAM`: below this many unrolled operations, the program compiles in about a second.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.semantic.flow import walk_same_scope

if TYPE_CHECKING:
    from jaxlint.semantic.model import SemanticModel

# Unrolled operations below which the whole program compiles in about a second (see the docstring).
SMALL_PROGRAM = 1000

_ARRAY_MODULES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.", "numpy.", "math.")
# `lax` calls that trace bodies of their own: their size is their bodies', which the source may not show.
_WITH_BODIES = frozenset({
    "jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.map", "jax.lax.cond", "jax.lax.switch",
    "jax.lax.custom_root", "jax.lax.custom_linear_solve", "jax.lax.associative_scan",
})
_UPDATES = frozenset({"set", "add", "multiply", "mul", "divide", "power", "min", "max", "get", "apply"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def operations_per_iteration(loop: ast.AST, model: SemanticModel) -> int | None:
    """The array operations one iteration of `loop` traces, when every one is known (module docstring)."""
    if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
        regions = list(loop.body)
    elif isinstance(loop, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        regions = [loop.elt, *(test for generator in loop.generators for test in generator.ifs)]
    elif isinstance(loop, ast.DictComp):
        regions = [loop.key, loop.value]
    else:
        return None
    total = 0
    for region in regions:
        for node in walk_same_scope(region):
            if isinstance(node, _SCOPES) or isinstance(node, _LOOPS):
                return None
            if isinstance(node, ast.Call):
                if not _known_operation(node, model):
                    return None
                total += 1
            elif isinstance(node, (ast.BinOp, ast.AugAssign, ast.Compare, ast.BoolOp)):
                total += 1
            elif isinstance(node, ast.UnaryOp) and not isinstance(node.operand, ast.Constant):
                total += 1
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                total += 1
    return total


def _known_operation(call: ast.Call, model: SemanticModel) -> bool:
    """A call of a known array operation: a function of an array module, or an `.at[...]` update."""
    qualified = model.qualified_name(call.func) or ""
    if qualified.startswith(_ARRAY_MODULES):
        return qualified not in _WITH_BODIES
    function = call.func
    return (
        isinstance(function, ast.Attribute) and function.attr in _UPDATES
        and isinstance(function.value, ast.Subscript) and isinstance(function.value.value, ast.Attribute)
        and function.value.value.attr == "at"
    )
