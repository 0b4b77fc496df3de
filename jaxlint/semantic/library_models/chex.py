"""Library model: chex.

Value assertions compare array contents on the host: they wait for the device.
https://chex.readthedocs.io/en/latest/api.html#assertions
"""

MODELS = {
    **{
        f"chex.{name}": {"returns": "host", "syncs": True}
        for name in ("assert_trees_all_close", "assert_trees_all_equal", "assert_tree_all_finite",
                     "assert_tree_no_nones", "assert_trees_all_equal_comparator")
    },
    # Shape and type assertions read only static attributes: no wait.
    "chex.assert_shape": {"returns": "host"},
    "chex.assert_rank": {"returns": "host"},
    "chex.assert_type": {"returns": "host"},
    "chex.assert_equal_shape": {"returns": "host"},
    "chex.assert_trees_all_equal_shapes": {"returns": "host"},
}
