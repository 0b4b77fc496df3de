"""What a compiled call returns is a device value wherever it arrives: through an attribute rebound to
`jax.jit(...)`, a parameter every caller fills with a compiled callable (whatever else shares its
name), each position of a helper's returned tuple (semantic/model.py, semantic/values.py)."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic.model import SemanticModel


def _model(source: str) -> tuple[ast.Module, SemanticModel]:
    tree = ast.parse(textwrap.dedent(source))
    return tree, SemanticModel(tree)


def _calls(tree: ast.Module, text: str) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == text]


def _kind_of(tree: ast.Module, model: SemanticModel, name: str) -> str | None:
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return model.device_kind(reads[-1], model.scope_for(reads[-1]))


REBOUND = """
    import jax
    def run(net, params, xs):
        {before}
        for x in xs:
            y = net.apply(params, x)
        {after}
        return y
"""


def test_attribute_rebound_to_jit_is_compiled_for_calls_after_it():
    tree, model = _model(REBOUND.format(before="net.apply = jax.jit(net.apply)", after="pass"))
    assert model.jit_binding_for_call(_calls(tree, "net.apply")[-1]) is not None
    assert _kind_of(tree, model, "y") == "device"


def test_attribute_rebound_after_the_calls_is_not():
    tree, model = _model(REBOUND.format(before="pass", after="net.apply = jax.jit(net.apply)"))
    assert model.jit_binding_for_call(_calls(tree, "net.apply")[0]) is None


def test_attribute_of_a_name_rebound_to_another_object_is_not():
    tree, model = _model(REBOUND.format(before="net.apply = jax.jit(net.apply); net = type(net)()", after="pass"))
    assert model.jit_binding_for_call(_calls(tree, "net.apply")[-1]) is None


def test_attribute_rebound_in_another_function_is_not():
    tree, model = _model("""
        import jax
        def setup(net):
            net.apply = jax.jit(net.apply)
        def run(net, params, x):
            return net.apply(params, x)
    """)
    assert model.jit_binding_for_call(_calls(tree, "net.apply")[-1]) is None


PARAMETER = """
    import jax
    @jax.jit
    def step(z):
        return z * 0.5
    def advance(z, step):
        return step(z) + 1.0
    def run(z):
        return advance(z, {passed})
"""


def test_parameter_named_like_a_jitted_function_and_filled_with_it_is_compiled():
    tree, model = _model(PARAMETER.format(passed="step"))
    inner = [c for c in _calls(tree, "step") if model.scope_for(c).name == "advance"]
    assert model.jit_binding_for_call(inner[0]) is not None


def test_parameter_named_like_a_jitted_function_but_filled_otherwise_is_not():
    tree, model = _model(PARAMETER.format(passed="lambda v: v"))
    inner = [c for c in _calls(tree, "step") if model.scope_for(c).name == "advance"]
    assert model.jit_binding_for_call(inner[0]) is None


POSITIONS = """
    import jax
    import jax.numpy as jnp
    def once(params, x, seen):
        value, grads = jax.value_and_grad(lambda p: jnp.sum(p * x))(params)
        {returns}
    def run(params, xs):
        seen = 0
        for x in xs:
            loss, params, seen = once(params, x, seen)
        return loss, seen
"""


def test_each_position_of_a_helper_tuple_has_its_own_kind():
    tree, model = _model(POSITIONS.format(returns="return value, params - grads, seen + 1"))
    assert _kind_of(tree, model, "loss") == "device"
    assert _kind_of(tree, model, "seen") != "device"


def test_a_position_differing_between_returns_is_not_device():
    tree, model = _model(POSITIONS.format(returns="if seen:\n            return seen, params, seen\n        return value, params - grads, seen"))
    assert _kind_of(tree, model, "loss") != "device"


def test_returns_of_two_widths_say_nothing_by_position():
    tree, model = _model(POSITIONS.format(returns="if seen:\n            return value, params\n        return value, params - grads, seen"))
    assert _kind_of(tree, model, "loss") != "device"
