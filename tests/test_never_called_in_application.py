"""A module-level function of an application (a checkout that ships no package: no pyproject.toml,
setup.py or setup.cfg) that no code of the project names never runs, so JAX302's per-call finding in
it describes a cost nobody pays (semantic/dead_code.never_called_in_application). A package's
uncalled function, one its module reads or lists in `__all__`, and one another module names stay
flagged."""

from __future__ import annotations

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

HELPERS = '''
import jax
import jax.numpy as jnp


def barrier():
    x = jnp.ones([jax.local_device_count()])
    return jax.pmap(lambda v: jax.lax.psum(v, "i"), "i")(x)


def reduce_all(x):
    return jax.jit(lambda v: v.sum())(x)


async def gather_all(x):
    return jax.pmap(lambda v: jax.lax.pmean(v, "i"), "i")(x)
'''


def _rows(project, text=HELPERS, name="helpers.py"):
    path = project / "utils" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    result = check_source(text, str(path), Settings(root=project), [RULES_BY_CODE["JAX302"]])
    assert not result.errors, result.errors
    return {d.location.row for d in result.diagnostics}


def _application(tmp_path):
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    (project / "main.py").write_text("print('train')\n")
    return project


def test_uncalled_functions_of_an_application_are_not_flagged(tmp_path):
    assert _rows(_application(tmp_path)) == set()


def test_a_function_another_module_names_is_flagged(tmp_path):
    project = _application(tmp_path)
    (project / "main.py").write_text("from utils.helpers import barrier\n\nfor _ in range(10):\n    barrier()\n")
    assert _rows(project) == {8}


def test_look_alike_a_package_keeps_its_uncalled_functions(tmp_path):
    project = _application(tmp_path)
    (project / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    assert _rows(project) == {8, 12, 16}


def test_look_alike_listed_in_all_or_read_in_its_module(tmp_path):
    project = _application(tmp_path)
    text = HELPERS.replace("import jax\n", "import jax\n__all__ = ['reduce_all']\n", 1) + "\n\nhandlers = [gather_all]\n"
    assert _rows(project, text) == {13, 17}
