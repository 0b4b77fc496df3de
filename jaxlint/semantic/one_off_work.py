"""One-off work over a handful of items: a loop that runs once per program over a few items the
source fixes costs a few dispatches once, whatever it calls per item.

* `item_count(iterable, scope, model)`: the number of items a loop visits where the source fixes it
  (the rows the call making an array says, a literal list or tuple, through one-pass wrappers and
  the binding of a name that reaches the loop).
* `one_off_over_few(owner, iterable, scope, model)`: a loop of code that runs once per program
  (module level, a notebook's cells, an entry point, a function only such code calls), outside any
  loop, over at most `FEW_ITEMS` items: setup, not a hot path.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.flow import enclosing_loops, value_at_read
from jaxlint.semantic.iteration import rows_made, walked
from jaxlint.semantic.loop_cost import container_length, runs_once
from jaxlint.semantic.model import Scope, SemanticModel

# A handful of items: a loop over this many, run once, is setup (a few dispatches, microseconds),
# whatever it calls per item. Sweeps and grids (tens to hundreds of points) are not a handful.
FEW_ITEMS = 16


def item_count(iterable: ast.expr, scope: Scope, model: SemanticModel) -> int | None:
    """How many items a loop over `iterable` visits where the source fixes it: the rows the call
    making the array says (`jax.random.split(key, 8)`, `jnp.zeros((4, d))`, `jnp.arange(6)`: see
    `rows_made`), a literal list or tuple, through one-pass wrappers and a name whose binding reaching
    the loop is one of those (semantic/loop_cost). None otherwise."""
    node = walked(iterable, model)
    for _ in range(4):
        made = rows_made(node, scope, model)
        if made is not None:
            return made
        spelled = container_length(node, scope, model)
        if spelled is not None:
            return spelled
        if not isinstance(node, ast.Name):
            return None
        found = value_at_read(node, scope, model, in_line_order=True)
        if found is None:
            return None
        scope, node = found
        node = walked(node, model)
    return None


def one_off_over_few(owner: ast.AST, iterable: ast.expr, scope: Scope, model: SemanticModel, limit: int = FEW_ITEMS) -> bool:
    """The loop `owner` runs once per program over at most `limit` items: its scope runs once
    (module level, a notebook's cells, an entry point, a function called only from such code:
    semantic/loop_cost.runs_once), no loop of that scope encloses it, and `item_count` fixes the
    items (`jnp.stack([draw(k) for k in jax.random.split(key, 8)])` in a setup cell). A handful of
    dispatches made once costs microseconds whatever spelling runs them: setup, not a hot path."""
    if next(enclosing_loops(owner), None) is not None or not runs_once(scope, model):
        return False
    count = item_count(iterable, scope, model)
    return count is not None and count <= limit
