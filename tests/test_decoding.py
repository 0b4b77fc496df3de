"""Decoding loops (semantic/decoding.py): a network class's method that runs the network itself on
every iteration of a loop growing the array it carries runs on the host (semantic/host_code.py),
wherever it is called from; look-alikes stay unknown."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jaxlint.semantic.decoding import decodes_with_own_network
from jaxlint.semantic.host_code import runs_on_host
from jaxlint.semantic.model import SemanticModel

_HEADER = textwrap.dedent('''
    import equinox as eqx
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    from flax import nnx
''')


def _method(source: str, name: str):
    model = SemanticModel(ast.parse(_HEADER + textwrap.dedent(source)))
    scope = next(s for s in model.scopes if s.is_function and getattr(s.node, "name", None) == name)
    return scope, model


@pytest.mark.parametrize("source", [
    # nnx, concatenated along the token axis
    '''
    class Lm(nnx.Module):
        def __call__(self, ids):
            return ids
        def run(self, ids, n):
            for _ in range(n):
                ids = jnp.concatenate([ids, jnp.argmax(self(ids)[:, -1:], axis=-1)], axis=1)
            return ids
    ''',
    # equinox, appended in a while loop
    '''
    class Lm(eqx.Module):
        w: jax.Array
        def __call__(self, ids):
            return self.w[ids]
        def run(self, ids, n):
            while ids.shape[0] < n:
                ids = jnp.append(ids, jnp.argmax(self(ids)))
            return ids
    ''',
    # linen (bound through `apply(..., method=...)`), stacked, the network fed only the new token
    '''
    class Lm(nn.Module):
        @nn.compact
        def __call__(self, ids):
            return nn.Dense(4)(ids)
        def run(self, ids, n):
            last = ids[:, -1:]
            for _ in range(n):
                last = jnp.argmax(self(last), axis=-1)
                ids = jnp.hstack([ids, last])
            return ids
    ''',
])
def test_decoding_method_runs_on_host(source):
    scope, model = _method(source, "run")
    assert decodes_with_own_network(scope, model)
    assert runs_on_host(scope, model)


@pytest.mark.parametrize("source", [
    # a fixed-size state: traceable, `fori_loop` carries it
    '''
    class Cell(nnx.Module):
        def __call__(self, x):
            return x
        def run(self, x, n):
            for _ in range(n):
                x = self(x)
            return x
    ''',
    # sub-networks growing features inside the forward pass
    '''
    class Dense(nnx.Module):
        def __init__(self, layers):
            self.layers = layers
        def run(self, h):
            for layer in self.layers:
                h = jnp.concatenate([h, layer(h)], axis=-1)
            return h
    ''',
    # a Python list grown, not a carried array
    '''
    class Lm(nnx.Module):
        def __call__(self, ids):
            return ids
        def run(self, ids, n):
            out = []
            for _ in range(n):
                ids = self(ids)
                out.append(ids)
            return out
    ''',
    # a class that is no network
    '''
    class Table:
        def __call__(self, ids):
            return ids
        def run(self, ids, n):
            for _ in range(n):
                ids = jnp.concatenate([ids, self(ids)])
            return ids
    ''',
    # the module's traced code calls a method of that name
    '''
    class Lm(nnx.Module):
        def __call__(self, ids):
            return ids
        def run(self, ids, n):
            for _ in range(n):
                ids = jnp.concatenate([ids, self(ids)[:, -1:]], axis=1)
            return ids

    @nnx.jit(static_argnums=2)
    def compiled(lm, ids, n):
        return lm.run(ids, n)
    ''',
])
def test_look_alikes_are_not_decoding(source):
    scope, model = _method(source, "run")
    assert not decodes_with_own_network(scope, model)
    assert not runs_on_host(scope, model)
