"""How big a state must be to be worth donating (carried_state.WORTH_DONATING_BYTES, 1 MB per
device, one threshold for every module), and the sizes behind it: lists a comprehension builds over
widths the source fixes (one element per item; the keys of a split are items that size nothing; a
helper's parameter left out holds its default), and the binding of a state that reaches an update
(what demonstration code is judged by)."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic import carried_state
from jaxlint.semantic.carried_state import WORTH_DONATING_BYTES, element_count, known_large, known_small, reaches_large
from jaxlint.semantic.model import SemanticModel

SOURCE = textwrap.dedent("""
    import jax
    import jax.numpy as jnp
    import numpy as np

    WIDTHS = (10, 20, 5)

    def layer(m, n, key, scale=0.5):
        return scale * jax.random.normal(key, (m, n)), jnp.zeros(n) * scale

    def built(sizes, key):
        keys = jax.random.split(key, len(sizes))
        return [layer(m, n, k) for m, n, k in zip(sizes[:-1], sizes[1:], keys)]

    def appended(sizes, key):
        keys = jax.random.split(key, num=len(sizes) - 1)
        out = []
        for m, n, k in zip(sizes[:-1], sizes[1:], keys):
            out.append(jax.random.normal(k, (m, n)))
        return out

    def filtered(sizes):
        return [np.zeros((m, n)) for m, n in zip(sizes[:-1], sizes[1:]) if m > 1]

    def nested(sizes):
        return [np.zeros((m, n)) for m in sizes for n in sizes]

    a = built(WIDTHS, jax.random.PRNGKey(0))
    b = [np.ones((n, 2)) for n in range(1, 4)]
    c = appended([4, 8, 2], jax.random.PRNGKey(1))
    d = filtered([4, 8, 2])
    e = nested([4, 8])
    f = [jnp.zeros(k) for k in jax.random.split(jax.random.PRNGKey(2), 3)]
    g = [jnp.zeros((1024, 256)), jnp.zeros(1)]
    h = jnp.zeros((256, 1023))
""")


def _values():
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree)
    values = {s.targets[0].id: s.value for s in tree.body if isinstance(s, ast.Assign) and len(s.targets[0].id) == 1}
    return model, values


def test_the_threshold_is_one_megabyte():
    assert WORTH_DONATING_BYTES == 2**20


def test_comprehensions_and_split_keys_have_the_sum_of_their_items():
    model, values = _values()
    counts = {name: element_count(value, model.module_scope, model) for name, value in values.items()}
    assert counts["a"] == (10 * 20 + 20) + (20 * 5 + 5)
    assert counts["b"] == 2 + 4 + 6
    assert counts["c"] == 4 * 8 + 8 * 2


def test_comprehensions_the_source_does_not_fix_stay_unknown():
    model, values = _values()
    counts = {name: element_count(value, model.module_scope, model) for name, value in values.items()}
    # A filter, two `for`s, a shape read from a key: the list is not what the items alone say.
    assert counts["d"] is None
    assert counts["e"] is None
    assert counts["f"] is None


def test_one_megabyte_separates_small_from_large():
    model, values = _values()
    scope = model.module_scope
    # 262,145 float32 elements: one over the megabyte; 261,888: under it.
    assert known_large(values["g"], scope, model) and not known_small(values["g"], scope, model)
    assert known_small(values["h"], scope, model) and not known_large(values["h"], scope, model)


REACHING = textwrap.dedent("""
    import jax
    import jax.numpy as jnp

    @jax.jit
    def update(params, x):
        return params

    params = {"w": jnp.zeros((2048, 2048))}
    for x in range(3):
        params = update(params, x)

    _, params = (0, {"w": jnp.zeros((2, 2))})
    for x in range(3):
        params = update(params, x)

    params = {"w": jnp.zeros((4, 4))}
    params = {"w": jnp.zeros((4096, 512))}
    for x in range(3):
        params = update(params, x)

    params = {"w": jnp.zeros((8, 8))}
    for x in range(3):
        params = update(params, x)
""")


def test_the_binding_that_reaches_the_update_decides():
    tree = ast.parse(REACHING)
    model = SemanticModel(tree)
    loops = [s for s in tree.body if isinstance(s, ast.For)]
    arguments = [loop.body[0].value.args[0] for loop in loops]
    shown = [reaches_large(argument, model.module_scope, model) for argument in arguments]
    # A large display before the first loop; a later cell unpacking a small value; the nearest of two
    # bindings (large); a small one, whatever bound the name earlier.
    assert shown == [True, False, True, False]


def test_a_key_item_sizes_as_a_key():
    assert carried_state._elements(carried_state._KeyItem(), None, None, 0) == 2
