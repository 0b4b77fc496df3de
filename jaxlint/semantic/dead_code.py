"""Code that never runs as the source is written: the branch of an `if` whose test the source fixes.

`DEBUG = False` bound once and `if DEBUG: <python loop>`, `if False:`, `if not USE_SCAN:` with
`USE_SCAN = True`: the branch cannot run until someone edits the constant, and a finding there
describes a cost the program does not pay. Only tests that are a literal or a name bound once to a
literal (optionally under `not`) are read; a configuration field, an attribute, a parameter default
or an environment lookup can change between runs, and code under it is live. A parameter that every
call of its function fixes to one side (`if shuffle:` with every caller passing `shuffle=False`, all
calls in sight) decides its branch the same way (semantic/fixed_parameters.py).

A function defined inside another function whose name nothing in the module reads never runs either
(its `def` binds a local no code reaches).

Used by the context before any finding is recorded (one policy for every rule).

A notebook's top-level function or callable that no cell reads never runs either: nothing imports a
notebook's names (`never_called_in_notebook`); so does a module-level function of an application
(a checkout that ships no package) that no code of the project names (`never_called_in_application`).
Rules whose finding is a cost paid per call (JAX302, JAX402) ask it: a per-call cost needs calls.
"""

from __future__ import annotations

import ast
import re

from jaxlint.semantic import fixed_parameters
from jaxlint.semantic.constants import UNKNOWN
from jaxlint.semantic.model import parent_of


def never_runs(node: ast.AST, model) -> bool:
    """Whether `node` lies in a branch of an `if` whose test the source fixes the other way."""
    dead = model.__dict__.get("_jaxlint_dead_statements")
    if dead is None:
        dead = model._jaxlint_dead_statements = _dead_statements(model)
    if not dead:
        return False
    current = node
    while current is not None:
        if id(current) in dead:
            return True
        current = parent_of(current)
    return False


def never_called_in_notebook(node: ast.AST, model, filename: str, bound_name: str | None = None) -> bool:
    """Whether `node` lies in a notebook's top-level function that no cell reads (`def helper(...)`
    and no `helper` anywhere after), or, at the top level, is bound to `bound_name` that no cell
    reads (`batched = jax.vmap(f)`): nothing calls it, since no other module can import a notebook's
    names. Methods, and names read anywhere (even only passed on), count as called."""
    if not str(filename).endswith(".ipynb"):
        return False
    name = bound_name
    current = parent_of(node)
    while current is not None:
        if isinstance(current, ast.ClassDef):
            return False
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = current.name  # the outermost function is the one a cell must call
        elif isinstance(current, ast.Lambda):
            return False
        current = parent_of(current)
    if name is None or model._name_loads().get(name, 0):
        return False
    # IPython lines are masked out of the checked text (`t = %timeit -o helper(x)` runs `helper`):
    # where the notebook's masked lines are not known (its cells were parsed one by one), nor is this.
    hidden = getattr(model.tree, "_jaxlint_ipython_lines", None)
    if hidden is None:
        return False
    word = re.compile(rf"\b{re.escape(name)}\b")
    return not any(word.search(line) for line in hidden)


# Files that make a checkout an installable package, whose modules code outside the project imports.
_PACKAGING = ("pyproject.toml", "setup.py", "setup.cfg")


def never_called_in_application(function: ast.AST, model) -> bool:
    """Whether `function` is a module-level function of an application that no code of the project
    reads: its module never reads its name (nor lists it in `__all__`), no other module of the project
    whose imports may name its module mentions it, and the checkout ships no package (no
    pyproject.toml, setup.py or setup.cfg in the file's folder or above it, up to the project's root),
    so no code outside the project imports it either. It never runs: a per-call cost needs calls. (A
    package's uncalled functions are its users' to call; a decorated function may be registered.)"""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.decorator_list:
        return False
    scope = model.scope_of_node.get(function)
    project = model.project
    if scope is None or scope.parent is not model.module_scope or scope.class_node is not None or project is None:
        return False
    name = function.name
    if model._name_loads().get(name, 0) or _exported(name, model):
        return False
    if _ships_package(project.path, project.root):
        return False
    folder = project.root if project.root is not None else _checkout_folder(project.path)
    if folder is None:
        return False  # the project's extent is not known: other modules may call it
    return not _named_elsewhere(name, project.path, folder)


