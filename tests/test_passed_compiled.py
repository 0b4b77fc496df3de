"""JAX202 on a timing helper of a module that names no JAX: what its parameter runs is what the modules
importing it hand it (semantic/passed_compiled.py), through a package's re-export too, with those
modules as dependencies."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "project_timing_helpers"
HELPERS = PROJECT / "tools" / "stopwatch.py"


def test_markers_match_findings():
    result = check_markers_in_project(HELPERS, PROJECT, ["JAX202"])
    assert "run.py" in {Path(path).name for path in result.dependencies}


def test_message_names_what_the_callers_pass():
    result = check_markers_in_project(HELPERS, PROJECT, ["JAX202"])
    messages = sorted(d.message for d in result.diagnostics)
    assert "`function` (`jax.lax.scan`, as its callers pass it)" in messages[0] + messages[1]
    assert any("`step`" in message for message in messages)


def test_the_module_alone_says_nothing():
    # Without the project, nothing tells what the parameters hold: no finding.
    result = check_source(HELPERS.read_text(), "<stdin>", Settings(), [RULES_BY_CODE["JAX202"]])
    assert result.diagnostics == []


def test_a_module_without_clock_reads_is_not_modelled():
    text = "def apply(function, value):\n    return function(value)\n"
    result = check_source(text, str(PROJECT / "tools" / "apply.py"), Settings(root=PROJECT), [RULES_BY_CODE["JAX202"]])
    assert result.diagnostics == [] and not result.dependencies
