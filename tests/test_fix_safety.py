"""Fix safety properties (issue 28, item 3): each test reproduces an unsafe edit the fixer used to
write, on code written here, and checks that it no longer does."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import FIXTURES
from jaxlint.config import Settings, jax_requirement, load_settings
from jaxlint.fixer import fix_source
from jaxlint.rules import RULES_BY_CODE


def _fixed(text: str, codes: list[str], settings: Settings | None = None, unsafe: bool = True) -> str:
    outcome = fix_source(text, "example.py", settings or Settings(), [RULES_BY_CODE[c] for c in codes], unsafe=unsafe)
    assert not outcome.reverted, outcome.reverted
    return outcome.text


# ----- JAX202: one wait before the end stamp, never one per iteration --------------------------------


def _waits_inside_loops(text: str) -> list[int]:
    """Waits inside a loop that takes no time stamp itself: a loop within a timed interval, where a
    wait syncs every iteration. (A wait in an epoch loop whose body stamps each epoch is one per interval.)"""
    tree = ast.parse(text)
    lines = []
    for loop in (n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))):
        calls = [n for n in ast.walk(loop) if isinstance(n, ast.Call)]
        if any(ast.unparse(c.func).startswith("time.") for c in calls):
            continue
        lines += [c.lineno for c in calls if ast.unparse(c.func).endswith("block_until_ready")]
    return lines


def test_timing_fix_never_waits_inside_a_loop():
    source = (FIXTURES / "fixes" / "JAX202" / "block.in.py").read_text()
    fixed = _fixed(source, ["JAX202"], unsafe=False)
    assert fixed != source
    assert _waits_inside_loops(fixed) == []


@pytest.mark.parametrize("loop_header", ["for _ in range(steps):", "for batch in batches:", "for i, batch in enumerate(batches):"])
def test_timing_fix_for_a_result_bound_only_in_the_loop(loop_header):
    source = f'''import time
import jax.numpy as jnp


def bench(x, batches, steps):
    t0 = time.perf_counter()
    {loop_header}
        y = jnp.tanh(x @ x)
    elapsed = time.perf_counter() - t0
    return elapsed
'''
    fixed = _fixed(source, ["JAX202"], unsafe=False)
    # `y` may be unbound at the end stamp: no wait there, and none inside the loop either.
    assert fixed == source


# ----- the target JAX version ------------------------------------------------------------------------

DONATED = '''import jax
import jax.numpy as jnp


@jax.jit
def step(state, batch):
    return state - 0.1 * batch


def run(scale):
    state = jnp.ones(4) * scale
    for _ in range(3):
        state = step(state, 1.0)
    return state


def double(tree):
    return jax.tree_map(lambda a: a * 2, tree)
'''


@pytest.mark.parametrize("requirement", ["jax>=0.4.20", "jax[cuda12]==0.4.30", "jax<0.4.36", "jax>=0.4.1,<0.5"])
@pytest.mark.parametrize("where", ["requirements.txt", "pyproject.toml", "setup.py"])
def test_project_on_older_jax_gets_forms_it_has(tmp_path: Path, requirement: str, where: str):
    if where == "pyproject.toml":
        text = f'[project]\nname = "demo"\ndependencies = ["numpy", "{requirement}"]\n'
    elif where == "setup.py":
        text = f'from setuptools import setup\nsetup(name="demo", install_requires=["numpy", "{requirement}"])\n'
    else:
        text = f"numpy\n{requirement}\n"
    (tmp_path / where).write_text(text)
    (tmp_path / "pkg").mkdir()
    settings = load_settings(tmp_path / "pkg")
    assert settings.jax_requirement is not None
    fixed = _fixed(DONATED, ["JAX401", "JAX601", "JAX602"], settings)
    assert "@jax.jit(" not in fixed  # the decorator factory needs jax 0.4.36
    assert "partial(jax.jit, donate_argnums=(0,))" in fixed
    oldest = tuple(int(part) for part in settings.jax_requirement.split("."))
    # `jax.tree` arrived in jax 0.4.25: older projects get the exact older spelling.
    assert ("jax.tree.map" in fixed) == (oldest >= (0, 4, 25))
    assert ("jax.tree_util.tree_map" in fixed) == (oldest < (0, 4, 25))


@pytest.mark.parametrize("requirement", ["jax>=0.4.36", "jax==0.5.0"])
def test_project_on_newer_jax_keeps_the_newer_forms(tmp_path: Path, requirement: str):
    (tmp_path / "requirements.txt").write_text(f"{requirement}\noptax\n")
    fixed = _fixed(DONATED, ["JAX401", "JAX601", "JAX602"], load_settings(tmp_path))
    assert "@jax.jit(donate_argnums=(0,))" in fixed
    assert "jax.tree.map" in fixed


@pytest.mark.parametrize("requirement", ["jax", "jax[cuda12]", "numpy"])
def test_project_with_no_jax_version_gets_the_spelling_every_jax_runs(tmp_path: Path, requirement: str):
    """Nothing says which JAX runs the code: a deprecated API still moves to its replacement (that is
    the fix), but a donation is written as `functools.partial(jax.jit, ...)`, not the decorator
    factory of jax 0.4.36, which is only a newer spelling and fails on the older JAX such code was
    often written for."""
    (tmp_path / "requirements.txt").write_text(f"{requirement}\noptax\n")
    fixed = _fixed(DONATED, ["JAX401", "JAX601", "JAX602"], load_settings(tmp_path))
    assert "@jax.jit(" not in fixed
    assert "partial(jax.jit, donate_argnums=(0,))" in fixed
    assert "jax.tree.map" in fixed


def test_target_version_wins_when_older_than_the_requirement():
    fixed = _fixed(DONATED, ["JAX401"], Settings(target_jax_version="0.4.30", jax_requirement="0.5.0"))
    assert "partial(jax.jit, donate_argnums=(0,))" in fixed


@pytest.mark.parametrize(
    "files, expected",
    [
        ({"requirements.txt": "numpy\njax>=0.4.20  # pinned for TPU\n"}, "0.4.20"),
        ({"requirements-gpu.txt": "jax[cuda12]==0.4.30 ; python_version > '3.9'\n"}, "0.4.30"),
        ({"pyproject.toml": '[project]\nname = "x"\ndependencies = ["jax >=0.4.1, <0.5"]\n'}, "0.4.1"),
        ({"setup.cfg": "[options]\ninstall_requires =\n    jax>=0.4.11\n    numpy\n"}, "0.4.11"),
        ({"requirements.txt": "jax>=0.4.30\n", "setup.py": "setup(install_requires=['jax>=0.4.13'])"}, "0.4.13"),
        ({"requirements.txt": "jax<0.4.36\n"}, "0.4.35.999"),
        # Pins the project installs from a requirements folder (a noxfile's `-r requirements/test.txt`)
        # or a constraints file bind it as much as the root's.
        ({"pyproject.toml": '[project]\nname = "x"\ndependencies = ["jax"]\n', "requirements/test.txt": "jax==0.4.24\n"}, "0.4.24"),
        ({"requirements/base.txt": "numpy\njax>=0.4.20\n", "requirements/dev.txt": "-r base.txt\npytest\n"}, "0.4.20"),
        ({"setup.py": "setup(install_requires=['jax'])", "constraints.txt": "jax==0.4.10\n"}, "0.4.10"),
        # Look-alikes: no version, other distributions.
        ({"requirements.txt": "jax\njaxlib>=0.4.1\njax-md>=0.2\njaxtyping>=0.2.0\n"}, None),
        ({"pyproject.toml": '[project]\nname = "x"\ndependencies = ["flax>=0.8"]\n'}, None),
    ],
)
def test_jax_requirement(tmp_path: Path, files: dict[str, str], expected: str | None):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert jax_requirement(tmp_path) == expected


# ----- JAX501: no split where the key is reused on purpose ------------------------------------------

_KEY_TEMPLATE = '''import jax
import jax.numpy as jnp


def run(key, x, y, params):
    {body}
'''


def _split_offered(body: str) -> bool:
    source = _KEY_TEMPLATE.format(body=body.replace("\n", "\n    "))
    from jaxlint.engine import check_source

    found = check_source(source, "example.py", Settings(), [RULES_BY_CODE["JAX501"]]).diagnostics
    assert found, "the reuse must still be reported"
    return any(d.fix is not None for d in found)


@pytest.mark.parametrize(
    "body",
    [
        # Paired comparisons: the results meet in a difference, a comparison, a comparing call.
        "a = jax.random.normal(key, (3,)) * x\nb = jax.random.uniform(key, (3,))\nreturn a - b",
        "a = jax.random.normal(key, (3,))\nb = jax.random.normal(key, (3,)) + x\nreturn jnp.sum(a) < jnp.sum(b)",
        "a = jax.random.normal(key, (3,))\nb = jax.random.uniform(key, (3,))\nsame = jnp.allclose(a, b)\nreturn same",
    ],
)
def test_deliberate_key_repeats_get_no_split(body):
    assert not _split_offered(body)


def test_reproduction_only_shown_is_not_reported():
    # The very same call printed twice: the draws reach only a display, nothing computed shares bits.
    source = _KEY_TEMPLATE.format(body="print(jax.random.normal(key, (3,)))\n    print(jax.random.normal(key, (3,)))\n    return x")
    from jaxlint.engine import check_source

    assert not check_source(source, "example.py", Settings(), [RULES_BY_CODE["JAX501"]]).diagnostics


@pytest.mark.parametrize(
    "body",
    [
        # Look-alikes: draws of other shapes or kinds whose results are used apart.
        "w = jax.random.normal(key, (3, 3))\nb = jax.random.normal(key, (3,))\nreturn w, b",
        "mask = jax.random.bernoulli(key, 0.5, (4,))\nnoise = jax.random.normal(key, (4,))\nreturn jnp.where(mask, noise, 0.0)",
        "a = jax.random.normal(key, (3,))\nb = jax.random.uniform(key, (3,))\nreturn a + b",
        # An exact repeat whose results are used apart (two biases): a mistake, split.
        "first = jax.random.normal(key, (3,))\nsecond = jax.random.normal(key, (3,))\nreturn first, second",
    ],
)
def test_mistaken_key_reuse_is_still_split(body):
    assert _split_offered(body)


_DERIVED_KEY_TEMPLATE = '''import jax
import jax.numpy as jnp


def build(keys, scale=1.0):
    return scale * jax.vmap(lambda k: jax.random.normal(k, (2,)))(jnp.atleast_1d(keys))


def run(key, x, y):
    {body}
'''


def _split_offered_through_derivation(body: str) -> bool:
    source = _DERIVED_KEY_TEMPLATE.format(body=body.replace("\n", "\n    "))
    from jaxlint.engine import check_source

    found = check_source(source, "example.py", Settings(), [RULES_BY_CODE["JAX501"]]).diagnostics
    assert found, "the reuse must still be reported"
    return any(d.fix is not None for d in found)


@pytest.mark.parametrize(
    "body",
    [
        # One derivation handed twice to the same builder with the same arguments: a copy (a target network).
        "online = build(jax.random.split(key, 4))\ntarget = build(jax.random.split(key, 4))\nreturn online, target",
        "return dict(live=build(jax.random.split(key, 3), 0.5), frozen=build(jax.random.split(key, 3), 0.5))",
        "first = build(jax.random.split(key)[0])\nsecond = build(jax.random.split(key)[0])\nreturn first, second",
        # ... or with computed arguments that differ: matched conditions.
        "a = build(jax.random.split(key, 2), x)\nb = build(jax.random.split(key, 2), y)\nreturn a, b",
    ],
)
def test_a_key_handed_on_through_one_derivation_twice_gets_no_split(body):
    assert not _split_offered_through_derivation(body)


@pytest.mark.parametrize(
    "body",
    [
        # Derivations of other sizes, other builders, or a literal that differs: different objects, split.
        "small = build(jax.random.split(key, 2))\nlarge = build(jax.random.split(key, 5))\nreturn small, large",
        "a = build(jax.random.split(key, 3))\nb = jax.vmap(lambda k: jax.random.uniform(k))(jax.random.split(key, 3))\nreturn a, b",
        "a = build(jax.random.split(key, 2), 1.0)\nb = build(jax.random.split(key, 2), 3.0)\nreturn a, b",
    ],
)
def test_a_key_derived_for_different_objects_is_still_split(body):
    assert _split_offered_through_derivation(body)


def test_no_split_is_written_after_a_deliberate_pair():
    # Splitting after the pair would split a key that has drawn (itself a reuse), and splitting before
    # it would break the pair: the finding stays for the author, the source is left as it is.
    body = (
        "print(jax.random.normal(key, (2,)))\nprint(jax.random.normal(key, (2,)))\n"
        "noise = jax.random.uniform(key, (2,))\nreturn noise"
    )
    source = _KEY_TEMPLATE.format(body=body.replace("\n", "\n    "))
    assert _fixed(source, ["JAX501"]) == source


def test_timing_fix_needs_a_jax_with_block_until_ready():
    source = (FIXTURES / "fixes" / "JAX202" / "block.in.py").read_text()
    assert _fixed(source, ["JAX202"], Settings(target_jax_version="0.2.25"), unsafe=False) == source
    assert _fixed(source, ["JAX202"], Settings(jax_requirement="0.2.27"), unsafe=False) != source
