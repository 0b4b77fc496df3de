"""Library model: `jax.random`.

Samplers consume their first argument, a key, and return a fresh device array; key makers return a
fresh key. "never reuse keys (unless you want identical outputs)":
https://docs.jax.dev/en/latest/random-numbers.html
"""

_SAMPLERS = (
    "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy", "chisquare", "choice",
    "dirichlet", "double_sided_maxwell", "exponential", "f", "gamma", "generalized_normal", "geometric",
    "gumbel", "laplace", "loggamma", "logistic", "lognormal", "maxwell", "multinomial", "multivariate_normal",
    "normal", "orthogonal", "pareto", "permutation", "poisson", "rademacher", "randint", "rayleigh",
    "shuffle", "t", "triangular", "truncated_normal", "uniform", "wald", "weibull_min",
)

_INITIALIZERS = (
    "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "kaiming_normal",
    "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "orthogonal", "truncated_normal", "uniform",
    "variance_scaling", "xavier_normal", "xavier_uniform",
)

MODELS = {
    **{f"jax.random.{name}": {"returns": "device", "consumes_key": (0, "key"), "result": "fresh"} for name in _SAMPLERS},
    # split(key, num) returns new keys derived from key: it consumes it.
    # https://docs.jax.dev/en/latest/_autosummary/jax.random.split.html
    "jax.random.split": {"returns": "key", "consumes_key": (0, "key"), "result": "fresh"},
    # fold_in(key, data) derives a key from data: distinct data give independent keys, not a use.
    "jax.random.fold_in": {"returns": "key", "result": "fresh"},
    "jax.random.PRNGKey": {"returns": "key", "result": "fresh"},
    "jax.random.key": {"returns": "key", "result": "fresh"},
    "jax.random.wrap_key_data": {"returns": "key", "result": "alias:0"},
    "jax.random.key_data": {"returns": "device", "result": "alias:0"},
    "jax.random.clone": {"returns": "key", "result": "fresh"},
    # The initializers of jax.nn.initializers are factories: `init = glorot_normal()` returns a
    # function `init(key, shape, dtype)` that samples the parameters from `key` (a sampler of its own).
    # https://docs.jax.dev/en/latest/jax.nn.initializers.html
    **{f"jax.nn.initializers.{name}": {"returns": "function:jax.nn.initializers.Initializer"} for name in _INITIALIZERS},
    "jax.nn.initializers.Initializer": {"returns": "device", "consumes_key": (0, "key"), "result": "fresh"},
}
