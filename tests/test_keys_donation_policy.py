"""Issue 27: one JAX501 finding per key and flow, JAX401's fix withheld (never the finding) when other
code can reach the state, and the one test-code policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import ALL_RULES, RULES_BY_CODE

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"


def _diagnostics(name: str, code: str):
    text = (FIXTURES / name).read_text(encoding="utf-8")
    result = check_source(text, name, Settings(), [RULES_BY_CODE[code]])
    assert not result.errors
    return result.diagnostics


def test_one_key_reuse_finding_lists_the_other_reuses():
    by_row = {d.location.row: d for d in _diagnostics("JAX501_grouped.py", "JAX501")}
    assert "reused again on lines 9, 10" in by_row[8].message
    assert "reused again on line 19" in by_row[16].message  # the loop's reuse joins the straight-line one
    assert "reused again on line 29" in by_row[26].message  # `key_a` again, after `key_b`'s own finding
    assert "reused again" not in by_row[28].message
    assert "reused again on lines 66, 67" in by_row[65].message  # a script's body is one flow


def test_reachable_state_is_flagged_without_a_fix():
    diagnostics = _diagnostics("JAX401_reachable.py", "JAX401")
    assert [d.location.row for d in diagnostics] == [23, 35, 40]
    for diagnostic in diagnostics:
        assert diagnostic.fix is None
        assert "no automatic fix: " in diagnostic.message
    assert "property" in diagnostics[0].message
    assert "a caller passes `state`" in diagnostics[2].message


def test_test_code_policy_is_one_rule_attribute():
    skipping = {rule.code for rule in ALL_RULES if rule.skips_test_code}
    assert {"JAX104", "JAX201", "JAX302", "JAX304", "JAX401", "JAX403", "JAX501", "JAX503"} <= skipping
    # A finding that means the code fails keeps checking tests.
    assert not {"JAX101", "JAX601", "JAX602"} & skipping


def test_test_module_silences_every_skipping_rule():
    text = (FIXTURES / "JAX104.py").read_text(encoding="utf-8")
    plain = check_source(text, "model.py", Settings(), [RULES_BY_CODE["JAX104"]]).diagnostics
    in_test = check_source(text, "model_test.py", Settings(), [RULES_BY_CODE["JAX104"]]).diagnostics
    assert plain and not in_test


@pytest.mark.parametrize("code", ["JAX203", "JAX303", "JAX305", "JAX402", "JAX701"])
def test_cost_rules_follow_the_test_code_policy(code):
    # The rule's own positives are found in its fixture, and none of them in the same text named as a
    # test module (`*_test.py` is test code by its name alone).
    text = (FIXTURES / f"{code}.py").read_text(encoding="utf-8")
    rule = [RULES_BY_CODE[code]]
    assert check_source(text, f"{code}.py", Settings(), rule).diagnostics
    assert not check_source(text, f"pkg/{code.lower()}_test.py", Settings(), rule).diagnostics
