"""Reads from storage: calls that load a checkpoint or a saved object before they return.

What a library call does comes from the library models (`reads_storage`: a flax or Orbax
checkpoint restore, `pickle.load`). A function of the project reads from storage on every call
when one of its unconditional calls does (`def restore(state, path): ...; return
checkpoints.restore_checkpoint(path, state)`), itself or through the functions it calls, of this
module or of another project module (semantic/foreign_work.py): a call site then knows that
`model.state = restore(model.state, path)` waits for the disk, as if the body were written there.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import foreign_work, library_models
from jaxlint.semantic.effects import calls_on_every_return
from jaxlint.semantic.through_callees import call_answers


def reads_storage(call: ast.Call, model, scope=None, depth: int = 0) -> bool:
    """The call reads a checkpoint or a saved object from storage on every call."""
    return call_answers(call, model, scope, depth, _reads_itself, storage_read_in, foreign_work.imported_storage_read)


def _reads_itself(call: ast.Call, model, scope) -> bool | None:
    """What the library models say of the call; None where the function the call runs decides."""
    entry = library_models.call_model(model, call, scope)
    return entry.reads_storage if entry is not None else None


def storage_read_in(scope, model, depth: int = 0) -> ast.Call | None:
    """The first call of the function of `scope` that reads from storage on every call of it, or None."""
    if not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    cache = model.__dict__.setdefault("_storage_reads", {})
    key = id(scope.node)
    if key in cache:
        return cache[key]
    cache[key] = None  # (recursion: none while being worked out)
    found = next((call for call in calls_on_every_return(scope.node) if reads_storage(call, model, scope, depth)), None)
    cache[key] = found
    return found
