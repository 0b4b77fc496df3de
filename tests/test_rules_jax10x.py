"""Edge cases of the JAX103-JAX109 fixes that golden pairs do not show well."""

import ast

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.fixer import fix_source
from jaxlint.rules import RULES_BY_CODE

HEADER = "import jax\nimport jax.numpy as jnp\nd = {'k': 1}\n\n\n@jax.jit\ndef f(x):\n"


def _fix(code: str, body: str, unsafe: bool = False) -> str:
    text = HEADER + "".join(f"    {line}\n" for line in body.splitlines()) + "    return x\n"
    outcome = fix_source(text, "case.py", Settings(), [RULES_BY_CODE[code]], unsafe=unsafe)
    assert not outcome.reverted
    ast.parse(outcome.text)
    return outcome.text[len(HEADER):]


def test_debug_print_escapes_literal_braces_and_keeps_specs():
    fixed = _fix("JAX104", 'print(f"{{a}} {x!r:>8}", "}")')
    assert 'jax.debug.print("{{a}} {!r:>8} }}", x)' in fixed


def test_debug_print_keeps_static_shapes_in_an_fstring():
    fixed = _fix("JAX104", 'print(f"{x.shape} {{ {x}")')
    assert 'jax.debug.print(f"{x.shape} {{{{ {{}}", x)' in fixed


def test_debug_print_refuses_static_values_that_may_print_braces():
    fixed = _fix("JAX104", 'print(f"{d} {x}")\nprint(x, file=None)\nprint("%s" % x)')
    assert "jax.debug.print" not in fixed


def test_debug_print_uses_the_other_quote_when_needed():
    fixed = _fix("JAX104", "print(f'{len(d[\"k\"])} {x}')")
    assert "jax.debug.print(f'{len(d[\"k\"])} {{}}', x)" in fixed


def test_block_until_ready_alone_in_a_block_becomes_pass():
    fixed = _fix("JAX109", "if x.ndim:\n    x.block_until_ready()")
    assert "pass" in fixed and "block_until_ready" not in fixed


def test_inplace_update_with_a_traced_mask_is_left_to_jax106():
    fixed = _fix("JAX105", "y = jnp.zeros(3)\ny[y > 0] = 1.0")
    assert "y[y > 0] = 1.0" in fixed
    fixed = _fix("JAX106", "x[x > 0] = 1.0", unsafe=True)
    assert "x = jnp.where(x > 0, 1.0, x)" in fixed


def test_module_level_alias_of_partial_resolves_like_an_import():
    """Google-style `partial = functools.partial`: decorators spelled with it are read, so the primal's
    nondiff arguments stay Python values in its rules; a second binding of the name makes it unknown."""
    text = (
        "import functools\nimport jax\n\npartial = functools.partial\n\n\n"
        "@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef f(x, mode):\n    return x\n\n\n"
        "def f_fwd(x, mode):\n    if mode > 0:\n        return x, x\n    return x, x\n\n\n"
        "def f_bwd(mode, res, g):\n    return (g,)\n\n\nf.defvjp(f_fwd, f_bwd)\n\n\n"
        "@jax.jit\ndef loss(x):\n    return f(x, True)\n"
    )
    rules = [RULES_BY_CODE["JAX101"]]
    assert check_source(text, "m.py", Settings(), rules).diagnostics == []
    rebound = text.replace("partial = functools.partial\n", "partial = functools.partial\npartial = None\n")
    assert [d.location.row for d in check_source(rebound, "m.py", Settings(), rules).diagnostics] == [14]
