"""JAX5xx-7xx specifics the fixture files cannot express: target-jax-version, whole-module
conditions of JAX504, the API table's integrity, and preview status of JAX701."""

from __future__ import annotations

import textwrap

import pytest

from jaxlint.config import Settings, resolve_enabled
from jaxlint.engine import check_source
from jaxlint.fixer import fix_source
from jaxlint.rules import ALL_RULES, RULES_BY_CODE
from jaxlint.rules.api_table import API_CHANGES, parse_version, replacement_at, status_at


def findings(text: str, codes: list[str], settings: Settings | None = None):
    result = check_source(textwrap.dedent(text), "module.py", settings or Settings(), [RULES_BY_CODE[c] for c in codes])
    assert not result.errors, result.errors
    return result.diagnostics


TREE_MAP = """
import jax

def f(params):
    return jax.tree_map(lambda p: p, params)
"""


def test_tree_map_is_removed_on_current_jax():
    [diagnostic] = findings(TREE_MAP, ["JAX601", "JAX602"])
    assert diagnostic.code == "JAX601" and "jax.tree.map" in diagnostic.message


@pytest.mark.parametrize(
    "target, code",
    [("0.4.20", None), ("0.4.25", None), ("0.4.26", "JAX602"), ("0.5.3", "JAX602"), ("0.6.0", "JAX601"), ("0.10.2", "JAX601")],
)
def test_target_version_decides_removed_deprecated_or_fine(target, code):
    found = findings(TREE_MAP, ["JAX601", "JAX602"], Settings(target_jax_version=target))
    assert [d.code for d in found] == ([code] if code else [])


def test_pinned_project_is_not_told_to_use_an_api_it_lacks():
    text = """
    import jax

    def f(params):
        return jax.tree_leaves(params)
    """
    # jax.tree_leaves was deprecated in 0.3.15; jax.tree.leaves only arrived in 0.4.25.
    [diagnostic] = findings(text, ["JAX602"], Settings(target_jax_version="0.4.0"))
    assert "jax.tree_util.tree_leaves" in diagnostic.message and "jax.tree.leaves" not in diagnostic.message
    fixed = fix_source(textwrap.dedent(text), "m.py", Settings(target_jax_version="0.4.0"), [RULES_BY_CODE["JAX602"]], unsafe=False)
    assert "jax.tree_util.tree_leaves(params)" in fixed.text
    fixed_new = fix_source(textwrap.dedent(text), "m.py", Settings(), [RULES_BY_CODE["JAX601"]], unsafe=False)
    assert "jax.tree.leaves(params)" in fixed_new.text


def test_deprecated_api_not_reported_before_its_deprecation():
    text = """
    from jax.experimental.pjit import pjit

    step = pjit(lambda x: x)
    """
    assert [d.code for d in findings(text, ["JAX601", "JAX602"])] == ["JAX602"]
    assert findings(text, ["JAX601", "JAX602"], Settings(target_jax_version="0.7.2")) == []


def test_fix_keeps_aliases():
    text = "import jax.numpy as np_\n\ndef f(x):\n    return np_.fix(x)\n"
    fixed = fix_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX601"]], unsafe=False)
    assert "np_.trunc(x)" in fixed.text and "import jax.numpy as np_\n" in fixed.text


def test_clear_backends_fix_imports_the_extend_module():
    text = "import jax\n\njax.clear_backends()\n"
    fixed = fix_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX601"]], unsafe=False)
    assert "import jax.extend.backend\n" in fixed.text and "jax.extend.backend.clear_backends()" in fixed.text


