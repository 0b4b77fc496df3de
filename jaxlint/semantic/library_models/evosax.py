"""Library model: evosax (evolution strategies in JAX).

A strategy object (`strategy = OpenES(popsize=..., num_dims=...)`) holds no arrays: its methods are
pure functions, jitted in the library, over an explicit state. `initialize(key, params)` (`init` in
evosax 0.2) returns the strategy's state; `ask(key, state, params)` returns `(population, state)`;
`tell(population, fitness, state, params)` (`tell(key, population, fitness, state, params)` in 0.2)
returns the updated state (with metrics in 0.2). They dispatch compiled work and return device values;
none reads an array on the host. https://github.com/RobertTLange/evosax#basic-evosax-api-usage
"""

_STRATEGIES = (
    "SimpleGA", "SimpleES", "CMA_ES", "Sep_CMA_ES", "BIPOP_CMA_ES", "IPOP_CMA_ES", "MA_ES", "LM_MA_ES",
    "RmES", "CR_FM_NES", "DE", "PSO", "OpenES", "Open_ES", "PGPE", "PBT", "PersistentES", "xNES", "ARS",
    "SNES", "ESMC", "DES", "GLD", "SimAnneal", "SimulatedAnnealing", "HillClimber", "RandomSearch",
    "Full_iAMaLGaM", "Indep_iAMaLGaM", "SAMR_GA", "GESMR_GA", "MR15_GA", "LGA", "LES", "GuidedES", "ASEBO",
    "NoiseReuseES", "DiffusionEvolution", "EvoTF_ES", "SV_CMA_ES", "SV_OpenES",
)

MODELS = {
    **{f"evosax.{name}": {"returns": "object:evosax.Strategy"} for name in _STRATEGIES},
    **{f"evosax.algorithms.{name}": {"returns": "object:evosax.Strategy"} for name in _STRATEGIES},
    "evosax.Strategy.initialize": {"returns": "device_tree", "result": "fresh", "compiles": True},
    "evosax.Strategy.init": {"returns": "device_tree", "result": "fresh", "compiles": True},
    "evosax.Strategy.ask": {"returns": "tuple:device,device_tree", "result": "fresh", "compiles": True},
    "evosax.Strategy.tell": {"returns": "device_tree", "result": "fresh", "compiles": True},
}
