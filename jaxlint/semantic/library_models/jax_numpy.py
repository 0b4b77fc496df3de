"""Library model: `jax.numpy`.

Every lower-case `jax.numpy` function returns a device array computed into a fresh buffer (JAX arrays are
immutable; "JAX versions of such functions will return copies instead [of views]",
https://docs.jax.dev/en/latest/jax.numpy.html), except those listed here. (Which of them return a
tuple of arrays rather than one is semantic/arrays.py's NON_ARRAY_RESULTS; their buffers are fresh too.)
"""

NAMESPACES = {
    "jax.numpy.": {"returns": "device", "result": "fresh"},
    "jax.nn.": {"returns": "device", "result": "fresh"},
    "jax.scipy.": {"returns": "device", "result": "fresh"},
    "jax.lax.": {"returns": "device", "result": "fresh"},
}

MODELS = {
    # "copy: ... Default is None, which will only copy when necessary": a JAX array of the same dtype
    # comes back as it is. https://docs.jax.dev/en/latest/_autosummary/jax.numpy.asarray.html
    "jax.numpy.asarray": {"returns": "device", "result": "alias:0"},
    # jnp.array "defaults to copy=True". https://docs.jax.dev/en/latest/_autosummary/jax.numpy.array.html
    "jax.numpy.array": {"returns": "device", "result": "fresh"},
    "jax.numpy.copy": {"returns": "device", "result": "fresh"},
    "jax.numpy.zeros_like": {"returns": "device", "result": "fresh"},
    "jax.numpy.ones_like": {"returns": "device", "result": "fresh"},
    "jax.numpy.full_like": {"returns": "device", "result": "fresh"},
    "jax.numpy.empty_like": {"returns": "device", "result": "fresh"},
    "jax.numpy.shape": {"returns": "host"},
    "jax.numpy.ndim": {"returns": "host"},
    "jax.numpy.size": {"returns": "host"},
    "jax.numpy.dtype": {"returns": "host"},
}
