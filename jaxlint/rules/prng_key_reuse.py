"""## What it does
Follows PRNG key variables through a function body (and a script's or a notebook's top level: a
notebook's cells are one program run in cell order, so a key drawn from in one cell and drawn
from again in a later cell is reused, as within one cell; semantic/cell_order.py) and flags a key
consumed twice so that the two draws share random bits: passed to two `jax.random` samplers (or twice to `split`) with no reassignment in between, or consumed in a loop body (or
comprehension) that never reassigns it, so every iteration draws the same numbers. One element of a
comprehension is one iteration's body: two draws in it from a key the comprehension binds
(`[(normal(k, (m, n)), normal(k, (n,))) for k, (m, n) in zip(keys, shapes)]`) share bits, as in the `for`
loop it abbreviates (the threefry and paired-draw exceptions below apply within it alike).
A library call that makes new values from the key it is handed (its model consumes the key and its
result is fresh: an Equinox layer `eqx.nn.Linear(a, b, key=key)`, the function a `jax.nn.initializers`
factory returns, `init(key, shape)`; NumPyro's inference calls, `MCMC.run(key, ...)`, `SVI.run(key,
steps)`, `SVI.init(key)` and a `Predictive` called on a key, each of which splits its key for its
sample sites, so a posterior predictive on the key that ran the chain hands its sites the same keys)
samples as `jax.random`'s samplers do: two of them given one key
(or one literal seed), or one beside a `jax.random` sampler, share bits and are flagged; keys split or
folded in between stay silent. The decorators
and default values of a nested `def` run where the `def` stands, so they count in the enclosing
flow (`@partial(lax.scan, init=c, xs=split(key, n))` beside `split(key, m)`). In function
bodies outside tests, the framework calls that draw from a key count too: `model.init(key, x)`,
`apply(..., rngs={"dropout": key})`, `env.reset(key, params)`, `env.step(key, ...)`,
`space.sample(key)` (the first argument only when it is known to be a key), and the calls the
library models or the project's own functions draw from (`hk_model.apply(params, key, x)`; a helper
whose body runs `model.init(rng, x)` or `split(rng)` on its parameter consumes the key passed to it:
`state = train_epoch(state, key)` every epoch reuses `key`, in function bodies and in a script's
own body; in a notebook's body only `jax.random`'s own calls are followed, since notebooks hand one
key to several such helpers to compare methods on common random numbers; but a loop there that hands one key, unchanged
by the loop, to such a helper on every iteration is flagged: `for batch in train: params, opt_state,
loss = update(params, rng, opt_state, batch)` repeats the dropout masks of every step, and one
function fed one key every step compares nothing; not a loop over settings that carries nothing from
one iteration to the next, `for lr in rates: acc = run(key=key, lr=lr)`, a comparison on one key;
and a function of the notebook that splits the key before it draws, run on a key the body has already
split (`x_key, noise_key = split(rng)`, each drawn from, then `params = init(rng)` whose body runs
`w_key, b_key = split(rng)`): it hands out the very keys the body's split did, and where some key is
read the same way on both sides (`normal` on each) the initial weight equals the first data point;
not keys that reach different consumers there (an evaluation rollout's, a training run's: a notebook's
experiments on one key), not the other order, a function run on the key and the key split afterwards
for what follows, nor two such functions on one key, also per element of a loop or comprehension), also where the helper only hands the key on to another project
function, method or constructor that draws from it, through any number of calls and modules, or
where the helper is a nested function a factory of the module returns (`init_fun, sample_fun =
make_sampler(dim)` then `sample_fun(rng, params, n)`: every `return` of the factory hands back that
def at that position). A
key is known by where it was made, not by its name: `head, body = split(key)` then `[Block(cfg, body)
for _ in range(n)]` hands one key to every block. The key may be passed by keyword (`denoise(x, rng=rng)`) or through a name bound once to
`functools.partial` of the helper (`add = partial(noisy, scale=0.5)` then `add(x, key)`; a leading argument
the partial binds moves the key's place), and the
helper may be compiled (`@jax.jit`, `step = jax.pmap(partial(f, lr=lr))`): a draw inside the
compiled program draws from the caller's key, so a key passed unchanged every step repeats its
numbers unless the helper folds a changing value into it. What a function draws includes what the
code it runs draws (semantic/effects.py): a function defined in its body that closes over the key and
that the body runs (calls it, hands it to a transform it calls or binds, `grad_fn =
jax.value_and_grad(loss_fn, has_aux=True)`, or to a `lax` loop or branch; not one it returns, which
the caller runs later), a network it runs with `rngs={"dropout": key}` (not with a literal
evaluation flag), and a function it runs through a transform that hands on the call's own arguments
(`jax.value_and_grad(loss)(params, batch, key)`, also through a name bound to the transform:
`jax.grad`, `jax.jit`, `jax.checkpoint`, Equinox's `filter_grad`, `filter_value_and_grad` and
`filter_jit`, Flax NNX's `grad` and `jit`), in a compiled function's body as in a host function's: a jitted
`train_step(state, key, batch)` given one key every step repeats its dropout masks. Constructors count as the `__init__` they
run (their own or a base class's, in any module of the project: `Layer(key, 4)`), an instance called
as a function runs its class's `__call__` (`layer = Layer(k)`, `self.layer`, or each `block` of `for
block in self.blocks` where every value of `self.blocks` lists instances of one class: `x = block(key,
x)` hands every block the same key), a method runs its body where the object's class is known (an
instance bound to the class's constructor, in every arm of an `if` alike, or to a factory every
return of which builds one class, or, for a name bound more than once, the binding that surely
reaches the call, `env = Wrapper(env)`; or `self.obj` holding one: `env.step(rng, state, action)` of
the project's environment class, in any module; also compiled, `step_fn = jax.jit(env.step)`, for a
class of another module from its summary), and a method of an
unmodelled object given the key as `seed=` draws from it (`dist.sample(seed=key)`, distrax and
TensorFlow Probability). A Flax linen module of the module run by `apply` hands `apply`'s positional
arguments after the variables to its `__call__` (or to the method `method=` names): `uniform(rng, s)`
then `self.actor.apply({"params": p}, rng, obs)` whose `__call__(self, rng, obs)` samples
`dist.sample(seed=rng)` draws the same bits twice, also where the module runs traced inside a jitted
step (effects: the method's key effects, one position on); in function bodies, where framework calls
count. A function handed to a call that runs it where it stands draws there
(semantic/handed_callables.py): the branches of `lax.cond` and `lax.switch`, the bodies of the `lax`
loops, the function of `jax.debug.callback` or `jax.pure_callback`; a lambda's body from the keys it
closes over (`uniform(key)` then `lax.cond(p, lambda _: mutate(net, key), lambda _: net, None)` draws
twice from `key`, as the direct call would), a named function from what the call hands it
(`lax.cond(p, add_noise, keep, x, key)`). The branches of one `cond` or `switch` are alternatives:
one runs, so a key each of them draws from is drawn once. A project helper beside a different consumer of the same key is flagged
(`noise = normal(key)` then `run_sampler(key)`): the summary shows that its body draws from the key
itself. Each constant element of a key array is a key of its own (`keys = split(key, 3)`: `keys[1]`
used twice is a reuse, `keys[0]` and `keys[1]` are not). A key split after it has drawn a value is
flagged where the split hands out keys the first use drew from (`perm = permutation(rng, n)` then
`rng, _ = split(rng)` every epoch; a Haiku `params = net.init(key, x)`, which splits its key as `split`
does, then `split(key)`; a helper of the module that splits its key), or where what the first use
derives from the key is not known (an unmodelled `init`, a function of another module): JAX's rule is
that a key is used once, and JAX's key-reuse checker, `jax_debug_key_reuse`, raises KeyReuseError at
such a split. On JAX's default threefry (checked in tests/test_jax_behaviour.py) `split(k, n)[i]` is
`fold_in(k, i)`, so after a sampler that reads the key's own bits (`normal`, `uniform`), a Flax init
(names folded in) or a helper of the module that only does these (and may hand the key back), or a function of
another module of the project that reads the key only as such a sampler's key (its summary, `own_bit_key_params`:
`lanczos(matvec, dim, rng_key=rng)` whose body draws `normal(rng_key, (dim,))`), the split's keys repeat nothing it
drew and no value can coincide: that is not flagged (see below). Nor, after a sampler that splits
its key first, where every key the split hands out is read apart from the way the sampler read it:
`permutation` and `shuffle` sort by the bits of `split(k)[1]` and only split `split(k)[0]` again (a
second round, for large arrays), `randint` reads the bits of both, so `_, k = split(k)` then
`permutation(k, n)` every epoch, or `randint(k)` then `k, sub = split(k)` with both only split or
permuted again, repeats no drawn bits (key_values._SAMPLER_CHILD_KINDS, checked in
tests/test_jax_behaviour.py); `k, _ = split(k)` after a permutation (the second round's key, split
again) and a child fed to `normal` after `randint` are flagged. A key made inside a comprehension from a name that both the
comprehension and an enclosing loop bind (`[[normal(PRNGKey(epoch + i)) for i in range(n)] for i in
starts]`) follows the inner name only: every outer iteration draws the same numbers (not a key made
in the comprehension's first iterable, `(str(i) for i in choice(key(i), xs, (n,)))`: Python evaluates
that iterable in the enclosing scope, where `i` is the loop's). Also flagged: two
samplers fed keys made from one literal seed (`normal(key=PRNGKey(0))` twice) or from one seed
computed from plain names, none rebound in between (`normal(PRNGKey(t), s)` then `uniform(PRNGKey(t))`
in one iteration: `t` advances only after both; not a seed read from an attribute or a call, which
the source cannot follow), and a module-level
key, bound only at the module's top level outside loops (once, or again there by a split: `rng =
PRNGKey(0)` then `rng, init_rng = split(rng)`, which runs once, at import) and never through `global`, that a jitted function called in a loop consumes without
receiving or advancing it (a compile-time constant: the same numbers every call), or that a function
of the module called by name in a loop or comprehension draws from (`noise = normal(KEY, a.shape)` in
`def jitter(a)`, also under `@jax.vmap`, or a method that another method of its class calls through
`self` in a loop, `for epoch in ...: self._epoch(data)`: the same key on every call; not where the key's or the
function's name says it is fixed for evaluation or plotting, `def plot_samples`; nor where every such call
in a loop hands its result only to a display, a printout, a figure or a run's dashboard, `grid, _ =
sample_grid(model, step)` then `wandb.log({"samples": wandb.Image(grid)})`: a monitor of the run, whose
fixed noise keeps the samples comparable across training, key_values.draw_only_shown). So is a key that such a function,
with no loop of its own, makes afresh from a constant seed (`key = PRNGKey(0)`, or `PRNGKey(SEED)` with `SEED` a
module-level int) and draws from with `jax.random`'s samplers (`def random_crop(x): start = randint(PRNGKey(0), ...)` called per batch)
or hands to a network as a random stream (`rngs={"dropout": PRNGKey(0)}`, not `params`), through a name or
inline, also where the function is compiled and called per step (`@jax.jit def train_step`, or a loss
function inside it: the key is a constant of the compiled program): the same key on every call, so every
step draws the same crop, noise or mask (not in a function named for evaluation or plotting, nor a call
with dropout off, `train=False`). Keys fixed once and drawn from per step are
flagged too: a key bound on `self` only in `__init__` (`self.rng = PRNGKey(seed)`) that a method draws
from without advancing it (directly, through a local name `key = self.rng`, or by handing it to another
method of the class that draws from it: `self._sample(self.rng, logits)`), where that method draws in a loop or is called in one (`policy.act(obs)`
per step, in this module, or in another through the class's summary, flagged there at the call); and a default key argument (`def add_noise(x, key=PRNGKey(0))`, made
once when the `def` runs) that the function draws from, at a call in a loop that does not pass one.
A function run once per leaf of a tree is a loop too: the `init` and `update` that an `@optimizer`
factory (`jax.example_libraries.optimizers`) returns, which the decorator maps over every parameter
leaf, and the function of a tree map, `jax.tree.map(f, tree)` or one that hands each leaf its path
too (`jax.tree_util.tree_map_with_path(f, tree)`, `jax.tree.map_with_path`: jaxapi.TREE_MAPS), or the
multi-tree map jax removed in 0.3.16, `jax.tree_multimap(f, means, scales)`, which older code still calls. A key it makes from a literal seed (`key =
PRNGKey(1)` kept in each leaf's state) or draws from out of the scope around it (`lambda p: p +
normal(key, p.shape)`) is one key for every leaf, so leaves of one shape get the same numbers (not
`permutation(key, leaf)`, one order for parallel arrays, as paired draws are).
The body of a `lax.scan`, `lax.fori_loop` or `lax.while_loop` is a loop too: it runs once per step
and starts from the carry it returned, so a key that enters in the carry and leaves in it unchanged
(`params, key = carry` ... `return (params, key), out`) and is drawn from in between draws the same
numbers every step, and a key drawn from and then carried on is split (or drawn from) again by the
next step. A key the body captures from the scope around it (neither carried nor a slice of `xs`),
or a `fold_in` of captured names, is one key at every step (the body is traced once): a sampler
drawing from it there draws the same numbers each step, and so does a helper handed it together with
the carried state (`sample_next(tokens, key=KEY)` in a decoding scan, `drop(hidden, key)` in a scan
over layers): it runs one step of a sequence on what the last step left, as the same call in a `for`
loop does (key_values.carry_derived_names); not a model's `init(key, x)` handed the carry as its
example input, which fixes only shapes (the same parameters every step, one rule applied alike, as a
cellular automaton's network is); not a helper handed it with the step's element alone,
`loss_of_one(params, xs[i], key)` beside a running total: one transform applied alike, as a `vmap`
sharing the key does. A helper that runs traced (called from a jitted function or such a body) draws from the
key handed to it as a host function does. A `lax` loop started from a literal tuple (`lax.scan(step,
(x, key), xs)`, `fori_loop(0, n, body, (x, key))`, `while_loop(cond, body, (x, key))`) hands its body
that tuple as the first step's carry: where the body unpacks its carry into names (`x, k = carry`, its
first statement) and splits or draws from one of them, the loop draws from that element, so a key that
drew before (`randint(key, ...)` then the loop, or a helper running the loop on the key it is handed)
is reused (effects.Effects.consumed_parts). So does a function of the module handed a literal tuple
that its first statement unpacks (`act, key, rate = args`), called directly (`dropout((x, key, rate))`)
or as a branch of `lax.cond` (`lax.cond(p, dropout, keep, operand=(x, key, rate))`, the operand
positional or by keyword): every layer of a loop that packs one key draws the same mask. A key passed
by keyword to a keyword-only parameter (`def __call__(self, x, *, key)`, then `layer(x, key=sub)`) is
drawn from as a positional one is, also for a function or class of another module of the project
(`def shuffled(xs, *, key)` there, `shuffled(xs, key=key)` in every epoch here; Equinox's convention).
A generator function draws from the key it is handed too, when the loop that iterates it runs (`for
batch in batches(data, key)` in every epoch shuffles every epoch the same way). A key stored into a state (`self.state =
state.replace(rng_key=rng_key)` of a Flax `struct` dataclass or a `TrainState`, a NamedTuple's
`_replace(key=k)`) is handed on to whoever splits that field next; where the same function splits or
draws from that field (`split(self.state.rng_key)` at the top of its loop), a `split(rng_key)` after
the store hands out the next step's keys again (an evaluation key equal to the next training key;
key_values.stored_keys). Not a key split off before storing, nor a field the function never draws
from (a key kept for a checkpoint).
`key, subkey = jax.random.split(key)`
reassigns `key`, so the next use is fresh; the outputs of `split` and `fold_in` are fresh keys.
Not a key handed back: a function (of this module or another) that draws from its key parameter and
returns that parameter unchanged (`return z, rng`) returns a used key, so `z, rng = layer(z, rng)`
leaves `rng` used, and the next draw from it, or the same call in the next iteration (`for layer in
...`, `while ...`), repeats the numbers drawn inside. A key made by `fold_in` depends on its inputs
alone: in a loop that changes neither (`k = fold_in(base, step)` per batch, `step` a parameter or a
name the loop never rebinds, also through an `nnx.Rngs(dropout=k)` rebuilt from it), it is one key in
every iteration, and drawing from it in each repeats the numbers; that is reported at the `fold_in`.

Not flagged, because nothing is shared or it is shared on purpose:
- A use on a side of an `if` no run takes: a test the source fixes (`if DEBUG:` with `DEBUG = False`),
  or a parameter every call of its function passes as the same literal (`if shuffle: order =
  permutation(rng, order)` with every call passing `shuffle=False`, all calls in this module, no
  other module naming the function and no decorator but a JAX transform on it; a call leaving it to its default keeps both sides live): the key
  flows through the other side alone (semantic/fixed_parameters.py). Likewise one call passing a
  literal false value (`False`, `0`, `None`) for a parameter under whose `if flag:` the function does
  all its drawing from the key (`simulate(x, key=key, noise=False)` on every pass, to fit a scaler on
  clean data): that call draws nothing, whatever other calls do (effects.Effects.key_guards; also for
  a function of another module, from its summary).
- A split of a key after a draw that reads only the key's own bits or folds names into it (`x =
  normal(key)` then `key, sub = split(key)`; `params = model.init(key, x)` of Flax linen then
  `split(key)`): JAX's optional checker calls it reuse, but no value drawn from the split's keys can
  repeat one drawn before; four precision reads judged every such finding debatable.
- `split(k)` first and then a sampler on `k` itself (`k1, k2 = split(k)` then `normal(k)`). On JAX's
  default threefry, `normal`, `uniform`, `bernoulli`, `categorical`, `choice(..., p=...)` (and the
  transforms of these on the key itself: `multivariate_normal`, `lognormal`, `rademacher`, ...) read the
  bits of `k` itself, and nothing drawn from `split(k)`'s keys reads those. So does a function of the
  module that reads the key it is handed only as the key of `split` (`def basis(key, n): key, _ =
  split(key); w = normal(key, (n,))`, also through further such functions) beside such a sampler, in
  either order: it draws only from the keys the split returns. (The other order, a split
  of a key that has drawn, is flagged: see above.) `randint`, `permutation`,
  `shuffle` and `choice` without `p` draw from keys they split off `k` first, the very keys `split(k)`
  returns (`split(k, n)[:2] == split(k)`): that pair is flagged only when such a key then feeds a draw
  that reads the same bits (`split(k)[0]` or `[1]` into `normal`/`uniform`/a distribution's `.sample`
  after `randint`; `split(k)[1]` into one of those after a shuffle, or `split(k)[0]` into another shuffle or
  `randint` after a shuffle of more than 1,625 elements, a size the source fixes: only such a
  shuffle takes a second round of sort keys, split off `split(k)[0]`). Two `split`s of one key are
  flagged: `split(k, 2)` and `split(k, 3)` return the same leading keys, and so do two identical
  `split(k, n)` once the first one's keys were handed out (a recomputation before they went
  anywhere repeats nothing: key_values.split_keys_handed_out). So is a `split` beside a function or
  method of the project that splits the same key before it draws (`actions = split(rng, n)` then
  `env.step(rng, state, a)` whose body starts `rng, sub = split(rng)`; for another module's, its
  summary's `split_key_params`), in either order: both hand out the same leading keys; also where the
  helper's split is the very call written before it (`x_key, noise_key = split(key)`, each drawn
  from, then `init(key)` whose body runs `w_key, b_key = split(key)`): the keys were handed out once
  already, so that is no recomputation of a value. Not where each key both hand out is read apart:
  one side draws from it only with samplers reading its own bits (`normal`) and the other only with
  ones reading the keys split off it (`randint`, `permutation`, a further `split`, a helper that
  splits it first), or one side never reads it (`rng, key = split(rng)` then `normal(key)`, beside a
  helper whose body runs `rng, key = split(rng)` and `randint(key, ...)` only): on the default
  threefry no bits are shared (effects.split_child_kinds; another module's from its summary's
  `split_children`). Not when one of them
  advances the stream (`rng, input_rng = split(rng)`) and the other's keys go only into compiled
  steps (`p_train_step(state, batch, dropout_rngs)`), which split them again: the copies reach
  different consumers that derive their own keys. Nor when no shared key is read from both: a
  child one split never passes on (rebound before it is read), or reads only on the host
  (`loader(seed=key_data[0].item())`), draws nothing.
- A draw whose values never reach a result (also before a split of its key): the array (inline, through plain names, or in a tuple
  or list, unpacked from a tuple, `obs, _ = env.reset(key, params)`, or passed through pure array
  and tree functions and indexing, `jnp.repeat(x[None], n, axis=0)`, `jax.tree.map(f, obs)`) is read only for its type: `.shape`/`.dtype`, `jnp.shape(x)`, `jnp.ndim(x)`,
  `isinstance(x, T)`, a tree map of a function that reads only types (`jax.tree.map(jnp.shape, x)`,
  `tree_map(lambda a: (a.shape, a.dtype), x)`), also in an `assert` or inside a loop or branch, a compiled function's `.lower(...)` or
  `.trace(...)`, `jax.eval_shape(f, ...)`, `jax.make_jaxpr(f)(...)`, a model's `tabulate(key, x)` (Flax
  traces the summary under `jax.eval_shape`: the key and the input alike fix only shapes, so keys split
  only for such a printout draw nothing), or after the key in a model's
  `init(key, x)`, which fixes only the parameters' shapes (a lambda or comprehension that names its own
  parameter or variable `x` later, `lambda p, x: model.apply(p, x)`, reads its own `x`, not the draw),
  also where the initialiser is reached
  through a name (`init_fn, apply_fn = hk.transform(f)`, `init_fn = hk.transform(f).init`, a local
  function returning such names) or through a local function or `lax.scan` body whose parameter
  (the carry, or each slice of `xs`) reaches it only so, or a compiled function (`@jax.jit def
  reset_all(keys)`, `jax.jit(f)(x)`) whose result is read only so: what a compiled function does with
  its inputs is its result, so `probe, _ = reset_all(split(key, n))` then `probe.shape[-1]` is a shape
  probe (not a plain function, which may keep or write what it is handed); or the array reaches only
  runs of a compiled function whose results are discarded (a bare call, `_ = f(a, b)`, names never read,
  each perhaps waited on with `.block_until_ready()`) in a flow that measures what it runs: it reads a
  clock (`time.perf_counter()` around a timed loop) or runs them in a `with jax.profiler.trace(...)`
  block. A compiled function's result is all it makes, so such draws are the inputs of a benchmark
  (a result kept, returned or appended, or a discarded run in a flow that reads no clock, stays a use);
  or the array reaches only a call that a
  timer runs and discards (`timeit.timeit(lambda: f(a, b))`, a notebook's `%timeit f(a, b)`: the
  inputs of a benchmark, also where the timed expression computes with them, `%timeit jnp.dot(x, x.T)`, or
  reaches them through functions of the same body that only the timer runs: `def apply(v): return W @ v`
  then `%timeit vmap(apply)(xs)`; a function's own parameter of the same name is no read of the draw).
  Such dummy inputs share bits with nothing that matters. So do draws of one sampler from one key
  that each reach only a display, as drawn (`print(normal(key))` twice, `print(f"{x}")` of each,
  `display(x)`): the same numbers are shown twice, which a page on PRNG keys prints on purpose
  before it teaches splitting, and nothing computed shares their bits (not two different samplers,
  `uniform` then `normal`, whose correlation the printout hides, nor `print(x + y)` of two draws, a
  value computed from both). The same holds where what each draw shows is computed from it: a demo
  input drawn again from the notebook's fixed key, each value computed from it (an object built on
  it, its methods' results, `dist.marginals()`, `x.T`) reaching only a display, a printout or a
  function of the notebook whose body only displays the parameter (`def show(x, title):
  plt.imshow(x)`), and no statement reading values of both (`show(CRF(normal(key, s)).argmax())` in
  one cell, `dist = CRF(normal(key, s))` then `print(dist.entropy())` in another): the draws meet in
  no computation, comparison, training or statistic (key_values.draws_meet). Not where they meet
  in one statement (`plt.scatter(x, y)`), where one is computed with beyond a display (trained on,
  kept by a function that also stores it), nor for two different samplers. Likewise a model or parameters drawn only to
  be the template of a restore, which replaces every leaf with the stored value
  (`eqx.tree_deserialise_leaves(path, model)`, Flax `restore_checkpoint(dir, target=state)` also
  through `TrainState.create(params=...)`, `serialization.from_bytes(params, data)`): the drawn values
  never reach a result. The value model (semantic/key_values.py) follows where the draw flows.
  So does a state built to be read into and then built again: the same call on the same key, whose
  only further arguments are computed from the first result (`state = algo.init(rng)`, `kw =
  load(path, state)`, `algo.init(rng, **kw)`): the second rebuilds the first with the loaded parts
  replaced, and the parts drawn again are meant to equal it (key_values.rebuilt_with_overrides). Not
  extra arguments from anywhere else (`init(rng)` and `init(rng, lr=lr)`), nor another input.
- Draws that are the inputs of a check that two computations agree, after both draws (one side computed
  from the draw, both from the draws of that body): `assert
  np.allclose(per_example_grads(w, X), vmapped_grads(w, X))`, `np.testing.assert_allclose(jacfwd(f)(x),
  W)` with `f` computing from `W`, `assert jnp.abs(y1 - y2).sum() < 1e-6`, two results' shapes compared;
  also where the results are computed in a loop, a branch or a `with` block before the check (a benchmark
  timing two implementations, then asserting that they agree). The check holds for any values, so the draws are test inputs whose statistics nobody relies on
  (printing them on the way relies on none either). A check with a loose tolerance (`allclose(estimate,
  truth, atol=0.1)`) relies on independent samples and is no such check.
- One key handed twice to the same helper (or a modelled library call) outside a loop, for two inputs
  (`k1 = features(key, x)`, `k2 = features(key, y)`): the same draws applied to both inputs, as
  random features of a kernel need (also for a training and a test set: one feature map for both);
  only a helper that consumes the key on every iteration of a loop is flagged. Not where the two
  calls differ only in the size of what the helper draws (each differing argument lands on a
  parameter the helper reads only in its samplers' shape: `init_weight(key, (n_in, n_h))` and
  `init_weight(key, (n_h, n_h))`): there is no input to transform, the results are the draws, and
  draws of two shapes from one key share their leading values (checked in
  tests/test_jax_behaviour.py; key_values.same_helper_not_paired).
- A loop that hands one key and each element it iterates to a project function and stores each result
  under the element's name (`for name, view in views.items(): out[name] = crop(key, view)`, or binds it
  to a name read only so: `params = train(key, opt); results[name] = params`, one start for every
  optimiser compared): the loop written out of `crop(key, a)` and `crop(key, b)`, one random transform applied alike to several
  inputs, as above. A result carried into the next iteration (`w = step(key, w, batch)`) is flagged.
- A framework call (not a project function) beside a different consumer: `actor.init(key, x)` and `critic.init(key, x, a)`,
  `env.reset(key)` then `env.step(key, a)`, `normal(key)` or `split(key)` then `model.init(key, x)`.
  Frameworks derive the keys they draw from (Flax folds each module path into the key, Haiku
  splits it in call order, environments split it per step), so whether the bits coincide is more
  than the source shows. So is a function of the module that only hands the key to such a call
  (`train(key, ...)` whose body runs `model.init(key, x)`): the framework call one call away. The same
  method of the same object twice (`model.apply(..., rngs=...)` with two inputs, or in a loop) repeats
  its draws and is flagged, and so do two Haiku networks given one key (`actor.init(key, x)` and
  `critic.init(key, x, a)` of two `hk.transform`s, also `@hk.transform` functions): Haiku splits the key
  into one sequence in call order (`hk.next_rng_key()`, library model `key_derivation: split`), so the
  first draw of each network uses the same key, whatever the networks are.
- A key a loop rebinds at the top of every iteration (`key, sub = split(key)`), used again after the
  loop: only the path that skips the loop entirely (zero iterations) would reuse it.
- A consumption in a loop that runs on one pass only: it lies under a test of the loop variable that
  holds for one of its values (`for n in (0, 1): if n == 1: x = dropout(x, key)`, `... if i == 0 else
  x`, the `else` of `if i != last:`), the variable taking a new value on every pass (`range`, the
  index of `enumerate`, a literal of distinct constants) and never rebound in the body: the key is
  drawn from once (semantic/iteration.py, `one_pass`). Draws on two different passes (`if n == 0:`
  and `elif n == 1:`), a test true on several passes (`i % 2 == 0`), or a test of the items (`for
  label in labels: if label == 1:`) are flagged.
- A consumption whose result is never read: a bare `sample(key)` statement, a result rebound before
  any read (also a value computed from the draw by calls that have no other effect: `m: T =
  normal(k, s) * c` then `m = ...` before any read of `m`), or one read only by statements that are themselves dead this way (a smoke test that
  resets an env, inits a policy and steps once, discarding the step).
- A draw that the second consumer's statement replaces: `x = normal(key, s)` then `if init is not None:
  x = invert(init, key)`, every name holding the draw rebound there and none read in between (neither
  statement in a loop, no function defined before reading the names); also a second consumer in a
  `return` that does not read them (`theta = uniform(k)` under one test, then `if n == 1: return
  uniform(k) * eye(1)`: the function ends on that path, and its locals with it). Reads of the draw in
  the other arms of an `if` whose arm holds the second consumer do not count: they run on other paths
  (`noise = gumbel(key, s)`, arms returning `argmax(logits + noise)`, and an `elif` arm returning
  `rao(logits, key=key)`; key_values.on_other_arm). Whenever the second draw runs
  the first has reached nothing, so whatever bits they share, no result sees both.
- A project function whose draws from the key reach nothing but parts of what it returns (it splits
  or samples the key and returns the result, handing it to no other call, object or test), called
  where every part holding draws is dropped: `runner, (table, lanes) = make_runner(key, n)` with
  `lanes` rebound before it is read. The caller never sees those draws, so using the key afterwards
  is its first observable use. A helper that also stores or hands on its draws is still a consumer.
- Two identical calls (the same sampler, the same arguments, none rebound in between) whose results
  are compared, or whose second call only recomputes the first's names, or whose results both
  index arrays, bound to a name first or written in the subscript (`x[choice(key, n, (B,))]` and
  the same for `y`, `data[permutation(key, jnp.arange(n))]` and the same for `masks`): identical
  values on purpose, keeping parallel arrays aligned.
- Paired draws: `permutation(key, x)` and `permutation(key, y)` (or `choice`, `shuffle`) with every
  other argument the same, keeping parallel arrays aligned; also written as a comprehension over the
  arrays (`[permutation(key, a) for a in arrays]`, the array the only argument that varies; not over
  `range(...)`, whose elements are sizes).
- Draws in the two value arms of one `jnp.where` (`where(mix < 0.8, randint(k, (), 24, 31),
  randint(k, (), 31, 37))`: each element takes one), and a draw with one possible value
  (`randint(k, (), minval=0, maxval=1)`: no random bits used).
- Draws multiplied by mutually exclusive masks (`randint(k, ...) * (kind == 0)` and
  `randint(k, ...) * (kind == 1)`): at most one survives.
- `apply(..., rngs={...})` with a literal evaluation flag (`train=False`, `is_train=False`,
  `deterministic=True`, `enable_dropout=False`) in the same call, in the `functools.partial` the
  callee is bound to (`evaluate = partial(model.apply, enable_dropout=False)`), or in the
  construction of the model (`model = Net(deterministic=True)`): no dropout draws from the key.
  Likewise keys split from a reused key but handed only to such calls, directly or through a local
  function (or its `jit`/`pmap`) that passes them on only so (an evaluation step with dropout off).
- `apply(..., rngs={"dropout": key})` calls through different submodules: different `method=`
  arguments, or input dicts with disjoint keys (`{"features": v}` and `{"text": t}`). Flax folds the
  submodule path into the key, so their draws differ; the same method twice is flagged.
- Test code (a `test_*` function, a `Test*` class, a test module: `*_test.py`, `conftest.py`, test
  helpers, or a `test_*.py` that imports a test framework or defines tests):
  random inputs there are dummy data, and a shared key rarely changes what the test asserts.
- A split after a call that derives its keys by name (library model `key_derivation: by_name`): a
  Flax linen `variables = net.init(key, x)` or `net.apply(..., rngs={"dropout": key})`, or a local
  helper that only hands the key to such calls, then `key, sub = split(key)`. Linen draws each variable
  from `fold_in(key, h)`, `h` a hash of its module path, while `split(key, n)` returns `fold_in(key, i)`
  for `i < n`: nothing the split keys draw coincides with a parameter. (Two such calls on one key, or
  one in every iteration of a loop, repeat their draws and are flagged.)
- A key that every element of a `vmap` shares (mapped with `in_axes` None, or captured by the mapped
  function): evaluating a population of candidates under the same random numbers (common random
  numbers) and coupled sampling of every conditional with one key use it on purpose, as one helper
  given one key for two inputs does.
- A key made from a literal seed in a `for` loop's iterable (`for x, k in zip(xs, split(key(0), n))`):
  the iterable is evaluated once, before the first iteration, so each iteration gets a key of its
  own (flow.iteration_parts: what runs every iteration is the target and the body).
- A custom derivative rule drawing from a key JAX handed it with the primal's arguments (`key, x =
  primals` in `@f.defjvp def f_jvp(primals, tangents)`, or a `custom_vjp` forward or backward rule
  registered with `f.defvjp(fwd, bwd)`), beside its call of the primal or another draw: the rule
  differentiates the noise the primal added and must draw the very numbers the primal drew
  (semantic/derivative_rules.py). Not a key the rule computes itself (`first, _ = split(key)` drawn
  from twice), nor the same body in a function registered as no rule.
- A key re-seeded with a literal inside a loop (`for t in ts: key = PRNGKey(42)`): a fixed
  evaluation seed, giving the same numbers every iteration and in a later draw on purpose; so is one
  made inline from a computed seed that the loop does not change (`normal(PRNGKey(seed), s)` per
  setting), or `fold_in(base, 0)` with literal data alone, a fixed stream written as such (a key
  folded from a name the loop never changes, `fold_in(base, step)`, is flagged: the name says it was
  meant to change). Not in a `for` loop whose iterations are alike (its variable is never read, and it reads no
  clock, as a benchmark does): `for _ in range(n): batch = get_batch(PRNGKey(0), data)` draws one batch n
  times, and that is flagged. Nor in a loop of steps, one that continues the last iteration's state
  (it rebinds a name from a call that reads it: `model, loss = train_epoch(model, data, random.key(1))`),
  where nothing else the draw reads changes from step to step (the sampler's other arguments, or
  those a function of the module hands its own samplers from its parameters: `permutation(rng,
  len(xs))` reads `xs`, not the model): every epoch shuffles the same way, and reading the loop
  variable elsewhere (logging `epoch`) changes nothing (key_values.draw_varies_per_iteration). A draw
  whose input the loop changes (`normal(PRNGKey(0), (n,))` over sizes `n`), or in a loop over settings
  that carries nothing (`for t in ts`), stays a fixed seed on purpose. Likewise a
  key kept on `self` or given as a default whose name, or whose function's name, says it is fixed for
  evaluation (`self.eval_key`, `def validate(..., key=PRNGKey(42))`), a stored key drawn from by a
  method that no loop of the module runs (a one-off `build`), and a default key at a call outside loops.
- A key a function makes from a seed that is one of its parameters (`PRNGKey(seed)`), that it folds
  with data (`fold_in(PRNGKey(0), step)`), or that a function which loops itself makes (a run, one
  stream from a fixed seed), or hands to a model's `init` or a `split`, or one called only outside loops (setup): a fixed start, not
  a repeated step; nor where the function's or key's name says it is fixed for evaluation.
- A network run with its randomness switched off by a literal flag (`apply(params, rng, x,
  is_training=False)`, `train=False`, `deterministic=True`): it draws nothing from the key it is
  handed, so an evaluation loop passing one key to every batch repeats nothing
  (effects.runs_deterministic).
- A project function handed, in a loop, a key that its name or the function's says is kept fixed for
  evaluation (`evaluate(model, valid_key, x)` every step, `eval_step(state, key, batch)`): the same
  noise on every call keeps the validation figures comparable (key_values.fixed_for_evaluation).
- A key handed unchanged, in every iteration of a loop, to a call whose result reaches only a display
  (`mediapy.show_images`, `plt.imshow`, `print`, `display`, each a statement of its own; through names,
  parts of it, arithmetic and functions of a module or of the project, `colorize(depth)`, parts never
  read): the same views rendered with the same noise each time, pictures comparable across training,
  and nothing computed carries the repeated bits on (key_values.draw_only_shown, `computed`). A figure
  is such a display: the plotting functions of `matplotlib.pyplot` (`plt.hist(mean + noise * s)`), the
  same methods of its Axes (`axes[k].plot(t, y)` with `fig, axes = plt.subplots(...)`) and seaborn's
  plots: one panel per pass, each with the same noise, is common random numbers across panels, a
  figure's usual choice. A key handed to the step that updates the state, a result also stored or
  added into a total, a method of an object not known to be an Axes (`board.plot(...)`), or two
  different draws from one key plotted against each other (`plt.scatter(x, y)`: the figure shows
  their correlation) are reported.
- A function of the module that recomputes the very draw made just before it, with the same
  arguments once its parameters are read as what it is handed (`dkl = score(sampler.apply(params,
  key))` then `jax.grad(resample_dot)(params, key, dkl)` whose body runs `sampler.apply(params, key)`):
  the same samples again, to take a gradient through them (key_values.helper_repeats_draw).
- A key advanced by a split that keeps only its first child and hands it back or splits it
  (`key = split(key, 1)[0]`, `key, _ = split(key)`, the end of an Equinox training step), after a
  helper whose body reads the key only as the key of a `split` and draws from that split's first
  child only with samplers reading its own bits (`tkey, sub = split(key)` then `uniform(tkey)`): the
  one key the two splits share drew its own bits and is only split afterwards, as in the draw-then-split
  case above (key_values.advanced_past_own_bit_draws).
- A reuse the source says is meant: a comment on the line of either use, or in the comment lines just
  above its statement, that names a fixed key or seed or the same values (`split(sample_key)  # Fixed
  key` for comparable sample plots, `# These give the same value!` above a demonstration), or says
  "on purpose"/"deliberately" (not a comment marked TODO, FIXME or bug). The key's name saying so
  (`eval_key`) counts as well (below).
- Uses in the two arms of an `if`/`else` (or a conditional expression), which are alternatives, uses
  under two `if`s with complementary tests (`mode == "a"` and `mode != "a"`), and a use after a branch
  that returns.

- A sampler that reads its key's own bits and one that splits it first (`normal(k)` and
  `randint(k)`): they read different bits on the default threefry (checked on jax 0.10.2), so
  nothing is correlated, although `jax_debug_key_reuse` would reject the reuse. A library inference
  call that splits its key first (NumPyro's `MCMC.run`, `SVI.run`, `Predictive`) beside such a sampler
  is that case too.
- A key a callee receives but never draws from: packed in a tuple its branch unpacks and drops (`x,
  key, rate = args; return x`), or passed to a keyword-only parameter it only tests: nothing is drawn.

One finding per key and flow (a function body, a script; in a notebook, per key and cell), at the
first reuse in the source; the message lists the lines of the other reuses of that key. One idiom repeated down a
cell is one mistake, and fixing the first reuse shows the next. Where the slip is the use of a kept key,
the finding points at that use: `key, sub = split(key)` keeps `key` to be split again and makes `sub`
for the use that follows; a use that takes `key` instead, with `sub` read nowhere before it is bound
again, is what a later split of `key` (the next iteration's, the next one in the body) repeats, so the
finding stands on the use (`order = permutation(key, n)`: "pass `sub` here"), one per such use (each
has its own fix), not on the later split (key_values.unread_sibling); a split into more names counts
alike (`key, noise_key, accept_key = split(key, 3)`, `noise_key` never read). Not a sibling named `_` or
`_sub`, discarded on purpose: the reuse is then reported at the later split, as before.

## Why is this bad?
JAX's random numbers are a pure function of the key: the same key gives the same numbers, and
two samplers fed one key read the same bits (`normal(k, (3,))` is the first row of
`normal(k, (3, 3))`; `uniform(k)` and `normal(k)` are transforms of one another), so their outputs are
correlated. See
"Random numbers in JAX", https://docs.jax.dev/en/latest/random-numbers.html ("never reuse keys
(unless you want identical outputs)") and https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#random-numbers.

## Example
```python
def init(key):
    w = jax.random.normal(key, (3, 3))
    b = jax.random.normal(key, (3,))  # same bits as the first row of w
    return w, b
```

## Use instead
```python
def init(key):
    w = jax.random.normal(key, (3, 3))
    key, subkey = jax.random.split(key)
    b = jax.random.normal(subkey, (3,))
    return w, b
```

## Fix safety
In straight-line code (the second use in a simple statement of a function whose local variable
the key is), the fix inserts `key, subkey = jax.random.split(key)` before the statement and passes
`subkey` instead (another fresh name where `subkey` is taken, as when the key is itself `subkey`). It is unsafe: it changes the random stream (that is the point), and later uses of
`key` see the advanced key. Reuse across loop iterations has no fix: where to split depends on
what the loop carries. Nor does a reuse whose structure says the repeat is meant (the finding
stays, for the author to judge): the second call repeats the first exactly (a sample reproduced);
the two results are compared (`loss_b - loss_a`, `a == b`, `allclose(a, b)`: common random numbers
for a paired comparison); or one function other than a `jax.random` sampler gets the key in the
same slot while other, computed arguments vary (`evaluate(policy_a, key)` and `evaluate(policy_b,
key)`: matched conditions); the same holds where the key reaches that function through one
derivation written twice (`build(jax.random.split(key, n))` for a network and again for its target
network: a copy at the start). Calls that differ only in literals (shapes, sizes) are split. A later
use after such a deliberate repeat gets no fix either: a split after the repeat would split a key
that has drawn, one before it would break the repeat. The fix of a split after a draw splits before
the draw. An element of a key array (`keys[1]`) gets no fix.

## How the runtime mode confirms it
It runs the function twice with the example key and checks the two draws: for the original they
are equal (or correlated: the same leading values); for the fixed version they differ.
"""

