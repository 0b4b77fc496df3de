"""What one eager optimizer update costs, by the number of leaves it updates (the fact JAX203's cost
model rests on for updates and per-leaf tree work, semantic/tree_leaves.py and semantic/loop_cost.py).

Outside `jit`, an optimizer update and `apply_updates` dispatch a few operations per leaf of the
parameter tree, each on its own, plus Python work per call (flattening trees). This script times a
hand-written SGD step (`tree_map(lambda p, g: p - lr * g, ...)`), and, where optax is installed,
`optax.sgd` and `optax.adam` updates followed by `optax.apply_updates`, over trees of 1 to 64 scalar
leaves, best of 3 runs of 40 calls each, and prints the time per call in microseconds and in units
of one eager operation's dispatch, and a line fit per leaf.

    python benchmarks/eager_update_cost.py            # CPU here; on a GPU machine it uses the GPU
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from eager_gradient_cost import best_seconds_per_call  # (run as a script: its folder is on sys.path)

LEAVES = (1, 4, 16, 64)
CALLS = 40
REPEATS = 3


def _updates():
    steps = {"tree_map sgd": lambda: (lambda params, grads, state: (jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads), state), lambda params: None)}
    try:
        import optax
    except ImportError:
        return steps
    for name, tx in (("optax.sgd", optax.sgd(1e-2)), ("optax.adam", optax.adam(1e-3))):
        def make(tx=tx):
            def step(params, grads, state):
                updates, state = tx.update(grads, state, params)
                return optax.apply_updates(params, updates), state
            return step, tx.init
        steps[name] = make
    return steps


def main() -> None:
    data = jnp.asarray(np.float32(1.0))
    dispatch = best_seconds_per_call(lambda: jnp.tanh(data), CALLS, REPEATS)
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; one eager operation: {dispatch * 1e6:.1f} us")
    for name, make in _updates().items():
        step, init = make()
        points = []
        print(f"{name}: {'leaves':>6} {'us per update':>14} {'in dispatches':>14}")
        for leaves in LEAVES:
            params = {f"p{i}": jnp.asarray(np.float32(i)) for i in range(leaves)}
            grads = {f"p{i}": jnp.asarray(np.float32(0.5)) for i in range(leaves)}
            state = init(params)
            step(params, grads, state)
            seconds = best_seconds_per_call(lambda: step(params, grads, state)[0], CALLS, REPEATS)
            points.append((leaves, seconds))
            print(f"{'':>{len(name) + 1}} {leaves:>7} {seconds * 1e6:>14.0f} {seconds / dispatch:>14.1f}")
        slope, intercept = np.polyfit([p[0] for p in points], [p[1] for p in points], 1)
        print(f"  fit: {intercept * 1e6:.0f} us + {slope * 1e6:.1f} us per leaf "
              f"({intercept / dispatch:.1f} + {slope / dispatch:.1f} dispatches per leaf)")


if __name__ == "__main__":
    main()
