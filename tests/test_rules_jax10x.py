"""Edge cases of the JAX103-JAX109 fixes that golden pairs do not show well."""

import ast

from jaxlint.config import Settings
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
