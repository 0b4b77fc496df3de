"""Library model: Python built-ins and the standard library.

`float(x)`, `int(x)` and `bool(x)` of a JAX array copy its value to the host, so they wait for the
computation that produces it (see https://docs.jax.dev/en/latest/async_dispatch.html).
argparse results are host configuration and hold no device buffers.
"""

MODELS = {
    "builtins.float": {"returns": "host", "syncs": True},
    "builtins.int": {"returns": "host", "syncs": True},
    "builtins.bool": {"returns": "host", "syncs": True},
    # Unpickling a saved object (parameters, a checkpoint) reads the file before it returns.
    "pickle.load": {"reads_storage": True},
    "argparse.ArgumentParser.parse_args": {"returns": "no_buffers"},
    "argparse.Namespace": {"returns": "no_buffers"},
}
