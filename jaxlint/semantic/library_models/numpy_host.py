"""Library model: `numpy`.

NumPy functions compute on the host; given a JAX array they first copy it to the host, which waits
for the device (`np.asarray(x)` brings an array back to the host:
https://docs.jax.dev/en/latest/faq.html#controlling-data-and-computation-placement-on-devices).
"""

NAMESPACES = {
    "numpy.": {"returns": "host"},
}

MODELS = {
    "numpy.asarray": {"returns": "host", "syncs": True},
    "numpy.array": {"returns": "host", "syncs": True},
    "numpy.float32": {"returns": "host", "syncs": True},
    "numpy.float64": {"returns": "host", "syncs": True},
}
