"""The rule registry: one module per rule, listed here in code order."""

from __future__ import annotations

from jaxlint.rules import (
    documentation,
    captured_large_constant,
    eager_ops_in_loop,
    grad_through_while_loop,
    host_sync_in_loop,
    jit_in_loop,
    jit_on_method,
    python_loop_batching,
    python_loop_in_traced,
    timing_without_sync,
    varying_static_arg,
    missing_donation,
    tracer_bool_conversion,
    tracer_to_python_scalar,
    unhashable_static_arg,
    vmap_of_jit,
    block_until_ready_in_traced,
    dynamic_shape_in_traced,
    inplace_array_update,
    numpy_on_tracer,
    print_in_traced,
    side_effect_in_traced,
    tracer_as_shape,
    prng_key_reuse,
    host_state_in_traced,
    nan_unsafe_where,
    float64_without_x64,
    removed_api,
    deprecated_api,
    naive_attention,
    syntax_error,
    unused_noqa,
    loop_invariant_transfer,
    device_put_of_placed_state,
    pmap_superseded,
)
from jaxlint.rules.base import Rule

ALL_RULES: list[Rule] = sorted(
    [
        tracer_bool_conversion.RULE,
        tracer_to_python_scalar.RULE,
        host_sync_in_loop.RULE,
        timing_without_sync.RULE,
        eager_ops_in_loop.RULE,
        jit_in_loop.RULE,
        varying_static_arg.RULE,
        python_loop_in_traced.RULE,
        captured_large_constant.RULE,
        grad_through_while_loop.RULE,
        jit_on_method.RULE,
        python_loop_batching.RULE,
        unhashable_static_arg.RULE,
        missing_donation.RULE,
        vmap_of_jit.RULE,
        numpy_on_tracer.RULE,
        print_in_traced.RULE,
        inplace_array_update.RULE,
        dynamic_shape_in_traced.RULE,
        side_effect_in_traced.RULE,
        tracer_as_shape.RULE,
        block_until_ready_in_traced.RULE,
        prng_key_reuse.RULE,
        host_state_in_traced.RULE,
        nan_unsafe_where.RULE,
        float64_without_x64.RULE,
        removed_api.RULE,
        deprecated_api.RULE,
        naive_attention.RULE,
        loop_invariant_transfer.RULE,
        device_put_of_placed_state.RULE,
        pmap_superseded.RULE,
    ],
    key=lambda rule: rule.code,
)
# JAX000 and JAX001 are reported by the engine itself (no node types): documented, listed, looked up
# and selected like the others, but not in ALL_RULES, the list the engine dispatches nodes to.
ENGINE_RULES: list[Rule] = [syntax_error.RULE, unused_noqa.RULE]
CATALOGUE: list[Rule] = sorted([*ENGINE_RULES, *ALL_RULES], key=lambda rule: rule.code)
RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in CATALOGUE}
documentation.register(CATALOGUE)
