"""Objects of another module's class that carry their own state (semantic/call_summaries.py,
foreign_work.py, values.py): `loss = model.fit_batch(x, y)`, the method rebinding `self.w` from a
compiled call and returning its loss, is a step whose result is a device value, whether the object
comes from the class itself or from a factory every return of which builds one class."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "project_held_state"


def _markers_match(path: Path, codes: list[str]):
    return check_markers_in_project(path, PROJECT, codes)


def test_steps_of_held_state():
    result = _markers_match(PROJECT / "run.py", ["JAX201"])
    assert "holders.py" in {Path(path).name for path in result.dependencies}
    assert all("it calls `model.fit_batch`" in d.message for d in result.diagnostics)


def test_keys_handed_to_built_objects():
    _markers_match(PROJECT / "run_keys.py", ["JAX501"])


def test_the_module_alone_says_nothing():
    path = PROJECT / "run.py"
    result = check_source(path.read_text(), "<stdin>", Settings(), [RULES_BY_CODE["JAX201"]])
    assert result.diagnostics == []


def test_the_binding_that_reaches_decides():
    _markers_match(PROJECT / "run_wrapped.py", ["JAX201"])


def test_intervals_around_held_state_steps():
    _markers_match(PROJECT / "run_timing.py", ["JAX202"])
