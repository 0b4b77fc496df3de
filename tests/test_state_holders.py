"""Where carried state lives, across objects and modules (semantic/kept_structure.py restores,
semantic/annotated_classes.py annotations, model._built_by_factory's factory arms): the in-module
fixture is fixtures/rules/JAX401_state_holders.py (run by test_rules.py); these ask the model directly
and run the package fixture fixtures/state_project."""
from __future__ import annotations

import ast

from conftest import FIXTURES
from rule_fixtures import expected_findings

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic import annotated_classes, kept_structure
from jaxlint.semantic.model import SemanticModel

PROJECT = FIXTURES / "state_project"


def _model(source: str):
    tree = ast.parse(source)
    return tree, SemanticModel(tree)


def _scope(model, name):
    return next(scope for scope in model.scopes if getattr(scope.node, "name", None) == name)


def test_a_restore_handed_a_template_keeps_its_structure():
    tree, model = _model(
        "import orbax.checkpoint as ocp\n"
        "def f(manager, agent, other):\n"
        "    whole = manager.restore(0, args=ocp.args.StandardRestore(agent))\n"
        "    restored = manager.restore(0, args=ocp.args.Composite(agent=ocp.args.PyTreeRestore(agent), other=ocp.args.StandardRestore(other)))\n"
        "    a = restored.agent\n"
        "    b = restored['agent']\n"
        "    c = restored.other\n"
        "    d = restored.missing\n"
    )
    values = {t.id: v for node in ast.walk(tree) if isinstance(node, ast.Assign) for t, v in [(node.targets[0], node.value)]}
    assert kept_structure.keeps_structure_of(values["whole"], "agent", model)
    assert kept_structure.keeps_structure_of(values["a"], "agent", model)
    assert kept_structure.keeps_structure_of(values["b"], "agent", model)
    assert not kept_structure.keeps_structure_of(values["c"], "agent", model)  # another item's template
    assert not kept_structure.keeps_structure_of(values["d"], "agent", model)  # an item no request names


def test_an_annotation_names_the_class_of_a_parameter_and_of_an_attribute_bound_to_it():
    source = (
        "from typing import Optional\n"
        "class Learner:\n"
        "    pass\n"
        "class Base:\n"
        "    pass\n"
        "class Derived(Base):\n"
        "    pass\n"
        "def plain(learner: Learner): pass\n"
        "def optional(learner: Optional['Learner']): pass\n"
        "def derived(base: Base): pass\n"
        "def rebound(learner: Learner):\n"
        "    learner = make()\n"
        "def stored_into(learner: Learner):\n"
        "    learner.state = 0\n"
        "def bare(learner): pass\n"
        "class Holder:\n"
        "    def __init__(self, inner: Learner):\n"
        "        self.inner = inner\n"
        "class Swapped:\n"
        "    def __init__(self, inner: Learner):\n"
        "        self.inner = inner\n"
        "    def swap(self, other):\n"
        "        self.inner = other\n"
    )
    tree, model = _model(source)
    learner = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Learner")
    assert annotated_classes.parameter_class(model, _scope(model, "plain"), "learner") is learner
    assert annotated_classes.parameter_class(model, _scope(model, "optional"), "learner") is learner
    assert annotated_classes.parameter_class(model, _scope(model, "stored_into"), "learner") is learner
    assert annotated_classes.parameter_class(model, _scope(model, "derived"), "base") is None  # a subclass may come in
    assert annotated_classes.parameter_class(model, _scope(model, "rebound"), "learner") is None
    assert annotated_classes.parameter_class(model, _scope(model, "bare"), "learner") is None
    holder = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Holder")
    swapped = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Swapped")
    assert annotated_classes.attribute_class(model, holder, "inner") is learner
    assert annotated_classes.attribute_class(model, swapped, "inner") is None  # also bound to an unannotated one


def test_state_carried_through_objects_of_another_module_matches_markers():
    path = PROJECT / "train.py"
    expected = set(expected_findings(path.read_text()))
    assert len(expected) >= 2
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), [RULES_BY_CODE["JAX401"]])
    assert not result.errors, result.errors
    assert {(d.location.row, d.code) for d in result.diagnostics} == expected
    assert all(d.fix is None for d in result.diagnostics)  # the jit sits in another module
