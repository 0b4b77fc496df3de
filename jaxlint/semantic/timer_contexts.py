"""Context managers that time the block they hold: `with Timer("step"):` stamps a clock when the block
starts and again when it ends, an interval like a pair of `time.perf_counter()` stamps (JAX202).

A `with` item times its block when it calls
- a timer class of a library whose `__enter__` and `__exit__` stamp a clock (`codetiming.Timer`,
  `linetimer.CodeTimer`, `contexttimer.Timer`);
- a class of the module whose `__enter__` and `__exit__` both read a clock (`time.perf_counter()`);
- a function of the module made a context manager by `contextlib.contextmanager` that reads a clock
  before its `yield` and again after it (in the code after it or in a `finally`).
Not such a timer: a context manager only one of whose ends reads a clock (it stamps a moment, not an
interval), and any other context manager (a mesh, a profiler annotation, a lock)."""

from __future__ import annotations

import ast

from jaxlint.semantic import jaxapi

# Library classes whose instances stamp a clock on entering and on leaving a `with` block.
LIBRARY_TIMERS = frozenset({"codetiming.Timer", "linetimer.CodeTimer", "contexttimer.Timer"})


def times_block(expression: ast.expr, scope, model) -> bool:
    """Whether the `with` item `expression` stamps a clock when its block starts and when it ends."""
    if not isinstance(expression, ast.Call):
        return False
    if model.qualified_name(expression.func) in LIBRARY_TIMERS:
        return True
    if not isinstance(expression.func, ast.Name):
        return False
    name = expression.func.id
    if name in model.imports.aliases:
        return False
    classes = [c for c in model.class_methods if c.name == name and model.scope_for(c) is model.module_scope]
    if len(classes) == 1:
        methods = model.class_methods[classes[0]]
        return all(
            method in methods and _reads_clock(methods[method].node, model) for method in ("__enter__", "__exit__")
        )
    resolved = model.resolve_function(expression.func, scope)
    if resolved is None or resolved[0] is None:
        return False
    function = resolved[0].node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not any(
        model.qualified_name(d) == "contextlib.contextmanager" for d in function.decorator_list
    ):
        return False
    yields = [node for node in ast.walk(function) if isinstance(node, ast.Yield)]
    if len(yields) != 1:
        return False
    stamps = _clock_lines(function, model)
    line = yields[0].lineno
    return any(s < line for s in stamps) and any(s > line for s in stamps)


def _reads_clock(function: ast.AST, model) -> bool:
    return bool(_clock_lines(function, model))


def _clock_lines(function: ast.AST, model) -> list[int]:
    """The lines of the clock reads (`time.perf_counter()`, jaxapi.CLOCKS) in `function`."""
    return [
        node.lineno for node in ast.walk(function)
        if isinstance(node, ast.Call) and model.qualified_name(node.func) in jaxapi.CLOCKS
    ]
