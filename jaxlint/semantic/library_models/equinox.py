"""Library model: Equinox.

Layers take their initialisation key as the `key` keyword (`eqx.nn.Linear(in, out, key=k)`) and
draw from it: each splits it into one key per parameter (`wkey, bkey = split(key)`), so two layers
given one key draw the same bits (two `Linear`s of one shape get the same weights).
https://docs.kidger.site/equinox/api/nn/linear/
"""

MODELS = {
    **{
        f"equinox.nn.{layer}": {"returns": "device_tree", "consumes_key": ("key",), "result": "fresh", "key_derivation": "split"}
        for layer in ("Linear", "MLP", "Conv", "Conv1d", "Conv2d", "Conv3d", "Embedding", "GRUCell", "LSTMCell",
                      "MultiheadAttention", "ConvTranspose2d", "Sequential")
    },
    "equinox.filter_jit": {"returns": "jitted", "compiles": True},
    # Calling a module of the project (a class deriving from eqx.Module) runs its forward pass.
    # https://docs.kidger.site/equinox/api/module/module/
    "equinox.Module.__call__": {"returns": "device_tree", "runs_model": True},
    "equinox.filter_pmap": {"returns": "jitted", "compiles": True},
    # The filtered gradients return a function that differentiates its first argument's arrays
    # (jax_core.py: called outside jit, a whole forward and backward pass op by op).
    # https://docs.kidger.site/equinox/api/transformations/#equinox.filter_grad
    "equinox.filter_grad": {"returns": "function:jax.DifferentiatedFunction"},
    "equinox.filter_value_and_grad": {"returns": "function:jax.DifferentiatedFunction"},
    # apply_updates adds updates to the array leaves: fresh buffers (non-array leaves are shared).
    # https://docs.kidger.site/equinox/api/manipulation/#equinox.apply_updates
    "equinox.apply_updates": {"returns": "device_tree", "result": "fresh"},
    # partition/filter/combine rearrange the same leaves: the same buffers.
    "equinox.partition": {"returns": "device_tree", "result": "alias:0"},
    "equinox.filter": {"returns": "device_tree", "result": "alias:0"},
    "equinox.combine": {"returns": "device_tree", "result": "alias:0"},
}
