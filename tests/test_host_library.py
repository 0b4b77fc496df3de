"""Host library work (semantic/host_library.py, library_models/host_libraries.py): a function that
hands work to SciPy's sparse solvers, PETSc, AMGX or a mesh writer is host code. A custom-gradient
function that does it is not marked traced; a loop that does it on every pass is dominated by it,
also through a function of another project module."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import FIXTURES
from rule_fixtures import check_in_project, check_markers_in_project
from jaxlint.semantic import host_library, library_models
from jaxlint.semantic.model import SemanticModel

PROJECT = FIXTURES / "project_host_solver"


def _scopes(source: str):
    model = SemanticModel(ast.parse(source))
    return model, {scope.node.name: scope for scope in model.scopes if isinstance(scope.node, ast.FunctionDef)}


def test_the_table_marks_host_libraries_and_nothing_else():
    entries = library_models.models()
    for name in ("scipy.sparse.linalg.spsolve", "scipy.sparse.csr_matrix", "petsc4py.PETSc.KSP", "pyamgx.Solver", "meshio.write"):
        assert entries.entry(name).host_work, name
    for name in ("numpy.asarray", "jax.numpy.linalg.solve", "scipy.special.erf"):
        entry = entries.entry(name)
        assert entry is None or not entry.host_work, name


def test_a_custom_vjp_host_solver_is_not_traced_but_a_jitted_one_is():
    source = (
        "import jax\nimport numpy as np\nimport scipy.sparse.linalg as sla\n"
        "def helper(a, b):\n    return sla.spsolve(a, np.asarray(b))\n"
        "@jax.custom_vjp\ndef primal(b):\n    return helper(A, b)\n"
        "def fwd(b):\n    return primal(b), None\n"
        "def bwd(r, g):\n    return (helper(A.T, g),)\n"
        "primal.defvjp(fwd, bwd)\n"
        "@jax.custom_vjp\ndef plain(x):\n    return np.asarray(x)\n"
        "@jax.jit\ndef compiled(b):\n    return helper(A, b)\n"
    )
    model, scopes = _scopes(source)
    assert not scopes["primal"].in_traced and not scopes["fwd"].in_traced and not scopes["bwd"].in_traced
    assert scopes["plain"].in_traced and scopes["compiled"].in_traced
    assert scopes["helper"].in_traced  # (through the jitted caller: a host solve there raises)
    assert host_library.hands_to_host_library(scopes["primal"], model)
    assert not host_library.hands_to_host_library(scopes["plain"], model)


def test_a_loop_of_solves_through_another_module():
    check_markers_in_project(PROJECT / "run.py", PROJECT, ["JAX203", "JAX201"])


def test_the_solver_module_is_a_dependency():
    result = check_in_project(PROJECT / "run.py", PROJECT, ["JAX203"])
    assert "fem.py" in {Path(each).name for each in result.dependencies}


def test_only_an_unconditional_call_makes_every_iteration_a_solve():
    source = (
        "import scipy.sparse.linalg as sla\n"
        "def every(xs, a):\n    for x in xs:\n        y = sla.spsolve(a, x)\n"
        "def some(xs, a):\n    for i, x in enumerate(xs):\n        if i % 10 == 0:\n            y = sla.spsolve(a, x)\n"
    )
    model, scopes = _scopes(source)
    loops = [node for node in ast.walk(model.tree) if isinstance(node, ast.For)]
    assert host_library.host_library_every_iteration(loops[0], model) is not None
    assert host_library.host_library_every_iteration(loops[1], model) is None


def test_a_sparse_type_test_is_no_host_work():
    source = (
        "import jax\nimport numpy as np\nimport scipy.sparse\n"
        "@jax.custom_vjp\ndef densify(x):\n    if scipy.sparse.issparse(x):\n        x = x.toarray()\n    return np.asarray(x)\n"
    )
    model, scopes = _scopes(source)
    assert scopes["densify"].in_traced
