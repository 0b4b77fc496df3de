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
from jaxlint.semantic.host_code import callee_scope

_MAX_DEPTH = 3


def reads_storage(call: ast.Call, model, scope=None, depth: int = 0) -> bool:
    """The call reads a checkpoint or a saved object from storage on every call."""
    entry = library_models.call_model(model, call, scope)
    if entry is not None:
        return entry.reads_storage
    if depth >= _MAX_DEPTH:
        return False
    callee = callee_scope(call, model, scope)
    if callee is not None:
        return storage_read_in(callee, model, depth + 1) is not None
    if foreign_work.may_be_project_call(call, model):
        return foreign_work.imported_storage_read(call, model, storage_read_in) is not None
    return False


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
