"""The fixer's guarantees, with small rules made up for the purpose: overlapping edits are never
applied together, a fix that breaks the code is reverted and reported, the loop is capped, and the
result is a fixed point. Also: each refusal says why in the finding's message."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import FIXTURES
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.fixer import MAX_ITERATIONS, fix_source, parses
from jaxlint.rules import RULES_BY_CODE
from jaxlint.rules.base import Rule


class RenameToBroken(Rule):
    """Replaces every `broken_me` name with text that does not parse."""

    code, name, summary = "JAX991", "test-broken", "test"
    node_types = (ast.Name,)

    def check(self, node, context):
        if node.id == "broken_me":
            context.report(node, "broken", context.fix("break it", [context.replace(node, "(")], safe=True))


class UpperCall(Rule):
    """`f(...)` -> `F(...)` for the whole call, and `a` -> `A` inside it: overlapping spans."""

    code, name, summary = "JAX992", "test-overlap", "test"
    node_types = (ast.Call, ast.Name)

    def check(self, node, context):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "f":
            context.report(node, "call", context.fix("upper call", [context.replace(node, "F" + context.text(node)[1:])], safe=True))
        elif isinstance(node, ast.Name) and node.id == "a":
            context.report(node, "name", context.fix("upper name", [context.replace(node, "A")], safe=True))


class NeverStable(Rule):
    """Always offers a fix that changes the text: the loop cap must stop it."""

    code, name, summary = "JAX993", "test-unstable", "test"
    node_types = (ast.Assign,)

    def check(self, node, context):
        if node.targets[0].id != "y":
            return
        end = context.source.position(len(context.source.text))
        from jaxlint.diagnostics import Edit

        context.report(node, "grow", context.fix("grow", [Edit("x = 1\n", end, end)], safe=True))


def test_fix_that_breaks_the_code_is_reverted_and_reported():
    text = "import jax\na = broken_me\nb = f(a)\n"
    outcome = fix_source(text, "pkg/m.py", Settings(), [RenameToBroken(), UpperCall()])
    assert parses(outcome.text)
    assert "broken_me" in outcome.text  # the breaking fix was not applied
    assert "F(A)" in outcome.text or "F(a)" in outcome.text  # the good fixes still were
    assert outcome.reverted and outcome.reverted[0].startswith("pkg/m.py:2:5: JAX991 fix reverted")
    assert len(outcome.reverted) == 1  # not retried (and re-reported) on later passes


def test_fix_that_only_breaks_compilation_is_reverted():
    class ReturnOutside(Rule):
        code, name, summary = "JAX994", "test-return", "test"
        node_types = (ast.Expr,)

        def check(self, node, context):
            context.report(node, "ret", context.fix("return", [context.replace(node, "return 1")], safe=True))

    outcome = fix_source("import jax\nprint(1)\n", "m.py", Settings(), [ReturnOutside()])
    assert outcome.text == "import jax\nprint(1)\n"  # `return` outside a function parses but does not compile
    assert outcome.reverted


def test_overlapping_edits_are_applied_one_at_a_time():
    outcome = fix_source("import jax\nb = f(a)  # keep\n", "m.py", Settings(), [UpperCall()])
    # The call's fix and the name's fix overlap: never both from one pass over the same text.
    assert outcome.text == "import jax\nb = F(A)  # keep\n"
    assert [d.message for d in outcome.applied] == ["call", "name"]


def test_the_loop_is_capped():
    outcome = fix_source("import jax\ny = 0\n", "m.py", Settings(), [NeverStable()])
    assert outcome.text.count("x = 1") == MAX_ITERATIONS
    assert outcome.remaining  # still offered: reported as remaining, not looped on forever


def test_unsafe_fixes_need_the_flag():
    text = "import jax\n\n\n@jax.jit\ndef f(x):\n    return x if x > 0 else -x\n"
    rules = [RULES_BY_CODE["JAX101"]]
    assert fix_source(text, "m.py", Settings(), rules).text == text
    assert "jax.numpy.where(x > 0, x, -x)" in fix_source(text, "m.py", Settings(), rules, unsafe=True).text


def test_fixes_reuse_aliases_and_add_one_import():
    text = '"""Doc."""\nimport jax\nfrom jax import numpy as np_\n\n\n@jax.jit\ndef f(x, y):\n    a = x if x > 0 else y\n    b = y if y > 0 else x\n    return a, b\n'
    fixed = fix_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX101"]], unsafe=True).text
    assert "np_.where(x > 0, x, y)" in fixed and "np_.where(y > 0, y, x)" in fixed
    assert fixed.count("import") == 2  # the existing alias was reused, nothing added
    bare = "from jax import jit\n\n\n@jit\ndef f(x, y):\n    a = x if x > 0 else y\n    b = y if y > 0 else x\n    return a, b\n"
    fixed = fix_source(bare, "m.py", Settings(), [RULES_BY_CODE["JAX101"]], unsafe=True).text
    assert fixed.count("import jax.numpy as jnp\n") == 1  # added once, after the last import
    assert fixed.startswith("from jax import jit\nimport jax.numpy as jnp\n")
    assert "jnp.where(x > 0, x, y)" in fixed


REFUSALS = {
    ("JAX101", "refusals"): [
        "an arm has side effects: `history.append(x)`",
        "only one arm returns",
        "the loop body contains `break`",
        "carried value `x` changes shape",
        "`loss` is differentiated, and reverse-mode AD does not go through `lax.while_loop`",
    ],
}


@pytest.mark.parametrize("key", sorted(REFUSALS))
def test_refusals_say_why(key):
    code, name = key
    path = FIXTURES / "fixes" / code / f"{name}.in.py"
    result = check_source(path.read_text(), path.name, Settings(), [RULES_BY_CODE[code]])
    messages = " | ".join(d.message for d in result.diagnostics)
    for reason in REFUSALS[key]:
        assert reason in messages
    assert all(d.fix is None for d in result.diagnostics if "no automatic fix" in d.message)


@pytest.mark.parametrize("path", sorted((FIXTURES / "fixes").glob("*/refus*.in.py")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_refusal_fixtures_are_flagged_but_not_fixed(path: Path):
    code = path.parent.name
    result = check_source(path.read_text(), path.name, Settings(), [RULES_BY_CODE[code]])
    assert result.diagnostics, "a refusal fixture must contain findings"
    assert all(d.fix is None for d in result.diagnostics)


def test_donation_on_a_jitted_method_counts_self():
    text = (
        "import jax\n\n\nclass Trainer:\n    @jax.jit\n    def step(self, state):\n        return state + 1\n\n"
        "    def run(self, n):\n        state = jax.numpy.zeros(n)\n        for _ in range(3):\n            state = self.step(state)\n        return state\n"
        # A program, not a library whose caller alone decides `n` (semantic/caller_sized.py).
        "\n\nTrainer().run(100_000_000)\n"
    )
    fixed = fix_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX401"]], unsafe=True).text
    # `@jax.jit` wraps the plain function, whose argument 0 is `self`.
    assert "    @functools.partial(jax.jit, donate_argnums=(1,))\n    def step(self, state):" in fixed


def test_donation_refused_when_a_call_site_keeps_the_old_value():
    text = (
        "import jax\n\n\n@jax.jit\ndef step(state):\n    return state + 1\n\n\n"
        "def run(state):\n    for _ in range(3):\n        state = step(state)\n    return state\n\n\n"
        "def probe(state):\n    other = step(state)\n    return state, other\n"
    )
    result = check_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX401"]])
    assert result.diagnostics and all(d.fix is None for d in result.diagnostics)
    # In one function, a second call that keeps the value makes donation in the shared `jit` unsafe,
    # not free: the finding stays, with no fix, and asks for a `jit` of its own (issue 27, item 6).
    same_function = text.replace("    return state\n\n\ndef probe(state):\n", "")
    assert "def probe" not in same_function
    result = check_source(same_function, "m.py", Settings(), [RULES_BY_CODE["JAX401"]])
    (finding,) = result.diagnostics
    assert finding.fix is None
    assert "give this update its own `jit`" in finding.message


def test_donation_refused_for_a_parameter_and_the_message_says_why():
    """The caller still holds a parameter's array: donating it would delete the caller's value."""
    text = (
        "import jax\n\n\n@jax.jit\ndef step(state):\n    return state + 1\n\n\n"
        "def run(state):\n    for _ in range(3):\n        state = step(state)\n    return state\n"
    )
    result = check_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX401"]])
    (finding,) = result.diagnostics
    assert finding.fix is None
    assert "no automatic fix: `state` is a parameter of `run`" in finding.message


def test_donation_offered_for_a_value_the_function_creates():
    text = (
        "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef step(state):\n    return state + 1\n\n\n"
        "def run(n):\n    state = jnp.zeros(n)\n    for _ in range(3):\n        state = step(state)\n    return state\n"
    )
    fixed = fix_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX401"]], unsafe=True).text
    assert "@functools.partial(jax.jit, donate_argnums=(0,))" in fixed


def test_fixed_module_must_round_trip_through_libcst(monkeypatch):
    """A result libcst cannot round-trip is not returned, even if this Python compiles it."""
    import jaxlint.fixer as fixer
    from jaxlint.config import Settings
    from jaxlint.rules import RULES_BY_CODE

    source = "from functools import partial\nimport jax\n\n\n@partial(jax.jit, static_argnums=(1,))\ndef f(x, a):\n    return x\n\n\nf(1, [0])\n"
    fixed = fixer.fix_source(source, "m.py", Settings(), [RULES_BY_CODE["JAX301"]])
    assert "f(1, (0,))" in fixed.text and not fixed.reverted
    original = fixer.round_trips
    monkeypatch.setattr(fixer, "round_trips", lambda text: text == source and original(text))
    refused = fixer.fix_source(source, "m.py", Settings(), [RULES_BY_CODE["JAX301"]])
    assert refused.text == source
    assert refused.reverted and "libcst" in refused.reverted[0]
    assert [d.code for d in refused.remaining] == ["JAX301"]


def test_libcst_parses_only_modules_that_get_a_structural_fix(monkeypatch):
    """Analysis stays on `ast`; the libcst tree is built only when a structural fix is built."""
    from jaxlint.fixes import cst_edit

    built = []
    original = cst_edit.ModuleTree.__init__

    def counting(self, source, top):
        built.append((source.filename, top.name))
        original(self, source, top)

    monkeypatch.setattr(cst_edit.ModuleTree, "__init__", counting)
    plain = "import jax\n\n\n@jax.jit\ndef f(x):\n    return x * 2\n"
    check_source(plain, "plain.py", Settings(), [RULES_BY_CODE["JAX101"], RULES_BY_CODE["JAX201"]])
    assert built == []
    branchy = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x.sum() > 0:  # keep me\n        x = x * 2\n    return x\n"
    fixed = fix_source(branchy, "branchy.py", Settings(), [RULES_BY_CODE["JAX101"]], unsafe=True).text
    # Only the function holding the rewritten `if` is parsed, not the rest of the module.
    assert built and set(built) == {("branchy.py", "f")}
    assert "    x = jax.numpy.where(x.sum() > 0, x * 2, x)  # keep me\n" in fixed


def test_donation_of_two_arguments_is_one_finding_and_one_fix():
    text = (
        "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef update(params, opt_state, grads):\n"
        "    return params - grads, opt_state + 1\n\n\n"
        "def run(grads_list, shape):\n    params = jnp.zeros(shape) + 0.0\n    opt_state = jnp.zeros(shape) + 0.0\n"
        "    for grads in grads_list:\n        params, opt_state = update(params, opt_state, grads)\n    return params, opt_state\n"
    )
    (finding,) = check_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX401"]]).diagnostics
    assert "`params` and `opt_state` are replaced" in finding.message
    assert "donate_argnums=(0, 1)" in finding.message
    fixed = fix_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX401"]], unsafe=True).text
    assert "@functools.partial(jax.jit, donate_argnums=(0, 1))" in fixed
    assert check_source(fixed, "m.py", Settings(), [RULES_BY_CODE["JAX401"]]).diagnostics == []


def test_donation_shared_with_an_evaluation_call_asks_for_a_separate_jit():
    text = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "class Trainer:\n"
        "    def __init__(self, update):\n"
        "        self.update_jit = jax.jit(update)\n\n"
        "    def train(self, ts, batches):\n"
        "        for batch in batches:\n"
        "            ts, metrics = self.update_jit(ts, batch)\n"
        "        return ts\n\n"
        "    def evaluate(self, ts, batches):\n"
        "        for batch in batches:\n"
        "            _, metrics = self.update_jit(ts, batch)\n"
        "        return ts\n"
    )
    result = check_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX401"]])
    assert [d.location.row for d in result.diagnostics] == [10]
    message = result.diagnostics[0].message
    # Donating in the shared jit would delete `ts` in the evaluation loop, which passes it on every pass.
    assert "its own `jit`" in message and "line 15" in message
    assert result.diagnostics[0].fix is None


def test_a_same_named_jitted_function_of_another_solver_is_not_another_call():
    """`def grad_step` under `@jax.jit` in two solvers of one module: the evaluation-style call in one
    says nothing about the update of the other (two functions, two `jit`s)."""
    text = (
        "import jax\nimport jax.numpy as jnp\n\n\n"
        "def solve_simple(params, state, steps):\n"
        "    @jax.jit\n"
        "    def grad_step(params, state):\n"
        "        return params - 0.1, state + 1\n\n"
        "    for _ in range(steps):\n"
        "        params, state = grad_step(params, state)\n"
        "    return params\n\n\n"
        "def solve(params, state, steps):\n"
        "    @jax.jit\n"
        "    def grad_step(params, state):\n"
        "        return params - 0.2, state + 2\n\n"
        "    for _ in range(steps):\n"
        "        _, probe = grad_step(params, state)\n"
        "        params, state = grad_step(params, state)\n"
        "    return params, probe\n"
    )
    result = check_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX401"]])
    by_row = {d.location.row: d.message for d in result.diagnostics}
    assert 11 in by_row and "its own `jit`" not in by_row[11] and "line 18" not in by_row[11]


def test_donation_fix_judges_only_the_call_sites_of_its_own_binding():
    """Two functions each bind a local `step`: the reason one of them cannot be fixed (a parameter
    its caller holds) says nothing about the other, whose state is its own."""
    source = (
        "import jax\nimport jax.numpy as jnp\n\n\ndef update(params, x):\n    return params - 0.1 * x\n\n\n"
        "def train(params, batches):\n    step = jax.jit(update)\n    for x in batches:\n        params = step(params, x)\n    return params\n\n\n"
        "def train_own(batches):\n    params = jnp.zeros((8192, 8192))\n    step = jax.jit(update)\n    for x in batches:\n        params = step(params, x)\n    return params\n"
    )
    result = check_source(source, "two_steps.py", Settings(), [RULES_BY_CODE["JAX401"]])
    by_row = {d.location.row: d for d in result.diagnostics}
    assert sorted(by_row) == [12, 20]
    assert "is a parameter of `train`" in by_row[12].message and by_row[12].fix is None
    assert "no automatic fix" not in by_row[20].message and by_row[20].fix is not None
