"""Work on the host in a host library: code that solves, assembles or writes with SciPy's sparse
solvers, PETSc, AMGX or a mesh writer (the library models' `host_work`,
library_models/host_libraries.py).

Such a library takes concrete NumPy buffers: a tracer cannot enter it, so a function that hands work
to one, itself or through the functions of its module it calls (any number of calls, any branch: a
solver routine that picks a backend by option is a solver routine), is host code, whatever wraps it.
And its work (a sparse factorisation, a Krylov solve, a mesh file written) takes milliseconds to
seconds: beside it a few eager dispatches, or a read of a small device value, are nil.

* `hands_to_host_library(scope, model)`: the function does host library work, itself or through the
  module's functions it calls. Answered from qualified names and the module's own functions only, so
  the semantic model can ask it while it marks traced code: a `jax.custom_vjp` function, or a rule
  of one, that does such work is written for concrete values (the usual way to give a host solver
  a gradient: under an eager `jax.grad` JAX calls the primal and its rules with concrete arrays)
  and is not marked traced (model.py). A function that a `jit`, `vmap` or `grad` traces itself is
  still traced: a host solver there raises, and the rules say so.
* `host_library_call(call, model, scope)`: the call does host library work before it returns: a
  call the library models mark `host_work`, or of a function of this module or of another project
  module (semantic/foreign_work.py) that does.
* `host_library_every_iteration(loop, model)`: a call at the loop's own level, on every iteration (not
  under a branch), that does host library work: a loop of solves (a load-stepping or time-stepping
  loop whose every pass runs a finite-element solve), beside which the iteration's few eager
  operations cost nothing, and whose device values the host solve has waited for anyway.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import foreign_work, library_models
from jaxlint.semantic.host_library_work import hands_to_host_library, host_entry
from jaxlint.semantic.through_callees import call_answers


def host_library_call(call: ast.Call, model, scope=None, depth: int = 0) -> bool:
    """The call does host library work before it returns (see the module docstring)."""
    return call_answers(call, model, scope, depth, _host_library_itself, host_library_in, foreign_work.imported_host_library_work)


def _host_library_itself(call: ast.Call, model, scope) -> bool | None:
    """What the library models say of the call, True for a method of an object the library just
    made; None where the function the call runs decides."""
    entry = library_models.call_model(model, call, scope)
    if entry is not None:
        return entry.host_work
    function = call.func
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Call) and host_entry(model.qualified_name(function.value.func)):
        return True  # `PETSc.KSP().create()`: a method of an object the library just made
    return None


def host_library_in(scope, model, depth: int = 0) -> bool:
    """The function of `scope` does host library work, itself or through functions it calls."""
    if not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if hands_to_host_library(scope, model):
        return True
    cache = model.__dict__.setdefault("_host_library_in", {})
    key = id(scope)
    if key in cache:
        return cache[key]
    cache[key] = False  # (recursion: not while being worked out)
    found = any(host_library_call(call, model, scope, depth) for call in scope.calls)
    cache[key] = found
    return found


def host_library_every_iteration(loop: ast.AST, model) -> ast.Call | None:
    """The first call at the loop's own level that runs on every iteration (not under a branch) and
    does host library work, or None."""
    from jaxlint.semantic.training_loops import loop_body, under_loop_branch

    scope = model.scope_for(loop)
    for node in loop_body(loop):
        if isinstance(node, ast.Call) and not under_loop_branch(node, loop, try_blocks=True) and host_library_call(node, model, scope):
            return node
    return None
