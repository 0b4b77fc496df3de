"""When a key's repeated draws matter (semantic/key_values.py): draws of one sampler from one key that
each reach only displays, through no statement reading both (a demo's example inputs drawn again),
share bits with nothing computed; a draw made before an `if` and read only in arms other than the one
holding the key's next consumer is dead on that consumer's path; a function of another module that
reads its key only with samplers reading the key's own bits, then a `split` of that key, repeats no
value (the summary's `own_bit_key_params`)."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import actual_findings, expected_findings, notebook_findings

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

HEADER = (
    "import jax\nimport jax.numpy as jnp\nimport matplotlib.pyplot as plt\nimport structs\n\n"
    "def show(x, title):\n    plt.title(title)\n    plt.imshow(jnp.asarray(x))\n    plt.show()\n\n"
    "key = jax.random.PRNGKey(0)\n"
)


def findings(*cells: str) -> list[tuple[int, int]]:
    return notebook_findings(cells, "demo.ipynb", "JAX501")


# ----- draws each reaching only a display ---------------------------------------------------------


def test_demo_inputs_each_shown_through_a_display_function_are_not_flagged():
    cell = (
        "show(structs.Chain(jax.random.normal(key, (8, 8)), kind='a').best(), 'a')\n"
        "show(structs.Chain(jax.random.normal(key, (8, 8)), kind='b').best(), 'b')\n"
    )
    assert findings(HEADER, cell) == []


def test_a_demo_input_drawn_again_in_a_later_cell_and_shown_through_methods_is_not_flagged():
    first = "show(structs.Chain(jax.random.normal(key, (8, 12))).best(), 'best')\n"
    second = (
        "chain = structs.Chain(jax.random.normal(key, (8, 12)), kind='b')\n"
        "print('entropy', chain.entropy())\n"
        "show(chain.marginals(), 'marginals')\n"
        "show(chain.sample(key, 2).sum(0), 'samples')\n"
    )
    assert findings(HEADER, first, second) == []


def test_a_demo_input_handed_by_keyword_and_printed_is_not_flagged():
    first = "scores = jax.random.normal(key, (5, 5))\ntable = structs.Table(scores=scores)\nprint(table.mode())\n"
    second = "plt.imshow(jax.random.normal(key, (5, 5)).T)\n"
    assert findings(HEADER, first, second) == []


def test_draws_that_meet_in_one_display_are_flagged():
    # Look-alike: both reach one statement, which shows how they relate.
    cell = "x = jax.random.normal(key, (100,))\ny = jax.random.normal(key, (100,))\nplt.scatter(x, y)\n"
    assert findings(HEADER, cell) == [(2, 2)]


def test_a_draw_that_is_trained_on_is_flagged():
    # Look-alike: the first is shown, the second is data a loss is computed from.
    cell = (
        "show(jax.random.normal(key, (3, 3)), 'weights')\n"
        "x = jax.random.normal(key, (3,))\nfor _ in range(10):\n    x = x - 0.1 * jax.grad(lambda w: jnp.sum((w - 1.0) ** 2))(x)\n"
    )
    assert findings(HEADER, cell) == [(2, 2)]


def test_different_samplers_each_shown_are_flagged():
    # Look-alike: `uniform` and `normal` of one key are transforms of each other, a hidden correlation.
    cell = "show(jax.random.normal(key, (4, 4)), 'n')\nshow(jax.random.uniform(key, (4, 4)), 'u')\n"
    assert findings(HEADER, cell) == [(2, 2)]


def test_a_display_function_that_also_keeps_its_argument_is_no_display():
    # Look-alike: the helper appends what it shows to a list the notebook computes with.
    keeper = (
        "history = []\n\ndef show_kept(x):\n    history.append(x)\n    plt.imshow(x)\n\n"
        "show_kept(jax.random.normal(key, (4, 4)))\nshow_kept(jax.random.normal(key, (4, 4)))\n"
    )
    assert findings(HEADER, keeper) == [(2, 8)]


# ----- a draw dead on the path of the key's next consumer -----------------------------------------

BRANCHES = FIXTURES / "rules" / "JAX501_draw_before_branch.py"


def test_draws_read_only_in_other_arms_match_markers():
    text = BRANCHES.read_text()
    found, _ = actual_findings(text, BRANCHES.name, {"JAX501"})
    assert found == expected_findings(text)


# ----- another module's function drawing only its key's own bits, then a split ------------------

PROJECT = FIXTURES / "key_project"


def _rows(path):
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), [RULES_BY_CODE["JAX501"]])
    assert not result.errors, result.errors
    return {(d.location.row, d.code) for d in result.diagnostics}


def test_a_split_after_another_modules_own_bits_draws_matches_markers():
    path = PROJECT / "own_bits_split.py"
    expected = set(expected_findings(path.read_text()))
    assert len(expected) == 3
    assert _rows(path) == expected
    assert _rows(PROJECT / "zoo" / "starts.py") == set()


def test_the_summary_lists_only_parameters_read_as_own_bits_keys():
    from jaxlint.semantic.project import summarise_file

    summary = summarise_file(PROJECT / "zoo" / "starts.py")
    own = {name: f.own_bit_key_params for name, f in summary.functions.items()}
    assert own["start_vector"] == ("rng_key",)
    assert own["jitter"] == ("key",)
    assert own["keep_mask"] == ("key",)
    assert own["shuffled"] == ()
    assert own["start_and_perturb"] == ()
