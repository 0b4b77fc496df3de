"""Library model: Hugging Face `transformers`, its Flax models (`FlaxBertModel`, `FlaxT5ForConditionalGeneration`, ...).

Every Flax model class of the library derives from `FlaxPreTrainedModel`: `from_pretrained(name)`
downloads or reads a checkpoint and returns an instance that holds the trained weights in
`model.params`; calling the instance (`model(input_ids, params=...)`) and its `encode`/`decode`
methods (encoder-decoder models) run the network's whole forward pass with the parameters handed as
`params` (the instance's own `model.params` when none is given), and `generate` runs the decoding
loop with them. So the `params` argument holds every weight of the network, as linen's `variables` do.
https://huggingface.co/docs/transformers/main_classes/model#transformers.FlaxPreTrainedModel
"""

_PRETRAINED = "transformers.FlaxPreTrainedModel"

MODELS = {
    f"{_PRETRAINED}.from_pretrained": {"returns": f"object:{_PRETRAINED}", "reads_storage": True},
    # `params` is the keyword of `__call__(input_ids, ..., params=None, ...)`, `encode`, `decode` and
    # `generate(input_ids, ..., params=None, ...)`; callers pass it by keyword (the positions before it
    # are the inputs and masks).
    f"{_PRETRAINED}.__call__": {"returns": "device_tree", "runs_model": True, "weights": ("params",)},
    f"{_PRETRAINED}.encode": {"returns": "device_tree", "runs_model": True, "weights": ("params",)},
    f"{_PRETRAINED}.decode": {"returns": "device_tree", "runs_model": True, "weights": ("params",)},
    f"{_PRETRAINED}.generate": {"returns": "device_tree", "runs_model": True, "weights": ("params",)},
}

# Every class the library exports under a `Flax` name (`transformers.FlaxBertModel`) is a model of it.
CLASS_NAMESPACES = {"transformers.Flax": _PRETRAINED}
