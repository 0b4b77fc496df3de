"""What a closed-over array costs a compiled function, by size (the fact JAX305 rests on).

A traced function that reads an array from an enclosing scope bakes it into the program as a
constant; passed as an argument it stays a buffer. This script compiles the same computation both
ways for arrays from 1,000 to 16 million float32 elements and prints, per size, the compile time
of each (lowering included, best of 3, a fresh function each time so no cache answers), their
ratio, and the size of the lowered program text. Where the ratio stays near 1 the closure costs
nothing; JAX305's size threshold is read from where it does not.

    python benchmarks/captured_constant.py            # CPU here; on a GPU machine it uses the GPU
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

SIZES = (1_000, 4_096, 15_000, 65_536, 262_144, 1_000_000, 4_000_000, 16_000_000)
REPEATS = 3


def _compile_seconds(build) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        function, arguments = build()
        start = time.perf_counter()
        jax.jit(function).lower(*arguments).compile()
        best = min(best, time.perf_counter() - start)
    return best


def _closure(table: jax.Array, x: jax.Array):
    def build():
        def reads_closure(v):
            return jnp.tanh(v * table).sum()

        return reads_closure, (x,)

    return build


def _argument(table: jax.Array, x: jax.Array):
    def build():
        def takes_argument(v, t):
            return jnp.tanh(v * t).sum()

        return takes_argument, (x, table)

    return build


def main() -> None:
    device = jax.devices()[0]
    print(f"jax {jax.__version__} on {device.platform} ({device.device_kind}); best of {REPEATS} compiles each")
    print(f"{'elements':>11} {'MB':>7} {'closure ms':>11} {'argument ms':>12} {'ratio':>6} {'program MB':>11}")
    rng = np.random.default_rng(0)
    for size in SIZES:
        table = jnp.asarray(rng.standard_normal(size, dtype=np.float32))
        x = jnp.ones(size, jnp.float32)
        closure = _compile_seconds(_closure(table, x))
        argument = _compile_seconds(_argument(table, x))

        def reads_closure(v):
            return jnp.tanh(v * table).sum()

        program = len(jax.jit(reads_closure).lower(x).as_text())
        print(
            f"{size:>11,} {size * 4 / 1e6:>7.2f} {closure * 1e3:>11.1f} {argument * 1e3:>12.1f} "
            f"{closure / argument:>6.2f} {program / 1e6:>11.2f}"
        )


if __name__ == "__main__":
    main()
