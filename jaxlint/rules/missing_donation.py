"""## What it does
Flags a call of a jitted (or pmapped) function whose result rebinds one of its own arguments,
`state = train_step(state, batch)` or `params, opt_state = update(params, opt_state, grads)`,
when that argument is not listed in `donate_argnums`/`donate_argnames`. The finding sits at the
call site that rebinds the argument.

Not flagged: static arguments, calls inside traced code (donation applies to the outermost `jit`
only), jitted functions whose options jaxlint cannot read, arguments that another name still
refers to (`old = state` before the call), since donating them would delete a live value, and
PRNG keys (`key`, `rng`, `*_key`): rebound every step but a few bytes, so donation saves nothing.

## Why is this bad?
Without donation XLA must keep the input buffers alive while it writes the outputs, so peak memory
holds two copies of the state: parameters, optimizer state, everything. Donating the argument lets
XLA reuse the input buffers for the outputs. See "Buffer donation" in
https://docs.jax.dev/en/latest/faq.html#buffer-donation.

## Example
```python
@jax.jit
def train_step(state, batch):
    ...
    return new_state

for batch in batches:
    state = train_step(state, batch)
```

## Use instead
```python
@partial(jax.jit, donate_argnums=(0,))
def train_step(state, batch):
    ...
```

## Fix safety
Adding `donate_argnums`/`donate_argnames` is unsafe: after the call the donated input is deleted,
and any later read of the old value raises. The fix is offered only when every call site of the
function in the module rebinds the argument and the donated value is provably owned there and dead
after the call: a local name (not a parameter, whose caller still holds the array; not an attribute
or global), bound only to fresh values (not to another name, nor built by a call from a name read
after the call), passed once. Otherwise the message says why no fix is offered.

## How the runtime mode confirms it
`jit(f).lower(...).compile().memory_analysis()` shows alias bytes > 0 and a lower peak with
donation (H100: 402 MB to 268 MB for eight 2048x2048 float32 parameters), and the donated input
`is_deleted()` after the call.
"""

from __future__ import annotations

import ast
import re

from jaxlint.fixes import donation as donation_fix
from jaxlint.rules import donation_aliasing
from jaxlint.rules.base import Rule
from jaxlint.semantic import carried_state, flow
from jaxlint.semantic.flow import dotted_name, target_elements

_DONATING = ("jax.jit", "jax.pmap")


class MissingDonation(Rule):
    code = "JAX401"
    name = "missing-donation"
    summary = "Jitted update rebinds an argument it does not donate"
    node_types = (ast.Assign, ast.AnnAssign)
    # Only `jax.jit` and `jax.pmap` donate: every spelling of them says `jit` or `pmap` (`pjit`
    # included), or comes from another module of the project, or from a configured decorator.
    required_text = ("jit", "pmap")
    fires_through_project_imports = True
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        value = node.value
        if not isinstance(value, ast.Call):
            return
        binding = context.model.jit_binding_for_call(value)
        if binding is None or binding.transform not in _DONATING:
            return
        scope = context.scope(node)
        if scope.in_traced or carried_state.in_test_code(node, context.source.filename, context.model):
            return
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        rebound = {dotted_name(element) for target in targets for element in target_elements(target)} - {None}
        # `new_actor = update(self.actor, ...)` then `self.actor = new_actor`: rebound through a temporary.
        rebound |= set(flow.rebound_through_temporaries(node, rebound))
        if not rebound:
            return
        candidates = [(position, None, argument) for position, argument in enumerate(value.args)]
        candidates += [(None, keyword.arg, keyword.value) for keyword in value.keywords if keyword.arg]
        for position, keyword, whole in candidates:
            if isinstance(whole, ast.Starred):
                break
            # A tuple argument donates all of its leaves: `(_, pstate), loss = step((rng, pstate), batch)`.
            parts = whole.elts if isinstance(whole, ast.Tuple) else [whole]
            argument = next((part for part in parts if dotted_name(part) in rebound), None)
            if argument is None:
                continue
            key = dotted_name(argument)
            if binding.is_static(position, keyword) is not False or binding.is_donated(position, keyword) is not False:
                continue
            if _aliased(key, scope) or _is_prngdotted_name(key):
                continue
            if donation_aliasing.unsafe_to_donate(key, node, scope, context):
                continue
            if (
                carried_state.rebuilt_before_call(key, node, context.model, scope)
                or carried_state.captured_by_closure(key, scope)
                or carried_state.other_call_keeps_value(binding, value, position, keyword, context.model)
            ):
                continue  # not carried state, or another use would lose the value: see semantic/carried_state.py
            name = binding.key if binding.key != "<inline>" else "the jitted function"
            option = f"donate_argnums=({binding.argnum(position)},)" if keyword is None else f"donate_argnames=({keyword!r},)"
            where = f" (inside argument {binding.argnum(position)})" if argument is not whole else ""
            fix = donation_fix.fix_for(value, binding, position, keyword, context) if argument is whole else None
            # Multi-line calls: the finding sits on the line of the call, where a reader looks for it.
            anchor = argument if argument.lineno == value.lineno else value
            context.report(
                anchor,
                f"`{key}`{where} is replaced by the result of `{name}` but not donated, so peak memory holds both copies; "
                f"add `{option}` to its `{binding.transform.rsplit('.', 1)[-1]}`" + (f" ({fix})" if isinstance(fix, str) else ""),
                fix=None if isinstance(fix, str) else fix,
                end_node=argument if anchor is not argument else None,
            )


_KEY_NAMES = re.compile(r"(^|_)(key|keys|rng|rngs|prng|seed)(_|$)", re.IGNORECASE)


def _is_prngdotted_name(key: str) -> bool:
    """PRNG keys are rebound every step (`key, sub = split(key)`) but hold a few bytes: donating them saves nothing."""
    return bool(_KEY_NAMES.search(key.rsplit(".", 1)[-1]))


def _aliased(key: str, scope) -> bool:
    """Whether another name is bound to this value (`old = state`), so donation would delete it."""
    for target, value in scope.bindings:
        if value is not None and not isinstance(value, ast.AugAssign) and dotted_name(value) == key and dotted_name(target) != key:
            return True
    return False


RULE = MissingDonation()
