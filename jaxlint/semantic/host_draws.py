"""Which side of a branch on a host uniform draw chance takes on most runs (`if epsilon > random.random():`
explore, `else:` exploit): the question of semantic/branch_shares.py, apart so that the functions a loop
calls (semantic/training_loops.py, `eager_work_in`) can ask it of their own branches.

`common_side(test, model)`: True where the `if` body is the common side, False where the `else` is, None
where the test is no comparison of a uniform draw made on the host with a rate. The draw is a call
(`random.random()`, `np.random.rand()`, `rng.random()`) or a name bound once to one in its function
(`rand = random.random()`, then `if rand < self.epsilon:`). A rate the source leaves open is an
exploration rate (small once training runs); a literal rate says which side is the larger.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.model import SemanticModel

# Uniform draws in [0, 1) made on the host (the standard library and NumPy's legacy and Generator APIs).
_UNIFORM_DRAWS = frozenset({
    "random.random", "numpy.random.rand", "numpy.random.random", "numpy.random.random_sample",
    "numpy.random.uniform", "numpy.random.sample", "numpy.random.ranf",
})
# Methods drawing one uniform number from a generator object (`rng.random()`, `self.np_random.uniform()`).
_UNIFORM_METHODS = frozenset({"random", "rand", "uniform", "random_sample"})
_BELOW = (ast.Lt, ast.LtE)
_ABOVE = (ast.Gt, ast.GtE)


def _uniform_draw(node: ast.expr, model: SemanticModel) -> bool:
    """A call drawing one uniform number on the host: `random.random()`, `np.random.rand()`,
    `np.random.uniform()` (no bounds, or 0 and 1), `rng.random()` of a generator object; or a name
    bound only to one such call in its function (`rand = random.random()`, then `if rand < eps:`)."""
    if isinstance(node, ast.Name):
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, node.id, model.scope_for(node))
        return found is not None and len(found[1]) == 1 and found[0].is_function and _uniform_draw_call(found[1][0], model)
    return _uniform_draw_call(node, model)


def _uniform_draw_call(node: ast.expr, model: SemanticModel) -> bool:
    if not isinstance(node, ast.Call) or node.keywords:
        return False
    if node.args and not (len(node.args) == 2 and all(isinstance(a, ast.Constant) for a in node.args)
                          and [a.value for a in node.args] == [0, 1]):
        return False
    qualified = model.qualified_name(node.func)
    if qualified is not None:
        return qualified in _UNIFORM_DRAWS
    return isinstance(node.func, ast.Attribute) and node.func.attr in _UNIFORM_METHODS and not node.args


def common_side(test: ast.expr, model: SemanticModel) -> bool | None:
    """True: the `if` body runs on most iterations; False: its `else` does; None: not a draw test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _uniform_draw(left, model) and not _uniform_draw(right, model):
        rate, body_below = right, isinstance(op, _BELOW)
    elif _uniform_draw(right, model) and not _uniform_draw(left, model):
        rate, body_below = left, isinstance(op, _ABOVE)  # `eps > random()`: the draw is below the rate
    else:
        return None
    if not isinstance(op, (*_BELOW, *_ABOVE)):
        return None
    if isinstance(rate, ast.Constant) and isinstance(rate.value, (int, float)) and not isinstance(rate.value, bool):
        below_share = min(max(float(rate.value), 0.0), 1.0)
        return below_share >= 0.5 if body_below else below_share < 0.5
    return not body_below  # an open rate is an exploration rate: the draw exceeds it on most iterations
