"""Does a jitted call that contains a host callback return before its work is done?

JAX dispatches a compiled call asynchronously: the call returns at once and the device works on,
so a wall-clock interval around it measures dispatch unless something waits (JAX202). A program
with a host callback inside (`jax.debug.callback`, `io_callback`, also under `lax.cond`) is
different on the runtimes measured here: the call returns only when the program has finished, so
an interval around it measures the work. This script times, for the same scanned computation with
and without callbacks, how long the call takes to return and how long until its result is ready.

    python benchmarks/callback_sync.py [--size 400] [--steps 200]

It prints one line per variant and the share of the work done when the call returned.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback


def build(kind: str, steps: int):
    def program(x):
        def step(carry, i):
            carry = jnp.tanh(carry @ carry)
            if kind == "debug.callback under cond":
                jax.lax.cond(i % 50 == 0, lambda: jax.debug.callback(lambda v: None, carry[0, 0]), lambda: None)
            elif kind == "debug.print under cond":
                jax.lax.cond(i % 50 == 0, lambda: jax.debug.print("step {i}", i=i), lambda: None)
            elif kind == "io_callback":
                io_callback(lambda v: np.float32(0), jax.ShapeDtypeStruct((), jnp.float32), carry[0, 0], ordered=True)
            elif kind == "pure_callback":
                carry = carry + jax.pure_callback(lambda v: np.float32(0), jax.ShapeDtypeStruct((), jnp.float32), carry[0, 0])
            return carry, None

        carry, _ = jax.lax.scan(step, x, jnp.arange(steps))
        return carry

    return jax.jit(program)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=400)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    x = jnp.ones((args.size, args.size), jnp.float32) * 0.01
    print(f"jax {jax.__version__} on {jax.devices()[0].platform} ({jax.devices()[0].device_kind})")
    for kind in ("no callback", "debug.callback under cond", "debug.print under cond", "io_callback", "pure_callback", "jax_debug_nans on"):
        if kind == "jax_debug_nans on":
            jax.config.update("jax_debug_nans", True)  # last: it stays on for the rest of the process
        program = build(kind, args.steps)
        program(x).block_until_ready()
        returned, finished = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = program(x)
            returned.append(time.perf_counter() - start)
            result.block_until_ready()
            finished.append(time.perf_counter() - start)
        back, done = float(np.median(returned)), float(np.median(finished))
        print(f"{kind:28s} returns after {back * 1e3:9.3f} ms, result ready after {done * 1e3:9.3f} ms "
              f"({100 * back / done:5.1f}% of the work done at return)")


if __name__ == "__main__":
    main()