from __future__ import annotations

import ast
import re

from jaxlint import fixes
from jaxlint.fixes import key_split
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import cell_order, derivative_rules, effects, handed_callables, iteration, key_values, library_models
from jaxlint.semantic.model import FUNCTION_NODES, FUNCTION_TYPES, is_within, parent_of
from jaxlint.semantic.dead_code import never_runs
from jaxlint.semantic.syntax import ancestors, child_nodes, walk  # ast.iter_child_nodes and ast.walk minus ctx markers, faster
from jaxlint.semantic.flow import iteration_parts, target_elements

CONSUMERS = key_values.RANDOM_CONSUMERS
_SIMPLE_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)

# The flow state: key name -> the calls that consumed it since it was last bound (absent: fresh or
# unknown). None: unreachable.
State = "dict[str, tuple[ast.Call, ...]] | None"


# A split of a key that has drawn. JAX's own key-reuse checker (`jax.config.update("jax_debug_key_reuse",
# True)`) raises KeyReuseError at it (checked on jax 0.10.2): every message says so, since the split keys
# look fresh to a reader. What else is true depends on the draw (tests/test_jax_behaviour.py):
_CHECKER = "JAX's key-reuse checker (`jax_debug_key_reuse`) raises KeyReuseError here"
# `normal`, `uniform`... read the key's own bits: the split keys (`fold_in(key, i)`) repeat none of them.
_SPLIT_AFTER_OWN_BITS = (
    ": a key that has drawn is split; on JAX's default threefry the split keys do not repeat the draw's bits, "
    f"but each key is meant to be used once, and {_CHECKER}"
)
# `randint`, `permutation`, `shuffle`, `choice` without `p` (and Haiku's `init`) split the key first and
# draw from those keys: the very keys this split returns.
_SPLIT_AFTER_SPLITTING_DRAW = (
    ": `{name}` splits its key internally and draws from the keys it gets, the very keys this split returns "
    f"(`split(k, n)[i]` is `fold_in(k, i)`), so draws from them repeat its bits; {_CHECKER}"
)
# Anything else (a helper, an unmodelled framework call): what it derives from the key is not known here.
_SPLIT_AFTER_DRAW = f": a key that has drawn is split; each key is meant to be used once, and {_CHECKER}"


