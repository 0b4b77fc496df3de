"""Key lifetime facts of the model: a function that returns the key parameter it drew from
(semantic/effects.py, `returned_key`) and keys a loop derives from what it never changes
(semantic/key_values.py, `loop_invariant_keys`). JAX501's fixtures JAX501_handed_back_keys.py and
JAX501_invariant_keys.py show the findings; these tests pin the facts the rule asks for."""
from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic import effects
from jaxlint.semantic.key_values import loop_invariant_keys
from jaxlint.semantic.syntax import PARENT


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def _returned_path(source: str, param: str):
    function = _function(source)
    nodes = [n for n in ast.walk(function) if n is not function]
    return effects.returned_key(nodes, param)


def test_returned_key_paths():
    assert _returned_path("def f(z, rng):\n    return z + 1, rng\n", "rng") == (1,)
    assert _returned_path("def f(rng):\n    return rng\n", "rng") == ()
    assert _returned_path("def f(z, rng):\n    return (z, (z, rng))\n", "rng") == (1, 1)


def test_returned_key_needs_every_return():
    source = "def f(z, rng):\n    if z:\n        return z, rng\n    return z, None\n"
    assert _returned_path(source, "rng") is None
    assert _returned_path("def f(z, rng):\n    return z, (rng, rng)\n", "rng") is None
    assert _returned_path("def f(z, rng):\n    return z\n", "rng") is None


class _Names:
    """The qualified names a loop's calls resolve to, as the semantic model's context gives them."""

    def qualified_name(self, node):
        text = ast.unparse(node)
        return {"random.fold_in": "jax.random.fold_in", "random.PRNGKey": "jax.random.PRNGKey",
                "nnx.Rngs": "flax.nnx.Rngs"}.get(text, text)


def _invariant(source: str) -> set[str]:
    tree = ast.parse(textwrap.dedent(source))
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            setattr(child, PARENT, parent)
    loop = next(n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While)))
    return set(loop_invariant_keys(loop, _Names()))


def test_keys_folded_from_unchanged_values():
    assert _invariant("for b in bs:\n    k = random.fold_in(base, step)\n") == {"k"}
    assert _invariant("while go:\n    k = random.fold_in(base, 2 * step + 1)\n    r = nnx.Rngs(dropout=k)\n") == {"k", "r"}
    assert _invariant("for b in bs:\n    k = random.fold_in(random.PRNGKey(0), epoch)\n") == {"k"}


def test_keys_folded_from_changing_values():
    assert _invariant("for i, b in enumerate(bs):\n    k = random.fold_in(base, i)\n") == set()
    assert _invariant("for b in bs:\n    k = random.fold_in(base, step)\n    step += 1\n") == set()
    assert _invariant("for b in bs:\n    k = random.fold_in(base, self.step)\n") == set()
    assert _invariant("for b in bs:\n    base, sub = split(base)\n    k = random.fold_in(base, step)\n") == set()
    assert _invariant("for b in bs:\n    k = random.fold_in(base, 0)\n") == set()  # a fixed stream, as a literal seed
    assert _invariant("for b in bs:\n    r = nnx.Rngs(0)\n") == set()
