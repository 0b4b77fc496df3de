"""Does a jitted function that hands an input back unchanged (whole, as a tuple or dict part, or cast
to its own dtype) return the input's buffer, or a second copy? Measured with and without donation.

Usage: python benchmarks/donation_passthrough.py OUT.json
Result (benchmarks/results/donation_passthrough_{cpu,h200}.json, jax 0.10.2 CPU and 0.11.2 H200):
without donation every such output is a new buffer (`output_leaf_is_input_buffer` False, no alias
bytes): a 64 MB array handed back unchanged is copied on every call. With `donate_argnums` the
output takes the input's buffer (alias bytes = the array). A cast to another dtype cannot alias.
JAX401 relies on this: parts of a state handed back unchanged still cost a second buffer.
"""
import json, sys
import jax, jax.numpy as jnp
print(jax.__version__, jax.devices())
N = 4096
big = jnp.ones((N, N), jnp.float32)  # 64 MB
key = jax.random.key(0)
def ptr(a):
    try:
        return a.unsafe_buffer_pointer()
    except Exception as e:
        return str(e)
cases = {
    "identity": (jax.jit(lambda x: x), (big,)),
    "tuple_part": (jax.jit(lambda k, x: (jax.random.split(k)[0], x)), (key, big)),
    "tuple_part_of_pair": (jax.jit(lambda s: (s[0] + 1, s[1])), ((jnp.zeros(()), big),)),
    "dict_part": (jax.jit(lambda s: {"k": s["k"] + 1, "w": s["w"]}), ({"k": jnp.zeros(()), "w": big},)),
    "astype_same": (jax.jit(lambda x: x.astype(jnp.float32)), (big,)),
    "asarray_same": (jax.jit(lambda x: jnp.asarray(x, dtype=jnp.float32)), (big,)),
    "identity_donated": (jax.jit(lambda x: x, donate_argnums=0), "fresh1"),
    "tuple_part_donated": (jax.jit(lambda k, x: (jax.random.split(k)[0], x), donate_argnums=(0, 1)), "fresh2"),
    "astype_same_donated": (jax.jit(lambda x: x.astype(jnp.float32), donate_argnums=0), "fresh1"),
    "astype_bf16": (jax.jit(lambda x: x.astype(jnp.bfloat16)), (big,)),
}
out = {}
for name, (f, args) in cases.items():
    if args == "fresh1":
        args = (jnp.ones((N, N), jnp.float32),)
    elif args == "fresh2":
        args = (jax.random.key(1), jnp.ones((N, N), jnp.float32))
    leaves_in = jax.tree.leaves(args)
    pin = {ptr(a) for a in leaves_in}
    ma = f.lower(*args).compile().memory_analysis()
    r = f(*args)
    jax.block_until_ready(r)
    leaves_out = jax.tree.leaves(r)
    shared = [ptr(b) in pin for b in leaves_out]
    mem = None
    if ma is not None:
        mem = {k: getattr(ma, k, None) for k in ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes", "temp_size_in_bytes")}
    out[name] = {"output_leaf_is_input_buffer": shared, "memory": mem}
    print(name, out[name])
json.dump({"jax": jax.__version__, "backend": jax.default_backend(), "cases": out}, open(sys.argv[1], "w"), indent=1)
