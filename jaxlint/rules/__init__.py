"""The rule registry: one module per rule, listed here in code order."""

from __future__ import annotations

from jaxlint.rules import (
    host_sync_in_loop,
    missing_donation,
    tracer_bool_conversion,
    tracer_to_python_scalar,
    unhashable_static_arg,
    vmap_of_jit,
)
from jaxlint.rules.base import Rule

ALL_RULES: list[Rule] = sorted(
    [
        tracer_bool_conversion.RULE,
        tracer_to_python_scalar.RULE,
        host_sync_in_loop.RULE,
        unhashable_static_arg.RULE,
        missing_donation.RULE,
        vmap_of_jit.RULE,
    ],
    key=lambda rule: rule.code,
)
RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in ALL_RULES}
