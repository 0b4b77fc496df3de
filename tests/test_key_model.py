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


def test_keys_passed_by_keyword_to_another_modules_keyword_only_parameters_match_markers():
    # `def shuffled(xs, *, key)` in another module, called `shuffled(xs, key=key)`: the summary names
    # the keyword-only parameter it draws from, so the keyword argument is consumed.
    path = PROJECT / "keyword_train.py"
    expected = set(expected_findings(path.read_text()))
    assert expected, "the fixture marks the lines it expects"
    found = _rows(path)
    assert found == expected, sorted(found ^ expected)
    assert _rows(PROJECT / "zoo" / "keyword_keys.py") == set()


_DRAWS = "from jax import random\n\n\ndef draw(draw_key, n):\n    return random.normal(draw_key, (n,))\n"
_USES = (
    "from jax import random\n\nfrom {module} import draw\n\n\n"
    "def twice(key):\n    first = random.uniform(key, (3,))\n    return first, draw(key, 3)\n"
)


def _rows_with_root(path, root):
    result = check_source(path.read_text(), str(path), Settings(root=root), [RULES_BY_CODE["JAX501"]])
    assert not result.errors, result.errors
    return [d.location.row for d in result.diagnostics]


def test_a_script_folder_imports_its_checkouts_package(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "toolkit").mkdir(parents=True)
    (checkout / "scripts").mkdir()
    (checkout / "pyproject.toml").write_text("[project]\nname = 'toolkit'\n")
    (checkout / "toolkit" / "__init__.py").write_text("")
    (checkout / "toolkit" / "noise.py").write_text(_DRAWS)
    script = checkout / "scripts" / "run.py"
    script.write_text(_USES.format(module="toolkit.noise"))
    assert _rows_with_root(script, tmp_path) == [8]  # jaxlint run from above the checkout


def test_a_script_folder_imports_a_sibling_folder(tmp_path):
    (tmp_path / "work" / "layers").mkdir(parents=True)
    (tmp_path / "work" / "nets").mkdir()
    (tmp_path / "work" / "layers" / "noise.py").write_text(_DRAWS)
    script = tmp_path / "work" / "nets" / "net.py"
    script.write_text(_USES.format(module="layers.noise"))
    assert _rows_with_root(script, tmp_path) == [8]


def test_a_checkout_root_does_not_import_from_the_folder_around_it(tmp_path):
    # Other checkouts beside this one are not on its path: `import layers` finds nothing there.
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "noise.py").write_text(_DRAWS)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "README.md").write_text("a checkout\n")
    script = tmp_path / "mine" / "net.py"
    script.write_text(_USES.format(module="layers.noise"))
    assert _rows_with_root(script, tmp_path / "mine") == []


def test_keys_handed_on_through_chains_of_project_calls_match_markers():
    # zoo/noise_chain.py hands keys on through helpers, methods and another module's constructor
    # before anything draws: the summaries' key forwards say which parameters are consumed.
    path = PROJECT / "chain_train.py"
    expected = set(expected_findings(path.read_text()))
    assert len(expected) >= 10, "the fixture marks the lines it expects"
    found = _rows(path)
    assert found == expected, sorted(found ^ expected)
    assert _rows(PROJECT / "zoo" / "noise_chain.py") == set()
    assert _rows(PROJECT / "zoo" / "compiled_steps.py") == set()
    assert _rows(PROJECT / "zoo" / "kept_keys.py") == set()


def test_splits_of_another_modules_functions_and_methods_match_markers():
    # A `split` beside a function or a method (through the instance's class) of another module whose body
    # splits the same key: the summary's `split_key_params` (semantic/effects.py, summarise_split_keys).
    path = PROJECT / "split_train.py"
    assert _rows(path) == set(expected_findings(path.read_text()))
    assert _rows(PROJECT / "zoo" / "walkers.py") == set()


def test_children_of_another_modules_split_read_apart_match_markers():
    # How another module's function draws from each key its split returns (the summary's
    # `split_children`, semantic/effects.py split_child_kinds): `randint` beside the caller's `normal`
    # reads apart; `normal` on both sides repeats.
    path = PROJECT / "split_children.py"
    assert _rows(path) == set(expected_findings(path.read_text()))
    assert _rows(PROJECT / "zoo" / "labels.py") == set()
