"""Library model: Python built-ins and the standard library.

`float(x)`, `int(x)` and `bool(x)` of a JAX array copy its value to the host, so they wait for the
computation that produces it (see https://docs.jax.dev/en/latest/async_dispatch.html).
argparse results are host configuration and hold no device buffers.
A thread queue or a deque keeps what it is handed by reference: `put` and `append` read nothing (a
learner handing its parameters to actor threads, `params_queue.put(state.params)`, does not wait).
"""

MODELS = {
    "builtins.float": {"returns": "host", "syncs": True},
    "builtins.int": {"returns": "host", "syncs": True},
    "builtins.bool": {"returns": "host", "syncs": True},
    # Unpickling a saved object (parameters, a checkpoint) reads the file before it returns.
    "pickle.load": {"reads_storage": True},
    "argparse.ArgumentParser.parse_args": {"returns": "no_buffers"},
    "argparse.Namespace": {"returns": "no_buffers"},
    "queue.Queue": {"returns": "object:queue.Queue"},
    "queue.LifoQueue": {"returns": "object:queue.Queue"},
    "queue.SimpleQueue": {"returns": "object:queue.Queue"},
    "queue.Queue.put": {"stores": True},
    "queue.Queue.put_nowait": {"stores": True},
    "collections.deque": {"returns": "object:collections.deque"},
    "collections.deque.append": {"stores": True},
    "collections.deque.appendleft": {"stores": True},
}
