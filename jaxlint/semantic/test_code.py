"""Test code: the one policy every rule follows.

A rule whose finding is a cost (time, memory, compilation, host round trips) or the quality of what a
computation produces (correlated random numbers, NaN gradients, a tracer printed instead of a value)
does not report in test code: a test runs once, on small dummy inputs, and asserts its own
expectations, so neither the cost nor the values reach anyone (such a rule sets
`skips_test_code = True`, and `Context.report` drops its findings in test code). A rule whose finding
means the code fails or will fail on the JAX it targets (a tracer converted to bool, a removed or
deprecated API) checks tests too: a test that breaks is a broken test.

Test code is a test module (`*_test.py`, `*_test_utils.py`, `test_utils.py`, `conftest.py` by name
alone, and any module under a `tests/` or `test/` folder, the tests' helpers included; a `test_*.py`
file elsewhere when written as one, that is it imports a test framework or defines `test_*`
functions or `Test*` classes), a `test*` function or a `Test*` class that the module's own program
does not call (`def test(model, loader)` called each epoch by the training loop, or from the `__main__`
block, is an evaluation on the test split: a test framework calls tests, a program does not),
and a module's self-test: the `if __name__ == "__main__":` block of a module that other modules of
the project import, where the block runs no loop (none in it, none in the module's functions and
methods it calls, and no call into the project's other modules, whose bodies are not seen here). It
builds the module's pieces once on inputs it makes up and shows their shapes; a block that trains,
samples or evaluates in a loop is the module's real entry point and stays checked.
"""

from __future__ import annotations

import ast
import re

from jaxlint.semantic.model import parent_of
from jaxlint.semantic.syntax import is_main_guard

_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$|(^|/)tests?/")
# Names only tests and their helpers take (Google-style `foo_test.py`, `foo_test_utils.py`, pytest's
# `conftest.py`): test code by name alone. `test_*.py` must also be written as a test (a tutorial's
# `test_profiler.py` demo is not one).
_TEST_ONLY_FILE = re.compile(r"(^|/)([^/]*_test|[^/]*_test_utils?|test_utils?|conftest)\.py$")
# A `tests/` folder holds tests and what only they use (`tests/helpers.py` building the problems the
# tests solve): test code by location alone.
_TEST_FOLDER = re.compile(r"(^|/)tests?/")


_TEST_FRAMEWORKS = ("pytest", "unittest", "absl.testing", "chex", "hypothesis", "numpy.testing", "jax.test_util", "jax._src.test_util")


def is_test_module(filename: str, model) -> bool:
    """A test module: `*_test.py`, `*_test_utils.py`, `test_utils.py` or `conftest.py` by name alone,
    and any module under a `tests/` or `test/` folder; a `test_*.py` file elsewhere only when written as one, that is it imports a test
    framework or defines `test_*` functions or `Test*` classes. A script that is only named
    `test_profiler.py` (a tutorial's demo) is not test code."""
    found = getattr(model, "_is_test_module", None)
    if found is None:
        path = filename.replace("\\", "/")
        found = bool(_TEST_ONLY_FILE.search(path)) or bool(_TEST_FOLDER.search(path)) or bool(_TEST_FILE.search(path)) and (
            any(target == framework or target.startswith(framework + ".") for target in model.imports.aliases.values() for framework in _TEST_FRAMEWORKS)
            or any(
                (isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name.startswith("test"))
                or (isinstance(statement, ast.ClassDef) and ("Test" in statement.name))
                for statement in model.tree.body
            )
        )
        model._is_test_module = found
    return found


def in_test_code(node: ast.AST, filename: str, model) -> bool:
    """In a test module (see `is_test_module`), a `test_*` function (or one spelled in CamelCase,
    `TestSampler`), a `Test*` class, or a module's self-test block (`_is_self_test_block`)."""
    if is_test_module(filename, model):
        return True
    current = node
    while current is not None:
        if isinstance(current, ast.If) and parent_of(current) is model.tree and is_main_guard(current.test):
            return _is_self_test_block(current, model)
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            current.name.startswith("test") or current.name[:4] == "Test" and current.name[4:5].isupper()
        ) and current.name not in _called_by_the_program(model):
            return True
        if isinstance(current, ast.ClassDef) and current.name.startswith("Test"):
            return True
        current = parent_of(current)
    return False