class PrngKeyReuse(Rule):
    code = "JAX501"
    name = "prng-key-reuse"
    summary = "A PRNG key consumed twice without being split"
    skips_test_code = True
    node_types = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Import, ast.ImportFrom, ast.ClassDef)
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        if isinstance(node, ast.ClassDef):
            self._stale_attribute_keys(node, context)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            # The module's own body (a script) is one more flow, run once: at its first top-level import.
            module = parent_of(node)
            first_import = isinstance(module, ast.Module) and node is next(s for s in module.body if isinstance(s, (ast.Import, ast.ImportFrom)))
            if first_import:
                self._shadowed_seeds(context)
                self._default_keys(context)
                self._stale_keys_through_instances(context)
                self._keys_alike_per_leaf(context)
            if (
                first_import
                and (
                    any(key_values.is_random_call(call, context) for call in context.model.module_scope.calls)
                    or (_plain_script(context) and any(_draws_through_helper(call, context) for call in context.model.module_scope.calls))
                    or (  # a notebook's loop that hands a key to a project function (_Flow.cell_loop_helper_keys)
                        cell_order.is_notebook(context.source.filename)
                        and any(_in_module_loop(call) and _draws_through_helper(call, context) for call in context.model.module_scope.calls)
                    )
                )
            ):
                # A notebook's cells are one program run in cell order (semantic/cell_order.py).
                for statements in cell_order.program_flows(module.body):
                    flow = _Flow(context, module)
                    flow.block(statements, {})
                    flow.finish()
            return
        # Every finding is a call that consumes a key; most functions hold none, and the flow
        # analysis (a walk of every statement and expression) is not worth running on them.
        holders, reusers = context.memo(("JAX501", "consuming_functions"), _functions_holding_consumers, context)
        if id(node) not in holders:
            return
        if id(node) in reusers:
            flow = _Flow(context, node)
            flow.run()
            flow.finish()
        self._captured_keys(node, context)

    def _keys_alike_per_leaf(self, context) -> None:
        """A function run once per leaf of a tree (an `@optimizer`'s `init`/`update`, the function of
        `jax.tree.map`) that makes its key from a literal seed or draws from a key of the scope around
        it: every leaf gets the same key, so leaves of one shape draw the same numbers."""
        if not any(key_values.is_random_call(call, context) or key_values.literal_seed(call, context) for scope in context.model.scopes for call in scope.calls):
            return
        for function, why in key_values.per_leaf_functions(context):
            if context.in_test_code(function):
                continue
            for node, key in key_values.keys_alike_per_leaf(function, context)[:1]:
                context.report(
                    node,
                    f"PRNG key `{key}` is the same for every leaf: {why}, so every leaf draws "
                    f"from this one key and leaves of one shape get the same numbers; give each leaf its own key "
                    f"(split one key into as many as there are leaves, `jax.random.split(key, len(leaves))`)",
                )

    def _shadowed_seeds(self, context) -> None:
        """`[[normal(PRNGKey(epoch + i)) for i in range(n)] for i in range(0, total, n)]`: the key is
        made from a name the outer loop binds, but an inner comprehension binds the same name, so the
        key takes the same values in every iteration of the outer loop."""
        for scope in context.model.scopes:
            for call in scope.calls:
                found = key_values.shadowed_seed(call, context)
                if found is None:
                    continue
                draw, name, outer = found
                kind = "comprehension" if not isinstance(outer, (ast.For, ast.AsyncFor)) else "loop"
                context.report(
                    draw,
                    f"the key is made from `{name}`, which an inner comprehension binds again, so it ignores the outer "
                    f"{kind}'s `{name}` (line {outer.lineno}) and every iteration of that {kind} draws the same numbers; "
                    f"rename the inner variable",
                )

    def _stale_attribute_keys(self, class_node: ast.ClassDef, context) -> None:
        """`self.key = PRNGKey(seed)` in `__init__`, drawn from by a method that runs per step and never
        advances it: every call draws the same numbers (semantic/key_values.py)."""
        if context.in_test_code(class_node):
            return
        for argument, attribute, method, loop in key_values.stale_attribute_keys(class_node, context.model, context):
            context.report(
                argument,
                f"PRNG key `self.{attribute}` is bound once in `__init__` and never advanced, so every call of "
                f"`{method}` (in the loop at line {loop.lineno}) draws the same numbers; split it on each use "
                f"(`self.{attribute}, key = jax.random.split(self.{attribute})`) and draw from `key`",
            )

    def _stale_keys_through_instances(self, context) -> None:
        """`agent.act(obs)` in a loop, `act` of another module's class drawing from a key kept on `self` since
        `__init__` and never advanced (its summary): every iteration draws the same numbers."""
        for call, owner, method, attribute, loop in key_values.stale_keys_through_instances(context.model):
            if context.in_test_code(call):
                continue
            context.report(
                call,
                f"`{owner}.{method}` draws from `self.{attribute}`, a key bound once in `{owner}.__init__` and never "
                f"advanced, so every iteration of this loop (line {loop.lineno}) draws the same numbers; split it on each "
                f"use in `{method}` (`self.{attribute}, key = jax.random.split(self.{attribute})`)",
            )

    def _default_keys(self, context) -> None:
        """`def f(x, key=PRNGKey(0))` drawing from `key`, called in a loop without a key: the default is
        made once, when `f` is defined, so every iteration draws the same numbers."""
        seen: set[tuple] = set()
        for call, name, parameter, loop in key_values.default_key_calls(context.model, context):
            caller = context.model.scope_for(call)
            if (id(caller), name, parameter) in seen or context.in_test_code(call):
                continue
            seen.add((id(caller), name, parameter))
            context.report(
                call,
                f"`{name}` draws from its default `{parameter}`, a key made once when `{name}` was defined, and this "
                f"call in a loop (line {loop.lineno}) does not pass one, so every iteration draws the same numbers; "
                f"pass a fresh key (`{parameter}=subkey`, split per iteration)",
            )

    def _captured_keys(self, function: ast.AST, context) -> None:
        model = context.model
        module_keys = key_values.module_constant_keys(model, context)
        for argument, key, called, loop_call, compiled in key_values.captured_constant_keys(function, model, module_keys, context):
            local = key not in module_keys
            how = (f"made inside jitted `{called.name}`, a constant of the compiled program," if local else f"captured by jitted `{called.name}` as a constant") if compiled else f"drawn from by `{called.name}`"
            what = f"PRNG key `{key}`, made from a constant seed on every call," if local else f"module-level PRNG key `{key}`"
            context.report(
                argument,
                f"{what} is {how} and never advanced, "
                f"so every call (in the loop at line {loop_call.lineno}) draws the same numbers; pass a fresh key "
                f"as an argument (split it per step)",
            )


