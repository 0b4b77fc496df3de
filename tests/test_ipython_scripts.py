"""A `.py` script exported from a notebook keeps IPython lines (`!pip install ...`, `%matplotlib
inline`): it is checked as IPython reads it, those lines masked in place, with no fixes offered.
A file with a real syntax error stays a JAX000 finding."""

from __future__ import annotations

from pathlib import Path

from jaxlint.cli import run
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import ALL_RULES

TRAINING = '''import jax
import jax.numpy as jnp


@jax.jit
def step(state, batch):
    return state - 0.1 * batch, jnp.mean(batch ** 2)


def train(state, batches):
    for batch in batches:
        state, loss = step(state, batch)
        print(float(loss))
    return state
'''


def _codes_and_rows(text: str, name: str = "script.py"):
    result = check_source(text, name, Settings(), ALL_RULES)
    return sorted((d.code, d.location.row) for d in result.diagnostics), result


def test_shell_escape_and_magic_lines_are_masked():
    text = "!pip install -q optax\n%matplotlib inline\n" + TRAINING
    found, result = _codes_and_rows(text)
    assert ("JAX201", 2 + 13) in found
    assert all(code != "JAX000" for code, _ in found)
    assert all(d.fix is None for d in result.diagnostics)


def test_assignment_from_shell_and_indented_magic():
    text = TRAINING.replace("    for batch in batches:", "    files = !ls\n    %time x = 1\n    for batch in batches:")
    found, _ = _codes_and_rows("import os\n" + text)
    assert ("JAX201", 1 + 13 + 2) in found


def test_real_syntax_error_beside_a_magic_stays_jax000():
    text = "!pip install optax\n" + TRAINING + "def broken(:\n    pass\n"
    found, _ = _codes_and_rows(text)
    assert [code for code, _ in found] == ["JAX000"]


def test_same_text_as_notebook_magic_in_a_string_is_plain_python():
    text = 'HELP = """\n!pip install jax\n"""\n' + TRAINING
    found, _ = _codes_and_rows(text)
    assert ("JAX201", 3 + 13) in found


def test_fix_leaves_an_ipython_script_untouched(tmp_path: Path, capsys):
    script = tmp_path / "exported.py"
    original = ("!pip install -q optax\n" + TRAINING.replace("def train(state, batches):", "def train(state, batches=[1, 2]):")).encode()
    script.write_bytes(original)
    status = run(["fix", "--unsafe-fixes", str(script)])
    assert status == 1
    assert script.read_bytes() == original
