"""What is traced (semantic/framework_methods.py): the forward pass of a linen/Haiku module class
defined in a module that runs none of its models is traced code, its inputs tracers; options of the
call (defaults, Python-scalar annotations, bare truth tests) stay Python values."""

from __future__ import annotations

import ast

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project
from jaxlint.semantic.model import SemanticModel

PROJECT = FIXTURES / "project_forward_pass"


def test_subclass_of_a_project_base_class_is_traced():
    check_markers_in_project(PROJECT / "models" / "crops.py", PROJECT, ["JAX101"])


def _traced(source: str) -> dict[str, dict[str, int] | None]:
    model = SemanticModel(ast.parse(source))
    return {scope.name: (dict(scope.traced_params) if scope.traced else None) for scope in model.scopes if scope.is_function}


def test_inputs_and_options():
    found = _traced(
        "import flax.linen as nn\n"
        "class Net(nn.Module):\n"
        "    def setup(self):\n        pass\n"
        "    def __call__(self, x, y, qlen, groups, train, mask=None, depth: int = 2):\n"
        "        ranks = np.arange(qlen)\n"
        "        for group in groups + groups:\n            pass\n"
        "        if train:\n            return x[:, 0]\n        return self.dense(y)\n"
    )
    # x sliced, y handed to a submodule: inputs; a size for `np.arange` and a list walked are not.
    assert found == {"setup": None, "__call__": {"x": 1, "y": 1}}


def test_haiku_public_methods_and_init():
    found = _traced(
        "import haiku as hk\n"
        "class Net(hk.Module):\n"
        "    def __init__(self, n):\n        super().__init__()\n"
        "    def rollout(self, state):\n        return state.reshape(-1)\n"
        "    def _private(self, state):\n        return state\n"
    )
    assert found == {"__init__": None, "rollout": {"state": 1}, "_private": None}


def test_a_module_that_runs_its_models_decides_itself():
    source = (
        "import flax.linen as nn\n"
        "class Net(nn.Module):\n"
        "    def __call__(self, x):\n        return x\n"
        "out = Net().apply({}, 1.0)\n"
    )
    assert _traced(source) == {"__call__": None}
    haiku = "import haiku as hk\nclass Net(hk.Module):\n    def __call__(self, x):\n        return x\nf = hk.transform(lambda x: Net()(x))\n"
    assert _traced(haiku)["__call__"] is None


def test_applying_a_network_inside_a_forward_pass_is_part_of_it():
    source = (
        "import haiku as hk\n"
        "class World(hk.Module):\n"
        "    def imagine(self, actor, actor_params, state):\n"
        "        return actor.apply(actor_params, state[..., 0])\n"
    )
    assert _traced(source) == {"imagine": {"state": 1}}


def test_direct_modules_are_not_assumed_traced():
    for base in ("nnx.Module", "eqx.Module"):
        source = f"from flax import nnx\nimport equinox as eqx\nclass Net({base}):\n    def __call__(self, x):\n        return x\n"
        assert _traced(source) == {"__call__": None}
