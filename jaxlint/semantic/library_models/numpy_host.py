"""Library model: `numpy`.

NumPy functions compute on the host; given a JAX array they first copy it to the host, which waits
for the device ("np.asarray(x)" is the documented way to bring an array back:
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
    "builtins.float": {"returns": "host", "syncs": True},
    "builtins.int": {"returns": "host", "syncs": True},
    "builtins.bool": {"returns": "host", "syncs": True},
    # argparse results are host configuration: no device buffers.
    "argparse.ArgumentParser.parse_args": {"returns": "no_buffers"},
    "argparse.Namespace": {"returns": "no_buffers"},
}