def test_table_entries_are_consistent():
    for change in API_CHANGES:
        assert change.source, change.old
        assert change.deprecated_in is None or parse_version(change.deprecated_in)
        if change.removed_in and change.deprecated_in:
            assert parse_version(change.removed_in) >= parse_version(change.deprecated_in), change.old
        if change.exact:
            assert change.replacement, change.old
    covered = {change.old for change in API_CHANGES}
    for name in (
        "jax.tree_map", "jax.tree_leaves", "jax.tree_flatten", "jax.tree_unflatten", "jax.tree_structure",
        "jax.tree_transpose", "jax.tree_multimap", "jax.xla_computation", "jax.partial", "jax.ops.index_update",
        "jax.ops.index_add", "jax.numpy.DeviceArray", "jax.experimental.host_callback", "jax.experimental.maps",
        "jax.experimental.optimizers", "jax.device_put_replicated", "jax.device_put_sharded",
        "jax.experimental.enable_x64", "jax.clear_backends", "jax.numpy.fix", "jax.experimental.shard_map.shard_map",
        "jax.experimental.pjit.pjit", "jax.host_id", "jax.host_count", "jax.jit", "jax.sharding.Mesh",
    ):
        assert name in covered, name


def test_status_and_replacement_helpers():
    tree_map = next(c for c in API_CHANGES if c.old == "jax.tree_map")
    assert status_at(tree_map, None) == "removed"
    assert status_at(tree_map, "0.4.26") == "deprecated"
    assert status_at(tree_map, "0.4.25") is None
    assert replacement_at(tree_map, "0.4.24") == ("jax.tree_util.tree_map", True)
    assert replacement_at(tree_map, None) == ("jax.tree.map", True)


def test_removed_names_really_are_gone_from_installed_jax():
    import importlib
    import warnings

    import jax

    newest = parse_version(jax.__version__)
    for change in API_CHANGES:
        if change.kind != "name" or not change.removed_in or parse_version(change.removed_in) > newest:
            continue
        module, _, attribute = change.old.rpartition(".")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                owner = importlib.import_module(module)
            except ImportError:
                continue
            try:
                importlib.import_module(change.old)
                present = True
            except ImportError:
                present = hasattr(owner, attribute) if not change.module else False
            except Exception:
                present = False
            if not present:
                try:
                    getattr(owner, attribute)
                    present = True
                except AttributeError:
                    present = False
        assert not present, f"{change.old} still exists in jax {jax.__version__}"


