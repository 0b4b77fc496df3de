"""Library model: how many parameters a layer holds, as data (read by semantic/state_size.py).

Each entry names a layer constructor (canonical qualified name) and how its parameter count follows
from its constructor arguments and, for layers that size themselves from their input, the width of
that input. An argument is given as (position, keyword). Kinds:
- `dense`: `features` outputs, input width from the input's last axis (flax `nn.Dense(10)`,
  haiku `hk.Linear(10)`, treex `tx.Linear(10)`): weights and bias.
- `linear`: explicit `in` and `out` widths (equinox `eqx.nn.Linear(2, 16, key=k)`, nnx `nnx.Linear`).
- `conv`: `features` output channels, `kernel` size (an int or a tuple), optional `strides`; input
  channels from the input's last axis, spatial axes divided by the strides.
- `conv_explicit`: explicit `in` and `out` channels and `kernel` size (equinox, nnx).
- `norm`: `per_channel` parameters and statistics per channel of the input's last axis;
  `norm_explicit` takes the channel count from `channels`.
- `embed`: a `num` by `features` table.
- `mlp_sizes`: a stack of dense layers with the listed output sizes (haiku `hk.nets.MLP([64, 64])`).
- `eqx_mlp`: equinox's `MLP(in_size, out_size, width_size, depth)`.
- `stateless`: no parameters, shape unchanged (dropout, activations as layers).
- `flatten`: no parameters, every axis but the first merged.
- `metric`: a metric or loss accumulator: a few scalars per metric, a bound of `METRIC_ELEMENTS`.
Sizes are bounds for the memory a donation could save, not exact counts (a bias may be off).
Sequential containers are listed in `SEQUENTIAL`: (position of a list of layers, or "*" for layers
passed as separate arguments).
"""

METRIC_ELEMENTS = 64

LAYERS = {
    # Flax linen: sizes from the input.
    "flax.linen.Dense": {"kind": "dense", "features": (0, "features")},
    "flax.linen.Conv": {"kind": "conv", "features": (0, "features"), "kernel": (1, "kernel_size"), "strides": (2, "strides")},
    "flax.linen.BatchNorm": {"kind": "norm", "per_channel": 4},
    "flax.linen.LayerNorm": {"kind": "norm", "per_channel": 2},
    "flax.linen.GroupNorm": {"kind": "norm", "per_channel": 2},
    "flax.linen.Dropout": {"kind": "stateless"},
    "flax.linen.Embed": {"kind": "embed", "num": (0, "num_embeddings"), "features": (1, "features")},
    # Flax nnx: explicit sizes.
    "flax.nnx.Linear": {"kind": "linear", "in": (0, "in_features"), "out": (1, "out_features")},
    "flax.nnx.Conv": {"kind": "conv_explicit", "in": (0, "in_features"), "out": (1, "out_features"), "kernel": (2, "kernel_size"), "strides": (3, "strides")},
    "flax.nnx.BatchNorm": {"kind": "norm_explicit", "channels": (0, "num_features"), "per_channel": 4},
    "flax.nnx.LayerNorm": {"kind": "norm_explicit", "channels": (0, "num_features"), "per_channel": 2},
    "flax.nnx.Dropout": {"kind": "stateless"},
    "flax.nnx.Embed": {"kind": "embed", "num": (0, "num_embeddings"), "features": (1, "features")},
    # Haiku: sizes from the input.
    "haiku.Linear": {"kind": "dense", "features": (0, "output_size")},
    "haiku.Conv2D": {"kind": "conv", "features": (0, "output_channels"), "kernel": (1, "kernel_shape"), "strides": (2, "stride")},
    "haiku.LayerNorm": {"kind": "norm", "per_channel": 2},
    "haiku.BatchNorm": {"kind": "norm", "per_channel": 4},
    "haiku.Flatten": {"kind": "flatten"},
    "haiku.nets.MLP": {"kind": "mlp_sizes", "sizes": (0, "output_sizes")},
    "haiku.Embed": {"kind": "embed", "num": (0, "vocab_size"), "features": (1, "embed_dim")},
    # Equinox: explicit sizes.
    "equinox.nn.Linear": {"kind": "linear", "in": (0, "in_features"), "out": (1, "out_features")},
    "equinox.nn.MLP": {"kind": "eqx_mlp", "in": (0, "in_size"), "out": (1, "out_size"), "width": (2, "width_size"), "depth": (3, "depth")},
    "equinox.nn.Conv2d": {"kind": "conv_explicit", "in": (0, "in_channels"), "out": (1, "out_channels"), "kernel": (2, "kernel_size"), "strides": (3, "stride")},
    "equinox.nn.LayerNorm": {"kind": "norm", "per_channel": 2},
    "equinox.nn.Dropout": {"kind": "stateless"},
    "equinox.nn.Embedding": {"kind": "embed", "num": (0, "num_embeddings"), "features": (1, "embedding_size")},
    # Treex: sizes from the input.
    "treex.Linear": {"kind": "dense", "features": (0, "features_out")},
    "treex.Conv": {"kind": "conv", "features": (0, "features_out"), "kernel": (1, "kernel_size"), "strides": (2, "strides")},
    "treex.BatchNorm": {"kind": "norm", "per_channel": 4},
    "treex.LayerNorm": {"kind": "norm", "per_channel": 2},
    "treex.Dropout": {"kind": "stateless"},
    "treex.Flatten": {"kind": "flatten"},
    "treex.MLP": {"kind": "mlp_sizes", "sizes": (0, "features")},
    "treex.LossAndLogs": {"kind": "metric"},
    "treex.metrics.Accuracy": {"kind": "metric"},
    "treex.metrics.Mean": {"kind": "metric"},
    "treex.metrics.Metrics": {"kind": "metric"},
    "treex.metrics.Losses": {"kind": "metric"},
    "treex.metrics.LossesAndMetrics": {"kind": "metric"},
    "treex.metrics.MetricState": {"kind": "metric"},
}

# Containers applying their layers in order.
SEQUENTIAL = {
    "flax.linen.Sequential": 0,
    "flax.nnx.Sequential": "*",
    "haiku.Sequential": 0,
    "equinox.nn.Sequential": 0,
    "treex.Sequential": "*",
}

# Optimizer states: a small multiple of the parameters they are built for (Adam keeps two moments).
OPTIMIZER_STATE_FACTOR = 3

# Probability distributions a network returns built from its outputs (`distrax.Categorical(logits=x)`,
# `tfd.Normal(mean, scale)`): objects holding the arrays they are given, creating no parameters. Only
# classes whose arguments are arrays or other distributions are listed: a bijector or a coupling layer
# may take a conditioner module that holds layers.
DISTRIBUTION_MODULES = ("distrax.", "tensorflow_probability.substrates.jax.distributions.", "numpyro.distributions.")
DISTRIBUTION_CLASSES = frozenset({
    "Categorical", "OneHotCategorical", "Softmax", "Bernoulli", "Normal", "MultivariateNormalDiag",
    "MultivariateNormalTri", "MultivariateNormalFullCovariance", "Beta", "Gamma", "Laplace", "Logistic",
    "Uniform", "Deterministic", "Dirichlet", "Greedy", "EpsilonGreedy", "Independent", "Poisson", "LogNormal",
})