def _functions_holding_consumers(context) -> tuple[set[int], set[int]]:
    """ids of every function that contains (at any depth) a call consuming a PRNG key; and of those
    whose own flow could show a reuse: two consuming calls of their own (not in nested functions,
    which the flow does not enter), or one that runs in a loop or comprehension. A single draw
    outside any loop has nothing to clash with."""
    holders: set[int] = set()
    own_consumers: dict[int, int] = {}
    reusers: set[int] = set()
    for node in (call for scope in context.model.scopes for call in scope.calls):  # every call of the module
        if not _is_consumer(node, context):
            continue
        child, ancestor = node, parent_of(node)
        owner = None
        in_loop = False
        while ancestor is not None:
            if owner is None:
                if ancestor.__class__ is ast.Lambda and handed_callables.run_at(ancestor, context.qualified_name) is not None:
                    pass  # a lambda `lax.cond` (or a callback) runs where it stands: its draws are the enclosing flow's
                elif isinstance(ancestor, FUNCTION_NODES):
                    if _runs_in_body(ancestor, child):
                        owner = id(ancestor)
                    # (else a decorator or a default value: it runs where the `def` runs)
                elif isinstance(ancestor, _REPEATING):
                    in_loop = True
            if isinstance(ancestor, FUNCTION_NODES):
                holders.add(id(ancestor))
            child, ancestor = ancestor, parent_of(ancestor)
        if owner is not None:
            own_consumers[owner] = own_consumers.get(owner, 0) + 1
            if in_loop or own_consumers[owner] >= 2:
                reusers.add(owner)
    if own_consumers:
        # The body of a `lax.scan` runs once per step: one draw there can repeat across steps.
        bodies = context.memo(("JAX501", "lax_loop_bodies"), key_values.lax_loop_bodies, context.model, context)
        reusers.update(owner for owner in own_consumers if owner in bodies)
    return holders, reusers


_REPEATING = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _runs_in_body(function: ast.AST, child: ast.AST) -> bool:
    """Whether `child`, a direct child of `function`, runs when the function is called: its body, not
    its decorators, default values or annotations, which run where the `def` (or lambda) is."""
    if isinstance(function, ast.Lambda):
        return child is function.body
    return any(child is statement for statement in function.body)


def _evaluated_at_definition(node: ast.AST) -> list[ast.expr]:
    """The expressions a `def` or `class` statement evaluates where it stands, in source order:
    decorators, then default values (or base classes and class keywords).
    `@partial(lax.scan, init=state, xs=split(key, n))` draws from `key` of the enclosing function."""
    found = list(node.decorator_list)
    if isinstance(node, ast.ClassDef):
        return [*found, *node.bases, *(keyword.value for keyword in node.keywords)]
    arguments = node.args
    return [*found, *arguments.defaults, *(value for value in arguments.kw_defaults if value is not None)]


def _is_consumer(call: ast.Call, context) -> bool:
    """A call that may consume a key: any `jax.random` call, or a framework consumer (`model.init`,
    `env.reset/step`, `space.sample`, `rngs=`)."""
    # (Asked of every call of a module: plain loops, no generator.)
    function = call.func
    if function.__class__ is ast.Attribute and function.attr in key_values.KEY_METHODS:
        return True
    for keyword in call.keywords:
        if keyword.arg == "rngs" or keyword.arg == "seed":
            return True
    if function.__class__ is ast.Attribute and function.attr in key_values._STATE_REPLACERS and key_values.stored_keys(call, context):
        return True  # `state.replace(rng_key=rng_key)` of a field the function splits: the key handed on
    qualified = context.qualified_name(function)
    if qualified is not None and qualified.startswith("jax.random."):
        return True
    return _draws_through_helper(call, context)


def _draws_through_helper(call: ast.Call, context) -> bool:
    """A helper of the project (or a modelled library call) that draws from a key passed to it: an
    argument named like a key or bound from a key producer (semantic/key_values.passes_key), the names
    the flow counts as keys."""
    handed = key_values.passes_key(call, context) or any(
        key_values.literal_seed(keyword.value, context) is not None for keyword in call.keywords
    )  # (`eqx.nn.Linear(..., key=PRNGKey(0))`: a key made inline)
    return handed and bool(effects.consumed_key_arguments(context.model, call, context.model.scope_for(call)))


