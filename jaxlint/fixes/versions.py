"""Which JAX a fix may write for: the oldest of `target-jax-version`, the jax requirement of the
project jaxlint was started in (config.jax_requirement), and that of the file's own nearest project
(a vendored package or a sub-project with its own requirements.txt pins its own jax, whatever folder
`jaxlint fix` was given). None means nothing says.

Where nothing says, two kinds of form are told apart. A form that is the point of the fix (the
replacement of a deprecated API, `jax.nn.dot_product_attention` for hand-written attention) is
written for the newest JAX: the old spelling is what the fix removes. A form that is only a newer
spelling of something every JAX can say (`@jax.jit(donate_argnums=...)` for
`@functools.partial(jax.jit, donate_argnums=...)`) is written in the old spelling (`stated_at_least`):
code with no pin is as often a 2021 script as a new one, and the partial form runs on both.

Forms with a first version, as the fixes write them:
- `@jax.jit(donate_argnums=...)`, jit as a decorator factory: jax 0.4.36 (older: `functools.partial`);
- `jax.nn.dot_product_attention`: jax 0.4.31;
- `jax.block_until_ready`: jax 0.2.27 (its changelog: "add `jax.block_until_ready`");
- `jit(..., donate_argnames=...)`: jax 0.4.14;
- `jax.debug.print`/`jax.debug.callback`: jax 0.3.16 (jax/debug.py is absent at the tag jax-v0.3.15
  and present at jax-v0.3.16 of the jax repository);
- `jax.tree.*`, `jax.shard_map`, `jax.set_mesh` and the other replacements of the API table: their
  `replacement_since` there.
"""

from __future__ import annotations

from pathlib import Path

from jaxlint.config import jax_requirement, requirement_files
from jaxlint.semantic.project import file_digest
from jaxlint.rules.api_table import parse_version  # one reading of version strings



JIT_DECORATOR_FACTORY = "0.4.36"
DOT_PRODUCT_ATTENTION = "0.4.31"
BLOCK_UNTIL_READY = "0.2.27"
DONATE_ARGNAMES = "0.4.14"
JAX_DEBUG = "0.3.16"


def oldest_supported(settings, file_requirement: str | None = None) -> str | None:
    """The oldest JAX version the fixed code must run on, or None when nothing says."""
    candidates = [
        version
        for version in (getattr(settings, "target_jax_version", None), getattr(settings, "jax_requirement", None), file_requirement)
        if parse_version(version) is not None
    ]
    return min(candidates, key=parse_version) if candidates else None


def oldest_for_file(context) -> str | None:
    """`oldest_supported` for the module being checked, its own project's requirement included."""
    return context.memo(("versions", "oldest"), _oldest_for_file, context.settings, context.source.filename, context.model.project)


def _oldest_for_file(settings, filename: str, project=None) -> str | None:
    path = Path(filename)
    # Only a file on disk has a project: stdin (`-`) and in-memory names say nothing of one.
    if not filename or not path.is_file():
        return oldest_supported(settings)
    if project is not None:
        # The findings now depend on the requirement files too: a cached result of this module is
        # stale once one of them changes (a new pin in a vendored package's requirements.txt).
        for requirement in requirement_files(path):
            try:
                project.dependencies[str(requirement)] = file_digest(requirement.read_bytes())
            except OSError:
                continue
    return oldest_supported(settings, jax_requirement(path))


def stated_at_least(context, version: str) -> bool:
    """Whether the file's projects state an oldest JAX, and it is `version` or newer."""
    oldest = parse_version(oldest_for_file(context))
    return oldest is not None and oldest >= parse_version(version)


def supports(context, version: str | None) -> bool:
    """Whether code written for JAX `version` runs on every JAX the file's projects support."""
    needed = parse_version(version)
    if needed is None:
        return True
    oldest = parse_version(oldest_for_file(context))
    return oldest is None or oldest >= needed
