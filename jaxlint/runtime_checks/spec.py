"""Example-input SPECs: `f32[1024,256], {'w': bf16[8,128]}, 0.5, axes=(0, 1)`.

A SPEC is the argument list of a call. `DTYPE[d0,d1,...]` is a random array of that dtype and
shape (`i32[]` is a scalar array); Python literals pass as they are; dicts, lists and tuples of
these build pytrees (`[f32[64]] * 8` repeats an element); `name=value` gives a keyword argument. Parsing is pure Python (the parent
process validates a SPEC without importing jax); `materialize` builds the arrays in the child,
from a fixed seed, so the original and the fixed version see the same inputs.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

# Short dtype names, as in jaxtyping and HLO, mapped to NumPy/JAX dtype names.
DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "bool": "bool", "pred": "bool", "c64": "complex64", "c128": "complex128",
    "key": "key",  # a typed PRNG key array: jax.random.key(seed), broadcast to the shape
}

# `i32[]` is not Python syntax; `i32[()]` is, and means the same shape.
_EMPTY_SHAPE = re.compile(r"\b(" + "|".join(DTYPES) + r")\[\s*\]")


class SpecError(ValueError):
    """A SPEC that cannot be parsed; the message quotes the offending part."""


@dataclass(frozen=True)
class ArraySpec:
    dtype: str  # the short name as written, e.g. "bf16"
    shape: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.dtype}[{','.join(map(str, self.shape))}]"

    @property
    def nbytes_estimate(self) -> int:
        size = 1
        for dim in self.shape:
            size *= dim
        itemsize = {"bool": 1, "int8": 1, "uint8": 1, "float16": 2, "bfloat16": 2, "int16": 2,
                    "uint16": 2, "float64": 8, "int64": 8, "uint64": 8, "complex64": 8,
                    "complex128": 16}.get(DTYPES[self.dtype], 4)
        return size * itemsize


@dataclass
class CallSpec:
    """The parsed arguments of one call: positional and keyword, each a pytree of specs."""

    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    text: str = ""


_ARRAY = re.compile(r"\b(" + "|".join(DTYPES) + r")\[([0-9,\s]*)\]")
SCALED_FROM = 8  # dimensions below this (channels, a pair, RGB) are structural and keep their size


def scale_spec(text: str, factor: float) -> str:
    """The SPEC with every array dimension of at least SCALED_FROM multiplied by `factor` (`--size`)."""
    if factor == 1:
        return text

    def scaled(match: re.Match) -> str:
        dims = [part.strip() for part in match.group(2).split(",") if part.strip()]
        new = [str(max(1, round(int(dim) * factor))) if int(dim) >= SCALED_FROM else dim for dim in dims]
        return f"{match.group(1)}[{','.join(new)}]"

    return _ARRAY.sub(scaled, text)


def parse_spec(text: str) -> CallSpec:
    """Parse a SPEC string into positional and keyword argument trees."""
    source = _EMPTY_SHAPE.sub(r"\1[()]", text.strip())
    try:
        call = ast.parse(f"_spec({source})", mode="eval").body
    except SyntaxError as error:
        raise SpecError(f"cannot parse example SPEC {text!r}: {error.msg}") from None
    if not isinstance(call, ast.Call):  # pragma: no cover - `_spec(...)` always parses as a call
        raise SpecError(f"cannot parse example SPEC {text!r}")
    args = [_convert(node, text) for node in call.args]
    kwargs = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise SpecError(f"`**` is not supported in example SPEC {text!r}")
        kwargs[keyword.arg] = _convert(keyword.value, text)
    return CallSpec(args, kwargs, text.strip())


def _convert(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return _array_spec(node, text)
    if isinstance(node, ast.Name) and node.id in DTYPES:
        raise SpecError(f"{node.id!r} needs a shape in example SPEC {text!r}: write {node.id}[] for a scalar")
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise SpecError(f"`**` is not supported in example SPEC {text!r}")
        return {_literal(key, text): _convert(value, text) for key, value in zip(node.keys, node.values)}
    if isinstance(node, ast.List):
        return [_convert(element, text) for element in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_convert(element, text) for element in node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and isinstance(node.left, (ast.List, ast.Tuple)):
        # `[f32[2048,2048]] * 8`: eight independent random arrays, not one array eight times.
        count = _literal(node.right, text)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise SpecError(f"repetition count in example SPEC {text!r} must be a non-negative integer")
        return _convert(node.left, text) * count
    return _literal(node, text)


def _literal(node: ast.AST, text: str) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise SpecError(f"{ast.unparse(node)!r} in example SPEC {text!r} is neither DTYPE[shape] nor a Python literal") from None


def _array_spec(node: ast.Subscript, text: str) -> ArraySpec:
    dtype = node.value.id  # type: ignore[attr-defined]
    if dtype not in DTYPES:
        raise SpecError(f"unknown dtype {dtype!r} in example SPEC {text!r}; known: {', '.join(DTYPES)}")
    dims = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    shape = []
    for dim in dims:
        value = _literal(dim, text)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise SpecError(f"shape of {ast.unparse(node)!r} in example SPEC {text!r} must be non-negative integers")
        shape.append(value)
    return ArraySpec(dtype, tuple(shape))


def array_specs(tree: Any) -> list[ArraySpec]:
    """Every ArraySpec in a parsed tree, in order (to estimate input sizes)."""
    if isinstance(tree, CallSpec):
        return array_specs(tree.args) + array_specs(list(tree.kwargs.values()))
    if isinstance(tree, ArraySpec):
        return [tree]
    if isinstance(tree, dict):
        return [spec for value in tree.values() for spec in array_specs(value)]
    if isinstance(tree, (list, tuple)):
        return [spec for value in tree for spec in array_specs(value)]
    return []


def materialize(call: CallSpec, seed: int = 0) -> tuple[list[Any], dict[str, Any]]:
    """Build the arguments on the default device; the same seed gives the same values.

    Values come from NumPy's generator, not jax.random, so they do not depend on the backend
    or the PRNG implementation; floats are standard normal, integers small non-negative (safe
    as indices and counts), booleans fair coin flips.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    args = [_build(arg, rng) for arg in call.args]
    kwargs = {name: _build(value, rng) for name, value in call.kwargs.items()}
    return args, kwargs


def _build(tree: Any, rng) -> Any:
    if isinstance(tree, ArraySpec):
        return _random_array(tree, rng)
    if isinstance(tree, dict):
        return {key: _build(value, rng) for key, value in tree.items()}
    if isinstance(tree, list):
        return [_build(value, rng) for value in tree]
    if isinstance(tree, tuple):
        return tuple(_build(value, rng) for value in tree)
    return tree


def _random_array(spec: ArraySpec, rng):
    import jax
    import jax.numpy as jnp
    import numpy as np

    dtype = DTYPES[spec.dtype]
    if dtype == "key":
        key = jax.random.key(int(rng.integers(0, 2**31 - 1)))
        return jnp.broadcast_to(key, spec.shape) if spec.shape else key
    if dtype == "bool":
        values = rng.random(spec.shape) < 0.5
    elif dtype.startswith(("int", "uint")):
        values = rng.integers(0, 8, size=spec.shape)
    elif dtype.startswith("complex"):
        values = rng.standard_normal(spec.shape) + 1j * rng.standard_normal(spec.shape)
    else:
        values = rng.standard_normal(spec.shape, dtype=np.float32)
    return jnp.asarray(values, dtype=jnp.dtype(dtype))
