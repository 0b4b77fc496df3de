"""A star import of a configuration module brings the names it imports under module-level `if`,
`try` and `match` (semantic/project.py): `jnp` imported in every `case` of a precision setting is
`jax.numpy` in the modules that `import *` it, so `jnp.ndim` of a traced array is static (JAX101
silent) while `jnp.sum` of it is traced (JAX101 flagged)."""

import pytest

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project

PROJECT = FIXTURES / "star_settings"


@pytest.mark.parametrize("module", ["use_match.py", "use_if.py", "use_try.py"])
def test_markers_match_findings(module):
    path = PROJECT / module
    check_markers_in_project(path, PROJECT, ["JAX101"])