X64_PROGRAM = """
import jax
import jax.numpy as jnp
{setup}

def main():
    return jnp.zeros(3, dtype=jnp.float64)

if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize(
    "setup, flagged",
    [
        ("", True),
        ('jax.config.update("jax_enable_x64", True)', False),
        ("from jax import config\nconfig.update('jax_enable_x64', True)", False),
        ("ctx = jax.enable_x64(True)", False),
        ("from absl import flags", False),
    ],
)
def test_x64_program_start(setup, flagged):
    found = findings(X64_PROGRAM.format(setup=setup), ["JAX504"])
    assert bool(found) == flagged


def test_x64_library_module_is_not_judged():
    text = """
    import jax.numpy as jnp

    def f(n):
        return jnp.zeros(n, dtype=jnp.float64)  # the caller decides whether x64 is on
    """
    assert findings(text, ["JAX504"]) == []


def test_naive_attention_is_preview():
    rule = RULES_BY_CODE["JAX701"]
    assert rule.preview
    assert rule not in resolve_enabled(Settings(), ALL_RULES)
    assert rule not in resolve_enabled(Settings(select=["ALL"]), ALL_RULES)
    assert rule in resolve_enabled(Settings(select=["JAX701"]), ALL_RULES)


def test_key_reuse_fix_splits_before_the_first_use_and_is_stable():
    text = textwrap.dedent(
        """
        import jax

        def f(key):
            a = jax.random.normal(key, ())
            b = jax.random.normal(key, ())
            c = jax.random.uniform(key, ())
            return a, b, c
        """
    )
    fixed = fix_source(text, "m.py", Settings(), [RULES_BY_CODE["JAX501"]], unsafe=True)
    assert findings(fixed.text, ["JAX501"]) == []
    assert fixed.text.count("jax.random.split(key)") == 2


def test_key_reuse_suggestion_names_a_fresh_subkey():
    # A key named `subkey` must not be told to split into `subkey, subkey`.
    text = """
    import jax

    def f(key):
        key, subkey = jax.random.split(key)
        a = jax.random.normal(subkey, (3,))
        b = jax.random.uniform(subkey, (3,))
        return a, b
    """
    [diagnostic] = findings(text, ["JAX501"])
    assert "subkey, subkey =" not in diagnostic.message
    assert "`subkey, subkey1 = jax.random.split(subkey)`" in diagnostic.message
    fixed = fix_source(textwrap.dedent(text), "m.py", Settings(), [RULES_BY_CODE["JAX501"]], unsafe=True)
    assert "subkey, subkey1 = jax.random.split(subkey)" in fixed.text
    assert findings(fixed.text, ["JAX501"]) == []


def test_a_split_after_a_draw_is_reported_only_where_the_split_hands_out_keys_already_drawn_from():
    """Checked on the installed JAX (tests/test_jax_behaviour.py): after a sampler that splits the key
    first (`permutation`, a Haiku `init`, a helper of the module that splits it) `split(key)` returns
    the keys it drew from, and the message says so. After a sampler that reads the key's own bits, or
    a helper that only does, no value can coincide: not reported, though JAX's optional checker
    objects."""
    text = """
    import haiku as hk
    import jax

    def own_bits(key):
        a = jax.random.uniform(key, (3,))
        key, sub = jax.random.split(key)
        return a, sub

    def splitting_sampler(key, n):
        order = jax.random.permutation(key, n)
        key, sub = jax.random.split(key)
        return order, sub

    def haiku_init(key, x):
        net = hk.transform(lambda v: hk.Linear(2)(v))
        params = net.init(key, x)
        key, sub = jax.random.split(key)
        return params, sub

    def helper(key, x):
        y = noisy(key, x)
        key, sub = jax.random.split(key)
        return y, sub

    def noisy(key, x):
        return x + jax.random.normal(key, x.shape)

    def splitting_helper(key, x):
        y = two_noises(key, x)
        key, sub = jax.random.split(key)
        return y, sub

    def two_noises(key, x):
        first, second = jax.random.split(key)
        return x + jax.random.normal(first, x.shape) + jax.random.normal(second, x.shape)
    """
    by_line = {d.location.row: d.message for d in findings(text, ["JAX501"])}
    assert set(by_line) == {12, 18, 31}
    for message in by_line.values():
        assert "KeyReuseError" in message
    assert "`jax.random.permutation` splits its key internally" in by_line[12]
    assert "`net.init` splits its key internally" in by_line[18]
    assert "`two_noises` splits its key internally" in by_line[31]


def test_key_reuse_messages_say_what_is_shared():
    text = """
    import jax

    def f(key):
        a = jax.random.normal(key, (3,))
        b = jax.random.randint(key, (3,), 0, 9)
        k1, k2 = jax.random.split(key, 2)
        k3, k4, k5 = jax.random.split(key, 3)
        return a, b, k1, k2, k3, k4, k5
    """
    messages = [d.message for d in findings(text, ["JAX501"])]
    # `normal` reads the key's own bits, `randint` those of keys it splits off: nothing shared between
    # them. The first split runs on a key that has drawn: one finding for the key, the later split listed.
    assert len(messages) == 1
    assert "`jax.random.randint` splits its key internally" in messages[0] and "the very keys this split returns" in messages[0]
    assert "KeyReuseError" in messages[0] and "line 8" in messages[0]
    two_splits = """
    import jax

    def f(key):
        k1, k2 = jax.random.split(key, 2)
        k3, k4, k5 = jax.random.split(key, 3)
        return k1, k2, k3, k4, k5
    """
    messages = [d.message for d in findings(two_splits, ["JAX501"])]
    assert len(messages) == 1 and "same leading keys" in messages[0]