def _is_self_test_block(block: ast.If, model) -> bool:
    """The `__main__` block `block` runs no loop (`_runs_a_loop`) and another module of the project
    imports this one: it is the module's self-test, not the program's entry point. Memoised per block."""
    memo = model.__dict__.setdefault("_self_test_blocks", {})
    found = memo.get(id(block))
    if found is None:
        found = memo[id(block)] = not _runs_a_loop(block, model) and _imported_by_project(model)
    return found


def _runs_a_loop(block: ast.If, model) -> bool:
    """A loop in the block, in a function or method of the module it calls (directly, by name or as
    `anything.method(...)` of a method defined here), or a call of a name imported from the project
    (whose body is not seen here)."""
    looping = _looping_definitions(model)
    for node in (n for statement in block.body for n in ast.walk(statement)):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            return True
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        name = function.id if isinstance(function, ast.Name) else function.attr if isinstance(function, ast.Attribute) else None
        if name in looping:
            return True
        root = function
        while isinstance(root, ast.Attribute):
            root = root.value
        target = model.imports.aliases.get(root.id) if isinstance(root, ast.Name) else None
        if target is not None and model.project is not None and model.project.may_hold(target.split(".")[0]):
            return True
    return False


def _looping_definitions(model) -> frozenset[str]:
    """Names of the module's functions and methods (any depth) whose bodies hold a loop."""
    names = set()
    for node in ast.walk(model.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            isinstance(inner, (ast.For, ast.AsyncFor, ast.While)) for inner in ast.walk(node)
        ):
            names.add(node.name)
    return frozenset(names)


def _imported_by_project(model) -> bool:
    """Another (non-test) module of the project imports a module of this one's name (the reverse-import
    index of semantic/callers.py, over the folders the project's imports are searched from)."""
    project = model.project
    if project is None:
        return False
    from jaxlint.semantic import callers  # (callers imports the model; imported late)

    # From the top package outwards: importers of a module in a folder without `__init__.py` sit
    # above it (each folder's index is built once per process, and none over a monorepo's size).
    own, leaf = str(project.path), callers.module_leaf(project.path).encode()
    for directory in sorted({project.top, *project.search_paths}, key=lambda path: -len(str(path))):
        if any(importer != own for importer in callers.import_index(directory, project.file_digest).get(leaf, [])):
            return True
    return False


_UNCONDITIONAL_SKIPS = frozenset({"pytest.mark.skip", "unittest.skip"})


def in_skipped_test(node: ast.AST, model) -> bool:
    """Inside a function or class the test framework never runs: decorated with an unconditional
    skip (`@pytest.mark.skip`, `@pytest.mark.skip("broken")`, `@unittest.skip("...")`). A condition
    (`skipif`, `skipUnless`) may let it run, so such code is live."""
    current = parent_of(node)
    while current is not None:
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in current.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if model.qualified_name(target) in _UNCONDITIONAL_SKIPS:
                    return True
        current = parent_of(current)
    return False


def _called_by_the_program(model) -> frozenset[str]:
    """Names of functions the module's own non-test code calls (`test(model, test_loader)` each epoch
    of a training loop, `test()` from the `__main__` block): an evaluation on the test split, not a
    test. A test framework calls tests; a program calling one by name runs it as part of its work.
    Calls from functions that are themselves `test*` (a test calling a shared check) do not count."""
    found = getattr(model, "_jaxlint_called_by_program", None)
    if found is not None:
        return found
    called: set[str] = set()
    stack: list[ast.AST] = list(model.tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (node.name.startswith("test") or node.name.startswith("Test")):
            continue  # (a test's own calls)
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            continue
        if isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Name):
                called.add(function.id)
            elif isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "self":
                called.add(function.attr)
        stack.extend(ast.iter_child_nodes(node))
    found = frozenset(name for name in called if name.startswith(("test", "Test")))
    model._jaxlint_called_by_program = found
    return found
