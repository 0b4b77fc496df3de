"""Library model: `jax` (top level), `jax.tree`/`jax.tree_util`, `jax.sharding`, `jax.example_libraries`.

Plain data, reviewed like code. The fields are described in `__init__.py`.
"""

MODELS = {
    # Places x on a device or sharding; an array already placed there is returned without a copy,
    # so the result may be the input itself. https://docs.jax.dev/en/latest/_autosummary/jax.device_put.html
    "jax.device_put": {"returns": "device", "result": "alias:0"},
    # Copies replicas to each device: new buffers.
    "jax.device_put_replicated": {"returns": "device_tree", "result": "fresh"},
    "jax.device_put_sharded": {"returns": "device_tree", "result": "fresh"},
    # Transfers x to the host as NumPy values, so it waits for them.
    # https://docs.jax.dev/en/latest/_autosummary/jax.device_get.html
    "jax.device_get": {"returns": "host", "syncs": True},
    # Waits, and returns its argument unchanged.
    # https://docs.jax.dev/en/latest/_autosummary/jax.block_until_ready.html
    "jax.block_until_ready": {"returns": "same:0", "syncs": True, "result": "alias:0"},
    # Transforms: a callable whose calls run compiled code (jit/pmap compile on first call per shape).
    "jax.jit": {"returns": "jitted", "compiles": True},
    "jax.pmap": {"returns": "jitted", "compiles": True},
    "jax.vmap": {"returns": "callable"},
    # Differentiating transforms return a function; calling it (outside jit) traces the function and
    # runs its forward and backward passes op by op, each operation dispatched on its own: a whole
    # computation, like a network's forward pass. `grad_fn = jax.value_and_grad(loss)` then
    # `grad_fn(params, batch)`. https://docs.jax.dev/en/latest/_autosummary/jax.grad.html
    **{
        f"jax.{name}": {"returns": "function:jax.DifferentiatedFunction"}
        for name in ("grad", "value_and_grad", "jacfwd", "jacrev", "hessian")
    },
    "jax.DifferentiatedFunction": {"returns": "device_tree", "result": "fresh", "runs_model": True},
    # tree_map applies its function leaf by leaf: the result holds what the function returns, fresh
    # buffers for arithmetic (`lambda p, g: p - lr * g`), the leaves themselves for `lambda x: x`.
    # https://docs.jax.dev/en/latest/_autosummary/jax.tree.map.html
    "jax.tree.map": {"returns": "tree_of_function"},
    "jax.tree_util.tree_map": {"returns": "tree_of_function"},
    "jax.tree_map": {"returns": "tree_of_function"},
    "jax.tree.leaves": {"returns": "host_list", "result": "alias:0"},
    "jax.tree_util.tree_leaves": {"returns": "host_list", "result": "alias:0"},
    # Sharding and device descriptions hold no array buffers.
    "jax.sharding.NamedSharding": {"returns": "no_buffers"},
    "jax.sharding.PositionalSharding": {"returns": "no_buffers"},
    "jax.sharding.SingleDeviceSharding": {"returns": "no_buffers"},
    "jax.sharding.Mesh": {"returns": "no_buffers"},
    "jax.sharding.PartitionSpec": {"returns": "no_buffers"},
    "jax.make_mesh": {"returns": "no_buffers"},
    "jax.devices": {"returns": "no_buffers"},
    "jax.local_devices": {"returns": "no_buffers"},
    # jax.example_libraries.optimizers: an optimizer is an (init_fun, update_fun, get_params) triple;
    # init_fun(params) returns "a pytree representing the initial optimizer state, which includes the
    # initial parameters": the state holds the caller's parameter arrays themselves.
    # https://docs.jax.dev/en/latest/jax.example_libraries.optimizers.html
    **{
        f"jax.example_libraries.optimizers.{name}": {
            "returns": "tuple:function:jax.example_libraries.optimizers.InitFn,"
            "function:jax.example_libraries.optimizers.UpdateFn,function:jax.example_libraries.optimizers.ParamsFn",
        }
        for name in ("sgd", "momentum", "nesterov", "adagrad", "rmsprop", "rmsprop_momentum", "adam", "adamax", "sm3", "adafactor")
    },
    # `@optimizers.optimizer` turns a function returning array-level (init, update, get_params) into an
    # optimizer maker like `sgd`: its calls return the triple, `init` and `update` mapped over every leaf
    # (jax/example_libraries/optimizers.py, `optimizer`; the module was `jax.experimental.optimizers`
    # before jax 0.2.25). A project's own optimizer written this way (`@optimizer def sgld(...)`) is one.
    **{
        f"{module}.optimizer": {"returns": "function:jax.example_libraries.optimizers.OptimizerMaker"}
        for module in ("jax.example_libraries.optimizers", "jax.experimental.optimizers")
    },
    "jax.example_libraries.optimizers.OptimizerMaker": {
        "returns": "tuple:function:jax.example_libraries.optimizers.InitFn,"
        "function:jax.example_libraries.optimizers.UpdateFn,function:jax.example_libraries.optimizers.ParamsFn",
    },
    "jax.example_libraries.optimizers.InitFn": {"returns": "device_tree", "result": "alias:0"},
    # update_fun(i, grads, opt_state) runs the optimizer's update over every parameter.
    "jax.example_libraries.optimizers.UpdateFn": {"returns": "device_tree", "result": "fresh", "runs_model": True},
    # get_params(opt_state) reads the parameters out of the state: the state's own arrays.
    "jax.example_libraries.optimizers.ParamsFn": {"returns": "device_tree", "result": "alias:0"},
    # jax.example_libraries.stax: a layer is an (init_fun, apply_fun) pair, and `serial(*layers)` composes
    # layers into a network whose apply_fun(params, inputs, **kwargs) runs every layer in turn: a whole
    # forward pass (a single layer, `Dense(10)`, is one or two operations, and is no such pair here).
    # init_fun(rng, input_shape) returns (output_shape, params): params drawn from rng.
    # https://docs.jax.dev/en/latest/jax.example_libraries.stax.html (the module was `jax.experimental.stax`
    # before jax 0.2.25).
    **{
        f"{module}.serial": {
            "returns": "tuple:function:jax.example_libraries.stax.InitFn,function:jax.example_libraries.stax.ApplyFn",
        }
        for module in ("jax.example_libraries.stax", "jax.experimental.stax")
    },
    "jax.example_libraries.stax.InitFn": {"returns": "tuple:host,device_tree", "result": "fresh"},
    "jax.example_libraries.stax.ApplyFn": {"returns": "device", "runs_model": True, "weights": (0, "params")},
}
