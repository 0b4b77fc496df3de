"""What one eager gradient costs, by the size of the differentiated function (the fact JAX203's cost
model rests on, semantic/loop_cost.py).

Outside `jit`, `jax.grad(f)(x)` traces `f` with JVP tracers, transposes it and dispatches every
operation of the forward and backward passes, each on its own. This script differentiates functions
of 4 to 202 array operations (a chain of `tanh` and a multiply over 50 elements), best of 3 runs of
200 calls each, and prints the time per call, in microseconds and in units of one eager operation's
dispatch (measured the same way: `jnp.tanh` of the same array), and a line fit. loop_cost's
`WHOLE_COMPUTATION_DISPATCHES` is checked against it (results/eager_gradient_cost_{cpu,h200}.txt).

The second table differentiates the same functions where they are jitted (`jax.value_and_grad(f)` of
a `jax.jit(f)`, as a tutorial does with a jitted loss): the forward and backward passes are compiled
calls, and what is left eager is the differentiation around them, whatever the function's size
(loop_cost's `COMPILED_GRADIENT_DISPATCHES`).

    python benchmarks/eager_gradient_cost.py            # CPU here; on a GPU machine it uses the GPU
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

CHAIN_LENGTHS = (1, 5, 20, 50, 100)
CALLS = 200
REPEATS = 3


def _chain(length: int, data):
    def function(weight):
        value = weight * data
        for _ in range(length):
            value = jnp.tanh(value) * 1.01
        return jnp.mean(value)

    return function


def best_seconds_per_call(call, calls: int = CALLS, repeats: int = REPEATS) -> float:
    """Seconds per call of `call`, the best of `repeats` runs of `calls` calls each, waiting for the
    last result (shared with eager_update_cost.py)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            result = call()
        jax.block_until_ready(result)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def main() -> None:
    data = jnp.asarray(np.random.default_rng(0).normal(size=50).astype(np.float32))
    dispatch = best_seconds_per_call(lambda: jnp.tanh(data))
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; one eager operation: {dispatch * 1e6:.1f} us")
    print(f"{'operations':>10} {'us per grad':>12} {'in dispatches':>14}")
    points = []
    for length in CHAIN_LENGTHS:
        gradient = jax.grad(_chain(length, data))
        gradient(1.0)  # (a first call: nothing is cached outside jit, but imports and warm paths settle)
        seconds = best_seconds_per_call(lambda: gradient(1.0))
        operations = 2 * length + 2  # the multiply, `length` tanh and multiplies, the mean
        points.append((operations, seconds / dispatch))  # (dispatch units; the fit is in seconds)
        print(f"{operations:>10} {seconds * 1e6:>12.0f} {seconds / dispatch:>14.0f}")
    slope, intercept = np.polyfit([p[0] for p in points], [p[1] * dispatch for p in points], 1)
    print(f"fit: one eager gradient ~ {intercept * 1e6:.0f} us + {slope * 1e6:.0f} us per operation of the function")
    print(f"{'operations':>10} {'us per grad of jitted':>22} {'in dispatches':>14}")
    for length in CHAIN_LENGTHS:
        gradient = jax.value_and_grad(jax.jit(_chain(length, data)))
        gradient(1.0)  # (compiles the forward and backward passes once)
        seconds = best_seconds_per_call(lambda: gradient(1.0))
        print(f"{2 * length + 2:>10} {seconds * 1e6:>22.0f} {seconds / dispatch:>14.0f}")


if __name__ == "__main__":
    main()
