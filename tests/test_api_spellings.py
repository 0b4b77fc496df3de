"""What an API is at current JAX, whatever its spelling (semantic/api_uses.py, rules/api_table.py):
the cases the fixture files (fixtures/rules/JAX601_api_spellings.py, JAX602_api_spellings.py,
JAX601_own_device_buffer.py) cannot express: target versions, compatibility shims around an import
whose calls would otherwise be reported, and the model's own answers."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic.api_uses import holds_jax_array, is_function_value, spelled_api_name, surely_not_none
from jaxlint.semantic.model import SemanticModel


def findings(text: str, settings: Settings | None = None):
    rules = [RULES_BY_CODE["JAX601"], RULES_BY_CODE["JAX602"]]
    result = check_source(textwrap.dedent(text), "module.py", settings or Settings(), rules)
    assert not result.errors, result.errors
    return [(d.location.row, d.code) for d in result.diagnostics]


def test_import_of_the_config_submodule_in_three_spellings():
    text = """
    import jax.config
    import jax.config as cfg
    from jax.config import flags
    from jax import config
    """
    assert findings(text) == [(2, "JAX601"), (3, "JAX601"), (4, "JAX601")]
    # Before its removal the import only warned; before its deprecation it was fine.
    assert findings(text, Settings(target_jax_version="0.4.25")) == [(2, "JAX602"), (3, "JAX602"), (4, "JAX602")]
    assert findings(text, Settings(target_jax_version="0.4.20")) == []


def test_config_option_follows_the_target_version():
    text = """
    import jax
    jax.config.update("jax_pmap_shmap_merge", False)
    """
    assert findings(text) == [(3, "JAX601")]
    assert findings(text, Settings(target_jax_version="0.9.2")) == [(3, "JAX602")]
    assert findings(text, Settings(target_jax_version="0.8.0")) == []


def test_calls_through_a_guarded_import_are_a_shim_too():
    text = """
    try:
        from jax.ops import index_update
    except ImportError:
        index_update = None

    try:
        from jax.experimental import host_callback
    except ImportError:
        pass

    def f(x):
        host_callback.id_tap(print, x)
        return index_update(x, 0, 1.0)
    """
    assert findings(text) == []


def test_a_program_function_sharing_a_removed_name_is_its_own():
    text = """
    def index_update(x, i, v):
        return x

    def shuffle(key, x):
        return x

    def f(x, key):
        return shuffle(key, index_update(x, 0, 1.0))
    """
    assert findings(text) == []


def test_a_chain_through_a_second_removed_name_is_reported_beside_its_import():
    text = """
    from jax.config import config
    config.FLAGS.jax_xla_backend = "tpu_driver"
    config.update("jax_enable_x64", True)
    """
    # line 2: the `jax.config.config` import; line 3: `jax.config.FLAGS`; line 4 reads `jax.config.update`.
    assert findings(text) == [(2, "JAX601"), (3, "JAX601")]


def _model(text: str):
    tree = ast.parse(textwrap.dedent(text))
    return tree, SemanticModel(tree)


def _named(tree, name: str) -> ast.Name:
    """The last use of `name` in the source."""
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return max(uses, key=lambda n: (n.lineno, n.col_offset))


def test_model_answers():
    tree, model = _model(
        """
        import jax
        import jax.numpy as jnp
        from jax.config import config

        def step(v):
            return v

        def f(flag, given, x):
            chosen = "a" if flag else "b"
            maybe = "a" if flag else None
            order = jnp.argsort(x)
            if not isinstance(given, jax.Array) or flag:
                return None
            use(chosen, maybe, order, given, step, config.FLAGS)
        """
    )
    scope = model.scope_for(_named(tree, "chosen"))
    assert surely_not_none(model, _named(tree, "chosen"), scope)
    assert not surely_not_none(model, _named(tree, "maybe"), scope)
    assert not surely_not_none(model, _named(tree, "flag"), scope)
    assert holds_jax_array(model, _named(tree, "order"), scope)
    assert holds_jax_array(model, _named(tree, "given"), scope)
    assert not holds_jax_array(model, _named(tree, "flag"), scope)
    assert is_function_value(model, _named(tree, "step"), scope)
    assert not is_function_value(model, _named(tree, "order"), scope)
    flags = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "FLAGS"][0]
    assert spelled_api_name(model.imports, flags) == "jax.config.FLAGS"


def test_calls_are_reported_only_where_no_other_name_replaces_the_api():
    text = """
    from jax.api import vmap
    from jax.experimental.shard_map import shard_map
    from jax.ops import index_update
    from jax.experimental.stax import Dense

    def f(g, x, mesh, specs):
        a = vmap(g)(x)
        b = shard_map(g, mesh, specs, specs)(x)
        c = Dense(3)
        return index_update(x, 0, 1.0), a, b, c
    """
    # Renamed (`jax.vmap`, `jax.shard_map`, `jax.example_libraries.stax`): the imports only.
    # `index_update` has no new name: its call is rewritten too.
    assert findings(text) == [(2, "JAX601"), (3, "JAX602"), (4, "JAX601"), (5, "JAX601"), (11, "JAX601")]
