"""Whether a function hands work to a host library, by qualified names and the module's own
functions only (semantic/host_library.py says what that work is and what follows from it). Kept
apart so that the semantic model can ask it while it marks traced code (model.py)."""

from __future__ import annotations

import ast

from jaxlint.semantic import library_models


def host_entry(qualified: str | None) -> bool:
    """The library models mark the callee of this qualified name `host_work`."""
    if qualified is None:
        return False
    entry = library_models.models().entry(qualified)
    return entry is not None and entry.host_work


def hands_to_host_library(scope, model) -> bool:
    """The function calls a host library (`host_work`), itself or through the functions of its module
    it calls by name (nested functions included), on any path. By qualified names only: safe to ask
    while the model is still being built."""
    cache = model.__dict__.setdefault("_hands_to_host_library", {})
    key = id(scope)
    if key in cache:
        return cache[key]
    cache[key] = False  # (recursion: not while being worked out)
    found = False
    for call in scope.calls:
        function = call.func
        if not isinstance(function, (ast.Name, ast.Attribute)):
            function = function.func if isinstance(function, ast.Call) else None  # `PETSc.Vec().createSeq(n)`
            if function is None or not isinstance(function, (ast.Name, ast.Attribute)):
                continue
        if host_entry(model.qualified_name(function)):
            found = True
            break
        resolved = model.resolve_function(function, scope) if isinstance(function, ast.Name) else None
        if resolved is not None and resolved[0] is not scope and hands_to_host_library(resolved[0], model):
            found = True
            break
    cache[key] = found
    return found
