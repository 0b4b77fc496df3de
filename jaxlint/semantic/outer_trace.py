"""Code that runs under a library's trace: a model handed to a sampler that compiles its loop.

A function handed to an entry point that traces it inside a compiled program (NumPyro's MCMC
kernels: library data `numpyro.TRACES_FUNCTION`) runs as traced code there: a `jit` built inside it
is inlined into the outer program and traced once with it, not compiled per call. The analysis does
not mark such a function traced for every rule (the kernel passes the model's arguments as
constants, not tracers); it answers only "does every run of this code happen under that trace?".
That holds for the handed function when no code of the module calls it directly, and for a function
nested in it (a nested def is called only where it is defined).
"""

from __future__ import annotations

import ast

from jaxlint.semantic import syntax
from jaxlint.semantic.library_models import numpyro as numpyro_model
from jaxlint.semantic.model import Scope, SemanticModel


def runs_under_library_trace(scope: Scope, model: SemanticModel) -> bool:
    """`scope`, or a function it is nested in, is handed to a tracing entry point and never called
    directly by the module."""
    current = scope
    while current is not None and current.is_function:
        if _handed_to_tracer(current, model) and not _called_directly(current, model):
            return True
        current = current.parent
    return False


def _handed_to_tracer(function: Scope, model: SemanticModel) -> bool:
    handed = getattr(model, "_outer_trace_handed", None)
    if handed is None:
        handed = set()
        for caller in model.scopes:
            for call in caller.calls:
                entry = numpyro_model.TRACES_FUNCTION.get(model.qualified_name(call.func) or "")
                argument = syntax.argument(call, *entry) if entry is not None else None
                resolved = model.resolve_function(argument, caller) if argument is not None else None
                if resolved is not None and resolved[0] is not None:
                    handed.add(id(resolved[0]))
        model._outer_trace_handed = handed
    return id(function) in handed


def _called_directly(function: Scope, model: SemanticModel) -> bool:
    name = getattr(function.node, "name", None)
    for call in model.calls_by_name().get(name, ()):
        if isinstance(call.func, ast.Name):
            return True
    return False
