"""What drawing batch indices on the device and reading them one by one costs (JAX201, semantic/device_indices.py).

A language-model batch sampler written as `ix = jax.random.randint(...)` then `jnp.stack([data[i : i +
block] for i in ix])` asks the device for each start position: every slice bound is a blocking read,
and the first one waits for the training step queued before it. This script times three samplers
around the same jitted step and prints per-step times and ratios against the host-drawn sampler:

- `device`: indices drawn with `jax.random`, sliced one by one (what JAX201 reports);
- `host`: the same slices, indices drawn with NumPy (the rule's advice);
- `gather`: indices drawn with `jax.random` and gathered inside one jitted function (no host reads).

    python benchmarks/drawn_indices.py [--steps 50] [--variant device|host|gather|all]

The numbers are the machine's (CPU or accelerator); `jaxlint runtime -- python
benchmarks/drawn_indices.py --variant device` shows the reads the runtime mode records.
"""

from __future__ import annotations

import argparse
import functools
import time

import jax
import jax.numpy as jnp
import numpy as np

BLOCK = 256
BATCH = 32
WIDTH = 1024


@functools.partial(jax.jit, donate_argnums=0)
def train_step(weights, inputs, targets):
    """A small language-model-shaped step: embed, two matmuls, a squared error, an SGD update."""

    def loss(w):
        hidden = jnp.tanh(w["embed"][inputs] @ w["mix"])
        return jnp.mean((hidden @ w["out"] - w["embed"][targets]) ** 2)

    value, grads = jax.value_and_grad(loss)(weights)
    return jax.tree.map(lambda w, g: w - 1e-3 * g, weights, grads), value


def device_batch(key, data):
    ix = jax.random.randint(key, (BATCH,), 0, data.shape[0] - BLOCK - 1)
    inputs = jnp.stack([data[i:i + BLOCK] for i in ix])
    targets = jnp.stack([data[i + 1:i + 1 + BLOCK] for i in ix])
    return inputs, targets


def host_batch(generator, data):
    ix = generator.integers(0, data.shape[0] - BLOCK - 1, size=BATCH)
    inputs = jnp.stack([data[i:i + BLOCK] for i in ix])
    targets = jnp.stack([data[i + 1:i + 1 + BLOCK] for i in ix])
    return inputs, targets


@jax.jit
def gather_batch(key, data):
    ix = jax.random.randint(key, (BATCH,), 0, data.shape[0] - BLOCK - 1)
    window = lambda start: jax.lax.dynamic_slice_in_dim(data, start, BLOCK + 1)  # noqa: E731
    rows = jax.vmap(window)(ix)
    return rows[:, :-1], rows[:, 1:]


def run(variant: str, steps: int, data, weights) -> float:
    """Seconds per step over `steps` steps after three warm-up steps, waiting for the last one."""
    key = jax.random.key(0)
    generator = np.random.default_rng(0)
    start = 0.0
    for step in range(steps + 3):
        if step == 3:
            jax.block_until_ready(weights)
            start = time.perf_counter()
        key, sub = jax.random.split(key)
        if variant == "device":
            inputs, targets = device_batch(sub, data)
        elif variant == "host":
            inputs, targets = host_batch(generator, data)
        else:
            inputs, targets = gather_batch(sub, data)
        weights, loss = train_step(weights, inputs, targets)
    jax.block_until_ready(weights)
    return (time.perf_counter() - start) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--variant", choices=("device", "host", "gather", "all"), default="all")
    args = parser.parse_args()
    vocab = 8192
    data = jnp.asarray(np.random.default_rng(1).integers(0, vocab, size=2_000_000), dtype=jnp.int32)
    init = jax.random.split(jax.random.key(1), 3)
    weights = {
        "embed": 0.02 * jax.random.normal(init[0], (vocab, WIDTH)),
        "mix": 0.02 * jax.random.normal(init[1], (WIDTH, WIDTH)),
        "out": 0.02 * jax.random.normal(init[2], (WIDTH, WIDTH)),
    }
    device = jax.devices()[0]
    print(f"device: {device.platform} / {device.device_kind}; batch {BATCH} x {BLOCK}, width {WIDTH}, {args.steps} steps")
    variants = ("host", "device", "gather") if args.variant == "all" else (args.variant,)
    results = {}
    for variant in variants:
        fresh = jax.tree.map(jnp.copy, weights)  # (each run donates the weights it is given)
        results[variant] = run(variant, args.steps, data, fresh)
    for variant, seconds in results.items():
        line = f"{variant:>7}: {seconds * 1e3:8.2f} ms per step"
        if "host" in results and variant != "host":
            line += f"   ({seconds / results['host']:.2f}x the host-drawn sampler)"
        print(line)


if __name__ == "__main__":
    main()