class _Flow:
    def __init__(self, context, function: ast.AST) -> None:
        self.context = context
        self.function = function
        self.reported: set = set()  # call ids, and ("slip", id) of uses reported as slips
        self.repeated_loops: set[int] = set()
        # key -> [(call, message, fix)]: one finding per key and flow, reported by `finish`.
        self.findings: dict[tuple[str, int, int], list[tuple[ast.Call, str, object]]] = {}
        self.scope = context.model.scope_of_node.get(function)
        # Framework consumers (`init`, `rngs=`, `env.reset/step`, `space.sample`) count in function bodies of
        # non-test code: scripts, notebooks and tests re-run demos and comparisons from one key on purpose.
        self.framework = not isinstance(function, ast.Module) and not context.in_test_code(function)
        # A script's own body counts the project's helpers that draw from a key: `state =
        # train_epoch(state, key)` every epoch reuses `key` there too.
        self.helpers = self.framework or (isinstance(function, ast.Module) and _plain_script(context))
        self._known_keys: set[str] | None = None
        self.seed_of: dict[str, str] = {}  # name -> the literal seed it was made from: `k = PRNGKey(0)`
        # `seed step` -> the names it reads: a key made inline from a computed seed (`PRNGKey(step)`),
        # one key until one of those names is rebound.
        self.made_from: dict[str, frozenset[str]] = {}
        self.across_iterations = False
        self._read: dict[int, bool] = {}
        self.in_test: bool | None = None
        self.handing_back: set[int] = set()  # calls that returned the key they drew from (`handed_back`)
        self.notebook = isinstance(function, ast.Module) and cell_order.is_notebook(context.source.filename)
        self.notebook_helper_calls: set[int] = set()  # helpers a notebook's body counts beside a split only

    def run(self) -> None:
        # Every finding of a flow waits on `worth_reporting`: in test code none can come, and the
        # walk of the whole body is not worth making.
        if not self.worth_reporting(None, None):
            return
        bodies = self.context.memo(("JAX501", "lax_loop_bodies"), key_values.lax_loop_bodies, self.context.model, self.context)
        shape = bodies.get(id(self.function))
        carried = key_values.carried_keys(self.function, shape) if shape is not None else None
        if carried is None:
            self.block(self.function.body, {})
        else:
            self.lax_loop_body(carried)
        if shape is not None:
            self.lax_body_constants(shape[0])

    def lax_body_constants(self, carry_index: int) -> None:
        """A lax loop body drawing from a key it captures from the scope around it, or from a `fold_in`
        of such names: one key at every step (semantic/key_values.py, `lax_body_constant_keys`); also
        through a helper handed the carried state, a step of a sequence (`carry_derived_names`)."""
        context = self.context
        free, invariant = context.memo(("JAX501", "lax constants", id(self.function)), key_values.lax_body_constant_keys, self.function, context)
        if not free and not invariant:
            return
        carried: frozenset[str] | None = None
        for statement in self.function.body:
            for call in _own_calls(statement):
                for key in self.consumed_keys(call):
                    root = _key_root(key)
                    if key_values.is_seed(key) or (root not in free and root not in invariant):
                        continue
                    if not key_values.is_random_call(call, context):
                        # A helper handed the key and the step's element (`per_example(params, xs[i], rng)`)
                        # applies one random transform alike to every element, as a `vmap` sharing the key
                        # does: the documented policy. A sampler's numbers repeat whatever the element.
                        # Handed the carry too (`sample_next(tokens, key=KEY)`), the helper runs one step of
                        # a sequence on what the last step left, as a `for` loop's body does: every step
                        # draws the same numbers (the same sampling noise for every token).
                        if carried is None:
                            carried = key_values.carry_derived_names(self.function, carry_index)
                        if not key_values.reads_carry(call, carried, context):
                            continue
                    if not self.worth_reporting(call, call) or _draws_nothing(call, context) or key_values.draw_values_unused(call, self.function, context):
                        continue
                    if root in invariant:
                        self.report_loop(call, key, self.function, invariant[root])
                    elif id(call) not in self.reported:
                        self.reported.add(id(call))
                        if _stated_on_purpose(call, context):
                            continue
                        self.record(
                            key, call,
                            f"PRNG key `{key}` is captured by this lax loop body (line {self.function.lineno}) from the scope "
                            f"around it, so every step draws from the same key and the same numbers; carry the key and "
                            f"split it per step, or fold in the step index (`jax.random.fold_in({key}, i)`)",
                        )

    def lax_loop_body(self, carried) -> None:
        """The body of a `lax.scan` (`fori_loop`, `while_loop`) runs once per step and starts from the
        carry it returned: a key carried through unchanged and drawn from draws the same numbers every
        step; a key drawn from and then carried on is split (or drawn from) again by the next step.
        The body runs once more from where the first step left the carried keys, as a loop's does."""
        start, rebound = carried
        body = self.function.body
        end = self.block(body[:-1], {})
        if end is None:
            return
        end = self.expression(body[-1].value, end, body[-1])  # the `return`: what it draws counts too
        used = {name: calls for name, calls in end.items() if name in rebound and calls}
        for name, calls in used.items():
            if not rebound[name] and self.worth_reporting(calls[0], calls[0]):
                self.report_loop(calls[0], name, self.function)
        advanced = {name: calls for name, calls in used.items() if rebound[name]}
        if advanced:
            self.across_iterations = True  # where to split depends on what the step carries: no fix
            self.block(body[start:], advanced)
            self.across_iterations = False

    # ----- statements -----------------------------------------------------------------------

    def block(self, statements: list[ast.stmt], state):
        for statement in statements:
            if state is None:
                return None
            state = self.statement(statement, state)
        return state

    def statement(self, node: ast.stmt, state):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for expression in _evaluated_at_definition(node):
                state = self.expression(expression, state, node)
            state = self.kill(state, [node.name])
            return state
        if isinstance(node, (ast.Return, ast.Raise)):
            self.expression(getattr(node, "value", None) or getattr(node, "exc", None), state, node)
            return None
        if isinstance(node, (ast.Break, ast.Continue)):
            return None
        if isinstance(node, ast.If):
            state = self.expression(node.test, state, node)
            # A side no run takes (a constant, or a parameter every caller fixes: semantic/dead_code.py)
            # neither draws nor splits: the key flows through the other side alone.
            if node.body and never_runs(node.body[0], self.context.model):
                return self.block(node.orelse, state)
            if node.orelse and never_runs(node.orelse[0], self.context.model):
                return self.block(node.body, state)
            return _merge(self.block(node.body, dict(state)), self.block(node.orelse, dict(state)))
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            return self.loop(node, state)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                state = self.expression(item.context_expr, state, node)
                if item.optional_vars is not None:
                    state = self.kill(state, _names(item.optional_vars))
            return self.block(node.body, state)
        if isinstance(node, ast.Try):
            after_body = self.block(node.body, dict(state))
            # A handler may start anywhere in the body: be generous, take the entry state for it.
            outcomes = [self.block(node.orelse, after_body) if after_body is not None else None]
            for handler in node.handlers:
                entry = _merge(dict(state), after_body)
                if handler.name:
                    entry = self.kill(entry, [handler.name])
                outcomes.append(self.block(handler.body, entry))
            merged = None
            for outcome in outcomes:
                merged = _merge(merged, outcome)
            if node.finalbody:
                merged = self.block(node.finalbody, merged if merged is not None else dict(state))
            return merged
        if isinstance(node, ast.Match):
            state = self.expression(node.subject, state, node)
            merged = None
            for case in node.cases:
                merged = _merge(merged, self.block(case.body, dict(state)))
            return merged
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            value = node.value
            if value is not None:
                state = self.expression(value, state, node)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [name for target in targets for name in _names(target)]
            # `z, rng = flow(z, rng)` where `flow` draws from `rng` and returns it unchanged: the name is
            # bound again to the key it held, already used (semantic/effects.py, `returned_key`).
            kept = {name: state[name] for name in self.handed_back(node) if name in state} if state is not None else {}
            state = self.kill(state, names)
            if kept and state is not None:
                state.update(kept)
                self.handing_back.add(id(value))
            seed = key_values.literal_seed(value, self.context) if value is not None and not isinstance(node, ast.AugAssign) else None
            # A key rebuilt from a literal seed on every iteration of a loop is fixed noise on purpose
            # (the same evaluation noise for every setting compared): not a reuse of that seed.
            if seed is not None and len(targets) == 1 and isinstance(targets[0], ast.Name) and not _in_loop(node):
                self.seed_of[targets[0].id] = seed
            elif len(targets) == 1 and isinstance(targets[0], ast.Name):
                self.seed_of.pop(targets[0].id, None)
            return state
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return self.kill(state, node.names)
        if isinstance(node, ast.Delete):
            return self.kill(state, [name for target in node.targets for name in _names(target)])
        for child in child_nodes(node):
            if isinstance(child, ast.expr):
                state = self.expression(child, state, node)
        return state

    def handed_back(self, node: ast.stmt) -> list[str]:
        """Names an assignment binds to a key its call drew from and returned unchanged, where the
        name is the one passed (`x, key = step(x, key)`): that name still holds the used key."""
        value = node.value
        if not self.helpers or value.__class__ is not ast.Call or not isinstance(node, ast.Assign) or len(node.targets) != 1:
            return []
        model = self.context.model
        names = []
        for argument, path in effects.call_effects(model, value, model.scope_for(value)).handed_back(value):
            target = node.targets[0]
            for index in path:
                if target.__class__ not in (ast.Tuple, ast.List) or index >= len(target.elts) or any(e.__class__ is ast.Starred for e in target.elts):
                    target = None
                    break
                target = target.elts[index]
            if target.__class__ is ast.Name and argument.__class__ is ast.Name and target.id == argument.id:
                names.append(target.id)
        return names

    def loop(self, node, state):
        self.literal_keys_repeated(node)
        self.cell_loop_helper_keys(node)
        entry = dict(state)
        if isinstance(node, ast.While):
            entry = self.expression(node.test, entry, node)
        else:
            entry = self.expression(node.iter, entry, node)
        assigned = _assigned_in(node)
        first = self.iteration(node, dict(entry))
        if first is not None:
            # A name the loop rebinds, but always to the same key (`k = fold_in(base, step)`, `step`
            # unchanged in the loop): not reassigned as far as its draws go (semantic/key_values.py).
            invariant = self.context.memo(("JAX501", "invariant", id(node)), key_values.loop_invariant_keys, node, self.context)
            # The second iteration starts from what the first left: a key consumed and not reassigned is reused.
            for name, calls in first.items():
                root = _key_root(name)
                if (root in assigned and root not in invariant) or key_values.is_seed(name):
                    continue
                fresh = [
                    call for call in calls
                    if is_within(call, node) and call not in entry.get(name, ()) and id(call) not in self.notebook_helper_calls
                ]
                if fresh and _on_one_pass(fresh, node, self.context):
                    continue  # `for n in range(2): if n == 1: dropout(x, key)`: one pass draws, once
                if fresh and self.worth_reporting(fresh[0], fresh[0]) and not all(key_values.applied_per_element(call, node, self.context) for call in fresh):
                    self.report_loop(fresh[0], name, node, invariant.get(root))
            for name, call in key_values.invariant_holders_handed_on(node, invariant, self.context) if invariant else ():
                if name not in first and self.worth_reporting(call, call) and not key_values.applied_per_element(call, node, self.context):
                    self.report_loop(call, name, node, invariant[name])
            # A key reassigned by `key = split(key)[0]` and then consumed: the next iteration splits a
            # key that was already used. Run the body once more from where the first iteration ended.
            carried = {name: tuple(c for c in calls if is_within(c, node)) for name, calls in first.items() if _key_root(name) in assigned}
            carried = {name: calls for name, calls in carried.items() if calls}
            if carried:
                second = dict(entry)
                second.update(carried)
                self.across_iterations = True  # where to split depends on what the loop carries: no fix
                self.iteration(node, second)
                self.across_iterations = False
        # After the loop: the body may have run zero or more times. A key the body rebinds on every
        # iteration (`key, sub = split(key)`) is taken from the path that ran it: a loop written to
        # split per iteration is not meant to run zero times (`range(num_codes)` with 0 codes).
        after = _merge(dict(entry), first)
        if first is not None and after is not None:
            rebound = _rebound_every_iteration(node)
            for name in {*rebound, *(n for n in (*first, *after) if _key_root(n) in rebound)}:
                if name in first:
                    after[name] = first[name]
                else:
                    after.pop(name, None)
        if node.orelse:
            after = self.block(node.orelse, after if after is not None else dict(entry))
        return after if after is not None else dict(entry)

    def iteration(self, node, state):
        if not isinstance(node, ast.While):
            state = self.kill(state, _names(node.target))
        return self.block(node.body, state)

    def handed_lambdas(self, call: ast.Call, state, statement):
        """The bodies of the lambdas `call` runs where it stands (`lax.cond(p, lambda _: mutate(net, key),
        lambda _: net, None)`, semantic/handed_callables.py) draw there, from the keys they close over:
        in order, or as alternatives of which one runs (`lax.cond`, `lax.switch`). A lambda's own
        parameters are other names than the enclosing function's."""
        qualified_name = self.context.qualified_name
        lambdas = [each.function for each in handed_callables.handed(call, qualified_name) if each.function.__class__ is ast.Lambda]
        if not lambdas:
            return state
        alternative = handed_callables.alternatives(call, qualified_name)
        outcomes = []
        for function in lambdas:
            arguments = function.args
            parameters = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
            parameters += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
            entry = dict(state)
            hidden = {name: entry.pop(name) for name in parameters if name in entry}
            out = self.expression(function.body, entry, statement)
            if out is None:
                continue
            for name in parameters:
                out.pop(name, None)
            out.update(hidden)
            if alternative:
                outcomes.append(out)
            else:
                state = out
        if alternative:
            merged = None
            for out in outcomes:
                merged = _merge(merged, out)
            return merged if merged is not None else state
        return state

    def kill(self, state, names):
        for name in names:
            self.seed_of.pop(name, None)
        if state is None:
            return None
        for name in names:
            state.pop(name, None)
        if self.made_from:
            # A key made from a computed seed (`PRNGKey(step)`) changes when a name of the seed is rebound.
            bound = set(names)
            for key in [k for k in state if k in self.made_from and self.made_from[k] & bound]:
                del state[key]
        if any("[" in name for name in state):
            # Rebinding a key array rebinds its elements (`keys = split(key, 3)` then `keys[1]`).
            bound = set(names)
            for name in [n for n in state if "[" in n and _key_root(n) in bound]:
                del state[name]
        return state

    # ----- expressions ----------------------------------------------------------------------

    def expression(self, node, state, statement):
        if node is None or state is None:
            return state
        kind = node.__class__
        if kind is ast.Name or kind is ast.Constant or kind in FUNCTION_TYPES:
            return state  # (the commonest leaves first) nothing here consumes or rebinds a key
        if isinstance(node, ast.IfExp):
            state = self.expression(node.test, state, statement)
            return _merge(self.expression(node.body, dict(state), statement), self.expression(node.orelse, dict(state), statement))
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node, state, statement)
        if isinstance(node, ast.NamedExpr):
            state = self.expression(node.value, state, statement)
            return self.kill(state, [node.target.id])
        if isinstance(node, ast.Call):
            for child in (node.func, *node.args, *(keyword.value for keyword in node.keywords)):
                state = self.expression(child, state, statement)
            if node.args and state is not None:
                state = self.handed_lambdas(node, state, statement)
            for key in self.consumed_keys(node):
                previous = state.get(key, ())
                # The latest earlier draw that shares bits with this one.
                clash = next((earlier for earlier in reversed(previous) if self.clash(key, earlier, node)), None)
                if clash is not None:
                    self.report_reuse(node, key, clash, statement)
                if node not in previous:
                    state[key] = (*previous, node)
            return state
        for child in child_nodes(node):
            if isinstance(child, ast.expr):
                state = self.expression(child, state, statement)
        return state

    def comprehension(self, node, state, statement):
        bound: set[str] = set()
        for generator in node.generators:
            state = self.expression(generator.iter, state, statement)
            bound.update(_names(generator.target))
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for element in [*elements, *(c for g in node.generators for c in g.ifs)]:
            for call in walk(element):
                if isinstance(call, ast.Call):
                    for key in self.consumed_keys(call):
                        if _key_root(key) not in bound and not _assigned_walrus(node, _key_root(key)) and not key_values.is_seed(key) and self.worth_reporting(call, call):
                            if key_values.paired_over_elements(call, node, bound, self.context):
                                continue  # `[permutation(key, a) for a in arrays]`: one order for parallel arrays
                            if id(call) in self.notebook_helper_calls:
                                continue  # a notebook's helper per element: a comparison on one key (its loop policy decides)
                            self.report_loop(call, key, node)
        # One element is one iteration's body: two draws in it from a key the comprehension binds
        # (`[(normal(k, (m, n)), normal(k, (n,))) for k, (m, n) in zip(keys, shapes)]`) share bits, as
        # in the body of the `for` loop it abbreviates. Each element starts from no draws of its own.
        for element in elements:
            own = [key for call in walk(element) if isinstance(call, ast.Call) for key in self.consumed_keys(call) if _key_root(key) in bound]
            if len(own) > len(set(own)):
                across, self.across_iterations = self.across_iterations, True  # no statement to split in: no fix
                self.expression(element, {}, statement)
                self.across_iterations = across
        return state

    @property
    def known_keys(self) -> set[str]:
        """Names known to hold keys, found on first need (a call that could be a framework consumer)."""
        if self._known_keys is None:
            self._known_keys = key_values.key_names(self.function, self.context) if self.helpers else set()
        return self._known_keys

    def consumed_keys(self, call: ast.Call) -> list[str]:
        """The keys a call consumes: names, and `seed:N` for a key made inline or bound from a literal seed."""
        arguments = key_values.consumed_arguments(call, self.context, lambda name: name in self.known_keys, framework=self.framework, helpers=self.helpers)
        if not arguments and self.notebook and not self.helpers:
            arguments = self.splitting_helper_keys(call)
        if not arguments:
            return []
        results = _result_names(call)
        if results and all(name.startswith("_") for name in results):
            return []  # `_, _state = env.reset(rng, params)`: a throwaway draw (a template, a shape probe)
        if not self.read(call):
            return []  # a draw whose result is never read (rebound first, or a discarded smoke test) draws nothing that matters
        # A helper whose draws land only in parts of its result that this function drops drew nothing it sees.
        arguments = [a for a in arguments if not key_values.helper_draws_dropped(call, a, self.function, self.context)]
        keys = []
        # One literal seed in two places is reuse only for samplers (not `split`), and in a script's
        # body (notebook cells restart demos from `key(0)` on purpose) only within one statement.
        seeded = (key_values.is_random_call(call, self.context) and not _callee(call).endswith("split")) or _library_sampler(call, self.context)
        for argument in arguments:
            seed = None
            element = key_values.key_element(argument)
            if isinstance(argument, ast.Name):
                keys.append(argument.id)
                seed = self.seed_of.get(argument.id)
            elif element is not None:
                keys.append(element)  # `keys[1]`: one element of a split's key array, a key of its own
            else:
                seed = key_values.literal_seed(argument, self.context)
                made = key_values.made_seed(argument, self.context) if seed is None and seeded else None
                if made is not None:
                    self.made_from[made[0]] = made[1]
                    keys.append(made[0])
            if seed is not None and seeded:
                keys.append(seed if not isinstance(self.function, ast.Module) else f"{seed} in statement {id(_statement(call))}")
        return keys

    def splitting_helper_keys(self, call: ast.Call) -> list[ast.expr]:
        """In a notebook's body, the keys a function of the notebook splits before it draws (`def
        init(rng): w_key, b_key = split(rng)`): such a helper hands out the keys `split(rng)` returns
        wherever it runs, so beside a `jax.random.split` of the same key in the body both hand out one
        set of keys (`clash` pairs it with such a split only: two helpers on one key stay a comparison
        on common random numbers)."""
        if not key_values.passes_key(call, self.context) or key_values.is_random_call(call, self.context):
            return []
        if not _project_helper(call, self.context):
            return []
        names = self.context.memo(("key_values", "key_names", id(self.function)), key_values.key_names, self.function, self.context)
        found = key_values.consumed_arguments(call, self.context, names.__contains__, framework=False, helpers=True)
        found = [
            argument for argument in found
            if argument.__class__ is ast.Name and key_values.draws_from_split_keys(call, argument.id, self.context)
        ]
        if found:
            self.notebook_helper_calls.add(id(call))
        return found

    def notebook_helper_pair(self, key: str, first: ast.Call, second: ast.Call) -> bool:
        """Whether a pair in a notebook's body may clash: a helper counts there only after a `split` of
        the key in the body (`splitting_helper_keys`), whose keys it hands out again to draws of the
        same kind as the body's (the same values drawn twice: key_values.split_children_meet). Not the
        other order (a helper run on the key, then the key split for what follows), nor two helpers, nor
        keys that reach different consumers (an evaluation rollout, a training run): a notebook's
        experiments on one key."""
        if id(second) in self.notebook_helper_calls:
            return _is_split(first, self.context) and "[" not in key and key_values.split_children_meet(first, second, key, self.function, self.context)
        return id(first) not in self.notebook_helper_calls

    def read(self, call: ast.Call) -> bool:
        known = self._read.get(id(call))
        if known is None:
            known = self._read[id(call)] = key_values.result_is_read(call, self.function, self.context)
        return known

    def clash(self, key: str, first: ast.Call, second: ast.Call) -> bool:
        """Two consumptions of one key that draw shared (or identical, unintended) bits."""
        # A call after one that handed the key back (the same call in a later iteration included): the
        # caller rebound the key expecting a new one, so neither a repetition nor a pairing was meant.
        again = id(first) in self.handing_back
        if self.notebook and not self.helpers and not self.notebook_helper_pair(key, first, second):
            return False
        if not again and (self.same_draw(first, second) or self.same_seed_on_purpose(key, first, second)):
            return False
        if not again and "[" not in key and key_values.helper_repeats_draw(first, second, key, self.context):
            return False  # the helper recomputes `first` itself (to take a gradient through its samples)
        if _exclusive_conditions(first, second) or _alternative_arms(first, second, self.context):
            return False
        if _draws_nothing(first, self.context) or _draws_nothing(second, self.context):
            return False
        if _template_for_surgery(first, self.function, self.context) or _template_for_surgery(second, self.function, self.context):
            return False  # a layer built to have its parameters replaced (loading trained weights)
        if key_values.draw_replaced_by(first, second, self.function, self.context):
            return False  # `x = normal(key)` then `x = f(key)`: whenever the second runs, the first reached nothing
        if self.shown_repeat(first, second):
            return False  # both only printed: the same numbers shown twice (a page on keys shows that on purpose)
        if _split_after_draw(first, second, self.context):
            # A key that already drew a value and is then split: the split's keys are derived from a
            # used key, the reuse JAX's key rules forbid, whatever bits each algorithm happens to read.
            if key_values.draw_values_unused(first, self.function, self.context):
                return False  # the draw was a dummy input (shapes only): nothing it drew matters
            if "[" not in key and key_values.draws_only_own_bits(first, key, self.context):
                # A sampler reading the key's own bits (`normal`), a Flax `init` (every parameter from
                # `fold_in(key, hash(path))`), or a helper of the module doing only these: the split's
                # keys (`fold_in(key, i)`) repeat nothing it drew, so no value can coincide. JAX's
                # optional key-reuse checker still calls it reuse; four precision reads judged that
                # shape debatable every time. (A call that splits first, or one not known, is reported.)
                return False
            if "[" not in key and key_values.draws_only_own_bits(first, key, self.context, foreign=True) and (
                key_values.unread_sibling(first, key, self.function, self.context) is None
            ):
                # The same through a function of another module (its summary's `own_bit_key_params`); not
                # where the split made a sibling for this use that nothing reads (`key, sub = split(key)`
                # then `generate(key)`): the source shows the slip, reported at the use as before.
                return False
            if "[" not in key and key_values.advanced_past_own_bit_draws(first, second, key, self.function, self.context):
                return False  # the key both splits share drew only its own bits in the helper and is only split here
            if "[" not in key and key_values.split_children_apart(first, second, key, self.function, self.context):
                return False  # each key both splits hand out is read apart (own bits on one side, split on the other)
            return self.worth_reporting(first, second)
        if self.reads_apart(first, second, key):
            return False  # no bits in common on the default threefry: nothing correlated to report
        if "[" not in key and key_values.split_children_apart(first, second, key, self.function, self.context):
            return False  # a split beside a helper that splits the key too, each shared key read apart
        helpers = [_project_helper(call, self.context) for call in (first, second)]
        if any(helpers):
            # A project function whose body draws from the key (its summary says so) derives nothing of
            # its own: beside a different consumer the draws repeat. The same helper twice outside a loop
            # pairs its draws on purpose (random features of x and y).
            # (A method named like a framework consumer, `obj.sample(key)` twice, repeats its draws as
            # the framework's own would: flagged as before.)
            if not again and self.context.text(first.func) == self.context.text(second.func) and not _project_key_method(first, self.context) and (
                not key_values.same_helper_not_paired(first, second, key, self.context)
            ):
                return False
            if any(helper and key_values.hands_only_to_frameworks(call, key, self.context) for helper, call in zip(helpers, (first, second))):
                # `train(key, ...)` whose body only runs `model.init(key, x)`: the framework call beside a
                # different consumer, one call away (see `_derives_own_keys`).
                if not key_values.same_key_sequence(first, second, key, self.context):
                    return False
        elif _derives_own_keys(first, second, self.context) and not key_values.same_key_sequence(first, second, key, self.context):
            return False
        elif _through_helper(first, self.context) or _through_helper(second, self.context):
            return False  # one key handed to a modelled library call for two inputs pairs its draws
        if not key_values.split_outputs_meet(first, second, self.function, self.context):
            return False
        if key_values.is_seed(key):
            if key_values.draw_values_unused(first, self.function, self.context) or key_values.draw_values_unused(second, self.function, self.context):
                return False  # a dummy input (a benchmark's, a shape probe's): one seed twice correlates nothing used
            return self.worth_reporting(first, second)
        context = self.context
        if key_values.split_and_sampler_disjoint(first, second, self.function, context):
            return False
        if key_values.distinct_module_paths(first, second, self.function, context):
            return False
        if key_values.paired_draws(first, second, context) or key_values.exclusive_masks(first, second):
            return False
        if key_values.draw_values_unused(first, self.function, context) or key_values.draw_values_unused(second, self.function, context):
            return False  # a dummy input (`model.init(key, x)`, `jit(f).lower(x)`): its values are never used
        if key_values.identity_check_input(first, second, context) or key_values.identity_check_input(second, second, context):
            return False  # a test input of a check that two computations agree: it holds for any values
        return self.worth_reporting(first, second)

    def worth_reporting(self, first: ast.Call | None, second: ast.Call | None) -> bool:
        """Not in test code: random inputs there are dummy data, and reviewers of real tests judged
        shared keys harmless even where the test compares values (a kernel against its reference)."""
        if self.in_test is None:
            self.in_test = self.context.in_test_code(self.function) if not isinstance(self.function, ast.Module) else False
        return not self.in_test

    def shown_repeat(self, first: ast.Call, second: ast.Call) -> bool:
        """One sampler drawing twice from the key, each draw only shown (`print(normal(key))` twice):
        the printed numbers repeat, which is what a page on PRNG keys prints to teach splitting, and
        nothing computed shares bits. Two different samplers (`uniform` then `normal`) show no visible
        repetition: their correlation is hidden, and stays reported."""
        context = self.context
        sampler = context.qualified_name(first.func)
        if sampler is None or sampler != context.qualified_name(second.func) or not key_values.is_random_call(first, context):
            return False
        function = self.function
        if key_values.draw_only_shown(first, function, context) and key_values.draw_only_shown(second, function, context):
            return True
        # One draw repeated (the same sampler: the second repeats the first, or its leading part), each
        # only shown, values computed from it included (`show(CRF(normal(key, s)).argmax())` in one demo
        # cell, `dist = CRF(normal(key, s))` then `print(dist.entropy())` in the next), and no statement
        # reading both: a demo's example input drawn again, compared, combined or trained on nowhere.
        return (
            key_values.draw_only_shown(first, function, context, demo=True)
            and key_values.draw_only_shown(second, function, context, demo=True)
            and not key_values.draws_meet(first, second, function)
        )

    def same_seed_on_purpose(self, key: str, first: ast.Call, second: ast.Call) -> bool:
        """Two non-`jax.random` consumers called identically (`net.init(k, x)` twice for params and target
        params), or two keys from one literal seed fed to calls that differ only in the key: identical on purpose."""
        if key_values.is_seed(key):
            return key_values.same_call_but_key(first, second)
        if key_values.reseeded_in_loop(key, second, self.function, self.context):
            return True
        if not key_values.is_random_call(first, self.context) or not key_values.is_random_call(second, self.context):
            # `looped.init(rng, x)` against `stacked.init(rng, x)`: one method, one input, two objects compared.
            # A key stream made inline for a call (`nnx.Linear(3, 4, rngs=nnx.Rngs(key))`) is that call's:
            # the calls receiving the two are compared.
            first, second = _receiving_call(first) or first, _receiving_call(second) or second
            if key_values.rebuilt_with_overrides(first, second, self.function):
                return True  # `init(rng)` read into a restore, then `init(rng, **restored)`: a rebuild of the first
            return key_values.same_call_but_key(first, second, ignore_receiver=True, key=key)
        return False

    def same_draw(self, first: ast.Call, second: ast.Call) -> bool:
        """The same sampler called with the same arguments, none rebound in between: identical outputs.

        That is deliberate (a determinism check, a recomputation), not two draws sharing bits.
        """
        if ast.dump(first) != ast.dump(second):
            return False
        names = {n.id for n in walk(second) if isinstance(n, ast.Name)}
        context = self.context
        if any(
            isinstance(n, (ast.NamedExpr, ast.Await, ast.Yield))
            or (isinstance(n, ast.Call) and context.qualified_name(n.func) not in _SAME_RESULT_BUILTINS)
            for a in (*second.args, *second.keywords) for n in walk(a)
        ):
            return False  # an argument computed by a call may differ (`len(x)` of an unchanged `x` does not)
        low, high = (first.lineno, first.col_offset), (second.lineno, second.col_offset)
        if high < low:
            return False  # across a loop's back edge
        for node in walk(self.function):
            if isinstance(node, ast.Name) and node.id in names and not isinstance(node.ctx, ast.Load):
                if low < (node.lineno, node.col_offset) < high:
                    return False
        # Deliberate only when the two results index arrays (`i = choice(key, n, (B,))` twice, or
        # `x[permutation(key, n)]` and `y[permutation(key, n)]`: the same rows on purpose), are
        # compared, or the second recomputes the first's names.
        first_names, second_names = _result_names(first), _result_names(second)
        if _indexes(first, first_names, self.function) and _indexes(second, second_names, self.function):
            return True
        if not first_names or not second_names:
            return False
        if first_names == second_names:
            # A split recomputed into the same names hands out the same keys again: a repeat only
            # when the first keys went nowhere before it (key_values.split_keys_handed_out).
            return not key_values.split_keys_handed_out(first, second, first_names, self.function, context)
        for node in walk(self.function):
            if isinstance(node, ast.Call) and not _COMPARING.search(_callee(node)):
                continue
            if isinstance(node, (ast.Call, ast.Compare)) and (node.lineno, node.col_offset) > high:
                operands = [*node.args, *(k.value for k in node.keywords)] if isinstance(node, ast.Call) else [node.left, *node.comparators]
                read = {n.id for operand in operands for n in walk(operand) if isinstance(n, ast.Name)}
                if read & first_names and read & second_names:
                    return True
        return False

    # ----- reports --------------------------------------------------------------------------

    def cell_loop_helper_keys(self, loop) -> None:
        """A loop in a notebook's body that hands one key, unchanged by the loop, to a project function
        that draws from it on every iteration (`for batch in batches: params, opt_state = update(params,
        rng, opt_state, batch)`, the dropout of `update`'s network): every step draws the same numbers.
        The notebook's body follows only `jax.random` calls between statements (common random numbers
        handed to several methods compared side by side); a loop of steps (it carries state from one
        iteration to the next: key_values.steps_carry_state) runs whole, in one cell, and one function fed
        one key on every step compares nothing. Not a loop over settings that carries nothing (`for lr in
        rates: acc = run(key=key, lr=lr)`): one key for every setting is a fair comparison."""
        if self.helpers or not isinstance(self.function, ast.Module) or not key_values.steps_carry_state(loop):
            return  # (a loop over settings, `for lr in rates: run(key, lr)`, compares them on one key on purpose)
        context = self.context
        model = context.model
        assigned = _assigned_in(loop)
        for call in _iteration_calls(loop):
            if id(call) in self.reported or key_values.is_random_call(call, context) or not _through_helper(call, context):
                continue
            for argument in effects.consumed_key_arguments(model, call, model.scope_for(call)):
                if not isinstance(argument, ast.Name) or argument.id in assigned or not effects.named_like_key(argument.id):
                    continue
                if not self.read(call) or not self.worth_reporting(call, call) or key_values.applied_per_element(call, loop, context):
                    continue
                if key_values.helper_draws_dropped(call, argument, self.function, context):
                    continue
                self.report_loop(call, argument.id, loop)
                break

    def literal_keys_repeated(self, loop) -> None:
        """A key made from a literal seed in the body of a loop whose iterations are alike
        (`for _ in range(n): batch = get_batch(PRNGKey(0), data)`): every iteration draws what the
        previous one drew (key_values.iterations_alike says why that is not a fixed seed on purpose)."""
        if id(loop) in self.repeated_loops:
            return
        alike = key_values.iterations_alike(loop, self.context)
        if not alike and (not key_values.steps_carry_state(loop) or key_values.reads_clock(loop, self.context)):
            return
        self.repeated_loops.add(id(loop))
        context = self.context
        model = context.model
        for call in _iteration_calls(loop):
            passed = [*call.args, *(k.value for k in call.keywords)]
            passed += [v for k in call.keywords if k.arg == "rngs" and isinstance(k.value, ast.Dict) for v in k.value.values]
            candidates = [
                a for a in passed
                if key_values.literal_seed(a, context) is not None
                or (isinstance(a, ast.Name) and key_values.reseeded_in_loop(a.id, call, self.function, context))
            ]
            if not candidates:
                continue
            # The project's helpers count in a notebook's cell too: the loop runs whole, in one cell,
            # so what its helper draws from is the definition in force (cells re-run out of order
            # matter only to a reuse spread over cells).
            helpers = self.helpers or isinstance(self.function, ast.Module)
            drawn = key_values.consumed_arguments(call, context, lambda name: name in self.known_keys, framework=self.framework, helpers=helpers)
            if helpers:
                drawn = [*drawn, *effects.consumed_key_arguments(model, call, model.scope_for(call))]
            for argument in candidates:
                if not any(argument is d for d in drawn):
                    continue
                if not alike and key_values.draw_varies_per_iteration(call, argument, loop, context):
                    continue
                if id(call) in self.reported or not self.read(call) or not self.worth_reporting(call, call):
                    continue
                if key_values.draw_values_unused(call, self.function, context) or key_values.draw_only_shown(call, self.function, context):
                    continue
                self.reported.add(id(call))
                text = context.text(argument)
                self.record(
                    f"repeated {id(loop)}", call if alike else argument,
                    (
                        f"PRNG key `{text}` is made from the same literal seed in every iteration of this loop, whose "
                        f"iterations differ in nothing else (its variable is not read), so every iteration draws the same "
                        f"numbers; make the key once before the loop and split it per iteration"
                    ) if alike else (
                        f"PRNG key `{text}` is made from the same literal seed in every step of this loop (each step "
                        f"continues the state of the last), and nothing else the draw reads changes from step to step, "
                        f"so every step draws the same numbers; make the key once before the loop and split it per step"
                    ),
                )
                break

    def report_reuse(self, call: ast.Call, key: str, previous: ast.Call, statement) -> None:
        sibling = key_values.unread_sibling(previous, key, self.function, self.context) if "[" not in key and not key_values.is_seed(key) else None
        # (a slip is reported at the use: one per use, though one later split clashes with several)
        done = ("slip", id(previous)) if sibling is not None else id(call)
        if done in self.reported:
            return
        self.reported.add(done)
        if _stated_on_purpose(call, self.context) or _stated_on_purpose(previous, self.context):
            return
        if self.primal_key(key):
            return  # a derivative rule drawing from the primal's key reproduces the primal's draw on purpose
        earlier = _function_name(previous, self.context)
        here = _function_name(call, self.context)
        if key_values.is_seed(key):
            seed = key.split(' in statement')[0]
            if key in self.made_from:
                names = ", ".join(f"`{name}`" for name in sorted(self.made_from[key]))
                seed = f"seed `{seed[len(key_values.SEED_PREFIX):]}` ({names} not rebound in between)"
            else:
                seed = f"literal {seed}"
            self.record(
                key, call,
                f"this key is made from the {seed}, like the one already passed to "
                f"`{earlier}`, so both draw the same random bits; make one key and split it",
            )
            return
        if sibling is not None:
            # `key, sub = split(key)` then `draw(key)` with `sub` never read: the slip is the draw, which
            # takes the key the split keeps for later; reported there, where `sub` belongs.
            split, name = sibling
            later = _function_name(call, self.context)
            when = " in the next iteration" if call.lineno <= previous.lineno else ""
            again = (
                f"split again on line {call.lineno}{when}, a split of a key that has drawn (JAX's key-reuse checker, "
                "`jax_debug_key_reuse`, raises KeyReuseError there)"
                if _is_split(call, self.context) else f"passed to `{later}` again on line {call.lineno}{when}"
            )
            self.record(
                key, previous,
                f"PRNG key `{key}` is passed to `{_function_name(previous, self.context)}` here, but the split on line "
                f"{split.lineno} keeps `{key}` for later and made `{name}` for this use, and `{name}` is never read: "
                f"`{key}` is {again}; pass `{name}` here",
                slip=split,
            )
            return
        subkey = self.fresh_name(key)
        claim = self.claim(previous, call)
        advice = (
            f"split it first (`{key}, {subkey} = jax.random.split({key})`) and use `{subkey}`"
            if "[" not in key else f"split one more key into `{_key_root(key)}` and give each use its own element"
        )
        returned = ", which drew from it and returned it unchanged," if id(previous) in self.handing_back else ""
        self.record(
            key, call,
            f"PRNG key `{key}` was already passed to `{earlier}`{returned} and is passed to `{here}` again{claim}; {advice}",
            fix=None if self.across_iterations else self.split_fix(previous, key, call),
        )

    def primal_key(self, key: str) -> bool:
        """`key` is one JAX handed a custom derivative rule with the primal's arguments (`key, x =
        primals` in `@f.defjvp def f_jvp(primals, tangents)`): the rule recomputes the primal's draws
        from it to differentiate them (semantic/derivative_rules.py)."""
        return _key_root(key) in derivative_rules.rule_parameter_keys(self.function, self.context.model)

    def report_loop(self, call: ast.Call, key: str, loop, made_by: ast.Call | None = None) -> None:
        if id(call) in self.reported:
            return
        self.reported.add(id(call))
        if _stated_on_purpose(call, self.context) or self.primal_key(key):
            return
        if key_values.fixed_for_evaluation(call, key, self.context):
            return  # `evaluate(model, valid_key, x)` every step: the same noise for comparable validation losses
        if key_values.draw_only_shown(call, self.function, self.context, computed=True):
            return  # each iteration only shows what it drew (or a picture of it): the same numbers shown again, nothing computed
        if made_by is not None:
            # Reported where the key is made: the fix goes there, and one maker is one finding
            # whichever names (`k`, `nnx.Rngs(dropout=k)`) carry its key to the draws.
            made = self.context.text(made_by)
            where = "step of this lax loop body" if isinstance(loop, FUNCTION_NODES) else "iteration of this loop"
            self.record(
                f"invariant {id(made_by)}", made_by,
                f"`{made}` makes the same PRNG key in every {where} (the loop changes neither "
                f"input), so `{key}` drawn from on line {call.lineno} draws the same numbers every time; fold in a "
                f"value that changes per iteration (the loop's counter) or split a key the loop carries",
            )
            return
        kind = (
            "loop" if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
            else "lax loop body" if isinstance(loop, FUNCTION_NODES) else "comprehension"
        )
        subkey = self.fresh_name(key)
        if kind == "lax loop body":
            self.record(
                key, call,
                f"PRNG key `{key}` is returned unchanged in the carry of this lax loop body (line {loop.lineno}) and "
                f"consumed in it, so every step draws the same numbers; split it in the body "
                f"(`{key}, {subkey} = jax.random.split({key})`), carry `{key}` and draw from `{subkey}`",
            )
            return
        self.record(
            key, call,
            f"PRNG key `{key}` is consumed in every iteration of this {kind} without being reassigned, so every "
            f"iteration draws the same numbers; split per iteration (`{key}, {subkey} = jax.random.split({key})`) "
            f"or use `jax.random.fold_in({key}, i)`",
        )

    def record(self, key: str, call: ast.Call, message: str, fix=None, slip: ast.AST | None = None) -> None:
        # One finding per key and notebook cell: a flow through a notebook crosses its cells. A use of
        # the key a split kept while its fresh sibling goes unread (`slip`: that split) is a finding of
        # its own: each such use is a separate slip with its own fix.
        cell = cell_order.cell_of(call, self.context.model, self.context.source.text) if self.notebook else 0
        self.findings.setdefault((key, cell, id(slip) if slip is not None else 0), []).append((call, message, fix))

    def finish(self) -> None:
        """One finding per key and flow (a function body, a script; a notebook's cell), at its first reuse in
        the source; the message lists the other reuses. One idiom repeated down a cell (`normal(key, ...)` on
        every line) is one mistake to fix, and the fix of the first use makes the next one visible. Where the
        first reuse has no fix (a deliberate pair), the first later reuse that has one lends it."""
        for (key, _, _), found in self.findings.items():
            found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
            call, message, _ = found[0]
            fix = next((item[2] for item in found if item[2] is not None), None)
            others = sorted({item[0].lineno for item in found[1:]} - {call.lineno})
            if others:
                lines = ", ".join(str(line) for line in others[:8]) + (", ..." if len(others) > 8 else "")
                message += f" (reused again on line{'s' if len(others) > 1 else ''} {lines})"
            self.context.report(_reported_at(call, key, self.context), message, fix=fix)
        self.findings = {}

    def reads_apart(self, first: ast.Call, second: ast.Call, key: str) -> bool:
        """One sampler reads its key's own bits and the other splits the key first (a sampler such as
        `randint`, or a helper of the module that reads the key only as the key of `split`): no bits in
        common on JAX's default threefry."""
        context = self.context
        own = [key_values.reads_own_bits(call, context) for call in (first, second)]
        split_first = [key_values.splits_first(call, context) for call in (first, second)]
        if (own[0] and split_first[1]) or (split_first[0] and own[1]):
            return True
        if "[" in key:
            return False
        for drawer, splitter in ((first, second), (second, first)):
            if key_values.splits_before_drawing(splitter, key, context) and (
                key_values.reads_own_bits(drawer, context) or key_values.draws_only_own_bits(drawer, key, context)
            ):
                return True
        return False

    def claim(self, first: ast.Call, second: ast.Call) -> str:
        """What the two draws share, as the message says it."""
        context = self.context
        if _split_after_draw(first, second, context):
            if first.func.__class__ is ast.Attribute and first.func.attr in key_values._STATE_REPLACERS:
                return (
                    f": `{_function_name(first, context)}` stores the key in a state whose field this function splits "
                    "again (the next step's keys), so this split hands out those very keys"
                )
            if key_values.reads_own_bits(first, context):
                return _SPLIT_AFTER_OWN_BITS
            split_key = second.args[0] if second.args and isinstance(second.args[0], ast.Name) else None
            if key_values.splits_first(first, context) or key_values.derives_keys_by_split(first, context) or (
                split_key is not None and key_values.draws_from_split_keys(first, split_key.id, context)
            ):
                return _SPLIT_AFTER_SPLITTING_DRAW.format(name=_function_name(first, context))
            return _SPLIT_AFTER_DRAW
        if key_values.same_key_sequence(first, second, "", context):
            return (
                ": both split it into the same key sequence in call order (Haiku's `hk.next_rng_key()`, an Equinox "
                "layer's key per parameter, a NumPyro inference call's sample sites), so the first draw of each (its "
                "first parameter, dropout mask or sample site) uses one key, the second the next"
            )
        if not (key_values.is_random_call(first, context) and key_values.is_random_call(second, context)):
            names = [_callee(call) for call in (first, second)]
            if "split" in names and not all(name == "split" for name in names):
                helper = second if names[0] == "split" else first
                key = key_values._key_argument(first if names[0] == "split" else second)
                if key.__class__ is ast.Name and key_values.draws_from_split_keys(helper, key.id, context):
                    return (
                        f": `{_function_name(helper, context)}` splits it too, so both hand out the same leading keys "
                        "(`split(k, n)[:m]` equals `split(k, m)`)"
                    )
            return ", so both draw from the same random bits"
        splits = [_callee(call) == "split" for call in (first, second)]
        if all(splits):
            return ": both return the same leading keys (`split(k, n)[:m]` equals `split(k, m)`)"
        if any(splits):
            sampler = second if splits[0] else first
            return (
                f": `{_function_name(sampler, context)}` splits its key internally, so the keys `split` returns are "
                f"the ones it drew from, and a sampler fed one of them below draws the same bits"
            )
        return ", so both draw from the same random bits"

    def fresh_name(self, key: str) -> str:
        """A name for the subkey that the function does not use yet (never the key's own name)."""
        taken = {n.id for n in walk(self.function) if isinstance(n, ast.Name)} | {key}
        if self.scope is not None:
            taken |= set(self.scope.local_names)
        subkey = "subkey"
        counter = 1
        while subkey in taken:
            subkey = f"subkey{counter}"
            counter += 1
        return subkey

    def split_fix(self, call: ast.Call, key: str, second: ast.Call | None = None):
        """Split before the first use and give that use the subkey: both uses then see fresh keys.
        None where the reuse is a deliberate repeat (fixes/key_split.py)."""
        context = self.context
        message = f"Split `{key}` before its first use"
        if second is not None:
            if key_split.deliberate_repeat(call, second, key, self.function, context):
                return None
            consumers = [
                node for node in walk(self.function)
                if isinstance(node, ast.Call) and node is not call
                and any(isinstance(a, ast.Name) and a.id == key for a in key_values.consumed_arguments(node, context, lambda name: name == key))
            ]
            if key_split.repeats_an_earlier_use(call, consumers, key, self.function, context):
                # `call` repeats an earlier draw on purpose. A split after it would split a key that has
                # drawn (itself a reuse), one before it would break the repeat: no edit is right.
                return None
        statement = call
        while statement is not None and not isinstance(statement, ast.stmt):
            statement = parent_of(statement)
        if not isinstance(statement, _SIMPLE_STATEMENTS):
            return None
        scope = self.scope
        if scope is None:
            return None
        # Assigning the key makes it local: only when it already is (a parameter or an assignment).
        if key not in scope.local_names or key in scope.declared_free:
            return None
        if not _bound_only_to_single_keys(key, scope, context):
            return None  # perhaps a batch of keys (`split(key, n)`, a vmapped or pmapped helper): `split` takes one
        subkey = self.fresh_name(key)
        split, import_edits = fixes.reference(context, "jax.random.split")
        if not split:
            return None
        argument = next(
            (a for a in key_values.consumed_arguments(call, context, lambda name: name == key) if isinstance(a, ast.Name) and a.id == key),
            None,
        )
        if argument is None:
            return None
        indentation = context.source.indentation(statement.lineno)
        if context.source.start(statement).column != len(indentation) + 1:
            return None  # the statement shares its line with another (`a = 1; b = f(key)`)
        if any(isinstance(a, (*FUNCTION_NODES, ast.comprehension)) for a in _between(call, statement)):
            return None
        insertion = context.insert_before(statement, f"{key}, {subkey} = {split}({key})\n{indentation}")
        return context.fix(message, [insertion, context.replace(argument, subkey), *import_edits], safe=False)


