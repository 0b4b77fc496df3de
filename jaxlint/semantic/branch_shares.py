"""Which side of a branch in a loop's body runs on (nearly) every step, beyond intervals and warm-ups.

A rule asking "does this run on every iteration?" treats a test that changes between iterations as a
gate: `if step % 100 == 0:` runs its body once in a hundred. Two kinds of test change between
iterations and still run their side on (nearly) every step that matters:

* `common_side(test, model)`: a test comparing a uniform draw made on the host with a rate
  (`if epsilon > random.random():` explore, `else:` exploit). Chance splits the iterations, it does
  not space them out: the side where the draw exceeds the rate runs on most of them. A rate the
  source leaves open is an exploration rate (small once training runs); a literal rate says which
  side is the larger. Returns True where the body is the common side, False where the `else` is, None
  where the test is not such a comparison.
* `paces_the_steps(branch, child, loop, model)`: the side of `branch` that holds `child` also holds
  every carried update the loop runs (`if len(buffer) > warmup and step % 4 == 0: loss =
  train_step(model, optimizer, batch)`, the compiled step rebinding what it takes, or an `nnx.jit`
  step updating the modules it is handed). The test spaces out the training steps themselves, so what
  sits beside the step under it runs once per step: a gate counts only where it spaces a read out
  against the device work it waits for (an evaluation under `if step % 100 == 0:` beside an ungated
  `state = train_step(state, batch)` stays gated).
"""

from __future__ import annotations

import ast

from jaxlint.semantic.flow import rebinds_handed
from jaxlint.semantic.model import FUNCTION_NODES, SemanticModel

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
    `np.random.uniform()` (no bounds, or 0 and 1), `rng.random()` of a generator object."""
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


def on_common_side(branch: ast.AST, child: ast.AST, model: SemanticModel) -> bool:
    """`child` sits on the side of `if` `branch` that a draw test takes on most iterations."""
    if not isinstance(branch, ast.If) or child is branch.test:
        return False
    side = common_side(branch.test, model)
    if side is None:
        return False
    return any(child is statement for statement in (branch.body if side else branch.orelse))


def _carried_updates(statements, model: SemanticModel) -> list[ast.Call]:
    """Compiled calls among `statements` (not inside nested functions) that update what they are handed:
    `state = step(state, batch)` rebinding a name it passes, or an `nnx.jit` step handed modules."""
    found: list[ast.Call] = []
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, FUNCTION_NODES) or isinstance(node, ast.ClassDef):
            continue
        stack.extend(ast.iter_child_nodes(node))
        if not isinstance(node, ast.Assign) and not isinstance(node, ast.Expr):
            continue
        call = node.value
        if not isinstance(call, ast.Call):
            continue
        binding = model.jit_binding_for_call(call)
        if binding is None:
            continue
        # An `nnx.jit` step updates the modules it is handed in place, without rebinding them.
        handed_names = any(isinstance(a, ast.Name) for a in [*call.args, *(k.value for k in call.keywords)])
        if rebinds_handed(node, call) or (binding.transform == "flax.nnx.jit" and handed_names):
            found.append(call)
    return found


def paces_the_steps(branch: ast.AST, child: ast.AST, loop: ast.AST, model: SemanticModel) -> bool:
    """The side of `if` `branch` holding `child` runs every carried update of `loop` (at least one)."""
    if not isinstance(branch, ast.If) or child is branch.test:
        return False
    side = branch.body if any(child is s for s in branch.body) else branch.orelse
    gated = _carried_updates(side, model)
    if not gated:
        return False
    inside = {id(call) for call in gated}
    return all(id(call) in inside for call in _carried_updates(loop.body, model))

