"""Work the engine saves without changing a finding: rule pre-filters (`Rule.required_text`) skip a
rule on a module that lacks every string it needs, never where the rule could fire (through a
project import included), and a finished module's model is freed without the cycle collector."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import ALL_RULES, RULES_BY_CODE
from jaxlint.rules.base import Rule


class _CountingRule(Rule):
    code = "JAX999"
    name = "counting"
    summary = "Counts the calls it sees"
    node_types = (ast.Call,)

    def __init__(self, required: tuple[str, ...], through_project: bool = False) -> None:
        self.required_text = required
        self.fires_through_project_imports = through_project
        self.calls = 0

    def check(self, node, context) -> None:
        self.calls += 1
        context.report(node, "a call")


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return path


def _codes(path: Path, rules, root: Path) -> list[tuple[int, str]]:
    result = check_source(path.read_text(), str(path), Settings(root=root), rules)
    assert not result.errors, result.errors
    return [(d.location.row, d.code) for d in result.diagnostics]


def test_a_rule_without_its_text_is_not_run(tmp_path):
    path = _write(tmp_path, "m.py", "import jax\njax.numpy.zeros(3)\n")
    rule = _CountingRule(("static_arg",))
    assert _codes(path, [rule], tmp_path) == []
    assert rule.calls == 0


def test_a_rule_runs_where_its_text_appears(tmp_path):
    path = _write(tmp_path, "m.py", "import jax\njax.jit(abs, static_argnums=())\n")
    rule = _CountingRule(("static_arg",))
    assert _codes(path, [rule], tmp_path) == [(2, "JAX999")]
    assert rule.calls == 1


def test_rules_sharing_strings_are_filtered_each_by_its_own(tmp_path):
    # The engine searches each string once per module for all the rules that need it.
    path = _write(tmp_path, "m.py", "import jax\njax.jit(abs, static_argnums=())\n")
    absent_first = _CountingRule(("vmap", "jit"))
    absent = _CountingRule(("vmap",))
    present = _CountingRule(("static_arg",))
    absent_again = _CountingRule(("pmap", "vmap"))
    _codes(path, [absent_first, absent, present, absent_again], tmp_path)
    assert (absent_first.calls, absent.calls, present.calls, absent_again.calls) == (1, 0, 1, 0)


def test_a_rule_with_no_filter_always_runs(tmp_path):
    path = _write(tmp_path, "m.py", "import jax\njax.numpy.zeros(3)\n")
    rule = _CountingRule(())
    assert _codes(path, [rule], tmp_path) == [(2, "JAX999")]


def test_a_project_import_admits_a_rule_that_fires_through_it(tmp_path):
    _write(tmp_path, "helpers.py", "def helper():\n    return 1\n")
    path = _write(tmp_path, "m.py", "import jax\nfrom helpers import helper\nhelper()\n")
    assert _codes(path, [_CountingRule(("static_arg",), through_project=True)], tmp_path) == [(3, "JAX999")]
    assert _codes(path, [_CountingRule(("static_arg",), through_project=False)], tmp_path) == []


def test_a_library_import_is_not_a_project_import(tmp_path):
    path = _write(tmp_path, "m.py", "import jax\nimport numpy as np\nfrom somelib import thing\nthing(np.zeros(3))\n")
    assert _codes(path, [_CountingRule(("static_arg",), through_project=True)], tmp_path) == []


STEPS = """\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames=("axes",))
    def total(x, axes):
        return x.sum(axis=axes)
"""


def test_static_arg_finding_through_a_project_import_without_the_text(tmp_path):
    """JAX301 needs `static_arg` in the text, or an import from the project: here the static option
    is in the imported module only, and the finding must still come."""
    _write(tmp_path, "steps.py", STEPS)
    path = _write(
        tmp_path,
        "train.py",
        """\
        import jax.numpy as jnp
        from steps import total

        total(jnp.ones((2, 2)), axes=[0, 1])
        """,
    )
    assert "static_arg" not in path.read_text()
    assert _codes(path, [RULES_BY_CODE["JAX301"]], tmp_path) == [(4, "JAX301")]
    assert (4, "JAX301") in _codes(path, ALL_RULES, tmp_path)


def test_static_arg_finding_in_one_module(tmp_path):
    path = _write(tmp_path, "m.py", textwrap.dedent(STEPS) + "\n\ntotal(jax.numpy.ones(3), axes=[0])\n")
    assert _codes(path, [RULES_BY_CODE["JAX301"]], tmp_path) == [(11, "JAX301")]


def test_unused_noqa_of_a_filtered_rule_is_still_reported(tmp_path):
    """A rule skipped by its filter has run for noqa purposes: its codes in a noqa are stale."""
    path = _write(tmp_path, "m.py", "import jax\nx = jax.numpy.zeros(3)  # noqa: JAX301\n")
    settings = Settings(root=tmp_path)
    settings.report_unused_noqa = True  # what `check --report-unused-noqa` sets
    result = check_source(path.read_text(), str(path), settings, [RULES_BY_CODE["JAX301"]])
    assert [(d.location.row, d.code) for d in result.diagnostics] == [(2, "JAX001")]


def test_filters_name_text_only_rules_declare():
    for rule in ALL_RULES:
        assert isinstance(rule.required_text, tuple)
        assert all(isinstance(token, str) and token for token in rule.required_text), rule.code


def test_a_checked_module_leaves_no_cyclic_garbage(tmp_path):
    """The engine breaks the model's reference cycles when a module is done, so reference counting
    frees its tree at once (the cycle collector would traverse it many times first)."""
    import gc

    _write(tmp_path, "steps.py", STEPS)
    path = _write(tmp_path, "train.py", "import jax.numpy as jnp\nfrom steps import total\n\nfor i in range(3):\n    total(jnp.ones((2, 2)), axes=[0, 1])\n")
    text = path.read_text()
    check_source(text, str(path), Settings(root=tmp_path), ALL_RULES)  # warm: summaries, imports
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        result = check_source(text, str(path), Settings(root=tmp_path), ALL_RULES)
        assert [d.code for d in result.diagnostics] == ["JAX301"]
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


TRAIN_LOOP = """\
    import jax.numpy as jnp
    {import_line}


    def train(params, batches):
        for batch in batches:
            params = step(params, batch)
        return params
