"""A value's kind is known wherever a function or method of another module of the project returns it
(semantic/returned_kinds.py): the summary of the defining module records, by position of the returned
tuple, the callable every `return` gives a call of; the asking module reads its kind (an nnx or
equinox module instance, a TrainState, an instance of a project class with compiled methods)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import FIXTURES
from rule_fixtures import expected_findings

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic.project import summarise_file
from jaxlint.semantic.returned_kinds import returned_calls

PROJECT = FIXTURES / "kinds_project"
CODES = ["JAX203", "JAX401", "JAX201", "JAX202"]


def _check(path: Path, settings: Settings):
    result = check_source(path.read_text(), str(path), settings, [RULES_BY_CODE[code] for code in CODES])
    assert not result.errors, result.errors
    return result


@pytest.mark.parametrize("name, summarised", [("loops.py", "builders.py"), ("timing.py", "rollouts.py")])
def test_kinds_returned_by_another_module_match_markers(name, summarised):
    path = PROJECT / name
    expected = set(expected_findings(path.read_text()))
    assert len(expected) >= 3
    result = _check(path, Settings(root=PROJECT))
    assert {(d.location.row, d.code) for d in result.diagnostics} == expected
    assert summarised in {Path(dependency).name for dependency in result.dependencies}


def test_returns_made_by_array_functions_are_device_values():
    summary = summarise_file(PROJECT / "setup_lib" / "rollouts.py")
    roller = summary.classes["Roller"].methods
    assert roller["run"].returns_device  # names unpacked from `lax.scan`
    assert roller["clipped"].returns_device  # a name bound once to `jnp.clip`
    assert "run_on_host" not in roller or not roller["run_on_host"].returns_device
    assert summary.functions["smooth"].returns_device
    assert "smooth_either" not in summary.functions or not summary.functions["smooth_either"].returns_device


def test_without_the_project_nothing_is_known():
    # (but for a call whose own signature says what it is: flax's keyword-only
    # `state.apply_gradients(grads=...)`, semantic/library_models SIGNATURES)
    path = PROJECT / "loops.py"
    result = check_source(path.read_text(), "<stdin>", Settings(), [RULES_BY_CODE[code] for code in CODES])
    assert [d.message.split("`")[1] for d in result.diagnostics] == ["state.apply_gradients"]


def test_summary_records_the_returned_callable_by_position():
    summary = summarise_file(PROJECT / "setup_lib" / "builders.py")
    calls = {name: function.returned_calls for name, function in summary.functions.items()}
    assert calls["build_encoder"] == ((0, 3, "setup_lib.networks.Encoder"), (1, 3, "flax.nnx.Optimizer"))
    assert calls["build_state"] == ((-1, 0, "flax.training.train_state.TrainState.create"),)
    assert calls["build_critic"] == ((-1, 0, ".make_critic"),)  # a function of its own module
    methods = summary.classes["Workshop"].methods
    assert methods["fresh_encoder"].returned_calls == ((-1, 0, "setup_lib.networks.Encoder"),)
    assert methods["fresh_critic"].returned_calls == ((-1, 0, "setup_lib.networks.Critic"),)
    # Look-alikes: two classes on two paths, a name rebound, a parameter handed back, a generator.
    assert calls.get("build_either", ()) == ()
    assert calls.get("build_rewrapped", ()) == ()
    assert calls["build_passed"] == ((1, 2, "setup_lib.networks.Encoder"),)  # only the position it makes
    assert calls.get("build_lazily", ()) == ()


class _Names:
    def qualified_name(self, node):
        return None


def _calls(source: str, references=None):
    function = ast.parse(source).body[0]
    return returned_calls(_Names(), function, references or {"Net": ".Net", "make": ".make"})


def test_positions_every_return_agrees_on():
    assert _calls("def f(a):\n    n = Net(a)\n    if a: return n, 1\n    return Net(2), 0") == ((0, 2, ".Net"),)
    assert _calls("def f(a):\n    return make(a)") == ((-1, 0, ".make"),)


def test_what_is_not_one_callable_is_unknown():
    assert _calls("def f(a):\n    if a: return Net(a)\n    return make(a)") == ()  # two callables
    assert _calls("def f(a):\n    n = Net(a)\n    n = make(n)\n    return n") == ()  # bound twice
    assert _calls("def f(n):\n    return n") == ()  # the parameter
    assert _calls("def f(a):\n    for n in a: pass\n    return n") == ()  # a loop's target
    assert _calls("def f(a):\n    if a: return Net(a), 1\n    return Net(a)") == ()  # two shapes
    assert _calls("def f(a):\n    if a: return\n    return Net(a)") == ()  # a bare return
    assert _calls("def f(a):\n    yield Net(a)\n    return Net(a)") == ()  # a generator
    assert _calls("def f(a):\n    return Other(a)") == ()  # a name nothing qualifies