# Calls that return one key (not a batch of them).
_SINGLE_KEY_CALLS = frozenset({"jax.random.PRNGKey", "jax.random.key", "jax.random.fold_in", "jax.random.clone", "jax.random.wrap_key_data"})


def _on_one_pass(calls: list[ast.Call], loop: ast.AST, context) -> bool:
    """Every consumption the loop repeats runs on one and the same pass only (semantic/iteration.py,
    `one_pass`): under `if n == 1:` of a loop over distinct `n`, or just before the `break` that ends it."""
    passes = {iteration.one_pass(call, loop, context.model) for call in calls}
    return len(passes) == 1 and None not in passes


def _bound_only_to_single_keys(key: str, scope, context) -> bool:
    """Every assignment to `key` in the scope gives it one key: `PRNGKey(0)`, `fold_in(k, i)`, a name
    unpacked from a split (`key, sub = split(key)`), an element (`keys[0]`, `split(k)[1]`). A key
    array (`keys = split(key, n)`, what a vmapped or pmapped helper returns, a call jaxlint cannot see
    into) would make the inserted `split(key)` raise ("split accepts a single key"). Parameters count
    as one key, as a key parameter is by convention."""
    for target, value in scope.bindings:
        names = {element.id for element in target_elements(target) if isinstance(element, ast.Name)} if target is not None else set()
        if key not in names or not isinstance(value, ast.expr):
            continue
        if isinstance(value, ast.Subscript):
            continue  # an element of a split's key array
        if not isinstance(value, ast.Call):
            return False
        qualified = context.qualified_name(value.func)
        if qualified in _SINGLE_KEY_CALLS:
            continue
        if qualified == "jax.random.split" and isinstance(target, (ast.Tuple, ast.List)):
            continue  # `key, sub = split(key)`: each name one key
        return False
    return True


