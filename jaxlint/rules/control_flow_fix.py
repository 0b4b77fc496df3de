"""JAX101's structural fixes: `if`/`else` and ternaries to `jnp.where` or `lax.cond`, `while` to
`lax.while_loop`. Returns a Fix, a string saying why no fix is offered, or None."""

from __future__ import annotations

import ast


def control_flow_fix(node: ast.AST, context, scope):
    return None
