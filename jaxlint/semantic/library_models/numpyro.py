"""Library model: NumPyro's MCMC kernels.

`MCMC(kernel).run(...)` compiles the whole sampling loop: the kernel's potential energy, and with it
the model function handed to the kernel, is traced inside that compiled loop; outside it the model
runs only a handful of times while the kernel finds its initial parameters.
https://num.pyro.ai/en/stable/mcmc.html (MCMC, NUTS, HMC, SA, BarkerMH, AIES, ESS)

`SVI.update`, `Predictive` and `log_density` are not listed: they run the model eagerly when called
outside `jit`, once per call.
"""

MODELS: dict = {}

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
