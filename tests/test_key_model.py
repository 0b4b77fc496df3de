"""The key model across modules (semantic/effects.py, semantic/project.py): constructors consume the
key their `__init__` (own or inherited) draws from, a method alias set in `__init__` runs its target,
a compiled method that samples a distribution with `seed=` consumes its key. Markers in
fixtures/key_project/train.py say which lines JAX501 must flag."""
from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import expected_findings

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "key_project"


def _rows(path):
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), [RULES_BY_CODE["JAX501"]])
    assert not result.errors, result.errors
    return {(d.location.row, d.code) for d in result.diagnostics}


def test_keys_consumed_through_another_module_match_markers():
    path = PROJECT / "train.py"
    expected = set(expected_findings(path.read_text()))
    assert expected, "the fixture marks the lines it expects"
    found = _rows(path)
    assert found == expected, sorted(found ^ expected)


def test_the_defining_module_has_no_findings():
    assert _rows(PROJECT / "zoo" / "blocks.py") == set()
