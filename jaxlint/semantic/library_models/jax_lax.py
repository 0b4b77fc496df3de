"""Library model: `jax.lax` (control flow and collectives; the element-wise and linear-algebra
functions are covered by the namespace default in jax_numpy.py: fresh device arrays)."""

MODELS = {
    # Loops and branches return new carries: fresh buffers (outside jit they run compiled).
    # https://docs.jax.dev/en/latest/_autosummary/jax.lax.scan.html
    "jax.lax.scan": {"returns": "device_tree", "compiles": True, "result": "fresh"},
    "jax.lax.fori_loop": {"returns": "device_tree", "compiles": True, "result": "fresh"},
    "jax.lax.while_loop": {"returns": "device_tree", "compiles": True, "result": "fresh"},
    "jax.lax.cond": {"returns": "device_tree", "result": "fresh"},
    "jax.lax.switch": {"returns": "device_tree", "result": "fresh"},
    "jax.lax.map": {"returns": "device_tree", "result": "fresh"},
    # stop_gradient is the identity on values: the same buffers.
    "jax.lax.stop_gradient": {"returns": "same:0", "result": "alias:0"},
}