"""


def test_donation_finding_through_a_project_import_without_the_text(tmp_path):
    """JAX401 needs `jit` or `pmap` in the text, or an import from the project."""
    _write(tmp_path, "steps.py", "import jax\n\n\n@jax.jit\ndef step(params, batch):\n    return params - batch\n")
    path = _write(tmp_path, "train.py", TRAIN_LOOP.format(import_line="from steps import step"))
    assert "jit" not in path.read_text() and "pmap" not in path.read_text()
    assert _codes(path, [RULES_BY_CODE["JAX401"]], tmp_path) == [(7, "JAX401")]


def test_donation_finding_through_a_configured_decorator_without_the_text(tmp_path):
    """A configured traced decorator is `jax.jit` to the model: filtered rules run where it is named."""
    text = textwrap.dedent(TRAIN_LOOP.format(import_line="from mylib import compile")).replace(
        "\n\ndef train", "\n@compile\ndef step(params, batch):\n    return params - batch\n\n\ndef train"
    )
    path = tmp_path / "train.py"
    path.write_text(text)
    settings = Settings(root=tmp_path, traced_decorators=["mylib.compile"])
    result = check_source(text, str(path), settings, [RULES_BY_CODE["JAX401"]])
    assert [(d.location.row, d.code) for d in result.diagnostics] == [(11, "JAX401")]
    assert check_source(text, str(path), Settings(root=tmp_path), [RULES_BY_CODE["JAX401"]]).diagnostics == []


def test_host_sync_finding_through_a_project_import_without_the_text(tmp_path):
    """JAX201 needs `jit` or `pmap` in the text, or an import from the project."""
    _write(tmp_path, "steps.py", "import jax\n\n\n@jax.jit\ndef step(params, batch):\n    return params - batch, (params ** 2).sum()\n")
    path = _write(
        tmp_path,
        "train.py",
        """\
        import jax.numpy as jnp
        from steps import step


        def train(params, batches):
            total = 0.0
            for batch in batches:
                params, loss = step(params, batch)
                norm = jnp.linalg.norm(params)
                total += float(norm)
            return params, total
        """,
    )
    assert "jit" not in path.read_text() and "pmap" not in path.read_text()
    assert _codes(path, [RULES_BY_CODE["JAX201"]], tmp_path) == [(10, "JAX201")]


def test_a_star_import_of_a_re_exported_jit_admits_the_donation_rule(tmp_path):
    """The re-export's target is `jax.jit` itself, so the module's own imports name no project
    module: the star import alone must admit the filtered rules."""
    _write(tmp_path, "utils.py", "from jax import jit as compile_\n")
    path = _write(
        tmp_path,
        "main.py",
        """\
        import jax.numpy as jnp
        from utils import *


        @compile_
        def step(params, batch):
            return params - batch


        def train(params, batches):
            for batch in batches:
                params = step(params, batch)
            return params
        """,
    )
    assert "jit" not in path.read_text()
    assert _codes(path, [RULES_BY_CODE["JAX401"]], tmp_path) == [(12, "JAX401")]


def test_transforms_re_exported_under_other_names_admit_the_filtered_rules(tmp_path):
    """`from utils import *` can bring `jax.vmap` and `jax.jit` under names that spell neither."""
    _write(tmp_path, "utils.py", "from jax import vmap as batch\nfrom jax import jit as compile_\n")
    path = _write(
        tmp_path,
        "main.py",
        """\
        import jax.numpy as jnp
        from utils import *


        def predict(w, x):
            return jnp.tanh(w * x)


        def evaluate(w, xs):
            out = []
            for x in xs:
                f = compile_(lambda v: v * 2)
                out.append(f(x))
                out.append(batch(compile_(predict), in_axes=(None, 0))(w, x))
            return out
        """,
    )
    text = path.read_text()
    assert not any(token in text for token in ("jit", "pmap", "vmap"))
    rules = [RULES_BY_CODE["JAX302"], RULES_BY_CODE["JAX402"]]
    assert _codes(path, rules, tmp_path) == [(12, "JAX302"), (14, "JAX402")]


# ----- rules limited to traced code (Rule.traced_code_only) --------------------------------------


class _TracedCountingRule(_CountingRule):
    traced_code_only = True


def test_a_traced_code_rule_sees_only_nodes_of_traced_functions(tmp_path):
    path = _write(tmp_path, "m.py", """\
        import jax

        def host(x):
            return print(x)

        @jax.jit
        def step(x):
            return abs(x)
        """)
    rule = _TracedCountingRule(())
    assert _codes(path, [rule], tmp_path) == [(8, "JAX999")]


def test_a_traced_code_rule_is_not_called_in_a_module_without_traced_code(tmp_path):
    path = _write(tmp_path, "m.py", "import jax\nprint(jax.numpy.zeros(3))\n")
    rule = _TracedCountingRule(())
    assert _codes(path, [rule], tmp_path) == []
    assert rule.calls == 0


def test_rules_limited_to_traced_code_find_nothing_elsewhere(monkeypatch):
    """The flag only skips calls: on every rule fixture, the findings are the same with it ignored."""
    limited = [rule for rule in ALL_RULES if rule.traced_code_only]
    assert limited
    fixtures = sorted((Path(__file__).parent.parent / "fixtures" / "rules").glob("*.py"))
    assert fixtures

    def findings():
        return {
            path.name: [(d.code, d.location, d.message) for d in check_source(path.read_text(), str(path), Settings(root=path.parent), limited).diagnostics]
            for path in fixtures
        }

    with_flag = findings()
    for rule in limited:
        monkeypatch.setattr(rule, "traced_code_only", False)
    assert findings() == with_flag
    assert any(with_flag.values())


# ----- fast tree iteration (semantic/syntax.py) ----------------------------------------------------


def test_child_nodes_and_walk_match_the_ast_module_without_context_markers():
    from jaxlint.semantic.syntax import child_nodes, walk

    for path in sorted((Path(__file__).parent.parent / "fixtures" / "rules").glob("*.py")):
        tree = ast.parse(path.read_text())
        expected = [node for node in ast.walk(tree) if not isinstance(node, ast.expr_context)]
        assert walk(tree) == expected, path.name
        for node in expected:
            assert child_nodes(node) == [c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.expr_context)], path.name


def test_child_nodes_cover_optional_fields_none_items_and_hand_built_nodes():
    """The generated per-class listers (optional fields left out when None, `None` items of
    `Dict.keys` and `kw_defaults` dropped) agree with the ast module on syntax the fixtures lack, and a
    node built by hand without every field still lists what it has."""
    from jaxlint.semantic.syntax import child_nodes

    source = '''
def f(a, /, b=1, *args, c, d=2, **kwargs) -> int:
    return
merged = {**base, "k": v, **other}
lam = lambda x, *, y=None: x[1:] + x[::2] + x[:]
async def g():
    async with ctx() as (p, q):
        async for item in stream():
            await item
    yield
try:
    pass
except* ValueError as error:
    raise
finally:
    del merged
match command:
    case {"go": where, **rest} if where:
        pass
    case Point(x=0) | [1, *others] | None:
        pass
total = (n := 3) if f"{n!r:>{width}}" else ...
global_value: "int"
import a.b as c
from . import d
'''
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.expr_context):
            continue
        assert child_nodes(node) == [c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.expr_context)], ast.dump(node)[:80]
    function = ast.Name(id="f", ctx=ast.Load())
    assert child_nodes(ast.Call(func=function)) == [function]  # no `args` or `keywords` field at all


def test_a_released_model_leaves_no_cycle_for_the_collector():
    """`SemanticModel.release` empties every node, so reference counting frees the tree and the model
    at once; without it, each module would wait for (and cost) a pass of the cycle collector."""
    import gc

    from jaxlint.semantic.model import SemanticModel

    texts = [path.read_text() for path in sorted((Path(__file__).parent.parent / "fixtures" / "rules").glob("JAX1*.py"))]
    gc.collect()
    gc.disable()
    try:
        for text in texts:
            model = SemanticModel(ast.parse(text))
            assert model.nodes
            model.release()
            del model
        released = gc.collect()
        for text in texts:
            model = SemanticModel(ast.parse(text))
            del model
        kept = gc.collect()
    finally:
        gc.enable()
    assert released == 0
    assert kept > 0  # the check can fail: an unreleased model does leave cycles
