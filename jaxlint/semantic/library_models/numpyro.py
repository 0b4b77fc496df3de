"""Library model: NumPyro's MCMC kernels.

`MCMC(kernel).run(...)` compiles the whole sampling loop: the kernel's potential energy, and with it
the model function handed to the kernel, is traced inside that compiled loop; outside it the model
runs only a handful of times while the kernel finds its initial parameters.
https://num.pyro.ai/en/stable/mcmc.html (MCMC, NUTS, HMC, SA, BarkerMH, AIES, ESS)

`SVI.update`, `Predictive` and `log_density` are not listed: they run the model eagerly when called
outside `jit`, once per call.
"""

# `MCMC(kernel).run(rng_key, ...)` draws the chain from its key: two runs given one key sample the
# same chain. https://num.pyro.ai/en/stable/mcmc.html#numpyro.infer.mcmc.MCMC.run
MODELS: dict = {
    **{f"numpyro.infer{module}.MCMC": {"returns": "object:numpyro.infer.MCMC"} for module in ("", ".mcmc")},
    "numpyro.infer.MCMC.run": {"consumes_key": (0, "rng_key"), "result": "fresh", "key_derivation": "split"},
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
