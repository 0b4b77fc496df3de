"""A `del` makes only the names it deletes (or whose contents it changes) unknown to bound_values:
the scope's other names keep their single binding (`args = parser.parse_args()` beside `del tmp`)."""

import ast

from jaxlint.semantic import bindings
from jaxlint.semantic.model import SemanticModel

SOURCE = '''
options = make_options()
scratch = [1, 2, 3]
table = {"a": 1}
holder = make_holder()
del scratch
del table["a"]
del holder.field
'''


def _values(name: str):
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree)
    found = bindings.bound_values(model, name, model.module_scope)
    return None if found is None else [ast.unparse(value) for value in found[1]]


def test_an_unrelated_del_leaves_a_binding_known():
    assert _values("options") == ["make_options()"]


def test_a_deleted_name_is_unknown():
    assert _values("scratch") is None


def test_a_del_of_an_item_or_attribute_makes_the_root_unknown():
    assert _values("table") is None
    assert _values("holder") is None
