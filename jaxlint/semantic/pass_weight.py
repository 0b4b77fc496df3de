"""What one pass of a host loop costs beside the per-pass cost a rule names: work that dwarfs it.

The cost rules on loops (JAX201 a host read, JAX203 eager dispatches, JAX402 a batching transform
re-run in Python) each claim a cost paid once per pass: tens of microseconds to a few milliseconds.
That claim is worth acting on only where it is a sizeable share of the pass. Two things the source
shows make every pass far longer than any of them:

* `sleeps_every_pass(loop, model)`: the pass sleeps on purpose, on every iteration (not under a branch
  or in an exception handler), for a duration the source fixes at `SLEEP_SECONDS` or more:
  `time.sleep(1)` in a background evaluator or a polling loop, `await asyncio.sleep(0.5)`. The host
  idles for that long anyway, so the device has long finished whatever a read waits for, and a dozen
  eager dispatches (milliseconds) are a small share of the pass.
* `device_loop_every_pass(loop, model)`: the pass calls, on every iteration, compiled code whose
  program loops on the device (training_loops.compiled_call_loops_on_device: a rollout scanned over
  hundreds of environment steps, epochs of minibatch updates inside one jitted update, an iterative
  solve). One such call is milliseconds to seconds of device work; a fixed Python overhead per pass
  (re-running `vmap` of a jitted function, about 0.2 to 0.4 ms) is then a few percent of the pass.

Both answer with the call that makes the pass heavy, or None. (JAX201 has its own, wider notion of a
paced loop, carried_state.paced_loop: any `time.sleep` or `input()` on every pass, since a host read
costs a round trip that even a short pause hides.)
"""

from __future__ import annotations

import ast

from jaxlint.semantic.model import SemanticModel
from jaxlint.semantic.training_loops import compiled_call_loops_on_device, loop_body, under_loop_branch

# A deliberate pause of at least this long per pass: a hundred milliseconds, ten times what a whole
# eager network step dispatches (training_loops: about 500 dispatches at 20 us) and hundreds of times
# a host read's round trip.
SLEEP_SECONDS = 0.1
_SLEEPS = frozenset({"time.sleep", "asyncio.sleep", "trio.sleep"})


def sleeps_every_pass(loop: ast.AST, model: SemanticModel) -> ast.Call | None:
    """The `time.sleep(s)` (or awaited `asyncio.sleep(s)`) that `loop` runs on every iteration, at its own
    level (not in a nested loop, a branch or a `try`), with `s` fixed by the source at `SLEEP_SECONDS` or
    more; None where there is none."""
    if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
        return None
    scope = model.scope_for(loop)
    evaluator = model.constant_evaluator()
    for node in loop_body(loop):
        if not isinstance(node, ast.Call) or model.qualified_name(node.func) not in _SLEEPS or not node.args:
            continue
        if under_loop_branch(node, loop, try_blocks=True):
            continue
        seconds = evaluator.value(node.args[0], scope)
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds >= SLEEP_SECONDS:
            return node
    return None


def device_loop_every_pass(loop: ast.AST, model: SemanticModel) -> ast.Call | None:
    """A call that `loop` makes on every iteration, at its own level (not under a branch), of compiled
    code whose program loops on the device (training_loops.compiled_call_loops_on_device); None where
    there is none."""
    if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
        return None
    for node in loop_body(loop):
        if (
            isinstance(node, ast.Call) and model.jit_binding_for_call(node) is not None
            and not under_loop_branch(node, loop, try_blocks=True) and compiled_call_loops_on_device(node, model)
        ):
            return node
    return None