_COMPARING = re.compile(r"assert|equal|close|same", re.IGNORECASE)


def _alternative_arms(first: ast.Call, second: ast.Call, context) -> bool:
    """`jnp.where(mix < 0.8, randint(k, (), 24, 31), randint(k, (), 31, 37))`: each element takes one
    arm, so no element combines two draws of the same bits (elements apart use bits apart)."""
    def arms(call: ast.Call):
        child, parent = call, parent_of(call)
        while parent is not None and not isinstance(parent, ast.stmt):
            if isinstance(parent, ast.Call) and len(parent.args) == 3 and child in parent.args[1:] and context.qualified_name(parent.func) == "jax.numpy.where":
                yield parent, parent.args.index(child)
            child, parent = parent, parent_of(parent)

    first_arms = {id(where): index for where, index in arms(first)}
    return any(id(where) in first_arms and first_arms[id(where)] != index for where, index in arms(second))


def _draws_nothing(call: ast.Call, context) -> bool:
    """`randint(key, shape, minval=0, maxval=1)`: one possible value, no randomness used."""
    if context.qualified_name(call.func) != "jax.random.randint":
        return False
    bounds = {k.arg: k.value for k in call.keywords if k.arg in ("minval", "maxval")}
    positional = call.args[2:4]
    for name, value in zip(("minval", "maxval"), positional):
        bounds.setdefault(name, value)
    low, high = bounds.get("minval"), bounds.get("maxval")
    if not (isinstance(low, ast.Constant) and isinstance(high, ast.Constant)):
        return False
    return isinstance(low.value, int) and isinstance(high.value, int) and high.value - low.value <= 1


