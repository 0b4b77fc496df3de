"""Objects and callables of another module (semantic/effects.py and others): what a method or
function of another module does to the arguments it is handed, `*args` included."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project

PROJECT = FIXTURES / "project_objects"


def test_star_parameters_read_through_another_module():
    result = check_markers_in_project(PROJECT / "run_meters.py", PROJECT, ["JAX201"])
    assert all("on the host" in d.message for d in result.diagnostics)


def test_inherited_methods_and_restored_objects_keep_the_class():
    result = check_markers_in_project(PROJECT / "run_learners.py", PROJECT, ["JAX401"])
    names = {path.rpartition("/")[2] for path in result.dependencies}
    assert {"base.py", "derived.py"} <= names


def test_classes_picked_at_run_time_agree_on_a_compiled_method():
    result = check_markers_in_project(PROJECT / "run_equations.py", PROJECT, ["JAX401"])
    assert any("`Solver.step`" in d.message for d in result.diagnostics)
