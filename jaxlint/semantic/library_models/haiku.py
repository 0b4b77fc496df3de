"""Library model: Haiku.

`hk.transform(f)` returns a Transformed pair: `init(rng, *args)` draws the parameters from `rng`,
`apply(params, rng, *args)` draws from `rng` (None when the function is deterministic).
https://dm-haiku.readthedocs.io/en/latest/api.html#haiku.transform
"""

MODELS = {
    "haiku.transform": {"returns": "object:haiku.Transformed"},
    "haiku.transform_with_state": {"returns": "object:haiku.TransformedWithState"},
    "haiku.without_apply_rng": {"returns": "object:haiku.TransformedNoRng"},
    # `hk.next_rng_key()` inside init/apply comes from a PRNGSequence of the key, which reserves keys with
    # `jax.random.split(key, n + 1)` (haiku/_src/base.py, PRNGSequence.reserve): "split".
    "haiku.Transformed.init": {"returns": "device_tree", "consumes_key": (0, "rng"), "result": "fresh", "key_derivation": "split"},
    # `params` (position 0; and `state`, position 1, with state): the network's weights.
    "haiku.Transformed.apply": {
        "returns": "device_tree", "consumes_key": (1, "rng"), "runs_model": True, "key_derivation": "split", "weights": (0, "params"),
    },
    "haiku.TransformedWithState.init": {
        "returns": "device_tree", "consumes_key": (0, "rng"), "result": "fresh", "key_derivation": "split",
    },
    "haiku.TransformedWithState.apply": {
        "returns": "device_tree", "consumes_key": (2, "rng"), "runs_model": True, "key_derivation": "split",
        "weights": (0, 1, "params", "state"),
    },
    "haiku.TransformedNoRng.init": {"returns": "device_tree", "consumes_key": (0, "rng"), "result": "fresh", "key_derivation": "split"},
    "haiku.TransformedNoRng.apply": {"returns": "device_tree", "runs_model": True, "weights": (0, "params")},
    # PRNGSequence(key) holds a key stream; `next(seq)` gives fresh keys.
    "haiku.PRNGSequence": {"returns": "key"},
}

# The transformed pairs are NamedTuples (init, apply): `init, apply = hk.transform(f)`.
UNPACKS = {
    "haiku.Transformed": ("init", "apply"),
    "haiku.TransformedWithState": ("init", "apply"),
    "haiku.TransformedNoRng": ("init", "apply"),
}