def _exclusive_conditions(first: ast.Call, second: ast.Call) -> bool:
    """`if mode == "a": normal(k)` and later `if mode != "a": normal(k)`: at most one of the two draws
    runs (complementary tests: `==`/`!=`, `is`/`is not`, `in`/`not in` of the same operands, `x`/`not x`,
    or `==` of one value to two different literals)."""
    def tests(call: ast.Call):
        child, parent = call, parent_of(call)
        while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
            if isinstance(parent, ast.If) and child in parent.body:
                yield parent.test
            child, parent = parent, parent_of(parent)

    opposite = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}

    def complementary(a: ast.expr, b: ast.expr) -> bool:
        if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.Not):
            return ast.dump(a.operand) == ast.dump(b)
        if isinstance(b, ast.UnaryOp) and isinstance(b.op, ast.Not):
            return ast.dump(b.operand) == ast.dump(a)
        if isinstance(a, ast.Compare) and isinstance(b, ast.Compare) and len(a.ops) == len(b.ops) == 1:
            if ast.dump(a.left) != ast.dump(b.left):
                return False
            left, right = a.comparators[0], b.comparators[0]
            if opposite.get(type(a.ops[0])) is type(b.ops[0]) and ast.dump(left) == ast.dump(right):
                return True
            # `mode == "a"` and `mode == "b"`: one value cannot equal two different literals.
            return (
                isinstance(a.ops[0], ast.Eq) and isinstance(b.ops[0], ast.Eq)
                and isinstance(left, ast.Constant) and isinstance(right, ast.Constant) and left.value != right.value
            )
        return False

    def conjuncts(test: ast.expr):
        """`a and b` holds only when each part does: complementary parts exclude the whole."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            for value in test.values:
                yield from conjuncts(value)
        else:
            yield test

    return any(
        complementary(a, b)
        for test_a in tests(first) for test_b in tests(second)
        for a in conjuncts(test_a) for b in conjuncts(test_b)
    )


def _derives_own_keys(first: ast.Call, second: ast.Call, context) -> bool:
    """A framework call derives the keys it draws from (Flax folds each module's path into the key,
    Haiku splits it in call order, environments split it per step), so beside a different consumer
    (`actor.init(key, x)` and `critic.init(key, x, a)`, `env.reset(key)` then `env.step(key, a)`,
    `normal(key)` then `model.init(key, x)`) it reads other bits; whether two models' paths coincide
    is more than the source shows. Only the same method of the same object twice repeats its draws
    (`model.apply(..., rngs=...)` twice)."""
    if _samples_own_bits(first, context) and _samples_own_bits(second, context):
        return False
    return context.text(first.func) != context.text(second.func)


def _samples_own_bits(call: ast.Call, context) -> bool:
    """A `jax.random` call, or a library sampler whose model derives no keys of its own (an initializer's
    `init(key, shape)` draws from the key as `jax.random.normal` does)."""
    if key_values.is_random_call(call, context):
        return True
    if not _library_sampler(call, context):
        return False
    found = library_models.call_model(context.model, call, context.model.scope_for(call))
    return found is not None and found.key_derivation is None


def _in_module_loop(node: ast.AST) -> bool:
    """The node stands in a `for` or `while` loop of the module's own body."""
    return any(isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)) for ancestor in ancestors(node))


def _plain_script(context) -> bool:
    """A module run top to bottom (not a notebook, whose cells run in any order, nor test code)."""
    filename = str(context.source.filename)
    return not filename.endswith(".ipynb") and not context.in_test_code(context.model.tree)


def _reported_at(call: ast.Call, key: str, context) -> ast.AST:
    """Where a finding points: the key argument itself when the call spans lines (`step(x, rng=rng)`
    written one argument a line), so the line shown is the one that passes the key; else the call."""
    if call.lineno == getattr(call, "end_lineno", call.lineno):
        return call
    for argument in (*call.args, *(keyword.value for keyword in call.keywords)):
        if (isinstance(argument, ast.Name) and argument.id == key) or key_values.key_element(argument) == key:
            return argument
    return call


def _split_after_draw(first: ast.Call, second: ast.Call, context) -> bool:
    """`x = sampler(key)` (or a helper, a model's init, a distribution's sample) and then `split(key)`:
    the split runs on a key that has already drawn a value."""
    return _is_split(second, context) and not _is_split(first, context)


def _is_split(call: ast.Call, context) -> bool:
    return context.qualified_name(call.func) == "jax.random.split"


def _project_helper(call: ast.Call, context) -> bool:
    """A function, method or class of the project whose body draws from a key argument (its effects
    summary), not a `jax.random` call, a framework method read off the call or a modelled library call.
    A method named like a framework one (`sampler.sample(key, n)`) counts where the project defines it:
    its summary, not its name, says what it draws."""
    if not _through_helper(call, context) and not _project_key_method(call, context):
        return False
    model = context.model
    found = effects.call_effects(model, call, model.scope_for(call))
    return bool(found.consumed_keys or found.consumed_names or found.consumed_parts)  # (a lax loop whose body draws from its carry's key)


def _project_key_method(call: ast.Call, context) -> bool:
    """`obj.sample(key, n)` / `self.init(key)` / `self.env.step(key, s, a)` without `rngs=`/`seed=`, on an object
    whose class the project defines (a method of this module's classes or a summary of another module's)."""
    function = call.func
    if not (function.__class__ is ast.Attribute and function.attr in key_values.KEY_METHODS):
        return False
    if any(keyword.arg in ("rngs", "seed") for keyword in call.keywords):
        return False
    holder = function.value
    if holder.__class__ is ast.Attribute and holder.value.__class__ is ast.Name and holder.value.id == "self":
        return context.model.self_attribute_class(holder) is not None  # `self.env.step(key, s, a)`, `self.env = Env(...)`
    if holder.__class__ is not ast.Name:
        return False
    return holder.id in ("self", "cls") or context.model.instance_class(holder) is not None


def _through_helper(call: ast.Call, context) -> bool:
    """A call that consumes a key only by what the function effects say: a helper of the project or
    a modelled library call, not a `jax.random` sampler or a framework method read off the call."""
    function = call.func
    if function.__class__ is ast.Attribute and function.attr in key_values.KEY_METHODS:
        return False
    if any(keyword.arg in ("rngs", "seed") for keyword in call.keywords) or key_values.is_random_call(call, context):
        return False
    return not _library_sampler(call, context)


def _template_for_surgery(call: ast.Call, function: ast.AST, context) -> bool:
    """A library sampler's result (a layer) whose first read is as the tree `eqx.tree_at(where, tree,
    values)` replaces leaves of: the layer is a template for given values (loading trained weights
    into it), and its drawn parameters are not what the code means to use."""
    if not _library_sampler(call, context):
        return False
    names = _result_names(call)
    if len(names) != 1:
        return False
    name = next(iter(names))
    after = (call.lineno, call.col_offset)
    reads = sorted(
        (node for node in walk(function) if node.__class__ is ast.Name and node.id == name and isinstance(node.ctx, ast.Load)
         and (node.lineno, node.col_offset) > after),
        key=lambda node: (node.lineno, node.col_offset),
    )
    if not reads:
        return False
    parent = parent_of(reads[0])
    if parent.__class__ is ast.keyword and parent.arg == "pytree":
        parent = parent_of(parent)
    elif not (parent.__class__ is ast.Call and len(parent.args) > 1 and parent.args[1] is reads[0]):
        return False
    return parent.__class__ is ast.Call and context.qualified_name(parent.func) == "equinox.tree_at"


def _receiving_call(call: ast.Call) -> ast.Call | None:
    """The call a call's result is handed to directly, as an argument or a keyword's value."""
    parent = parent_of(call)
    if parent.__class__ is ast.keyword:
        parent = parent_of(parent)
    return parent if parent.__class__ is ast.Call and parent.func is not call else None


def _library_sampler(call: ast.Call, context) -> bool:
    """A library call, called by name, that makes new values from the key it is handed (its model
    consumes the key and its result is fresh: an initializer's `init(key, shape)`, a layer constructor
    `eqx.nn.Linear(..., key=key)`): it samples as a `jax.random` call does, so given one key twice it
    draws the same bits, and one literal seed in two places is one key."""
    function = call.func
    if function.__class__ is ast.Attribute and function.attr in key_values.KEY_METHODS:
        return False
    found = library_models.call_model(context.model, call, context.model.scope_for(call))
    return found is not None and bool(found.consumes_key) and found.result == "fresh" and not key_values.is_random_call(call, context)


# Builtins whose result depends only on their arguments, which the same-draw check sees unchanged.
# Calls that give the same result for the same unchanged arguments (`len(x)`, `jnp.arange(n)`).
_SAME_RESULT_BUILTINS = frozenset({
    "builtins.len", "builtins.int", "builtins.float", "builtins.min", "builtins.max", "builtins.abs",
    "jax.numpy.arange", "numpy.arange",
})


def _key_root(key: ast.AST | str) -> str:
    """The variable a key lives in: `keys` for `keys[1]` (a name, or the flow's name of an element)."""
    if isinstance(key, str):
        return key.split("[", 1)[0]
    if isinstance(key, ast.Subscript):
        key = key.value
    return key.id if isinstance(key, ast.Name) else ""


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


# The author says the repeat is meant: a comment on the line of a use, or in the comment lines just
# above its statement ("# Fixed key", "# these give the same value").
_INTENT_COMMENT = re.compile(
    r"#.*\b(fixed|same|constant)\s+(key|seed|rng|noise|values?|numbers?|samples?|results?)\b"
    r"|#.*\b(on purpose|deliberate(ly)?|intentional(ly)?)\b",
    re.IGNORECASE,
)
_NOT_INTENT = re.compile(r"\b(TODO|FIXME|XXX|bug|should not|shouldn't|wrong)\b", re.IGNORECASE)


def _stated_on_purpose(call: ast.Call, context) -> bool:
    """The source says the key is reused on purpose: the line of the call, or the comment-only lines
    right above its statement, carry a comment naming a fixed key or the same values. A demonstration that one key repeats its draws, or fixed noise
    for comparable plots, is what the author wants."""
    source = context.source
    statement = _statement(call)
    rows = list(range(call.lineno, getattr(call, "end_lineno", call.lineno) + 1))
    row = getattr(statement, "lineno", call.lineno) - 1
    while row >= 1 and source.line(row).lstrip().startswith("#"):
        rows.append(row)
        row -= 1
    for row in rows:
        text = source.line(row)
        if "#" in text and _INTENT_COMMENT.search(text) and not _NOT_INTENT.search(text):
            return True
    return False


def _result_names(call: ast.Call) -> set[str]:
    """The names a call's result is assigned to (`a = f(...)`, `a, b = f(...)`, also through
    `jax.block_until_ready(f(...))`, which returns its argument), else empty."""
    statement = parent_of(call)
    if isinstance(statement, ast.Call) and statement.args == [call] and _callee(statement).endswith("block_until_ready"):
        call, statement = statement, parent_of(statement)
    if isinstance(statement, ast.Assign) and statement.value is call:
        return {name for target in statement.targets for name in _names(target)}
    if isinstance(statement, ast.AnnAssign) and statement.value is call:
        return set(_names(statement.target))
    return set()


def _indexes(call: ast.Call, names: set[str], function: ast.AST) -> bool:
    """The call's result indexes an array: written as the subscript, or through the names it is bound to."""
    return _indexes_directly(call) or bool(names and _used_as_index(function, names))


def _indexes_directly(call: ast.Call) -> bool:
    """The call's result is the index of a subscript, alone or as one entry of a tuple of indices
    (`x[permutation(key, n)]`, `x[choice(key, n, (b,)), :]`)."""
    holder = parent_of(call)
    if isinstance(holder, ast.Tuple):
        holder = parent_of(holder)
        return isinstance(holder, ast.Subscript) and isinstance(holder.slice, ast.Tuple) and call in holder.slice.elts
    return isinstance(holder, ast.Subscript) and holder.slice is call


def _used_as_index(function: ast.AST, names: set[str]) -> bool:
    """Some name in `names` is read as an array index (`x[idx]`, `x[perm, :]`)."""
    return any(
        isinstance(node, ast.Subscript) and any(isinstance(n, ast.Name) and n.id in names for n in walk(node.slice))
        for node in walk(function)
    )


def _function_name(call: ast.Call, context) -> str:
    qualified = context.qualified_name(call.func)
    if qualified is not None and qualified.startswith("jax.random."):
        return "jax.random." + qualified.rsplit(".", 1)[-1]
    return snippet(context.text(call.func))


def _statement(node: ast.AST) -> ast.AST:
    current = node
    while current is not None and not isinstance(current, ast.stmt):
        current = parent_of(current)
    return current if current is not None else node


def _between(node: ast.AST, statement: ast.AST):
    current = parent_of(node)
    while current is not None and current is not statement:
        yield current
        current = parent_of(current)


def _merge(left, right):
    if left is None:
        return right
    if right is None:
        return left
    merged = dict(left)
    for name, calls in right.items():
        merged[name] = (*merged.get(name, ()), *(c for c in calls if c not in merged.get(name, ())))
    return merged


def _names(target) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _names(element)]
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return []


_DEFINITIONS = frozenset({*FUNCTION_TYPES, ast.ClassDef})


def _assigned_in(loop) -> set[str]:
    """Names (re)bound anywhere in a loop, its target included, outside nested functions."""
    names: set[str] = set()
    stack = [loop]
    while stack:
        node = stack.pop()
        for child in child_nodes(node):
            kind = child.__class__
            if kind in _DEFINITIONS:
                continue
            if kind is ast.Name and child.ctx.__class__ is not ast.Load:
                names.add(child.id)
            stack.append(child)
    return names


def _rebound_every_iteration(loop) -> set[str]:
    """Names a plain assignment at the top of the loop body binds, before any statement that could
    skip the rest of the iteration (`if ...: continue`) or leave the loop."""
    names: set[str] = set()
    for statement in loop.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(name for target in targets for name in _names(target))
        elif isinstance(statement, (ast.Expr, ast.AugAssign, ast.Pass)):
            continue
        else:
            break
    return names


def _assigned_walrus(node, key: str) -> bool:
    return any(isinstance(n, ast.NamedExpr) and n.target.id == key for n in walk(node))


RULE = PrngKeyReuse()


def _own_calls(loop) -> list[ast.Call]:
    """The calls in a statement (a loop's header and body), not inside nested functions, classes or lambdas."""
    calls = []
    stack = [loop]
    while stack:
        node = stack.pop()
        for child in child_nodes(node):
            if child.__class__ in _DEFINITIONS:
                continue
            if child.__class__ is ast.Call:
                calls.append(child)
            stack.append(child)
    return calls


def _iteration_calls(loop) -> list[ast.Call]:
    """The calls a loop runs on every iteration (flow.iteration_parts: not the iterable of a `for`,
    evaluated once), not inside nested functions, classes or lambdas."""
    calls = []
    for part in iteration_parts(loop):
        if part.__class__ in _DEFINITIONS:
            continue
        if part.__class__ is ast.Call:
            calls.append(part)
        calls.extend(_own_calls(part))
    return calls


def _in_loop(node: ast.AST) -> bool:
    """Inside a `for`/`while` (body or `else`) of the same function."""
    parent = parent_of(node)
    while parent is not None and not isinstance(parent, FUNCTION_NODES):
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)):
            return True
        parent = parent_of(parent)
    return False
