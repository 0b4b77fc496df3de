"""Library model: Flax (`flax.linen`, `flax.nnx`, `flax.training.train_state`, `flax.jax_utils`).

`Module.init(rngs, *args)` draws the initial parameters from its key and returns them as a fresh
pytree of device arrays; `Module.apply(variables, *args, rngs=...)` draws from the keys in `rngs`.
https://flax.readthedocs.io/en/latest/api_reference/flax.linen/module.html#flax.linen.Module.init
"""

MODELS = {
    # Reads the checkpoint file before it returns the restored tree.
    # https://flax.readthedocs.io/en/latest/api_reference/flax.training.html#flax.training.checkpoints.restore_checkpoint
    # Handed a template (`target`), a restore or deserialisation fills its structure: the result is
    # what the template is (a TrainState restored is a TrainState).
    # https://flax.readthedocs.io/en/latest/api_reference/flax.serialization.html
    "flax.training.checkpoints.restore_checkpoint": {"returns": "same:1,target", "reads_storage": True},
    "flax.serialization.from_state_dict": {"returns": "same:0,target"},
    "flax.serialization.from_bytes": {"returns": "same:0,target"},
    # Linen draws every variable (and every `make_rng` of `apply`) from `fold_in(key, h)`, `h` the first
    # 4 bytes of a SHA-1 of the module path and a per-name counter (flax/core/scope.py, LazyRng and
    # _fold_in_static): "by_name" (tests/test_jax_behaviour.py checks it against `split`).
    "flax.linen.Module.init": {"returns": "device_tree", "consumes_key": (0, "rngs"), "result": "fresh", "key_derivation": "by_name"},
    "flax.linen.Module.init_with_output": {
        "returns": "device_tree", "consumes_key": (0, "rngs"), "result": "fresh", "key_derivation": "by_name",
    },
    # `variables` (position 0): the module's parameters and other collections.
    "flax.linen.Module.apply": {
        "returns": "device_tree", "consumes_key": ("rngs",), "runs_model": True, "key_derivation": "by_name",
        "weights": (0, "variables"),
    },
    # `self(x)` in a method of a linen module (a bound module, run through `apply(..., method=...)`):
    # its whole forward pass. Only `self` is bound: a linen instance called by name outside a module
    # is unbound (library_models.BOUND_ONLY), and inside one it is a sub-network, not this entry.
    "flax.linen.Module.__call__": {"returns": "device_tree", "runs_model": True},
    # TrainState.create(apply_fn, params, tx) stores `params` as they are and calls tx.init(params).
    # https://flax.readthedocs.io/en/latest/api_reference/flax.training.html#flax.training.train_state.TrainState
    # `apply_fn` and `tx` are `struct.field(pytree_node=False)`: static, not leaves.
    "flax.training.train_state.TrainState.create": {
        "returns": "object:flax.training.train_state.TrainState", "result": "alias:params", "static_arguments": ("apply_fn", "tx"),
    },
    # apply_gradients returns a new state: new params and optimizer state, other fields shared.
    "flax.training.train_state.TrainState.apply_gradients": {"returns": "object:flax.training.train_state.TrainState", "result": "alias:self", "runs_model": True},
    # apply_fn is the module's apply, stored at create.
    "flax.training.train_state.TrainState.apply_fn": {"returns": "device_tree", "runs_model": True, "weights": (0, "variables")},
    "flax.training.train_state.TrainState.replace": {"returns": "object:flax.training.train_state.TrainState", "result": "alias:self"},
    # replicate copies a tree onto every local device (device_put_replicated): new buffers.
    # https://flax.readthedocs.io/en/latest/api_reference/flax.jax_utils.html
    "flax.jax_utils.replicate": {"returns": "device_tree", "result": "fresh"},
    # unreplicate takes `x[0]` of every leaf: on jax 0.4 the first shard of a pmapped array is that
    # shard's own buffer, not a copy (and a device_put to the same device keeps it), so donating the
    # replicated tree later deletes what it returned (reproduced on jax 0.4.30 by the fix audit).
    "flax.jax_utils.unreplicate": {"returns": "device_tree", "result": "alias:0"},
    # nnx: Rngs holds key streams; Optimizer(model, tx) keeps the model's own variables. Its streams
    # hand out `fold_in(key, count)` in call order, so two Rngs built from one key hand out the same
    # keys (two models built from them get the same parameters).
    # https://flax.readthedocs.io/en/latest/api_reference/flax.nnx/rnglib.html
    "flax.nnx.Rngs": {"returns": "key", "consumes_key": (0, "default"), "result": "fresh", "key_derivation": "by_name"},
    "flax.nnx.Optimizer": {"returns": "object:flax.nnx.Optimizer", "result": "alias:0"},
    "flax.nnx.jit": {"returns": "jitted", "compiles": True},
    # Calling an nnx module runs its forward pass (`model(x)`, a class of the project deriving from
    # nnx.Module); an nnx Optimizer's update runs the optax update over every parameter, in place.
    # https://flax.readthedocs.io/en/latest/api_reference/flax.nnx/module.html
    "flax.nnx.Module.__call__": {"returns": "device_tree", "runs_model": True},
    "flax.nnx.Optimizer.update": {"runs_model": True},
    # nnx's gradients differentiate a module's parameters (jax_core.py: a function whose calls run a
    # whole forward and backward pass). https://flax.readthedocs.io/en/latest/api_reference/flax.nnx/transforms.html
    "flax.nnx.grad": {"returns": "function:jax.DifferentiatedFunction"},
    "flax.nnx.value_and_grad": {"returns": "function:jax.DifferentiatedFunction"},
    "flax.nnx.split": {"returns": "device_tree", "result": "alias:0"},
    "flax.nnx.state": {"returns": "device_tree", "result": "alias:0"},
}

# Every layer class of `flax.linen` (`nn.Dense(4)`) is a Module: its instances have `init`/`apply`.
CLASS_NAMESPACES = {"flax.linen.": "flax.linen.Module"}

# Methods whose name and keywords are the library's own signature, read as its entry where the source
# does not show the object's class (a state handed in by a framework, returned by a loader of another
# module): `apply_gradients(self, *, grads, **kwargs)` takes its gradients by keyword only, so
# `x.apply_gradients(grads=g)` is a TrainState (or a subclass) applying its optimizer to every parameter.
# https://flax.readthedocs.io/en/latest/api_reference/flax.training.html#flax.training.train_state.TrainState.apply_gradients
SIGNATURES = {
    "apply_gradients": ("flax.training.train_state.TrainState.apply_gradients", ("grads",)),
}

# Methods whose first argument has the library's own shape, read as its entry where the source does not
# show the object's class (a network handed in as a parameter, a state a function of another module
# builds): linen's `apply(variables, *args)` takes the variables as a dict of collections, so
# `x.apply({"params": p}, batch)` (also with `"batch_stats"` and others beside it) is a linen module's
# forward pass; a TrainState's `apply_fn` is the module's `apply`, so `s.apply_fn({"params": p}, x)`
# and `s.apply_fn(s.params, x)` (the state's own parameters) are too.
# https://flax.readthedocs.io/en/latest/api_reference/flax.linen/module.html#flax.linen.Module.apply
VARIABLES_SIGNATURES = {
    "apply": "flax.linen.Module.apply",
    "apply_fn": "flax.training.train_state.TrainState.apply_fn",
}
# The one collection every linen module with weights has, the key its variables dict shows.
PARAMS_COLLECTION = "params"
