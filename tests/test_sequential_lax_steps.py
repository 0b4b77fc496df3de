"""A lax loop body's carry is the state the last step returned: a call handed it (or a name bound from
it) continues a sequence, so a helper handed a captured key with it draws the same numbers every step,
as in a `for` loop (key_values.carry_derived_names). The rule's fixture is
fixtures/rules/JAX501_sequential_lax_steps.py; these ask the model directly."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic import key_values


def _body(source: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(source))
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def test_names_bound_from_the_carry_hold_it():
    body = _body(
        """
        def body(carry, x):
            tokens, count = carry
            shifted = tokens + 1
            unrelated = x * 2
            return (shifted, count + 1), unrelated
        """,
        "body",
    )
    assert key_values.carry_derived_names(body, 0) == {"carry", "tokens", "count", "shifted"}


def test_the_fori_loop_carry_is_the_second_parameter():
    body = _body(
        """
        def body(i, state):
            moved = state * 0.9
            index = i + 1
            return moved
        """,
        "body",
    )
    names = key_values.carry_derived_names(body, 1)
    assert names == {"state", "moved"}


def test_a_call_reads_the_carry_through_any_argument():
    body = _body(
        """
        def body(tokens, position):
            a = sample(tokens[position], key=KEY)
            b = sample(position, key=KEY)
            return tokens, (a, b)
        """,
        "body",
    )
    names = key_values.carry_derived_names(body, 0)
    first, second = [n for n in ast.walk(body) if isinstance(n, ast.Call)]
    assert key_values.reads_carry(first, names)
    assert not key_values.reads_carry(second, names)


def test_a_nested_function_binds_nothing_of_the_body():
    body = _body(
        """
        def body(carry, x):
            def inner(carry):
                hidden = carry
                return hidden
            return carry, inner(x)
        """,
        "body",
    )
    assert key_values.carry_derived_names(body, 0) == {"carry"}
