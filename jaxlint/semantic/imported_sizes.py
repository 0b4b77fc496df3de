"""A class or function of another module of the project sizes a state as a local one does.

`from nets import MLP` then `params = MLP(16).init(key, x)`, or `from model import init_params`
then `params = init_params([2, 8, 8, 2])`: the network class and the helper are the same code as
if they were defined in the asking module, so the state they build has the size their source
shows, read in the module that defines them (semantic/state_size.py, carried_state._elements).

What the call passes is read where the call is: its arguments are evaluated in the asking module
(literals, constants, argparse and config defaults: semantic/constants.py), and handed to the
definition as literal values; an argument the asking module cannot evaluate stands for an unknown
value there (a width it gives leaves the size unknown, never a guess). The defining module is read
through a semantic model built once per process (semantic/call_summaries.py) and recorded as a
dependency of the asking file's findings through its summary. Every step into a definition counts toward
the depth the walks stop at (modules importing each other).
"""

from __future__ import annotations

import ast

from jaxlint.semantic.constants import UNKNOWN

# Callee prefixes that are never the project's own code.
_LIBRARY_PREFIXES = ("jax.", "numpy.", "builtins.", "flax.", "equinox.", "optax.", "haiku.", "chex.", "orbax.", "torch.", "math.")
# A name no module binds: an argument whose value the asking module cannot show.
UNKNOWN_NAME = "__jaxlint_unknown_argument__"


def home_definition(func: ast.AST, model):
    """(model of the defining module, its top-level class or def) that `func` names through an import
    of a module of the project (`MLP` after `from nets import MLP`, `nets.MLP` after `import nets`),
    or None."""
    project = getattr(model, "project", None)
    if project is None or not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    qualified = model.qualified_name(func)
    if qualified is None or "." not in qualified or qualified.startswith(_LIBRARY_PREFIXES):
        return None
    if not project.may_hold(qualified.partition(".")[0]):
        return None
    from jaxlint.semantic import foreign_work
    from jaxlint.semantic.call_summaries import _project_model

    located = foreign_work._locate(project, qualified)
    if located is None:
        return None
    summary, name = located
    if name not in summary.classes and name not in summary.functions and name not in summary.public_names:
        return None
    home = _project_model(summary.path, summary.digest, project)
    if home is None or home is model:
        return None
    found = [
        node for node in home.tree.body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
    ]
    return (home, found[0]) if len(found) == 1 else None


def literal_node(value) -> ast.expr:
    """The value an argument has in the asking module, as a literal the defining module reads: numbers,
    strings, booleans, None, and tuples or lists of those; anything else an unknown name."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return ast.Constant(value=value)
    if isinstance(value, (tuple, list)):
        elements = [literal_node(item) for item in value]
        if any(isinstance(element, ast.Name) for element in elements):
            return ast.Name(id=UNKNOWN_NAME, ctx=ast.Load())
        return (ast.Tuple if isinstance(value, tuple) else ast.List)(elts=elements, ctx=ast.Load())
    return ast.Name(id=UNKNOWN_NAME, ctx=ast.Load())


def literal_call(call: ast.Call, name: str, evaluate) -> ast.Call | None:
    """The call as the defining module sees it: `name(...)` with every argument replaced by its value
    in the asking module (`evaluate(node)`, UNKNOWN where it has none), or None where the call spreads
    arguments (`*args`, `**kwargs`)."""
    if any(isinstance(argument, ast.Starred) for argument in call.args) or any(k.arg is None for k in call.keywords):
        return None

    def converted(node: ast.AST) -> ast.expr:
        value = evaluate(node)
        return ast.Name(id=UNKNOWN_NAME, ctx=ast.Load()) if value is UNKNOWN else literal_node(value)

    made = ast.Call(
        func=ast.Name(id=name, ctx=ast.Load()),
        args=[converted(argument) for argument in call.args],
        keywords=[ast.keyword(arg=k.arg, value=converted(k.value)) for k in call.keywords],
    )
    return made