def _checkout_folder(path):
    """Where no packaging or version control marks the root (an exported snapshot): the farthest
    folder up to four levels above the file that holds a README or requirements.txt, as a checkout's
    root does (a package inside may hold a README of its own)."""
    found = None
    for folder in list(path.parents)[:4]:
        if any(folder.glob("README*")) or (folder / "requirements.txt").is_file():
            found = folder
    return found


_MAX_FILES = 5000


def _named_elsewhere(name: str, path, folder) -> bool:
    """Some other Python file or notebook under `folder` mentions `name` as a word (also where too
    many files to read: then it may)."""
    import os

    word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
    seen = 0
    for directory, folders, files in os.walk(folder):
        folders[:] = [f for f in folders if not f.startswith(".") and f not in ("node_modules", "__pycache__")]
        for file in files:
            if not file.endswith((".py", ".ipynb")) or os.path.join(directory, file) == str(path):
                continue
            seen += 1
            if seen > _MAX_FILES:
                return True
            try:
                with open(os.path.join(directory, file), "rb") as handle:
                    if word.search(handle.read()):
                        return True
            except OSError:
                return True
    return False


def _exported(name: str, model) -> bool:
    """`name` is listed in the module's `__all__`."""
    for target, value in model.module_scope.bindings:
        if isinstance(target, ast.Name) and target.id == "__all__" and value is not None:
            if any(isinstance(n, ast.Constant) and n.value == name for n in ast.walk(value)):
                return True
    return False


def _ships_package(path, root) -> bool:
    """A packaging file in the file's folder or a folder above it, up to `root` (to the top where no
    root is known: no folder above holds packaging or version control)."""
    for folder in path.parents:
        if any((folder / marker).is_file() for marker in _PACKAGING):
            return True
        if root is not None and folder == root:
            return False
    return False


def _dead_statements(model) -> frozenset[int]:
    dead: set[int] = set()
    evaluator = None
    for node in model.nodes:
        if node.__class__ is not ast.If or not _fixed_test_shape(node.test):
            continue
        if evaluator is None:
            evaluator = model.constant_evaluator()
        scope = getattr(node, "_jaxlint_scope", None)
        if scope is None:
            continue
        value = evaluator.value(node.test, scope)
        if value is UNKNOWN or not isinstance(value, (bool, int, type(None))):
            # A parameter every call of the function fixes (semantic/fixed_parameters.py).
            untaken = fixed_parameters.never_taken(node, scope, model, evaluator)
            if untaken is not None:
                dead.update(id(statement) for statement in untaken)
            continue
        dead.update(id(statement) for statement in (node.orelse if value else node.body))
    dead.update(id(function) for function in _uncalled_nested_functions(model))
    return frozenset(dead)


def _uncalled_nested_functions(model) -> list[ast.AST]:
    """Functions defined inside another function whose name nothing in the module reads (not called,
    returned, passed on or stored): the `def` binds a local that no code can reach, so its body never
    runs (`@jax.jit def sample(v, r)` left in a worker that never calls it). Decorators other than JAX
    transforms may register the function (`@app.route`, `@f.defvjp`): those are live."""
    loads = None
    found = []
    for node in model.nodes:
        if node.__class__ not in (ast.FunctionDef, ast.AsyncFunctionDef):
            continue
        enclosing = parent_of(node)
        while enclosing is not None and not isinstance(enclosing, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            enclosing = parent_of(enclosing)
        if not isinstance(enclosing, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # module level (importable) or a method (called through instances)
        if any(model.decorator_transform(decorator) is None for decorator in node.decorator_list):
            continue  # (a JAX transform registers nothing that could call the function; other decorators may)
        if loads is None:
            loads = model._name_loads()
        if not loads.get(node.name, 0):
            found.append(node)
    return found


def _fixed_test_shape(test: ast.expr) -> bool:
    """A literal or a plain name, optionally negated: the only tests read as fixed."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Name) or (isinstance(test, ast.Constant) and isinstance(test.value, (bool, int, type(None))))
