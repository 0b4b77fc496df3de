"""The class an object handed to a constructor has (semantic/constructed_objects.py): `self.obj =
obj` in `__init__` holds what every construction passes, in this module or in the modules that
import it; where constructions disagree, pass something unknown, or another method stores the
attribute, nothing is known."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project

PROJECT = FIXTURES / "project_handed"


def test_constructions_in_another_module_name_the_class():
    result = check_markers_in_project(PROJECT / "scoring" / "scorers.py", PROJECT, ["JAX201"])
    names = {path.rpartition("/")[2] for path in result.dependencies}
    assert {"run_scoring.py", "estimators.py"} <= names  # (the importer read, and the class's module)


def test_constructions_in_the_same_module_name_the_class():
    check_markers_in_project(PROJECT / "local_scoring.py", PROJECT, ["JAX201"])


def test_the_fact_is_unknown_where_constructions_disagree_or_show_nothing():
    import ast

    from jaxlint.semantic.model import SemanticModel
    from jaxlint.semantic.project import ProjectView

    path = PROJECT / "scoring" / "scorers.py"
    tree = ast.parse(path.read_text())
    model = SemanticModel(tree, (), ProjectView(str(path), PROJECT))
    held = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "predict":
            owner = model.scope_for(node).enclosing_method().class_node.name
            found = model.self_attribute_class(node.value)
            held[owner] = getattr(found, "name", None)
    assert held == {"Scorer": "Density", "NamedScorer": "Density", "MixedScorer": None, "OpaqueScorer": None, "SwappedScorer": None}
