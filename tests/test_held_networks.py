"""Networks reached through objects made elsewhere (semantic/held_networks.py): a plain wrapper whose
`__call__` runs the equinox blocks it holds in a list, built by a static or class method of another
module, called by name or through a method that calls `self(x)`."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project

PROJECT = FIXTURES / "project_held_networks"


def test_loaders_and_wrappers_of_another_module():
    result = check_markers_in_project(PROJECT / "run_loaded.py", PROJECT, ["JAX203"])
    messages = [d.message for d in result.diagnostics]
    assert any("`Stacked.generate`" in m for m in messages)
    assert any("`Stacked.__call__`" in m for m in messages)
    assert "stacked.py" in {Path(path).name for path in result.dependencies}


def test_class_method_returning_cls_records_its_class():
    from jaxlint.semantic.project import summarise_file

    summary = summarise_file(PROJECT / "nets" / "stacked.py")
    methods = summary.classes["Stacked"].methods
    assert methods["from_config"].returned_calls == ((-1, 0, ".Stacked"),)  # `return cls(...)`
    assert methods["from_file"].returned_calls == ((-1, 0, ".Stacked"),)  # `built = Stacked(...)`, returned
