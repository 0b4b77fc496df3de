"""Library model: environment APIs written in JAX (gymnax, brax, jumanji) and envpool.

gymnax: `env, env_params = gymnax.make(name)`; `env.reset(key, params)` returns `(obs, state)`,
`env.step(key, state, action, params)` returns `(obs, state, reward, done, info)`, all JAX arrays,
and both draw from `key`. https://github.com/RobertTLange/gymnax#basic-gymnax-api-usage-
brax: `env = envs.create(name)`; `env.reset(rng)` and `env.step(state, action)` return a `State`
pytree of JAX arrays (obs, reward, done, metrics). https://github.com/google/brax#using-brax
jumanji: `env = jumanji.make(name)`; `env.reset(key)` and `env.step(state, action)` return
`(state, timestep)` pytrees of JAX arrays. https://instadeep.github.io/jumanji/api/env/
A step of an environment written in JAX is a whole computation: dynamics, reward, termination and
the automatic reset (gymnax's `step` runs `step_env`, draws a reset and selects between the two for
every field of the state; brax a physics pipeline; jumanji its own transition), tens to hundreds of
array operations, written to run under `jit` or `vmap` (the libraries' own examples jit it), so an
un-jitted call dispatches each on its own (`runs_model`). A reset, once per episode, is not marked.
envpool: a C++ thread pool; `env.step(action)` returns NumPy arrays on the host (not device
values), unless its XLA interface is used. https://envpool.readthedocs.io/en/latest/content/python_interface.html
"""

MODELS = {
    "gymnax.make": {"returns": "tuple:object:gymnax.Environment,device_tree"},
    "gymnax.Environment.reset": {"returns": "device_tree", "consumes_key": (0, "key"), "result": "fresh"},
    "gymnax.Environment.step": {"returns": "device_tree", "consumes_key": (0, "key"), "result": "fresh", "runs_model": True},
    "brax.envs.create": {"returns": "object:brax.envs.Env"},
    "brax.envs.get_environment": {"returns": "object:brax.envs.Env"},
    "brax.envs.Env.reset": {"returns": "device_tree", "consumes_key": (0, "rng"), "result": "fresh"},
    "brax.envs.Env.step": {"returns": "device_tree", "result": "fresh", "runs_model": True},
    "jumanji.make": {"returns": "object:jumanji.Environment"},
    "jumanji.Environment.reset": {"returns": "device_tree", "consumes_key": (0, "key"), "result": "fresh"},
    "jumanji.Environment.step": {"returns": "device_tree", "result": "fresh", "runs_model": True},
    "envpool.make": {"returns": "object:envpool.Env"},
    "envpool.make_gym": {"returns": "object:envpool.Env"},
    "envpool.make_gymnasium": {"returns": "object:envpool.Env"},
    "envpool.make_dm": {"returns": "object:envpool.Env"},
    "envpool.Env.step": {"returns": "host"},
    "envpool.Env.reset": {"returns": "host"},
}
