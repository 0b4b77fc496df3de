"""Test code: the one policy every rule follows.

A rule whose finding is a cost (time, memory, compilation, host round trips) or the quality of what a
computation produces (correlated random numbers, NaN gradients, a tracer printed instead of a value)
does not report in test code: a test runs once, on small dummy inputs, and asserts its own
expectations, so neither the cost nor the values reach anyone (such a rule sets
`skips_test_code = True`, and `Context.report` drops its findings in test code). A rule whose finding
means the code fails or will fail on the JAX it targets (a tracer converted to bool, a removed or
deprecated API) checks tests too: a test that breaks is a broken test.

Test code is a test module (`*_test.py`, `*_test_utils.py`, `test_utils.py`, `conftest.py` by name
alone; a `test_*.py` file or a module under `tests/` when written as one, that is it imports a test
framework or defines `test_*` functions or `Test*` classes), a `test*` function or a `Test*` class.
"""

from __future__ import annotations

import ast
import re

from jaxlint.semantic.model import parent_of

_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$|(^|/)tests?/")
# Names only tests and their helpers take (Google-style `foo_test.py`, `foo_test_utils.py`, pytest's
# `conftest.py`): test code by name alone. `test_*.py` must also be written as a test (a tutorial's
# `test_profiler.py` demo is not one).
_TEST_ONLY_FILE = re.compile(r"(^|/)([^/]*_test|[^/]*_test_utils?|test_utils?|conftest)\.py$")


_TEST_FRAMEWORKS = ("pytest", "unittest", "absl.testing", "chex", "hypothesis", "numpy.testing", "jax.test_util", "jax._src.test_util")


def is_test_module(filename: str, model) -> bool:
    """A test module: `*_test.py`, `*_test_utils.py`, `test_utils.py` or `conftest.py` by name alone;
    a `test_*.py` file or a module under `tests/` only when written as one, that is it imports a test
    framework or defines `test_*` functions or `Test*` classes. A script that is only named
    `test_profiler.py` (a tutorial's demo) is not test code."""
    found = getattr(model, "_is_test_module", None)
    if found is None:
        path = filename.replace("\\", "/")
        found = bool(_TEST_ONLY_FILE.search(path)) or bool(_TEST_FILE.search(path)) and (
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
    `TestSampler`), or a `Test*` class."""
    if is_test_module(filename, model):
        return True
    current = node
    while current is not None:
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            current.name.startswith("test") or current.name[:4] == "Test" and current.name[4:5].isupper()
        ):
            return True
        if isinstance(current, ast.ClassDef) and current.name.startswith("Test"):
            return True
        current = parent_of(current)
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
