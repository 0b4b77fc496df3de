"""Library model: NumPyro's MCMC kernels.

`MCMC(kernel).run(...)` compiles the whole sampling loop: the kernel's potential energy, and with it
the model function handed to the kernel, is traced inside that compiled loop; outside it the model
runs only a handful of times while the kernel finds its initial parameters.
https://num.pyro.ai/en/stable/mcmc.html (MCMC, NUTS, HMC, SA, BarkerMH, AIES, ESS)

`SVI.update`, `Predictive` and `log_density` are not listed in TRACES_FUNCTION: they run the model eagerly when called
outside `jit`, once per call.
"""

# The inference entry points draw from the key they are handed, and each splits it before drawing:
# `MCMC(kernel).run(rng_key, ...)` (the chain), `SVI(model, guide, optim, loss).run(rng_key, steps)`
# and `SVI.init(rng_key)` (the initial parameters and every step's ELBO samples), and a
# `Predictive(model, ...)` called on `rng_key` (the sample sites of every predictive draw). Two of
# them given one key hand the same split keys to their sites: a posterior predictive on the key that
# ran the chain, or a guide's and a model's Predictive on one key, reuse its randomness.
# https://num.pyro.ai/en/stable/mcmc.html#numpyro.infer.mcmc.MCMC.run
# https://num.pyro.ai/en/stable/svi.html#numpyro.infer.svi.SVI.run
# https://num.pyro.ai/en/stable/utilities.html#predictive
_DRAWS = {"consumes_key": (0, "rng_key"), "result": "fresh", "key_derivation": "split"}
MODELS: dict = {
    **{f"numpyro.infer{module}.MCMC": {"returns": "object:numpyro.infer.MCMC"} for module in ("", ".mcmc")},
    **{f"numpyro.infer{module}.SVI": {"returns": "object:numpyro.infer.SVI"} for module in ("", ".svi")},
    **{f"numpyro.infer{module}.Predictive": {"returns": "object:numpyro.infer.Predictive"} for module in ("", ".util")},
    "numpyro.infer.MCMC.run": _DRAWS,
    "numpyro.infer.SVI.run": _DRAWS,
    "numpyro.infer.SVI.init": _DRAWS,
    "numpyro.infer.Predictive.__call__": _DRAWS,
}

# Entry points that trace the function handed to them inside a compiled program:
# qualified name -> (position, keyword) of that function.
TRACES_FUNCTION = {
    f"numpyro.infer{module}.{kernel}": (0, "model")
    for kernel, modules in {
        "NUTS": ("", ".hmc"), "HMC": ("", ".hmc"), "SA": ("", ".sa"), "BarkerMH": ("", ".barker"),
        "AIES": ("", ".ensemble"), "ESS": ("", ".ensemble"),
    }.items()
    for module in modules
}
