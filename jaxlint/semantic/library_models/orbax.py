"""Library model: Orbax checkpointing.

A synchronous `Checkpointer.save` writes the arrays before it returns: it waits for them on the
host. `CheckpointManager` and `AsyncCheckpointer` save in a background thread after a copy.
https://orbax.readthedocs.io/en/latest/guides/checkpoint/api_reference/checkpoint.checkpointers.html

Flashbax's `Vault` stores a replay buffer's experience on disk (through TensorStore); its `read()`
loads the stored experience, a whole dataset, before it returns.
https://github.com/instadeepai/flashbax (flashbax/vault/vault.py)
"""

MODELS = {
    "orbax.checkpoint.PyTreeCheckpointer": {"returns": "object:orbax.checkpoint.Checkpointer"},
    "orbax.checkpoint.StandardCheckpointer": {"returns": "object:orbax.checkpoint.AsyncCheckpointer"},
    "orbax.checkpoint.Checkpointer": {"returns": "object:orbax.checkpoint.Checkpointer"},
    "orbax.checkpoint.AsyncCheckpointer": {"returns": "object:orbax.checkpoint.AsyncCheckpointer"},
    "orbax.checkpoint.CheckpointManager": {"returns": "object:orbax.checkpoint.CheckpointManager"},
    "orbax.checkpoint.Checkpointer.save": {"returns": "host", "syncs": True},
    # A restore reads the checkpoint from storage before it returns (an async checkpointer saves in the
    # background, but restores synchronously). Handed a template (`item=`, `target=`: a TrainState, a
    # module's state), it fills the template's structure: the result is what the template is.
    "orbax.checkpoint.Checkpointer.restore": {"returns": "same:1,item,target|device_tree", "result": "fresh", "reads_storage": True},
    "orbax.checkpoint.AsyncCheckpointer.restore": {"returns": "same:1,item,target|device_tree", "result": "fresh", "reads_storage": True},
    "orbax.checkpoint.CheckpointManager.restore": {"returns": "device_tree", "result": "fresh", "reads_storage": True},
    "flashbax.vault.Vault": {"returns": "object:flashbax.vault.Vault"},
    "flashbax.vault.Vault.read": {"reads_storage": True},
}
