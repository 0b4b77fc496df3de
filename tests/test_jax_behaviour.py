"""Facts about JAX that rules rely on, checked against the JAX installed here (CPU).

A rule that stays silent because "JAX allows this" must fail loudly here when a JAX release stops
allowing it."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

VALUES = [0.1, 0.7, 0.3]


def _grad(function):
    return jax.grad(function)(jnp.array(VALUES))


def test_int_of_a_differentiated_value_reads_it_under_autodiff_alone():
    # JAX102 does not report `int()`/`operator.index()` in code only differentiated outside jit.
    gradient = _grad(lambda x: x.sum() * int(x.sum()))
    assert gradient.tolist() == [1.0, 1.0, 1.0]  # int(1.1) == 1
    gradient = _grad(lambda x: x[int(jnp.searchsorted(jnp.sort(x), 0.5))])
    assert gradient.tolist() == [0.0, 0.0, 1.0]  # index 2 of the unsorted values


def test_float_of_a_differentiated_value_raises_under_autodiff_alone():
    # ... but it does report `float()` there.
    with pytest.raises(jax.errors.ConcretizationTypeError):
        _grad(lambda x: x.sum() * float(x.sum()))


def test_int_raises_under_jit():
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: x[: int(x.sum())])(jnp.array(VALUES))


def test_integer_outputs_of_a_jitted_helper_are_concrete_under_autodiff_alone():
    # The shape of the attract-jax energy code (R40): a jitted helper returns indices, the caller
    # differentiated eagerly slices with them.
    helper = jax.jit(lambda x: jnp.searchsorted(jnp.sort(x), 0.5))

    def energy(x):
        return x[: int(helper(x))].sum()

    assert _grad(energy).tolist() == [1.0, 1.0, 0.0]


def test_checkify_keeps_python_numbers_concrete():
    # The model does not trace a checkified function's parameters annotated as Python numbers.
    from jax.experimental import checkify

    def trimmed(values, width: int):
        if width > 2:  # a Python bool: would raise if `width` were traced
            values = values[width // 2 : -(width // 2)]
        return values.sum()

    _, total = checkify.checkify(trimmed)(jnp.ones(10), 4)
    assert float(total) == 6.0


def test_named_call_runs_its_function_as_it_is():
    # `jax.named_call` is not a tracing transform: a Python int stays a Python int in it.
    seen = []

    @jax.named_call
    def scale(x, count):
        seen.append(type(count))
        return x * int(count)

    assert scale(jnp.ones(2), 3).tolist() == [3.0, 3.0] and seen == [int]
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(scale)(jnp.ones(2), 3)  # under jit it is traced as anything else


def test_lax_scan_takes_what_its_body_closes_over_as_an_operand():
    # JAX305 does not report a scan body reading a JAX array its enclosing function builds: the
    # primitive hoists the closure into an operand (`num_consts`), the body holds no constant.
    table = jnp.zeros((201, 36))

    def body(carry, _):
        return carry + table[0].sum(), None

    jaxpr = jax.make_jaxpr(lambda: jax.lax.scan(body, 0.0, None, length=2))()
    (scan,) = [equation for equation in jaxpr.jaxpr.eqns if equation.primitive.name == "scan"]
    assert scan.params["num_consts"] == 1 and scan.invars[0].aval.shape == (201, 36)
    assert not scan.params["jaxpr"].consts


def test_key_reuse_checker_rejects_a_split_after_a_draw():
    """JAX501's message for `normal(key)` then `split(key)` says JAX's own checker rejects it."""
    previous = jax.config.jax_debug_key_reuse
    jax.config.update("jax_debug_key_reuse", True)
    try:
        key = jax.random.key(0)
        jax.random.normal(key, (3,))
        with pytest.raises(jax.errors.KeyReuseError):
            jax.random.split(key)
        # The look-alike: split first, then draw from the new keys only.
        fresh = jax.random.key(1)
        fresh, sub = jax.random.split(fresh)
        jax.random.normal(sub, (3,))
        jax.random.split(fresh)
    finally:
        jax.config.update("jax_debug_key_reuse", previous)


def test_split_keys_are_fold_ins_of_their_index():
    """The `by_name` key derivation of the library models (a Flax linen `init` draws each variable from
    `fold_in(key, h)`, `h` a 32-bit hash of its path) shares nothing with `split(key, n)` because the
    keys a split returns are `fold_in(key, i)` for `i < n` on the default (partitionable) threefry."""
    assert jax.config.jax_threefry_partitionable
    key = jax.random.PRNGKey(3)
    for count in (2, 3, 5):
        for index, child in enumerate(jax.random.split(key, count)):
            assert (child == jax.random.fold_in(key, index)).all()
    # A hashed name folds in a key no split returns, and draws other numbers than the split keys do.
    named = jax.random.fold_in(key, 0x9E3779B9)
    assert not any((named == child).all() for child in jax.random.split(key, 8))
    first, _ = jax.random.split(key)
    assert not jnp.allclose(jax.random.normal(named, (64,)), jax.random.normal(first, (64,)))


def test_a_draw_and_the_keys_split_after_it_share_no_bits():
    """JAX501's message for `normal(key)` then `split(key)` says the split keys do not repeat the draw's
    bits on the default threefry (only the key-reuse checker objects)."""
    key = jax.random.PRNGKey(0)
    drawn = jax.random.bits(key, (4096,))
    children = jax.random.key_data(jax.random.split(key)) if hasattr(jax.random, "key_data") else jax.random.split(key)
    assert not jnp.isin(children.ravel(), drawn).any()
    for child in jax.random.split(key):
        assert not jnp.isin(jax.random.bits(child, (4096,)), drawn).any()


def test_a_permutation_draws_from_the_second_key_a_split_returns():
    """JAX501's message for `permutation(key, n)` (or `randint`, `shuffle`) then `split(key)` says the
    split hands out the very keys the sampler drew from: a permutation of a small range is the order of
    the bits of `split(key)[1]`."""
    key = jax.random.PRNGKey(5)
    _, second = jax.random.split(key)
    assert (jax.random.permutation(key, 20) == jnp.argsort(jax.random.bits(second, (20,)))).all()


def test_split_first_samplers_read_the_children_as_key_values_lists():
    """key_values._SAMPLER_CHILD_KINDS: `permutation` sorts by the bits of `split(key)[1]` (child 0 is only
    split again, for a second round on large arrays), `randint` reads the bits of both children. So a
    `split(key)` after a permutation whose child 1 is only permuted again draws nothing twice, while one
    whose child 0 feeds `normal` after a `randint` does."""
    key = jax.random.PRNGKey(9)
    first, second = jax.random.split(key)
    assert (jax.random.permutation(key, 50) == jnp.argsort(jax.random.bits(second, (50,)))).all()
    _, next_second = jax.random.split(second)
    assert (jax.random.permutation(second, 50) == jnp.argsort(jax.random.bits(next_second, (50,)))).all()
    assert not jnp.isin(jax.random.bits(next_second, (50,)), jax.random.bits(second, (50,))).any()
    high, low = jax.random.bits(first, (64,)), jax.random.bits(second, (64,))
    assert (jax.random.randint(key, (64,), 0, 2**16) == (low % 2**16).astype(jnp.int32)).all()
    assert (jax.random.randint(key, (64,), 0, 3) == ((high % 3 + low % 3) % 3).astype(jnp.int32)).all()


def test_transform_samplers_read_the_bits_of_their_own_key():
    """key_values.DIRECT_BITS lists `multivariate_normal`, `lognormal`, `maxwell`, `orthogonal`,
    `rademacher`, `rayleigh`, `weibull_min`, `geometric` and `pareto` as samplers that read their key's own
    bits: each is a transform of `normal`, `uniform`, `bernoulli` or `exponential` drawn from the key itself
    (not from keys split off it), so JAX501 treats them as it treats those."""
    key = jax.random.PRNGKey(11)
    r = jax.random
    normal = r.normal(key, (64, 3))
    assert jnp.allclose(r.multivariate_normal(key, jnp.zeros(3), jnp.eye(3), (64,)), normal, atol=1e-5)
    assert jnp.allclose(r.lognormal(key, 1.0, (64,)), jnp.exp(r.normal(key, (64,))), rtol=1e-5)
    assert jnp.allclose(r.maxwell(key, (64,)), jnp.linalg.norm(normal, axis=-1), rtol=1e-5)
    q = r.orthogonal(key, 3)
    assert jnp.allclose(jnp.abs(q), jnp.abs(jnp.linalg.qr(r.normal(key, (3, 3)))[0]), atol=1e-5)
    assert (r.rademacher(key, (64,)) == 2 * r.bernoulli(key, 0.5, (64,)).astype(int) - 1).all()

    def same_order(a, b):
        return (jnp.argsort(a) == jnp.argsort(b)).all() or (jnp.argsort(a) == jnp.argsort(-b)).all()

    uniform = r.uniform(key, (64,))
    assert same_order(r.rayleigh(key, 1.0, (64,)), uniform)
    assert same_order(r.weibull_min(key, 1.0, 2.0, (64,)), uniform)
    assert same_order(r.pareto(key, 2.0, (64,)), r.exponential(key, (64,)))
    geometric = r.geometric(key, 0.01, (64,))
    assert (jnp.diff(geometric[jnp.argsort(uniform)]) >= 0).all() or (jnp.diff(geometric[jnp.argsort(uniform)]) <= 0).all()


def test_draws_of_two_shapes_from_one_key_share_their_leading_values():
    # JAX501 flags one helper given one key for two draws that differ only in size (two weight
    # matrices): a sampler's values depend on the key and the flat position only.
    key = jax.random.key(0)
    small, large = jax.random.normal(key, (3, 4)), jax.random.normal(key, (4, 4))
    assert jnp.array_equal(small.ravel(), large.ravel()[:12])
    narrow, wide = jax.random.normal(key, (3, 5)), jax.random.normal(key, (4, 4))
    assert jnp.array_equal(narrow.ravel()[:12], wide.ravel()[:12])
