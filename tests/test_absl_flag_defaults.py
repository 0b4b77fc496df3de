"""Constants: an absl flag the module defines has its default as its value, the way an argparse
option's default is read (semantic/constants.py): `FLAGS.num_runs`, `flags.FLAGS.num_runs` and the
holder's `.value` (`_RUNS = flags.DEFINE_integer(...)`)."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic.model import SemanticModel

SOURCE = textwrap.dedent("""
    from absl import flags
    import absl.flags

    FLAGS = flags.FLAGS
    flags.DEFINE_integer("num_runs", 1, "Runs.")
    _STEPS = flags.DEFINE_integer("steps", default=3, help="Steps.")
    absl.flags.DEFINE_float("rate", 0.5, "Rate.")
    flags.DEFINE_integer("num_steps", 100_000, "Training steps.")

    a = FLAGS.num_runs
    b = _STEPS.value
    c = flags.FLAGS.rate
    d = FLAGS.num_steps
    e = FLAGS.defined_elsewhere
    f = FLAGS.num_runs.real
""")


def test_flag_defaults_are_values():
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree)
    evaluator = model.constant_evaluator()
    values = {
        statement.targets[0].id: evaluator.value(statement.value, model.module_scope)
        for statement in tree.body if isinstance(statement, ast.Assign) and statement.targets[0].id in "abcdef"
    }
    assert values["a"] == 1 and values["b"] == 3 and values["c"] == 0.5 and values["d"] == 100_000
    # A flag another module defines, and an attribute of a flag's value, are not known.
    assert not isinstance(values["e"], int) and not isinstance(values["f"], int)


DEMO = textwrap.dedent("""
    from absl import app, flags
    import jax

    FLAGS = flags.FLAGS
    flags.DEFINE_integer("num_runs", 1, "Runs on random data.")
    flags.DEFINE_integer("num_steps", 100_000, "Training steps.")

    @jax.jit
    def run(key):
        key, sub = jax.random.split(key)
        return key, jax.random.normal(sub, (8,))

    def main(_):
        key = jax.random.PRNGKey(0)
        for _ in range(FLAGS.num_runs):
            key, out = run(key)
            print(float(out.mean()))
        for _ in range(FLAGS.num_steps):
            key, out = run(key)
            print(float(out.mean()))
""")


def test_a_demo_loop_run_as_many_times_as_a_flag_defaults_to():
    result = check_source(DEMO, "examples/demo.py", Settings(), [RULES_BY_CODE["JAX201"]])
    assert [d.location.row for d in result.diagnostics] == [21]
