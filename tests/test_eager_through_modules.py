"""JAX203 and JAX201 across modules: a loop's call of a function or method of another project module
that runs a whole computation eagerly, or reads on the host a value it computed (semantic/foreign_work.py),
with the defining module as a dependency."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from rule_fixtures import check_in_project, check_markers_in_project
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "project_eager"


def _check(path: Path):
    return check_in_project(path, PROJECT, ["JAX203", "JAX201"])


def test_markers_match_findings():
    path = PROJECT / "run.py"
    check_markers_in_project(path, PROJECT, ["JAX203", "JAX201"])


def test_message_names_the_helper_and_the_line_inside_it():
    result = _check(PROJECT / "run.py")
    messages = [d.message for d in result.diagnostics if "learner.learn" in d.message]
    assert len(messages) == 1
    assert "in `Learner.learn`, updates.py:8" in messages[0]


def test_the_defining_module_is_a_dependency():
    result = _check(PROJECT / "run.py")
    assert "updates.py" in {Path(path).name for path in result.dependencies}


def test_the_module_alone_says_nothing():
    # Without the project (text with no file behind it), the helpers are unknown: no finding.
    path = PROJECT / "run.py"
    result = check_source(path.read_text(), "<stdin>", Settings(), [RULES_BY_CODE["JAX203"], RULES_BY_CODE["JAX201"]])
    assert result.diagnostics == []


def test_sync_message_names_the_read_and_its_file():
    result = _check(PROJECT / "run.py")
    messages = [d.message for d in result.diagnostics if d.code == "JAX201" and "stepper.advance" in d.message]
    assert len(messages) == 2  # `stepper.advance(...)` and `self.stepper.advance(...)`
    assert all("`loss.item()` at updates.py:" in message for message in messages)


def test_a_parameter_is_what_the_importers_pass():
    # `decode(network, ...)` of helpers/decoding.py: run.py hands `converse` (which passes it on) an nnx
    # module instance, and `rank_all` a linen module; a plain function elsewhere (look-alikes).
    path = PROJECT / "helpers" / "decoding.py"
    result = check_markers_in_project(path, PROJECT, ["JAX203", "JAX201"])
    assert "run.py" in {Path(dependency).name for dependency in result.dependencies}


def test_without_the_importers_the_parameter_is_unknown():
    path = PROJECT / "helpers" / "decoding.py"
    result = check_source(path.read_text(), "<stdin>", Settings(), [RULES_BY_CODE["JAX203"]])
    assert result.diagnostics == []


def test_a_function_a_script_entry_point_calls_runs_on_the_host():
    # helpers/continuation.py has no host work of its own; cli.py's `main()`, run under
    # `if __name__ == "__main__":`, calls three of its functions (flagged), one only under `jit` and one
    # not at all (look-alikes).
    path = PROJECT / "helpers" / "continuation.py"
    result = check_markers_in_project(path, PROJECT, ["JAX203", "JAX201"])
    assert "cli.py" in {Path(dependency).name for dependency in result.dependencies}


def test_top_level_transform_names_of_another_module():
    # `batched = jax.vmap(forward)`, `slope = jax.grad(loss)` at the top level of helpers/transformed.py,
    # imported by name, through the module and by a star import: their calls run what they run there.
    check_markers_in_project(PROJECT / "aliased.py", PROJECT, ["JAX203", "JAX201"])
