"""What a callable value is made of: transforms around a function, through names and partial
(semantic/callable_chains.py)."""

from __future__ import annotations

import ast

from jaxlint.semantic.callable_chains import callable_chain
from jaxlint.semantic.model import SemanticModel

_HEADER = "import jax\nfrom functools import partial\ndef f(w, x):\n    return w * x\n"


def _chain(source: str):
    model = SemanticModel(ast.parse(_HEADER + source))
    call = next(n for n in ast.walk(model.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "probe")
    value = call.args[0]
    return callable_chain(value, model.scope_for(call), model)


def test_inline_and_named_transforms_are_the_same_chain():
    inline = _chain("probe(jax.vmap(f))\n")
    named = _chain("g = jax.vmap(f)\nprobe(g)\n")
    assert [q for q, _ in inline.transforms] == [q for q, _ in named.transforms] == ["jax.vmap"]
    assert ast.unparse(named.function) == "f" and named.through_name and not inline.through_name
    assert named.only_batching and not named.compiled and named.differentiated is None


def test_gradient_through_batching_and_partial():
    chain = _chain("probe(jax.vmap(partial(jax.grad(f), 1.0)))\n")
    assert [q for q, _ in chain.transforms] == ["jax.vmap", "jax.grad"]
    assert chain.partial and chain.differentiated is not None and not chain.compiled


def test_a_name_bound_to_a_gradient_then_batched():
    chain = _chain("g = jax.grad(f)\nh = jax.vmap(g, in_axes=(None, 0))\nprobe(h)\n")
    assert [q for q, _ in chain.transforms] == ["jax.vmap", "jax.grad"]


def test_outermost_compile_or_gradient_decides():
    assert _chain("probe(jax.jit(jax.vmap(f)))\n").compiled
    assert _chain("probe(jax.vmap(jax.jit(f)))\n").compiled
    inner_compiled = _chain("probe(jax.grad(jax.jit(f)))\n")
    assert not inner_compiled.compiled and inner_compiled.differentiated is not None
    assert _chain("probe(jax.jit(jax.grad(f)))\n").differentiated is None


def test_a_name_bound_twice_or_in_a_loop_is_unknown():
    assert _chain("g = jax.vmap(f)\nif c:\n    g = jax.jit(g)\nprobe(g)\n") is None
    looped = _chain("for g in (jax.vmap(f), f):\n    probe(g)\n")
    assert looped is None or not looped.transforms
    assert _chain("g = make()\nprobe(g)\n") is None
