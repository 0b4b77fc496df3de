"""Questions a call answers through the functions it runs: "does this call draw / do host library
work / read from storage before it returns?".

The call answers itself where it can (a library model's field, a drawing API); otherwise it does
what the function it runs does, a function of this module (up to `MAX_DEPTH` calls down) or of
another project module (semantic/foreign_work.py). Each question supplies its own three parts:
what the call says of itself, what a function of the module does, and how another module is asked.
"""

from __future__ import annotations

import ast
from typing import Callable

from jaxlint.semantic import foreign_work
from jaxlint.semantic.host_code import callee_scope

# How many calls down a question follows the functions of the module (a helper calling a helper
# calling the library is common; deeper chains are rare and cost model walks).
MAX_DEPTH = 3


def call_answers(
    call: ast.Call,
    model,
    scope,
    depth: int,
    own_answer: Callable[[ast.Call, object, object], bool | None],
    in_function: Callable[..., object],
    in_other_module: Callable[[ast.Call, object, Callable[..., object]], object],
) -> bool:
    """`own_answer(call, model, scope)` where it is not None; else whether the function the call
    runs answers yes: `in_function(callee, model, depth + 1)` for a function of this module,
    `in_other_module(call, model, in_function)` for one of another project module (either answer
    counts as yes when it is truthy: a flag, or the first call found)."""
    answer = own_answer(call, model, scope)
    if answer is not None:
        return answer
    if depth >= MAX_DEPTH:
        return False
    callee = callee_scope(call, model, scope)
    if callee is not None:
        return bool(in_function(callee, model, depth + 1))
    if foreign_work.may_be_project_call(call, model):
        return bool(in_other_module(call, model, in_function))
    return False
