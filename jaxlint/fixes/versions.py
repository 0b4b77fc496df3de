"""Which JAX a fix may write for: the oldest of `target-jax-version` and the project's own jax
requirement (config.jax_requirement). None means the newest: nothing constrains the form.

Forms with a first version, as the fixes write them:
- `@jax.jit(donate_argnums=...)`, jit as a decorator factory: jax 0.4.36 (older: `functools.partial`);
- `jax.nn.dot_product_attention`: jax 0.4.31;
- `jax.block_until_ready`: jax 0.2.27 (its changelog: "add `jax.block_until_ready`");
- `jit(..., donate_argnames=...)`: jax 0.4.14;
- `jax.tree.*`, `jax.shard_map`, `jax.set_mesh` and the other replacements of the API table: their
  `replacement_since` there.
"""

from __future__ import annotations

from jaxlint.rules.api_table import parse_version  # one reading of version strings



JIT_DECORATOR_FACTORY = "0.4.36"
DOT_PRODUCT_ATTENTION = "0.4.31"
BLOCK_UNTIL_READY = "0.2.27"
DONATE_ARGNAMES = "0.4.14"


def oldest_supported(settings) -> str | None:
    """The oldest JAX version the fixed code must run on, or None when nothing says."""
    candidates = [
        version for version in (getattr(settings, "target_jax_version", None), getattr(settings, "jax_requirement", None))
        if parse_version(version) is not None
    ]
    return min(candidates, key=parse_version) if candidates else None


def supports(context, version: str | None) -> bool:
    """Whether code written for JAX `version` runs on every JAX the project supports."""
    needed = parse_version(version)
    if needed is None:
        return True
    oldest = parse_version(oldest_supported(context.settings))
    return oldest is None or oldest >= needed
