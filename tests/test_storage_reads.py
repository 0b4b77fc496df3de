"""JAX201 across modules: a loop whose every iteration restores a checkpoint through a function or
method of another project module (semantic/storage_reads.py, foreign_work.imported_storage_read) is a
loop over saved checkpoints and is not reported; a helper that reads nothing from storage is no excuse."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import FIXTURES
from rule_fixtures import expected_findings
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic import storage_reads
from jaxlint.semantic.model import SemanticModel

PROJECT = FIXTURES / "project_restore"


def _check(text: str, filename: str, settings: Settings):
    result = check_source(text, filename, settings, [RULES_BY_CODE["JAX201"]])
    assert not result.errors, result.errors
    return result


def test_markers_match_findings():
    path = PROJECT / "evaluate.py"
    result = _check(path.read_text(), str(path), Settings(root=PROJECT))
    found = {(d.location.row, d.code) for d in result.diagnostics}
    assert found == set(expected_findings(path.read_text())), sorted(found)


def test_the_defining_module_is_a_dependency():
    path = PROJECT / "evaluate.py"
    result = _check(path.read_text(), str(path), Settings(root=PROJECT))
    assert "checkpoint_io.py" in {Path(each).name for each in result.dependencies}


def test_without_the_project_the_helpers_are_unknown_and_the_reads_reported():
    path = PROJECT / "evaluate.py"
    result = _check(path.read_text(), "<stdin>", Settings())
    assert len(result.diagnostics) == 3


def test_a_raise_does_not_hide_the_restore_after_it():
    # `restore_window` raises on a bad folder: on every call that returns, it has read the checkpoint.
    tree = ast.parse((PROJECT / "checkpoint_io.py").read_text())
    model = SemanticModel(tree)
    scopes = {scope.node.name: scope for scope in model.scopes if isinstance(scope.node, ast.FunctionDef)}
    found = storage_reads.storage_read_in(scopes["restore_window"], model)
    assert found is not None and ast.unparse(found.func) == "checkpoints.restore_checkpoint"
    assert storage_reads.storage_read_in(scopes["load"], model) is not None
    assert storage_reads.storage_read_in(scopes["pick_folder"], model) is None
