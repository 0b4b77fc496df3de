"""SPEC parsing, example materialization and the examples file of the runtime mode."""

from pathlib import Path

import pytest

from jaxlint.runtime_checks.examples import ExamplesError, load_examples
from jaxlint.runtime_checks.spec import ArraySpec, SpecError, array_specs, materialize, parse_spec

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runtime"


def test_arrays_literals_and_keywords():
    call = parse_spec("f32[1024,256], bf16[8,128], i32[], 0.5, 'mean', None, axes=(0, 1)")
    assert call.args == [ArraySpec("f32", (1024, 256)), ArraySpec("bf16", (8, 128)), ArraySpec("i32", ()),
                         0.5, "mean", None]
    assert call.kwargs == {"axes": (0, 1)}


def test_pytrees_of_specs():
    call = parse_spec("{'w': f32[2048,2048], 'b': f32[2048]}, [f32[4], (i8[2], True)]")
    assert call.args[0] == {"w": ArraySpec("f32", (2048, 2048)), "b": ArraySpec("f32", (2048,))}
    assert call.args[1] == [ArraySpec("f32", (4,)), (ArraySpec("i8", (2,)), True)]
    assert len(array_specs(call)) == 4


def test_repetition_builds_independent_arrays():
    call = parse_spec("[f32[3]] * 4")
    assert call.args[0] == [ArraySpec("f32", (3,))] * 4
    (arrays,), _ = materialize(call, seed=0)
    assert len(arrays) == 4 and not (arrays[0] == arrays[1]).all()


def test_single_dimension_and_size_estimate():
    spec = parse_spec("bf16[8]").args[0]
    assert spec.shape == (8,) and str(spec) == "bf16[8]" and spec.nbytes_estimate == 16


@pytest.mark.parametrize("text, message", [
    ("q32[4]", "unknown dtype"),
    ("f32", "needs a shape"),
    ("f32[-1]", "non-negative"),
    ("f32[2.5]", "non-negative"),
    ("f32[4", "cannot parse"),
    ("foo(1)", "neither"),
    ("**kw", "not supported"),
])
def test_errors_name_the_problem(text, message):
    with pytest.raises(SpecError, match=message):
        parse_spec(text)


def test_materialize_is_deterministic_and_typed():
    import jax.numpy as jnp
    import numpy as np

    call = parse_spec("f32[4,3], bf16[2], i32[], bool[5], {'k': f16[2]}, 7")
    first, _ = materialize(call, seed=0)
    second, _ = materialize(call, seed=0)
    other, _ = materialize(call, seed=1)
    assert first[0].shape == (4, 3) and first[0].dtype == jnp.float32
    assert first[1].dtype == jnp.bfloat16 and first[2].shape == () and first[2].dtype == jnp.int32
    assert first[3].dtype == jnp.bool_ and first[4]["k"].dtype == jnp.float16 and first[5] == 7
    np.testing.assert_array_equal(np.asarray(first[0]), np.asarray(second[0]))
    assert not np.array_equal(np.asarray(first[0]), np.asarray(other[0]))


def test_key_spec_builds_a_prng_key():
    import jax

    (key,), _ = materialize(parse_spec("key[]"))
    assert jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key)


def test_examples_file_of_the_fixtures():
    examples = load_examples(FIXTURES / "examples.toml")
    entry = examples.lookup(FIXTURES / "jax401_missing_donation.py", "train")
    assert entry is not None and entry.codes == ["JAX401"]
    assert len(parse_spec(entry.spec).args[0]) == 8
    assert examples.lookup(FIXTURES / "jax401_missing_donation.py", "unknown") is None
    assert "softmax_xla" in examples.functions_in(FIXTURES / "pallas_softmax.py")


def test_examples_file_errors(tmp_path):
    bad = tmp_path / "examples.toml"
    bad.write_text('[f]\nexample = "f32["\n')
    with pytest.raises(ExamplesError, match="cannot parse"):
        load_examples(bad)
    bad.write_text("[f]\ncodes = ['JAX101']\n")
    with pytest.raises(ExamplesError, match="needs a string `example`"):
        load_examples(bad)
    plain = tmp_path / "plain.toml"
    plain.write_text('[step]\nexample = "f32[2]"\n')
    assert load_examples(plain).lookup(tmp_path / "any.py", "step").spec == "f32[2]"
