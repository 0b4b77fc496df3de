"""Library model: Optax.

An optimizer is a GradientTransformation, a pair of pure functions: `init(params)` returns the
optimizer state, `update(updates, state, params)` returns `(updates, new_state)`.
https://optax.readthedocs.io/en/latest/api/transformations.html#optax.GradientTransformation
The states of the common optimizers are built with `zeros_like` (moments) and counters: fresh
buffers. `optax.lookahead` keeps a copy of the parameters in its state ("slow" weights start as the
params): its init may return them. https://optax.readthedocs.io/en/latest/api/optimizer_wrappers.html
"""

_OPTIMIZERS = (
    "adam", "adamw", "adamax", "adamaxw", "adabelief", "adadelta", "adafactor", "adagrad", "adan", "amsgrad",
    "fromage", "lamb", "lars", "lion", "nadam", "nadamw", "noisy_sgd", "novograd", "optimistic_gradient_descent",
    "radam", "rmsprop", "sgd", "sm3", "yogi", "chain", "clip", "clip_by_global_norm", "scale", "scale_by_adam",
    "scale_by_schedule", "add_decayed_weights", "masked", "multi_transform", "inject_hyperparams", "MultiSteps",
    "apply_if_finite", "zero_nans", "contrib.muon", "contrib.prodigy", "contrib.dog", "contrib.mechanize",
    # L-BFGS: `update(grads, state, params, value=, grad=, value_fn=)` scales by the curvature memory and
    # runs a zoom line search that calls `value_fn` (GradientTransformationExtraArgs, same pair of functions).
    "lbfgs", "scale_by_lbfgs",
)

MODELS = {
    **{f"optax.{name}": {"returns": "object:optax.GradientTransformation"} for name in _OPTIMIZERS},
    "optax.GradientTransformation.init": {"returns": "device_tree", "result": "fresh"},
    "optax.GradientTransformation.update": {"returns": "device_tree", "result": "fresh", "runs_model": True},
    "optax.lookahead": {"returns": "object:optax.LookaheadTransformation"},
    "optax.LookaheadTransformation.init": {"returns": "device_tree", "result": "alias:0"},
    "optax.LookaheadTransformation.update": {"returns": "device_tree", "result": "fresh", "runs_model": True},
    "optax.apply_updates": {"returns": "device_tree", "result": "fresh"},
    # A differentiating transform (jaxapi.GRAD_LIKE): `vg = optax.value_and_grad_from_state(loss)`, then
    # `vg(params, state=opt_state)` runs `jax.value_and_grad(loss)` under a `lax.cond`, op by op outside jit.
    # https://optax.readthedocs.io/en/latest/api/utilities.html#optax.value_and_grad_from_state
    "optax.value_and_grad_from_state": {"returns": "function:jax.DifferentiatedFunction"},
    "optax.global_norm": {"returns": "device", "result": "fresh"},
    # Losses are plain jnp code (optax/losses/_classification.py, _regression.py): outside jit each call
    # dispatches its operations one by one, as the same lines written in the caller would.
    # softmax_cross_entropy: -sum(labels * log_softmax(logits)) (log_softmax: max, subtract, exp, sum, log).
    "optax.softmax_cross_entropy": {"returns": "device", "result": "fresh", "eager_ops": 6},
    # max, subtract, take_along_axis, exp, sum, log, subtract.
    "optax.softmax_cross_entropy_with_integer_labels": {"returns": "device", "result": "fresh", "eager_ops": 6},
    # 0.5 * (predictions - targets) ** 2.
    "optax.l2_loss": {"returns": "device", "result": "fresh", "eager_ops": 3},
    "optax.squared_error": {"returns": "device", "result": "fresh", "eager_ops": 2},
    # log_sigmoid of logits and of -logits, two products and a sum.
    "optax.sigmoid_binary_cross_entropy": {"returns": "device", "result": "fresh", "eager_ops": 5},
    **{
        f"optax.losses.{name}": {"returns": "device", "result": "fresh", "eager_ops": count}
        for name, count in (("softmax_cross_entropy", 6), ("softmax_cross_entropy_with_integer_labels", 6), ("l2_loss", 3),
                            ("squared_error", 2), ("sigmoid_binary_cross_entropy", 5))
    },
}

# Transformations whose state holds no arrays whatever the parameters it is built for: `sgd` without
# momentum is `chain(identity(), scale_by_learning_rate(lr))`, empty states (one step counter where the
# learning rate is a schedule); scaling, clipping and the identity keep nothing either. Each entry
# names the argument (keyword, position) that adds a state of the parameters' size when it is given
# a value other than None (`momentum=0.0` still builds a trace), or None where no argument does.
# `chain` is state-free where every transformation it chains is.
# https://optax.readthedocs.io/en/latest/api/optimizers.html#optax.sgd
STATE_FREE = {
    "optax.sgd": ("momentum", 1),
    "optax.scale": None,
    "optax.clip": None,
    "optax.clip_by_global_norm": None,
    "optax.identity": None,
    "optax.set_to_zero": None,
    "optax.zero_nans": None,
}
STATE_FREE_CHAINS = frozenset({"optax.chain"})

# A GradientTransformation is a NamedTuple (init, update): `init_fn, update_fn = optax.adam(1e-3)`.
UNPACKS = {
    "optax.GradientTransformation": ("init", "update"),
}
