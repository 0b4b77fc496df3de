"""JAX302 asks the whole project whether a function this module never calls runs once per program
(semantic/callers.calls_per_step_into): the fixture project fixtures/cross_module_once, without the
opt-in `cross-module-callers` setting, and the importers read becoming dependencies of the findings."""

from __future__ import annotations

import shutil

from conftest import FIXTURES
from rule_fixtures import expected_findings
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "cross_module_once"


def _check(path, root):
    result = check_source(path.read_text(), str(path), Settings(root=root), [RULES_BY_CODE["JAX302"]])
    assert not result.errors, result.errors
    return result


def test_call_sites_in_other_modules_decide_runs_once():
    path = PROJECT / "toolkit" / "sync.py"
    expected = expected_findings(path.read_text())
    found = {(d.location.row, d.code) for d in _check(path, PROJECT).diagnostics}
    assert found == set(expected), sorted(found ^ set(expected))


def test_initialisers_by_role_in_other_modules_run_once():
    path = PROJECT / "toolkit" / "roles.py"
    expected = expected_findings(path.read_text())
    found = {(d.location.row, d.code) for d in _check(path, PROJECT).diagnostics}
    assert found == set(expected), sorted(found ^ set(expected))


def test_the_importers_read_are_dependencies():
    result = _check(PROJECT / "toolkit" / "sync.py", PROJECT)
    assert str(PROJECT / "run.py") in result.dependencies
    assert str(PROJECT / "toolkit" / "loop.py") in result.dependencies


def test_a_call_moved_into_a_loop_is_per_step(tmp_path):
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy)
    script = copy / "setup_script.py"
    script.write_text(script.read_text().replace("replicated = barrier_at_import(", "for _ in range(100):\n    replicated = barrier_at_import("))
    rows = {d.location.row for d in _check(copy / "toolkit" / "sync.py", copy).diagnostics}
    assert 8 in rows  # barrier_at_import's pmap
