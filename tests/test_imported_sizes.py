"""A class or helper of another module of the project sizes a state as a local one does
(semantic/imported_sizes.py, read by state_size.network and carried_state._elements), and two names
bound by one assignment are one value until the first update (carried_state.bound_together): the
package fixture fixtures/sizes_project and the in-module fixture fixtures/rules/JAX401_bound_together.py
(its markers run by test_rules.py)."""
from __future__ import annotations

import ast

from conftest import FIXTURES
from rule_fixtures import expected_findings

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic import carried_state, imported_sizes
from jaxlint.semantic.model import SemanticModel

PROJECT = FIXTURES / "sizes_project"


def _findings(relative: str):
    path = PROJECT / relative
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), [RULES_BY_CODE["JAX401"]])
    assert not result.errors, result.errors
    return path, result.diagnostics


def test_imported_networks_and_helpers_are_sized_in_their_module():
    for relative in ("train_small.py", "train_large.py", "examples/demo.py", "learner.py"):
        path, diagnostics = _findings(relative)
        assert {(d.location.row, d.code) for d in diagnostics} == set(expected_findings(path.read_text())), relative


def test_an_argument_not_evaluated_here_is_an_unknown_value_there():
    call = ast.parse("Net(4, WIDTH, (2, 3), key=k)").body[0].value
    values = {"4": 4, "(2, 3)": (2, 3)}
    literal = imported_sizes.literal_call(call, "Net", lambda node: values.get(ast.unparse(node), imported_sizes.UNKNOWN))
    assert ast.unparse(literal) == f"Net(4, {imported_sizes.UNKNOWN_NAME}, (2, 3), key={imported_sizes.UNKNOWN_NAME})"
    spread = ast.parse("Net(*sizes)").body[0].value
    assert imported_sizes.literal_call(spread, "Net", lambda node: 1) is None


def test_names_bound_together_by_a_base_class_of_another_module_are_named_with_its_file():
    _, diagnostics = _findings("learner.py")
    assert len(diagnostics) == 1 and diagnostics[0].fix is None
    assert "`self.online` and `self.target` are one value until the first call (bound together on line 6 of learner_base.py)" in diagnostics[0].message


def test_names_bound_together_are_one_value_until_the_first_update():
    source = (
        "def fit(make, step, batches):\n"
        "    params = target = make()\n"
        "    spare = other = make()\n"
        "    for batch in batches:\n"
        "        params = step(params, target, batch)\n"
        "        other = step(other, batch)\n"
        "        target = step(target, params)\n"
        "    return params\n"
    )
    tree = ast.parse(source)
    model = SemanticModel(tree)
    scope = next(s for s in model.scopes if getattr(s.node, "name", None) == "fit")
    loop = tree.body[0].body[2]
    first, second, third = loop.body
    found = carried_state.bound_together("params", first, scope, model)
    assert found is not None and found[0] == "target" and found[1].lineno == 2 and found[2]
    assert carried_state.bound_together("other", second, scope, model) is None  # `spare` is never read
    # `params` was rebound earlier in the loop body: the update of `target` is no longer handed one value.
    assert carried_state.bound_together("target", third, scope, model) is None


def test_the_message_names_the_other_name_and_offers_no_fix():
    path = FIXTURES / "rules" / "JAX401_bound_together.py"
    result = check_source(path.read_text(), str(path), Settings(), [RULES_BY_CODE["JAX401"]])
    messages = {d.location.row: d.message for d in result.diagnostics}
    twin = next(row for row, message in messages.items() if "`self.online` and `self.target` are one value" in message)
    assert "a donated buffer may not also be passed" in messages[twin]
    assert any("`weights` and `start` are one value" in m and "would delete the arrays `start` still reads" in m for m in messages.values())
    assert not any("`spare`" in m for m in messages.values())
    assert all(d.fix is None for d in result.diagnostics if "one value until the first call" in d.message)
