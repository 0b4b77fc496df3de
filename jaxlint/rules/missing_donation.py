"""## What it does
Flags a call of a jitted (or pmapped) function whose result rebinds one of its own arguments,
`state = train_step(state, batch)` or `params, opt_state = update(params, opt_state, grads)`,
when that argument is not listed in `donate_argnums`/`donate_argnames`. The result may reach the
argument through a name: `out = train_step(state, batch)`, then `state, loss = out` later in the same
block (not under a branch), unless the old `state` is read in between (donating it would delete a value
still used). The finding sits at the
call site that rebinds the argument: one finding per call, naming every argument to donate.
An `eqx.filter_jit` update counts the same way (decorated, nested, or stored on an attribute in
`__init__`): it donates through its `donate` option ("all", or "all-except-first" when the first
argument must survive), which the message names; no automatic fix, since that option also donates
the arrays of every other argument. So does a name bound to what a factory returns
(`step = make_step(opt)` whose every return is the nested `@jax.jit def` or `jax.jit(f)` it
builds), also a name unpacked from the tuple it returns at one position (`init, step = make_fns(lr)`
with `return init, jax.jit(step)` on every path), of this module or another (its summary records
which positions are compiled, semantic/project.py), with no automatic fix: the `jit` sits in the
factory, shared by all its callers. A name the factory (here or in another module) compiles in both arms of an `if`
(`jax.pmap(step)` on several devices, else `jax.jit(step)`), neither donating nor holding an argument
static, is resolved as an attribute bound so is: whichever arm ran, the step copies the same state. A
position compiled on one path only, or compiled otherwise in the two arms, is not resolved. So is a name
the caller itself binds one way per path (`step = jax.pmap(update) if parallel else jax.jit(update)`, a
decorated function's name in one arm, or the two arms of an `if`), where no path donates or holds an
argument static: the message asks for the option on each compilation, with no automatic fix.
Two compiled defs of one name with other parameter lists (`@jax.jit def step(params, opt, x)` in one
arm of an `if`, `@jax.jit def step(params, opt, dt, x)` in the other) are told apart at each call by its
arguments: the call runs the one def whose parameters take them, since Python would raise on the other;
where both or neither take them, nothing is known.
So does a name bound to a `functools.partial` of a compiled callable that fixes only keyword arguments
(`update_fn = partial(update, loss_fn=loss_fn)` with `update` jitted): the caller's positional arguments
keep their places, so the partial is the compiled callable with its options. The message names the
`jit` to change; no automatic fix, since every other caller of that callable shares it. A partial that
also fixes positional arguments (their places shift) is not resolved.
So does an object carried through its own compiled method (`model, info = model.update(batch)` or
`model = model.step(batch)` per step, `update` jitted or pmapped on its class, in this module or another:
a pytree whose method returns the next object): the object is the method's `self`, argument 0, and the
message asks for `donate_argnums=(0,)` with no automatic fix. Its class is the one its constructor names
(`model = Model(...)` or `agent = Agent.create(...)`, the object otherwise rebound only from its own
methods, or placed or restored into itself: `jax.device_put(agent, sharding)`, `restore_checkpoint(path,
target=agent)`, `flax.serialization.from_state_dict(agent, saved)`, a checkpoint restore handed it as its
template (`manager.restore(step, args=ocp.args.StandardRestore(agent))`, or the item of a composite
restore read under the request's name, `agent, step = restored.agent, restored.step` after
`args=ocp.args.Composite(agent=ocp.args.StandardRestore(agent), ...)`: a tuple display binds element by
element), or a function of the project every
`return` of which hands back its parameter so: semantic/kept_structure.py), the classes of a display a setting picks from (`agent = AGENTS[config.agent].create(...)`
with `AGENTS = {"bc": BCAgent, "iql": IQLAgent}` or `dict(bc=BCAgent, iql=IQLAgent)` here or in another
module, also read through a name bound once to the pick: `kind = AGENTS[name]; agent = kind.create(...)`;
every one compiling the method without donating `self`), or, where the object comes from elsewhere, the one class of the
module with a compiled method of that name. An `nnx.jit`
update counts as `jax.jit` does (it takes the same donation options), with no automatic fix.
So does a thin wrapper of a compiled callable, in this module or another (`def update(self, state,
batch): return self._step(state, batch)` with `self._step = jax.jit(f)` set in `__init__`, or
`return compiled_sgd(params, batch)`): a function or method whose body only returns that call on its
own parameters is, for donation, the compiled callable with the arguments moved to their places there
(`state = agent.update(state, batch)` per step in a trainer). The message names the compiled callable
to change; no automatic fix, since every caller of the wrapper shares it.
So does a compiled callable stored on an instance attribute: `self._update = jax.jit(update, ...)`
(or `jax.pmap`) in a method of the class, `update` a function nested there, of the module, or a method
(`jax.pmap(self._update_impl)`), or `self.step = step` with `step` a compiled def or name of that
method. The attribute is that callable, with its options and the function's own parameters (no
`self`), called through `self` or through an instance of the class in this module or another
(`learner._state, m = learner._update(learner._state, batch)` per step in a trainer). An attribute the
class assigns more than once is resolved only where every binding compiles alike, or compiles the same
parameters with no donated or static argument (`jax.pmap(update)` on several devices, else
`jax.jit(update)`: every branch copies the state); one also bound to anything else, or that a class
body def of the same name shadows, is not.
A compiled method of an object runs where the object's class is known: a constructor, or a function or
method of this module or another whose every `return` constructs that class (`learner = build_learner(cfg)`,
then `weights = learner.update(weights, batch)` per step; semantic/returned_kinds.py), or the annotation
of a parameter naming a class of the project (`def rollout(model: WorldModel, actions)`, `Optional[...]`
alike), the function binding it no more but from its own methods, and an attribute bound to such a
parameter (`self._inner = inner` with `inner: Updater`, in every method that binds it): the object
is an instance of that class (semantic/annotated_classes.py). An annotation naming a class that a class of
the module derives from, or a union of classes, says nothing. A class runs
the methods it inherits from a base of the project (`class Careful(Learner)` in another module runs
`Learner.update`) unless it defines its own. An object built from a class picked at run time
(`Model = Heat if flag else Wave`, `Model = EQUATIONS[name]`, then `model = Model(cfg)`: semantic/picked_classes.py) runs a
compiled method where every candidate runs the same one (inherited from one base) or compiles its
own alike; where one candidate's method is not compiled, or is compiled otherwise, nothing is known.
A call `self._step(...)` runs the `_step` of the method's own class (or of a base class of the
module), also where several classes of the module compile a `_step` with other parameters; a class
defining `_step` as a plain method runs no compiled code there.
So does a `@staticmethod` compiled by a decorator (`@jax.jit` or `@partial(jax.jit, ...)`, in either
order) called through its class, of this module or another (`state = Memory.push(state, item)` per
step), or through `self`: a static method takes no `self`, so the call's positions are the compiled
function's own; through a class a setting picks from a display of classes (`ALGOS[name].update(state,
batch)`, or `algo = ALGOS[name]` first), where every class listed compiles that static method and all
agree on which arguments are static or donated. No automatic fix through the class: the message names
the `jit` to change.
So does a compiled callable handed in as an argument: where every call of a function in this module
passes the same jitted or pmapped callable, by a name bound to it, for one of its parameters
(`train(state, p_step)` with `p_step = jax.pmap(step)`), a call of that parameter inside the function
(`state = step_fn(state, batch)` per step) is a call of that callable. The message names the callable
whose transform to change; no automatic fix, since the transform is written where it is bound.

Not flagged: static arguments, calls inside traced code (donation applies to the outermost `jit`
only), jitted functions whose options jaxlint cannot read, arguments that another name still
refers to (`old = state` before the call, with `old` read after it), since donating them would
delete a live value, and
PRNG keys (`key`, `rng`, `*_key`), metric accumulators and step counters (`metrics`, `step`), a SAC
agent's entropy temperature and Lagrange multipliers (`alpha_params`, `log_ent_coef`, `self.temp`,
`self.entropy_bonus.params`), and
values that start small: numbers (`total = 0.0`), vectors with one entry per row or device
(`jnp.zeros(x.shape[0])`, per-device step counters `np.broadcast_to(step, (jax.local_device_count(),))`),
integer or boolean buffers (token ids `jnp.full((1, n), pad, dtype=jnp.int32)`, masks), and arrays
of a size the source fixes below 1 MB (`jnp.zeros(HIDDEN_SIZE)` with `HIDDEN_SIZE = 256`):
rebound every step but bytes to megabytes, so donation saves nothing that matters.
The size may come from what builds the object (semantic/constructed_sizes.py): the arguments of the
module's constructor calls (`Planner(20, 12)` for `self.plan = jnp.zeros((horizon, controls))`), an
attribute `__init__` binds once (`jnp.zeros((self.horizon, self.controls))` in another method), a
configuration record handed in (`Planner(Settings())`, `settings.horizon` a dataclass default), and
array builders whose operands fix it (`jnp.tile(x0, (STEPS, 1))`, `jnp.concatenate([...])`,
`jnp.arange(n)`, `jnp.linspace(0, 1, n)`, `.copy()`, `.reshape(...)`). A class handed around as a
value (`PLANNERS = {"plain": Planner}`) or an attribute stored again elsewhere shows no size.
A network's parameters (and an Adam-style optimizer state over them) are sized from the widths its
source shows, also where its module applies layers in a loop whose iterations the source fixes
(`for _ in range(self.depth)`, `for width in self.hidden` with field defaults `depth: int = 2`,
`hidden: tuple = (64, 32)`, or `enumerate` of either): each iteration counted in turn, so a
one-hidden-layer MLP of a hundred units is small and four layers of 1024 are not, in demonstration
code as elsewhere. A loop of a count the source does not fix, or whose body branches, shows no size.
A state a helper builds from its own parameters (`make_state(key, 16, 1)` with `def make_state(key,
width, depth)` building the network and its `TrainState`) is sized with the values the call passes.
A distribution the network returns of its outputs (`distrax.Categorical(logits=x)`, `tfd.Normal`)
holds no parameters; a `tree_map(jnp.zeros_like, params)` holds as many elements as `params`. A
policy's output layer of one unit per action of its environment (`nn.Dense(env.num_actions)`,
`env.action_space.n`, `.shape[0]`) is read at most 128 wide, an upper bound used only to show a
state small (semantic/action_counts.py), as an input of unknown shape is read at 512 features.
To show a state large (demonstration code), such an input is read at one feature and an action
count at one action: the layers after the first hold what their widths fix whatever the input
(`Dense(512)` then `Dense(512)`, 262k weights), a lower bound; so is a count the source does not
fix in widths listed by hand, at 0 (`init_mlp([np.prod(IMAGE), 512, 256, len(classes)], key)`).
Only carried state counts: the call runs in a loop, updates an object's own state
(`self.state = self.update(self.state, ...)`, or a field of a container stored back into it:
`new, info = step(holder.state, k)` then `holder = holder.replace(state=new)`, a NamedTuple's
`_replace` or `dataclasses.replace` included, carries `holder.state` as `state = step(state, k)`
carries a name: semantic/flow.fields_replaced), or sits in a wrapper this module calls in a loop and
rebinds a parameter of the wrapper (a fresh local such as `tmp = conv(tmp)` in `predict(params, x)`
is an intermediate of one call). A
single rebinding in straight-line code (`x = safe_mask(m, f, x)` in a helper) is a one-off call,
usually itself traced by its callers, where donation does nothing. Demonstration code (a notebook,
a module under docs/, examples/, tutorials/, notebooks/ or colabs/) is flagged only where the
source shows the state at 1 MB or more, as any module does a state it sizes (an MNIST MLP of
784-512-512-10 holds 2.7 MB), in the binding that reaches the update (a notebook rebinding `params`
cell after cell is judged by the nearest one before the loop): it runs toy sizes chosen to finish in
seconds, and its labels call a size it does not show tiny too often for a finding (semantic/demo_code.py). Test code is not flagged either,
nor interactive programs (they read `input()` or import a GUI or event library such as pygame): a
person paces their loop (as a clock does a loop that sleeps every iteration), a lambda or
`partial` compiled at the call (`jax.pmap(lambda x: ...)(state)`: JAX302 asks to hoist it first), and `self.s = jax.jit(env.step)(self.s, a)` compiles per call (JAX302).

Nor is state whose old arrays something else keeps alive past the update: both copies stay in
memory whatever the call donates, so donation saves nothing (it would fail on the first call,
"donate the same buffer twice", or delete a live value):
- another attribute of the object is bound to it (`self._target = self._online`), or another local
  name that may still be read when an update runs (`best = state` kept across updates; not `final =
  state` once the loop has ended, which holds the last value only, nor `probe = state` in an
  evaluation or checkpoint block whose every read follows that binding, in both branches of an
  `if`/`else` or in the same block: dead when the next update runs), or it is a pytree
  built with one value twice (`State(params=p, target_params=p)`, directly, through `target = p`,
  or from a local `make_initial_state(...)` that does so);
- it, or a part of it, is also kept by something that outlives the update: a target rebuilt around
  its parameters (`target = target.replace(params=online.params)`, also when that target is passed
  in the same call), snapshots in a pool (`pool.append({"w": jax.device_put(state, gpu)})`: no copy
  on the same device; also through `tree_map(lambda x: x, ...)` or a local helper returning its
  argument so), an attribute or an item (`self.best = state`, `record["best"] = state`); a local
  holder counts while it is read after the update, except right after a refresh in the same block
  (`eval_state = eval_state.replace(params=state.params)` then `evaluate(eval_state)`). A part read
  into a local (`params = state.params`), indexing an array (`params[-1]` copies) and values
  computed from it (`tree_map(lambda e, p: 0.9 * e + p, ema, params)`) are not kept;
- it is another live pytree with some fields replaced (`eval_state = state.replace(metrics=empty)`,
  then `eval_state = eval_step(eval_state, batch)` while `state` is trained on after): the other
  leaves are the same arrays;
- it is a shallow copy of a container another name still reads (`params = net_params.copy()` in a
  loop over tasks: a list's or dict's copy holds the same arrays; an array's own `.copy()` is a new
  buffer and stays flagged), or another attribute views it and is read after the update before it
  is refreshed (`self.params = get_params(self.opt_state)` just before `self.opt_state = update(
  self.opt_state, ...)` and `evaluate(self.params)` after it);
- (Not so a part of another value bound before the loop and then carried by the update itself,
  `ac = state.ac` then `ac, aux = update(ac, batch)` per iteration, nor the value a parameter hands in
  whole, `state = initial_state` (perhaps in one arm of an `if` whose other arm builds a fresh state),
  where the function reads that parameter no more: it views that value on the first
  call only, and from the second call on every step holds two copies of its own. Flagged, with no
  automatic fix, since donating on the first call would delete the viewed arrays. An attribute or
  item stored once the loop of updates has ended, `self.net = net`, holds the last value only.)
- it is built around arrays the object keeps (`self.state = TrainState.create(params=self.model_params)`
  with `self.model_params` from `model.init(...)`, read again by an evaluation), unless it is then
  replicated into itself (`self.state = jax.device_put_replicated(self.state, devices)`, which copies
  every leaf), or around another value the same call passes where that sharing is made again
  between updates (not a static argument, `static_argnums=(3,)` for a config: hashed on the host,
  it holds no buffer; nor a name a call binds anew before every update, `rng, key = split(rng)`:
  the update is never handed the value the state was built around);
- the loop records the state it steps, appending it or something computed from it to a list each
  iteration (`frames.append(render(state))`): a visualisation rollout, whose recorded elements may
  share the state's buffers (a bounded `deque(maxlen=...)` window is not a recording).
Nor is a value passed through a compiled cast: a function whose every return casts that argument
to a dtype (`x.astype(ref.dtype)`, `jnp.asarray(x, dtype=d)`, a `tree_map` of such a cast, after
taking the real part or not), in this module or another (`grads = cast_like(grads, params)`).
Where the dtype changes no output buffer can take the input's place, so donation saves nothing;
where it does not, the output is a copy of the input (benchmarks/donation_passthrough.py) and the
cast is the waste: the fix is to drop it, not to donate (semantic/conversions.py).
Nor is a value passed through a compiled reshard: an identity (`lambda x: x`, or a function returning
its parameter unchanged) compiled with an output placement other than its input's (`pjit(lambda x: x,
in_axis_resources=None, out_axis_resources=spec)`, `jax.jit(f, out_shardings=sharded)`): each device's
output buffer has another shape than its input (replicated arrays split into shards, shards
gathered), so no output can take an input's place. An identity with no output placement, or the same
one in and out, copies the arrays in place and stays flagged.
A parameter of a method rebound once beside the object's state is skipped too
(`self.stats, sample = normalize(self.stats, sample)`: the sample is its caller's).
Nor is the memory a compiled policy step carries: a step that answers an observation with an action
(`action, state = policy(params, obs, state)`, `actions, (state, key) = act(...)`), reading the
parameters it is handed and handing back nothing it learns (no parameters, optimizer or train state),
carries the policy's memory for the environment it acts in: a key, a recurrent hidden state, a
planner's action sequence, a window of recent steps, sized by one environment's observation and action,
bytes to kilobytes. An attribute such a step carries (`self._state`) is that memory wherever else its
class rebinds it (`self._state = observe(self._state, action, reward)`). A memory the source shows at
1 MB or more (`jnp.zeros((4096, 1024))`), and a decoding step handing back a token and a cache, stay
flagged (semantic/acting_state.py).

State whose size the source shows is under 1 MB per device is not worth donating either,
however it is built (a second copy of a key, a few vectors, or an MLP of a few thousand parameters
with its optimizer moments is nothing; from a megabyte on, an MNIST MLP, a small CNN or transformer
with Adam, a replay buffer, the precision reads and the labels call a missing donation real: one
threshold, carried_state.WORTH_DONATING_BYTES): a PRNG key alone (`carry = PRNGKey(1)`, `split(key)`), arrays of sizes fixed
by literals or module (notebook) constants (`normal(key, (WIDTH, 4))`, `jnp.array([0.5, 1.0])`),
dicts, lists and tuples of those, a local helper that returns one (`state = make_small(0)`, or
`layer(WIDTH, 2)` whose sizes are the parameters the call sets), a list it builds by `append` in
loops over items the source fixes (`for n_in, n_out in zip(widths[:-1], widths[1:]):
params.append(...)`, each iteration sized with its items; an append under a branch, a list changed
otherwise, or items it cannot list leave the size unknown: semantic/built_lists.py), a list comprehension
over such items (`[layer(m, n, k) for m, n, k in zip(sizes[:-1], sizes[1:], keys)]`, one element per
item; the keys of a split, `keys = jax.random.split(key, len(sizes))`, are items that size nothing, and
a helper's parameter the call leaves out holds its default; a comprehension that filters stays
unknown), a name unpacked
from a tuple display or from the tuple a local helper returns (`w, x = make_problem(key, 64, 12, 3)`:
the position's value; in a script that rebinds the name later, the binding that reaches the call),
arithmetic of an array with a scalar (`normal(size=(n, m)) * scale`), a reduction over every entry
(`w / jnp.linalg.norm(w)`: one number), elementwise functions (`jnp.sign(w)`), arithmetic or a
`where` between vectors (one-axis shapes, `arange`) and numbers (the longest vector), one entry of a
vector (`w / signs[-1]`: a number), and, for a bound that only ever shows a state small, arithmetic
or a `where` between other arrays of shown sizes (at most the product of their sizes) and one entry
of such an array (at most the whole), a
`zeros_like` of such a value, an attribute of an object of a local class that its `__init__` binds
once (`weights = Weights(seed)`, then `fit(weights.vector)`), a local NamedTuple or dataclass of them (also built by a local helper
from a shape it binds once, `shape = (n, 3)` with `n` set by the call), or a
replication of one to the devices (`device_put_replicated(x, devices)`, a `tree_map` of
`broadcast_to(x, (jax.local_device_count(),) + x.shape)`). The same holds where the compiled step
itself hands back such a value in the place the state is rebound (`action, carry = act(params, obs,
carry)` returning a key split from `carry`): after one step the state is that value, whatever it
started as. Parts of the state handed back unchanged do not count as small: a compiled output
that is its input unchanged is a new buffer, a copy made on every call, unless the input is donated
(measured on the CPU with jax 0.10.2 and on an H200 with 0.11.2: benchmarks/donation_passthrough.py),
so `(key, plan, scale) = state` ... `return action, (new_key, plan, scale)`, or a state with only
its key replaced (`return state._replace(key=key), action`), costs a second copy of the plan or of
the whole state per call, and is flagged where the state is large or of unknown size. A model whose
size the source fixes is small too: the `init` of a network whose layer widths are literals, module constants, argument defaults,
literal arguments of the call that builds it, items of a configuration dict no code changes in place
(`CONFIG["width"]`, a dict handed to a constructor) or a parameter every call in the module sets to
an integer (the largest counts) (`nn.Dense(32)`, `hk.nets.MLP([32, 1])`,
`eqx.nn.Linear(2, 16)`, a local module class storing layers or arrays, layers its constructor
appends to a local list, also in `for ... in range(n)` loops, at the largest width a rebound name
takes; a list it cannot count or an attribute set under a branch leaves the size unknown; a module
returning several outputs its caller unpacks, `mean, scale = Encoder()(x)`, and arithmetic between
layers that creates no parameters: a sample `mean + scale * jax.random.normal(key, mean.shape)`, a
cast, a reshape to a shape the source fixes, a local record of outputs; a call there the walk cannot
see into, or a broadcast against an array of unknown shape, leaves the size unknown), applied to an
input of a shape the source fixes (`jnp.ones((1, 28, 28, 1))`, `np.zeros((1, *SHAPE))`) where a layer
sizes itself from its input, or, where the input's shape is not shown (loaded data, an environment's
observation), fed straight to a first dense layer: one sample's features, bounded at 512 (a control
task's observation, a humanoid's is 376; coordinates; tabular features), so an MLP of widths up to
about a hundred stays small with its Adam moments whatever such input, and one of width 256 does
not (a network that flattens, reshapes or convolves that input, an image of any size, stays
unknown; the bound only ever shows a state small, never large), and
its arrays split off by `eqx.partition(model, eqx.is_array)` or `eqx.filter`, a part of it picked by
name (`model.init(key, x)["params"]`, `.get("params")`, also returned by a local function or lambda:
at most the whole, a bound that only ever shows a state small). A network class or a parameter helper
of another module of the project (`from nets import MLP`, `from model import init_params`) is sized in
its module as a local one is, the call's arguments read as their values here (literals, constants,
argparse and config defaults; an argument with no value here leaves a width unknown:
semantic/imported_sizes.py). A module that creates its weights in `__call__` (`self.param("kernel",
init, (x.shape[-1], n))`, `hk.get_parameter`, a module built inline) holds more than what its
constructor stores, and where the walk cannot count them its size is unknown, never nothing. The
optimizer state built for such parameters (a small multiple of them: optax's `init`, and the `init`
that an optimizer of `jax.example_libraries.optimizers` returns), a train state holding both,
and metric accumulators. The state of an optimizer that keeps no arrays is small whatever the
parameters (`optax.sgd(lr).init(params)` without momentum, clipping, scaling, a `chain` of those:
empty states, or one step counter); momentum given, even `0.0`, keeps a trace of the parameters' size. An update that is handed the value itself (`logs = reset(logs)`) keeps its
size. A size the source does not fix (a parameter, a width read from the command line, an input
loaded from a file, a loaded checkpoint) stays flagged, except for an object's state in library
code: a class in a module that runs nothing (no `if __name__ == "__main__":`, no module-level loop
or call) and does not itself build the object, whose state is allocated from sizes its caller passes
(an evolution strategy's `zeros((pop_size, param_size))`, a mean filled to a length passed in, the
optimizer state over it, a record of those): it is as large as whatever a caller elsewhere passes,
so no cost is claimed (semantic/caller_sized.py). A parameter carried by the function's own loop
(`def fit(params, batches): for x in batches: params = update(params, x)`) holds what its callers
pass: where every call of the function is in sight (a function of this module, not a method, named
only as the callee of calls, passing the parameter explicitly, and not rebinding it but through its
updates), it is judged by those arguments (semantic/passed_state.py): small at every call, it is
not flagged; at 1 MB or more at every call, it counts as shown large (also in demonstration code);
a mix, or one argument of a size not shown, is judged as a size not shown. A value the function builds
from such a parameter (`opt_state = optimizer.init(params)`) is sized from the largest argument the
calls pass, as if built from it. A function's own loop over a local state, state
handed in whole, a network's `init`, a size the module fixes (a constant, an integer default) and a
program's own objects stay flagged. An unknown size is flagged rather than presumed small: on the
tuning sets blind-r2..r6 that would drop the 52 labelled real findings found (of 98) to remove the
14 judged false ones of two precision reads (judge-r5, judge-r6), and the judged real ones (a BiT
fine-tuning step, a consistency model's pmapped train state) are all of sizes the source does not
show.

Flagged, but with no automatic fix, because only the fix is unsafe (the two copies cost the same
memory): state that other code can reach without keeping it alive, where donation would delete
what that code reads later:
- the object hands it out: a public method or `@property` that does not update it returns it or a
  part of it (`return self._state`, `return [self._state.params]`, a dict of its leaves, or a function of the
  state alone such as `get_from_first_device(self._state)`), or passes it to another object the
  class holds (`self._adder.add(extras=self._get_extras(self._state))`). Computing from it
  (`return self.apply_fn(self.state.params, x)`), a copy (`jnp.array(..., copy=True)`), a private
  helper, and the updating method returning the new value (`ask()` in an ask/tell loop) are not;
- it enters as a parameter, and a call of the function in this module passes a value its caller
  still holds (`self._refresh(params, self._state)`, or a name read after that call): donating it on
  the first iteration would delete the caller's value;
- a nested function or lambda reads it (`current = lambda: params` handed to an actor thread),
  and may read the old arrays while or after the update runs;
- another call of the same jitted function passes a value it keeps using (an evaluation pass),
  also through another attribute bound once to it (`self.val_step = self.train_step`: the same
  object): the message asks for a `jit` of its own for this update;
- a part of it is passed beside it in the same call (`step(state, aux=state.aux)`): XLA rejects a
  buffer that is both donated and passed;
- it shares arrays with another argument of the same call on the first call only: one was built
  around the other before the loop (`optimizer = Adam(lr).create(variables["params"])`, then
  `variables, optimizer = step(variables, optimizer, batch)` per iteration), and the update rebinds
  both, so from the second call on each is a new output and every step holds two copies; donating
  both on the first call would pass one buffer twice;
- it was bound together with another name by one assignment before the loop (`self.params =
  self.target = net.init(key, x)`, also in the constructor of a base class of this module or another,
  `params = start = init(...)`), that name still read: the two are
  one pytree until the first update rebinds the state, and from the second call on the state is the
  update's own output, copied on every step. Donating on the first call fails where the same call is
  handed the other name ("a donated buffer may not also be passed") or deletes the arrays it still
  reads; the message names the other name and asks to bind one of them to a copy first
  (carried_state.bound_together);
- it is passed inside a tuple with a value the result does not replace and the program reads again
  (`(params, opt_state, train_data), loss = step((params, opt_state, train_data))`: donating the
  tuple deletes the data passed on the next step).

## Why is this bad?
Without donation XLA must keep the input buffers alive while it writes the outputs, so peak memory
holds two copies of the state: parameters, optimizer state, everything. Donating the argument lets
XLA reuse the input buffers for the outputs. See "Buffer donation" in
https://docs.jax.dev/en/latest/faq.html#buffer-donation.

## Example
```python
@jax.jit
def train_step(state, batch):
    ...
    return new_state

for batch in batches:
    state = train_step(state, batch)
```

## Use instead
```python
@partial(jax.jit, donate_argnums=(0,))
def train_step(state, batch):
    ...
```

## Fix safety
Adding `donate_argnums`/`donate_argnames` is unsafe: after the call the donated input is deleted,
and any later read of the old value raises. The fix is offered only when every call site of the
function in the module rebinds the argument and the donated value is provably owned there and dead
after the call: a local name (not a parameter, whose caller still holds the array; not an attribute
or global), bound only to fresh values (not to another name, nor built by a call from a name read
after the call, unless replaced before the call by a fresh copy such as `state = replicate(state)`; an imported
module, or a parameter annotated as a string, number, path or config dict, shares no arrays), passed once. Otherwise the message says why no fix is offered.
A call of a project function, method or record class counts as fresh where every value it returns is
a new buffer, through any number of project calls and modules (`opt_state = init_adam(params)` with
`def init_adam(p): return jax.tree.map(jnp.zeros_like, p)`): then `params`, still read after the call,
shares nothing with the state. A helper that may hand back what it is given (`return {"p": p, ...}`,
`jnp.asarray(p)`, the `init` of `jax.example_libraries.optimizers`) is not fresh, and the message
names it.

`jax.pmap` has no `donate_argnames`: a state the call passes by keyword is named by its place in
`donate_argnums`, with the advice to pass it by position (after moving any parameter a `partial`
fixes by keyword before it), and no automatic fix (a keyword argument is never donated, and a
`donate_argnames` keyword makes `jax.pmap` raise TypeError: checked on jax 0.10.2). The place is read
from the compiled function, also a static method read through its class (`jax.pmap(Trainer.step)`);
where the function is not known, the message asks for its position in words.

The decorator form follows the oldest JAX the project supports (`target-jax-version`, or its own
jax requirement): `@jax.jit(donate_argnums=...)` needs jax 0.4.36, so the fix writes it only where the
project states 0.4.36 or newer, and otherwise (an older pin, or no pin at all) writes
`@functools.partial(jax.jit, donate_argnums=...)`, which every JAX runs.

## How the runtime mode confirms it
`jit(f).lower(...).compile().memory_analysis()` shows alias bytes > 0 and a lower peak with
donation (H100: 402 MB to 268 MB for eight 2048x2048 float32 parameters), and the donated input
`is_deleted()` after the call.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re

from jaxlint.fixes import donation as donation_fix
from jaxlint.rules import donation_aliasing
from jaxlint.rules.base import Rule
from jaxlint.semantic import acting_state, annotated_classes, caller_sized, conversions, demo_code, carried_state, flow, forwarding, kept_structure, liveness, passed_state, picked_classes
from jaxlint.semantic.flow import dotted_name, target_elements
from jaxlint.semantic.jit_bindings import JitBinding
from jaxlint.semantic.syntax import parent_of, walk  # ast.walk minus ctx markers, faster

_DONATING = ("jax.jit", "jax.pmap", "equinox.filter_jit", "flax.nnx.jit")
# The position the rule gives the object a jitted method is called on (`model.update(batch)`): its `self`.
_RECEIVER = -1


class MissingDonation(Rule):
    code = "JAX401"
    name = "missing-donation"
    summary = "Jitted update rebinds an argument it does not donate"
    skips_test_code = True
    node_types = (ast.Assign, ast.AnnAssign)
    # Only `jax.jit` and `jax.pmap` donate: every spelling of them says `jit` or `pmap` (`pjit`
    # included), or comes from another module of the project, or from a configured decorator.
    required_text = ("jit", "pmap")
    fires_through_project_imports = True
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        value = node.value
        if not isinstance(value, ast.Call):
            return
        # Cheap tests first, the callee last: most assignments from a call pass nothing they rebind.
        passed = _passed_names(value)
        receiver = _receiver_name(value)
        if receiver is not None:
            passed = passed | {receiver}
        if not passed:
            return
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        rebound = {dotted_name(element) for target in targets for element in target_elements(target)} - {None}
        scope = context.scope(node)
        if rebound.isdisjoint(passed) and not _assigned_from(passed, rebound, scope, context):
            return
        # `new_actor = update(self.actor, ...)` then `self.actor = new_actor`: rebound through a temporary.
        rebound |= set(flow.rebound_through_temporaries(node, rebound))
        if rebound.isdisjoint(passed):
            return
        binding = context.model.jit_binding_for_call(value)
        if binding is None and receiver is not None and receiver in rebound:
            binding = _carried_object_method(receiver, value, scope, context.model) or _unique_jitted_method(value.func.attr, context.model)
        if binding is None:
            # `state = kind.update(state, batch)` after `kind = ALGOS[name]`: a static method of every class listed.
            binding = _picked_static_method(value, scope, context.model)
        if binding is None:
            # `state = update(state, batch)` where `update` only returns `_step(state, batch)`, `_step` compiled.
            binding = forwarding.forwarded_binding(value, context.model) or forwarding.imported_forwarded_binding(value, context.model)
        if binding is None:
            # `state = step_fn(state, batch)` in `def train(state, step_fn)`, every caller handing in one compiled callable.
            binding = forwarding.handed_in_binding(value, context.model)
        if binding is None or binding.transform not in _DONATING or _compiled_per_call(binding, context):
            return
        if scope.in_traced or context.in_test_code(node) or carried_state.interactive_module(context.model):
            return
        if not _carries_state(node, rebound, binding, scope, context.model):
            return
        candidates = [(position, None, argument) for position, argument in enumerate(value.args)]
        if receiver is not None and receiver in rebound and binding.argnum_offset == 1:
            # `model, info = model.update(batch)` with `update` jitted on its class: the object is
            # argument 0 of the compiled function, carried from call to call like any other argument.
            candidates.insert(0, (_RECEIVER, None, value.func.value))
        candidates += [(None, keyword.arg, keyword.value) for keyword in value.keywords if keyword.arg]
        donated: list[tuple] = []
        withheld: list[str] = []
        for position, keyword, whole in candidates:
            if isinstance(whole, ast.Starred):
                break
            # A tuple argument donates all of its leaves: `(_, pstate), loss = step((rng, pstate), batch)`.
            parts = whole.elts if isinstance(whole, ast.Tuple) else [whole]
            argument = next((part for part in parts if dotted_name(part) in rebound), None)
            if argument is None:
                continue
            key = dotted_name(argument)
            if "." not in key and not _carried_name(node, scope, context.model):
                continue  # `self.stats, sample = normalize(self.stats, sample)`: only the attribute is carried
            if position == _RECEIVER:
                if _receiver_static_or_donated(binding) is not False:
                    continue
            elif binding.is_static(position, keyword) is not False or binding.is_donated(position, keyword) is not False:
                continue
            if _small_by_name(key) or _starts_small(key, node, scope, context.model):
                continue
            if "." not in key and passed_state.passed_size(key, scope, context.model) == "small":
                continue  # a parameter every caller passes a small value (semantic/passed_state.py)
            if _returned_small(key, node, binding, context.model):
                continue
            if acting_state.policy_memory(key, node, scope, context.model):
                continue  # `action, state = policy(params, obs, state)`: the policy's memory for one environment
            if position != _RECEIVER and conversions.binding_converts(binding, position, keyword, context.model):
                continue  # a cast (`grads = cast_like(grads, params)`): no output can reuse the input's buffer
            if position != _RECEIVER and conversions.binding_reshards(binding, position, keyword):
                continue  # an identity moving the arrays to another placement: no output has an input's shape
            if caller_sized.sized_by_caller(key, node, scope, context.model):
                continue  # library state as large as what its callers pass: the cost is theirs to judge
            viewed_first_call: list[str] = []
            if donation_aliasing.unsafe_to_donate(key, node, scope, context, viewed_first_call):
                continue
            first_call_only: list[str] = []
            if (
                carried_state.rebuilt_before_call(key, node, context.model, scope)
                or carried_state.shares_buffers(key, scope, context.model, node)
                or carried_state.held_elsewhere(key, value, scope, context.model, first_call_only)
            ):
                continue  # not carried state, or another holder keeps the old arrays alive: see semantic/carried_state.py
            donated.append((position, keyword, argument, whole))
            # Code that can reach the value (a public method handing it out, a caller still holding what
            # it passed) makes donating it unsafe, not free: the two copies cost the same memory, so the
            # finding stays and only the fix is withheld.
            reason = _fix_withheld(key, scope, context.model)
            if reason is None and first_call_only:
                # `opt = Adam(lr).create(variables["params"])` before `variables, opt = step(variables, opt, b)`.
                other = first_call_only[0]
                reason = (
                    f"`{key}` and `{other}` share arrays on the first call, one built around the other before the loop, "
                    f"and a donated buffer may not also be passed; build one of them from a copy first"
                )
            together = carried_state.bound_together(key, node, scope, context.model) if reason is None else None
            if together is not None:
                # `self.params = self.target = init(...)`: one pytree until the first update rebinds `self.params`.
                other, assignment, passed_too, elsewhere = together
                where = f"line {assignment.lineno}" + (f" of {elsewhere}" if elsewhere else "")
                reason = (
                    f"`{key}` and `{other}` are one value until the first call (bound together on {where}), "
                    + ("and the same call is handed `" + other + "`: a donated buffer may not also be passed" if passed_too
                       else f"and donating `{key}` on that call would delete the arrays `{other}` still reads")
                    + "; bind one of them to a copy first (`jax.tree_util.tree_map(jnp.copy, ...)`)"
                )
            if reason is None and viewed_first_call:
                # `ac = state.ac` before `ac, aux = update(ac, batch)` per iteration: a view on the first call only.
                reason = (
                    f"on the first call `{key}` is a view of `{viewed_first_call[0]}`, bound from it before the loop, "
                    f"which donating would delete; bind `{key}` to a copy first"
                )
            if reason is None and carried_state.captured_by_closure(key, scope):
                # `current = lambda: params` handed to a thread: it may read the old arrays while the update runs.
                reason = f"a nested function or lambda reads `{key}` and may read the old arrays while or after the update runs"
            if reason is None and _tuple_holds_live_value(parts, rebound, node):
                # `step((params, opt_state, train_data))`: donating the tuple deletes the data passed again.
                reason = "the argument is a tuple that also holds a value the loop passes again, which donating the tuple would delete; pass the state on its own"
            if reason is None and _part_passed_beside(key, whole, value, scope):
                # `step(state, aux=state.aux)`: JAX rejects a buffer both donated and passed again.
                reason = f"a part of `{key}` is passed beside it in the same call, and XLA rejects a buffer both donated and passed; pass it only inside `{key}`"
            if reason is not None:
                withheld.append(reason)
        if donated and demo_code.is_demonstration_module(context.source.filename):
            # Demonstration code runs toy sizes: the cost is shown only where the source shows the size.
            if not any(
                carried_state.reaches_large(argument, scope, context.model)
                or passed_state.passed_size(dotted_name(argument), scope, context.model) == "large"
                for _, _, argument, _ in donated
            ):
                return
        if donated:
            _report(value, binding, donated, context, withheld)


def _compiled_in_several_places(binding, model) -> bool:
    """The callable is one of several compilations, one per path (`jax.pmap(f) if parallel else
    jax.jit(f)`, or the two arms of an `if`), resolved because they copy alike: no single `jit` to edit."""
    if isinstance(parent_of(binding.node), ast.IfExp):
        return True
    owned = [other for other in model.jit_binding_lists.get(binding.key, ()) if other.owner is binding.owner]
    return len({(other.transform, tuple(sorted(other.options))) for other in owned}) > 1


def _fix_withheld(key: str, scope, model) -> str | None:
    """Why donating `key` could delete a value other code still uses, although the update itself
    carries it: the reason the message gives for offering no fix, or None."""
    if carried_state.leaks_from_object(key, scope, model):
        return f"a public method or property of the object hands out `{key}` or a part of it, and whoever called it may still hold the arrays donation deletes"
    if carried_state.caller_keeps_parameter(key, scope, model):
        return f"a caller passes `{key}` a value it still holds after the call, which donation would delete"
    return None


def _receiver_name(call: ast.Call) -> str | None:
    """`model` in `model.update(batch)`: a plain name (not `self`/`cls`) a method is called on."""
    function = call.func
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id not in ("self", "cls"):
        return function.value.id
    return None


def _carried_object_method(receiver: str, call: ast.Call, scope, model):
    """The jitted method `obj.m(...)` runs, where `obj` is built once by a constructor and otherwise
    rebound only from its own methods' results (`model = Model(...)`, then `model, info =
    model.update(batch)` per step): the object keeps its class from call to call. The constructor
    may be the class (`Model(...)`), a method called on it (`Agent.create(...)`), or a class picked
    from a display of classes by a setting (`agents[config.agent].create(...)`), in which case every
    class there must compile the method the same way."""
    constructors = []
    for target, bound in scope.bindings:
        if receiver not in {dotted_name(element) for element in target_elements(target)}:
            continue
        if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Attribute) and dotted_name(bound.func.value) == receiver:
            continue  # `model = model.update(...)`: the next object, of the same class
        target, bound = _paired_element(target, bound, receiver)  # `agent, step = restored.agent, restored.step`
        if kept_structure.keeps_structure_of(bound, receiver, model):
            continue  # `agent = restored.agent` after a restore handed `agent` as its template
        if dotted_name(target) != receiver or not isinstance(bound, ast.Call):
            return None
        if kept_structure.keeps_structure_of(bound, receiver, model):
            continue  # `agent = jax.device_put(agent, sharding)`, `restore(agent, path)`: the same pytree, placed or restored
        constructors.append(bound)
    if not constructors and receiver in scope.param_nodes:
        # `def fit(agent: Agent, batches)`, rebound only from its own methods: semantic/annotated_classes.py.
        owner = annotated_classes.parameter_class(model, scope, receiver, rebinding_seen=True)
        return _compiled_method(owner, call.func.attr, call, model) if owner is not None else None
    if len(constructors) != 1:
        return None
    method = call.func.attr
    picked = _picked_classes(_picked_through_name(constructors[0].func, scope), model)
    if picked is not None:
        registry, classes = picked
        bindings = [_compiled_method(owner, method, call, model) for owner in classes]
        if not bindings or None in bindings or any(_receiver_static_or_donated(b) is not False for b in bindings):
            return None
        return dataclasses.replace(bindings[0], key=f"{registry}[...].{method}")
    constructor = constructors[0].func
    if not isinstance(constructor, (ast.Name, ast.Attribute)):
        return None
    owner = _class_named(constructor, model)
    if owner is None and isinstance(constructor, ast.Attribute):
        owner = _class_named(constructor.value, model)  # `Agent.create(...)`: a method of the class builds it
    return _compiled_method(owner, method, call, model) if owner is not None else None


def _paired_element(target: ast.AST, bound, name: str):
    """(`agent`, `restored.agent`) for `agent, step = restored.agent, restored.step`: a tuple display
    binds element by element; any other binding is returned as it is."""
    if (
        isinstance(target, (ast.Tuple, ast.List)) and isinstance(bound, (ast.Tuple, ast.List))
        and len(target.elts) == len(bound.elts)
        and not any(isinstance(element, ast.Starred) for element in (*target.elts, *bound.elts))
    ):
        for element, value in zip(target.elts, bound.elts):
            if dotted_name(element) == name:
                return element, value
    return target, bound


def _class_named(node: ast.AST, model):
    """The class a name or attribute refers to: a ClassDef of this module, or a project ClassSummary."""
    if isinstance(node, ast.Name):
        local = [c for c in model.class_methods if c.name == node.id and model.scope_for(c) is model.module_scope]
        if len(local) == 1 and node.id not in model.imports.aliases:
            return local[0]
    elif not isinstance(node, ast.Attribute):
        return None
    qualified = model.qualified_name(node)
    project = getattr(model, "project", None)
    if qualified is None or project is None or qualified.startswith(("jax.", "flax.", "equinox.", "numpy.", "builtins.")):
        return None
    return project.class_(qualified)


def _picked_static_method(call: ast.Call, scope, model):
    """`ALGOS[name].update(state, batch)`, or through a name bound once to the pick: the compiled
    static method `update` of every class the display lists, where all agree on which of the
    call's arguments are static or donated (else not resolved)."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    picked = _picked_classes(_picked_through_name(func, scope), model)
    if picked is None:
        return None
    registry, classes = picked
    bindings = [model._static_method_of(owner, func.attr, func) for owner in classes]
    if not bindings or None in bindings:
        return None
    places = [(position, None) for position in range(len(call.args))] + [(None, k.arg) for k in call.keywords if k.arg]
    answers = {tuple((b.is_static(p, k), b.is_donated(p, k)) for p, k in places) for b in bindings}
    if len(answers) != 1 or len({b.transform for b in bindings}) != 1:
        return None
    return dataclasses.replace(bindings[0], key=f"{registry}[...].{func.attr}")


def _picked_through_name(func: ast.AST, scope) -> ast.AST:
    """`agent_class.create` after `agent_class = agents[name]` (the name's one binding in the scope):
    the pick itself, `agents[name].create`, so the display's classes answer for it."""
    holder = func.value if isinstance(func, ast.Attribute) else func
    if not isinstance(holder, ast.Name):
        return func
    bound = [value for target, value in scope.bindings if isinstance(target, ast.Name) and target.id == holder.id]
    if len(bound) != 1 or not isinstance(bound[0], ast.Subscript) or holder.id in scope.param_nodes:
        return func
    return ast.Attribute(value=bound[0], attr=func.attr, ctx=ast.Load()) if isinstance(func, ast.Attribute) else bound[0]


def _picked_classes(func: ast.AST, model) -> tuple[str, list] | None:
    """`agents[name](...)` or `agents[name].create(...)` with `agents` a module-level display of classes
    (`{"bc": BCAgent, "iql": IQLAgent}`, here or in another module): (the display's name, its classes),
    as semantic/picked_classes.py reads them."""
    if isinstance(func, ast.Attribute):
        func = func.value
    if not (isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name)):
        return None
    classes = picked_classes.picked_classes(func, model.scope_for(func) if hasattr(func, "lineno") else model.module_scope, model)
    return (func.value.id, classes) if classes is not None else None


def _compiled_method(owner, method: str, call: ast.Call, model):
    """The binding of `method` compiled by a decorator on the class `owner` (local ClassDef or project summary)."""
    if isinstance(owner, ast.ClassDef):
        found = model.class_methods[owner].get(method)
        bindings = [b for b in model.jit_binding_lists.get(f"self.{method}", ()) if found is not None and b.function is found and b.via_decorator]
        return dataclasses.replace(bindings[0], key=f"{owner.name}.{method}") if len(bindings) == 1 else None
    summary = model.project.method_of(owner, method) if model.project is not None else owner.methods.get(method)
    if summary is None or summary.transform is None or not summary.via_decorator:
        return None
    return JitBinding(f"{owner.name}.{method}", summary.transform, call.func, summary.options, None, via_decorator=True,
                      external_params=list(summary.params), external_has_self=summary.has_self)


def _unique_jitted_method(name: str, model):
    """The jitted method `obj.name(...)` runs where the class of `obj` is not known but the call rebinds
    `obj` from its result (a pytree whose compiled method returns the next object): the one method of
    that name among the module's classes, when it is compiled by a decorator."""
    scopes = [methods[name] for methods in model.class_methods.values() if name in methods]
    if len(scopes) != 1:
        return None
    found = [binding for binding in model.jit_binding_lists.get(f"self.{name}", ()) if binding.function is scopes[0] and binding.via_decorator]
    if len(found) != 1:
        return None
    owner = next(c for c, methods in model.class_methods.items() if methods.get(name) is scopes[0])
    return dataclasses.replace(found[0], key=f"{owner.name}.{name}")


def _receiver_static_or_donated(binding) -> bool | None:
    """Whether argument 0 (`self`) of a jitted method is static or donated; None when the options cannot be read."""
    static = binding.literal_option("static_argnums", "static_broadcasted_argnums")
    donated = binding.literal_option("donate_argnums")
    if static is None or donated is None:
        return None
    if binding.transform == "equinox.filter_jit":
        return binding.is_donated(0, None)
    return 0 in static or 0 in donated


def _passed_names(call: ast.Call) -> set[str]:
    """Dotted names the call passes, as arguments or parts of tuple arguments: only these can be donated."""
    names = set()
    for whole in (*call.args, *(keyword.value for keyword in call.keywords if keyword.arg)):
        for part in whole.elts if isinstance(whole, ast.Tuple) else (whole,):
            name = dotted_name(part)
            if name is not None:
                names.add(name)
    return names


def _assigned_from(passed: set[str], temporaries: set[str], scope, context) -> bool:
    """Some passed name is assigned a plain name of `temporaries` somewhere in the scope (`old = new`):
    what `flow.rebound_through_temporaries` needs, told from one index of the scope's bindings
    instead of a scan of the rest of the block for every assignment."""
    copies = context.memo(("JAX401", "copies", id(scope)), _plain_copies, scope)
    return any(not copies.get(name, frozenset()).isdisjoint(temporaries) for name in passed)


def _plain_copies(scope) -> dict[str, frozenset[str]]:
    """target -> the names assigned to it by `target = name` statements of the scope."""
    copies: dict[str, set[str]] = {}
    for target, value in scope.bindings:
        if isinstance(value, ast.Name):
            # (`old = new`, or `old, loss = new` unpacking it: flow.rebound_through_temporaries)
            for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                key = dotted_name(element)
                if key is not None:
                    copies.setdefault(key, set()).add(value.id)
        elif isinstance(value, ast.Call):
            for key, name in flow.fields_replaced(target, value).items():  # `holder = holder.replace(state=new)`
                copies.setdefault(key, set()).add(name)
    return {key: frozenset(names) for key, names in copies.items()}


# Transforms whose donation option is `donate_argnums` only (no `donate_argnames`).
_NUMBERS_ONLY = frozenset({"jax.pmap"})


def transform_name(binding) -> str:
    return binding.transform.rsplit(".", 1)[-1]


def _listed(names) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _keywords_fixed_by_partial(binding) -> set[str]:
    """The keywords a `functools.partial` compiled in place fixes (`jax.pmap(partial(step, model=m))`):
    parameters the call can no longer pass by position."""
    node = binding.node
    if not isinstance(node, ast.Call) or not node.args or not isinstance(node.args[0], ast.Call):
        return set()
    inner = node.args[0]
    func = inner.func
    if not (isinstance(func, ast.Attribute) and func.attr == "partial" or isinstance(func, ast.Name) and func.id == "partial"):
        return set()
    return {k.arg for k in inner.keywords if k.arg is not None}


def _report(call: ast.Call, binding, donated: list, context, withheld: list[str] = ()) -> None:
    """One finding per call, naming every argument it should donate; `withheld`: why no fix is offered."""
    name = binding.key if binding.key != "<inline>" else "the jitted function"
    described = []
    for position, keyword, argument, whole in donated:
        where = f" (inside argument {binding.argnum(position)})" if argument is not whole else ""
        described.append(f"`{dotted_name(argument)}`{where}")
    numbers = tuple(binding.argnum(position) for position, keyword, _, _ in donated if keyword is None)
    names = tuple(keyword for _, keyword, _, _ in donated if keyword is not None)
    by_keyword = ""
    pmap_places: list[str] = []
    if names and binding.transform in _NUMBERS_ONLY:
        # `jax.pmap` takes `donate_argnums` only: a state passed by keyword is donated by its parameter's
        # place, once the call passes it there.
        places = [binding.argument_index(keyword) for keyword in names]
        if all(place is not None for place in places):
            params = binding.param_names or []
            fixed = _keywords_fixed_by_partial(binding)
            before = sorted({p for place in places for p in params[:place] if p in fixed}, key=params.index)
            # Its place once the parameters the `partial` fixes by keyword move behind it.
            numbers = tuple(sorted({*numbers, *(place - sum(p in fixed for p in params[:place]) + binding.argnum_offset for place in places)}))
            by_keyword = f", and pass {_listed(names)} by position (`{transform_name(binding)}` has no `donate_argnames`)"
            if before:
                by_keyword += f", which needs {_listed(before)}, fixed by keyword in the `partial`, moved after {'it' if len(names) == 1 else 'them'}"
            names = ()
            withheld = [*withheld, "the call passes the value by keyword"]
        else:
            # The compiled function's parameters are not known here: its places are not either.
            by_keyword = f", and pass {_listed(names)} by position (`{transform_name(binding)}` has no `donate_argnames`)"
            pmap_places = [*(str(number) for number in numbers), *(f"the position of {_listed([keyword])} among its parameters" for keyword in names)]
            numbers, names = (), ()
            withheld = [*withheld, "the call passes the value by keyword"]
    options = ([f"donate_argnums={donation_fix.tuple_literal(numbers)}"] if numbers else []) + ([f"donate_argnames={donation_fix.tuple_literal(names)}"] if names else [])
    option_text = " and ".join(f"`{option}`" for option in options)
    if pmap_places:
        option_text = f"`donate_argnums` listing {' and '.join(pmap_places)}"
    subject = described[0] + " is" if len(described) == 1 else ", ".join(described[:-1]) + f" and {described[-1]} are"
    whole_arguments = all(argument is whole for _, _, argument, whole in donated) and not isinstance(binding, forwarding.ForwardedBinding)
    fix = donation_fix.fix_for(call, binding, [(position, keyword) for position, keyword, _, _ in donated], context) if whole_arguments else None
    first, last = donated[0][2], donated[-1][2]
    # Another call of the same function elsewhere passes the value and keeps using it (an evaluation
    # pass): donating in the shared `jit` would delete it there, so this update needs its own.
    keeping = sorted(
        {other.lineno for position, keyword, _, _ in donated if position != _RECEIVER
         for other in carried_state.calls_keeping_argument(binding, call, position, keyword, context.model)}
    )
    if any(position == _RECEIVER for position, _, _, _ in donated):
        withheld = [*withheld, "the value is the object the jitted method is called on (its `self`, argument 0 of the compiled function)"]
    if isinstance(binding, forwarding.HandedInBinding):
        withheld = [*withheld, f"the `{binding.transform.rsplit('.', 1)[-1]}` is applied where `{binding.inner.key}` is bound, outside `{binding.wrapper}`"]
    elif isinstance(binding, forwarding.ForwardedBinding):
        withheld = [*withheld, f"the `{binding.transform.rsplit('.', 1)[-1]}` sits on `{binding.inner.key}`, which `{binding.wrapper}` only forwards to, and donating there donates for all its callers"]
    if binding.transform == "flax.nnx.jit":
        withheld = [*withheld, "jaxlint writes donation fixes for `jax.jit` and `jax.pmap` only"]
    if binding.built_by_factory:
        # The `jit` sits in the factory: donating there donates for every caller of the factory.
        withheld = [*withheld, f"`{name}` is built by a factory function, and donating in its `jit` would donate for every caller of that factory"]
    if binding.partial_of is not None:
        # `update_fn = partial(update, loss_fn=f)`: the `jit` sits on `update`, shared by its other callers.
        withheld = [*withheld, f"`{name}` is a `partial` of `{binding.partial_of}`, whose `jit` every other caller of `{binding.partial_of}` shares"]
    several = _compiled_in_several_places(binding, context.model)
    if several:
        # `step = jax.pmap(update) if parallel else jax.jit(update)`: the one the call runs depends on the run.
        withheld = [*withheld, f"`{name}` is compiled in more than one place, one per path, and each needs the option"]
    if withheld:
        fix = f"no automatic fix: {withheld[0]}"
    transform = binding.transform.rsplit(".", 1)[-1]
    if binding.transform == "equinox.filter_jit":
        # Equinox donates by groups of arguments, not positions: `donate="all"`, or
        # "all-except-first" when the first argument must survive. Both also donate the other
        # arguments' arrays (a batch passed again would be deleted), so no fix is written.
        first_kept = all(position != 0 for position, _, _, _ in donated)
        options = [f"donate=\"{'all-except-first' if first_kept else 'all'}\""]
        option_text = f"`{options[0]}`"
        fix = None
    advice = f"add {option_text} to its `{transform}`{by_keyword}"
    if several:
        advice = f"add {option_text} to each `jit` or `pmap` that compiles `{name}`{by_keyword}"
    if binding.partial_of is not None:
        advice = f"add {option_text} to the `{transform}` of `{binding.partial_of}`, which `{name}` calls"
    if isinstance(binding, forwarding.HandedInBinding):
        advice = f"add {option_text} to the `{transform}` of `{binding.inner.key}`, which the callers of `{binding.wrapper}` pass as `{binding.parameter}`"
    elif isinstance(binding, forwarding.ForwardedBinding):
        advice = f"add {option_text} to the `{transform}` of `{binding.inner.key}`, which `{binding.wrapper}` calls"
    if keeping:
        lines = ", ".join(str(line) for line in keeping[:3])
        advice = (
            f"give this update its own `{transform}` with {option_text}: another call of `{name}` "
            f"(line{'s' if len(keeping) > 1 else ''} {lines}) passes the same argument and keeps using it"
        )
        fix = None
    # Multi-line calls: the finding sits on the line of the call, where a reader looks for it.
    anchor = first if first.lineno == call.lineno else call
    context.report(
        anchor,
        f"{subject} replaced by the result of `{name}` but not donated, so peak memory holds both copies; "
        f"{advice}" + (f" ({fix})" if isinstance(fix, str) else ""),
        fix=None if isinstance(fix, str) else fix,
        end_node=last if last is not anchor else None,
    )


def _part_passed_beside(key: str, whole: ast.expr, call: ast.Call, scope) -> bool:
    """Another argument of the same call is a part of the value (`step(state, aux=state.aux)`, or a
    name bound to one: `batch_stats = state.aux`): its buffers would be both donated and passed, which
    XLA rejects (INVALID_ARGUMENT, checked on an H100 by a reader)."""
    prefix = key + "."

    def part(name: str | None) -> bool:
        return name is not None and (name == key or name.startswith(prefix))

    aliases = {
        dotted_name(target) for target, bound in scope.bindings
        if bound is not None and not isinstance(bound, ast.AugAssign) and part(dotted_name(bound))
    } - {None, key}
    for other in [*call.args, *(keyword.value for keyword in call.keywords)]:
        if other is whole:
            continue
        for node in walk(other):
            name = dotted_name(node) if isinstance(node, (ast.Attribute, ast.Name)) else None
            if part(name) or name in aliases:
                return True
    return False


def _tuple_holds_live_value(parts: list, rebound: set[str], statement: ast.stmt) -> bool:
    """A tuple argument donates every leaf: another element that the result does not replace and that
    is read again (the dataset passed on the next step) would be deleted."""
    for part in parts:
        key = dotted_name(part)
        if key is None or key in rebound:
            continue
        if "." in key or liveness.read_after(key, statement):
            return True
    return False


def _compiled_per_call(binding, context) -> bool:
    """`pmap(lambda x: ...)(state)`, `jit(partial(f, c))(state)`: a new callable compiled at every call,
    which JAX302 reports; hoisting it comes first, and donation is then a question for the hoisted one."""
    if binding.key != "<inline>" or not isinstance(binding.node, ast.Call) or not binding.node.args:
        return False
    wrapped = binding.node.args[0]
    return isinstance(wrapped, ast.Lambda) or (
        isinstance(wrapped, ast.Call) and context.qualified_name(wrapped.func) == "functools.partial"
    )


def _carried_name(statement: ast.stmt, scope, model) -> bool:
    """A plain name is carried when the statement runs in a loop or in a wrapper called in a loop; a
    parameter rebound once in a method (`self.stats, sample = f(self.stats, sample)`) is its caller's value."""
    if any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) for loop in flow.enclosing_loops(statement)):
        return True
    return scope.name in carried_state.names_called_in_loops(model)


def _carries_state(statement: ast.stmt, rebound: set[str], binding, scope, model) -> bool:
    """Whether the rebinding carries state from one call to the next, which is what donation is for:
    the statement runs in a loop (`state = step(state, batch)` per iteration), or it updates what an
    object owns (`self.state = update(self.state)`, directly or through a temporary). A single
    rebinding in straight-line code (`x = safe_mask(m, f, x)` in a helper) is a one-off call: the
    helper is usually itself traced by its callers, where donation does nothing, and a generic jitted
    utility shared by many callers cannot donate an argument that some of them still read."""
    loops = [loop for loop in flow.enclosing_loops(statement) if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))]
    if loops:
        return not carried_state.paced_loop(loops[0], model) and not carried_state.records_carried_state(loops[0], model)
    if any("." in key for key in rebound):
        # ... unless the function is wrapped and compiled right there (`self.s = jax.jit(env.step)(self.s, a)`
        # in a key-press handler): each call compiles anew, which is the problem to fix first (JAX302).
        return binding.key != "<inline>"
    # A wrapper called in a loop of this module (`def step_with_timing(state): state = p_step(state)`),
    # rebinding what its caller hands it (a parameter) or a global: a fresh local (`tmp = conv(tmp)`
    # in `predict(params, x)`) is an intermediate of one call, not state carried from call to call.
    if not any(key in scope.params or key in scope.keyword_params or key in scope.declared_free for key in rebound):
        return False
    # ... and only when the caller hands it what it does not keep: a caller passing the same prompt to
    # every `tokens = sample(params, key, tokens)` carries nothing from call to call (and donation
    # would delete its prompt).
    if all(key in scope.params and not carried_state.callers_pass_back(key, scope, model) for key in rebound):
        return False
    return scope.name in carried_state.names_called_in_loops(model)


_KEY_NAMES = re.compile(r"(^|_)(key|keys|rng|rngs|prng|seed)(_|$)", re.IGNORECASE)


# Metric accumulators and step counters: a few scalars per metric (`metrics = eval_step(params, batch, metrics)`).
_COUNTER_NAMES = re.compile(r"(^|_)(metrics?|counts?|counter|steps?|step_count)(_|$)", re.IGNORECASE)
# The entropy temperature of SAC-style agents and its optimiser state (`alpha_params`,
# `self.log_ent_coef`), and Lagrange multipliers: one learned scalar each.
_SCALAR_PARAMETER_NAMES = re.compile(r"(^|_)(alpha|temp|temperature|ent_coef|entropy_coef|entropy_bonus|lagrange|lagrangian|lagrange_multiplier)(_|$)", re.IGNORECASE)


def _small_by_name(key: str) -> bool:
    """PRNG keys are rebound every step (`key, sub = split(key)`) but hold a few bytes, as do metric
    accumulators, step counters and a SAC agent's temperature: donating them saves nothing."""
    name = key.rsplit(".", 1)[-1]
    # The temperature may be an object of its own (`self.entropy_bonus.params`, `self.temp`).
    return bool(_KEY_NAMES.search(name) or _COUNTER_NAMES.search(name) or any(_SCALAR_PARAMETER_NAMES.search(part) for part in key.split(".")))


_SCALAR_CONSTRUCTORS = frozenset({
    "builtins.float", "builtins.int", "numpy.float32", "numpy.float64", "numpy.int32", "numpy.int64",
    "jax.numpy.float32", "jax.numpy.int32", "jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray",
})


def _starts_small(key: str, statement: ast.stmt, scope, model) -> bool:
    """Every other binding of the name is small: a number (`total = 0.0`, `lr = np.float32(1e-3)`,
    `count = jnp.array(0)`), a vector with one entry per row or device (`jnp.zeros(x.shape[0])`,
    per-device step counters `np.broadcast_to(step, (jax.local_device_count(),))`), or integer or boolean buffers (token ids, masks:
    `jnp.full((1, length), pad_id, dtype=jnp.int32)`); updates of the value itself
    (`tokens = tokens.at[0, :n].set(prompt)`) keep its size. Carried through a jitted call, such a
    value is a few bytes to kilobytes next to any model state: nothing worth donating."""
    others = []
    sized_unpacked = False
    for target, value in scope.bindings:
        if value is statement or value is statement.value or key not in {dotted_name(e) for e in target_elements(target)}:
            continue
        if _passes_itself(value, key):
            continue  # another update of the value (`loss_logs = reset_step(loss_logs)`, unpacked or not) keeps its size
        if dotted_name(target) != key:
            if "." not in key and carried_state.unpacked_known_small(key, target, value, scope, model):
                sized_unpacked = True  # `w, b = zeros_like(u), zeros_like(v)`, a small position of a helper's tuple
                continue
            return False  # unpacked from something else
        others.append(value)
    if not others:
        if sized_unpacked:
            return True
        # An object's state bound in another method (`self.weights = jnp.zeros(3)` in `__init__`).
        return key.startswith("self.") and carried_state.attribute_known_small(key, statement, scope, model)
    sized = False
    for value in others:
        if isinstance(value, ast.UnaryOp):
            value = value.operand
        if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
            sized = True
        elif _updates_itself(value, key) or _same_update(value, statement.value, key):
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "init":
                # `optimizer = optimizer.init(params)`: the state is built here, of the parameters' size.
                if not carried_state.known_small(value, scope, model):
                    return False
                sized = True
            continue
        elif carried_state.holds_no_arrays(value, scope, model):
            continue  # an optimizer before its `init`: settings only, the state comes with the `init`
        elif _small_allocation(value, model, scope) or carried_state.known_small(value, scope, model):
            sized = True
        elif (
            isinstance(value, ast.Call) and len(value.args) == 1 and all(k.arg == "dtype" for k in value.keywords)
            and isinstance(value.args[0], ast.Constant) and isinstance(value.args[0].value, (int, float))
            and model.qualified_name(value.func) in _SCALAR_CONSTRUCTORS
        ):
            sized = True
        else:
            return False
    return sized or sized_unpacked


_FILLED = frozenset({
    "jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.full", "jax.numpy.empty",
    "numpy.zeros", "numpy.ones", "numpy.full", "numpy.empty",
})
_BROADCAST = frozenset({"numpy.broadcast_to", "jax.numpy.broadcast_to"})
# Float32 elements below the size worth donating (carried_state.WORTH_DONATING_BYTES, 1 MB).
_SMALL_ELEMENTS = carried_state.WORTH_DONATING_BYTES // 4
_SMALL_DTYPES = re.compile(r"(^|\.)(u?int(8|16|32|64)?|bool_?|int_)$")


def _returned_small(key: str, statement: ast.stmt, binding, model) -> bool:
    """The compiled function itself hands back, in the place the state is rebound, a value the
    source shows small: `action, self._state = policy(params, obs, self._state)` where the policy
    returns `action, next_key` (a key split from the one passed). Whatever the state held before,
    after one step it is that value, and donating it saves nothing."""
    function = binding.function
    if function is None and isinstance(statement.value, ast.Call):
        function, model = _home_static_method(statement.value, binding, model) or (None, model)
    if function is None or not function.returns or not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return False
    target = statement.targets[0]
    if isinstance(target, (ast.Tuple, ast.List)):
        if any(isinstance(element, ast.Starred) for element in target.elts):
            return False
        index = next((i for i, element in enumerate(target.elts) if dotted_name(element) == key), None)
        if index is None:
            return False
        returned = []
        for value in function.returns:
            if not isinstance(value, ast.Tuple) or len(value.elts) != len(target.elts) or any(isinstance(e, ast.Starred) for e in value.elts):
                return False
            returned.append(value.elts[index])
    elif dotted_name(target) == key:
        returned = list(function.returns)
    else:
        return False
    return all(_small_returned(value, function, model) for value in returned)


def _home_static_method(call: ast.Call, binding, model):
    """(scope, model of its module) of the compiled static method `Class.method(...)` runs, for a class
    of another module of the project: what it returns is read there."""
    func = call.func
    project = getattr(model, "project", None)
    if binding.external_has_self or project is None or not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    qualified = model.qualified_name(func.value)
    found = project.resolve(qualified) if qualified is not None else None
    if not found or getattr(found[0], "path", None) is None:
        return None
    from jaxlint.semantic import call_summaries

    home = call_summaries._project_model(found[0].path, found[0].digest, project)
    owner = next((n for n in home.tree.body if isinstance(n, ast.ClassDef) and n.name == found[1]), None) if home is not None else None
    scope = home.class_methods.get(owner, {}).get(func.attr) if owner is not None else None
    return (scope, home) if scope is not None and not scope.has_self else None


def _small_returned(value: ast.AST, function, model, depth: int = 0) -> bool:
    """What the compiled function hands back in the state's place is small: a value the source sizes
    small, a key split from another (`sample_key, key = jax.random.split(key)`), or a tuple of those.
    Parts of the state handed back unchanged do not count: a compiled output that is its input
    unchanged is a second buffer unless the input is donated (measured with jax 0.10.2 on the CPU and
    0.11.2 on an H200: benchmarks/donation_passthrough.py), so they cost what the state costs."""
    if carried_state.known_small(value, function, model):
        return True
    if depth > 3:
        return False
    if isinstance(value, (ast.Tuple, ast.List)):
        return bool(value.elts) and all(_small_returned(e, function, model, depth + 1) for e in value.elts)
    if not isinstance(value, ast.Name) or value.id in function.params:
        return False
    bindings = [bound for target, bound in function.bindings if value.id in {dotted_name(e) for e in target_elements(target)}]
    return bool(bindings) and all(
        isinstance(bound, ast.Call) and model.qualified_name(bound.func) == "jax.random.split" for bound in bindings
    )


def _small_allocation(value: ast.AST, model, scope) -> bool:
    """A new array with one entry per row or device (`jnp.zeros(x.shape[0])`,
    `np.broadcast_to(step, (jax.local_device_count(),))`), of a size the source fixes below a
    megabyte (`jnp.zeros(HIDDEN_SIZE)` with `HIDDEN_SIZE = 256`), or of an integer or boolean dtype
    (`jnp.full((1, n), pad_id, dtype=jnp.int32)`)."""
    if not isinstance(value, ast.Call) or not value.args:
        return False
    qualified = model.qualified_name(value.func)
    if qualified in _BROADCAST and len(value.args) >= 2:
        shape = value.args[1]
    elif qualified in _FILLED:
        shape = value.args[0]
    else:
        return False
    dimensions = shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else [shape]
    if not dimensions:
        return True  # `jnp.zeros(())`: a 0-d scalar
    if len(dimensions) == 1 and _counted_dimension(dimensions[0], model):
        return True  # `zeros(x.shape[0])`, `broadcast_to(step, (jax.local_device_count(),))`
    evaluator = model.constant_evaluator()
    sizes = [evaluator.int_value(dimension, scope) for dimension in dimensions]
    if sizes and all(size is not None for size in sizes) and math.prod(sizes) <= _SMALL_ELEMENTS:
        return True  # `jnp.zeros(HIDDEN_SIZE)`, `jnp.zeros((8, 256))`: sizes the source fixes
    dtype_position = 2 if qualified.endswith("full") else 1
    dtype = next((keyword.value for keyword in value.keywords if keyword.arg == "dtype"), None)
    if dtype is None and qualified in _FILLED and len(value.args) > dtype_position:
        dtype = value.args[dtype_position]
    if dtype is None:
        return False
    if isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
        name = dtype.value
    elif isinstance(dtype, ast.Name) and dtype.id in ("int", "bool"):
        name = dtype.id
    else:
        name = model.qualified_name(dtype) or dotted_name(dtype) or ""
    return bool(_SMALL_DTYPES.search(name))


_DEVICE_COUNTS = frozenset({"jax.local_device_count", "jax.device_count", "jax.process_count"})


def _counted_dimension(dimension: ast.AST, model) -> bool:
    """A length that counts rows or devices, not parameters: a number, `x.shape[0]`, `len(batch)`,
    `jax.local_device_count()`. A vector sized by a parameter count (`zeros(num_params)`) is not."""
    if isinstance(dimension, ast.Constant):
        return isinstance(dimension.value, int)
    if isinstance(dimension, ast.Subscript) and isinstance(dimension.value, ast.Attribute) and dimension.value.attr == "shape":
        return isinstance(dimension.slice, ast.Constant) and dimension.slice.value == 0
    if isinstance(dimension, ast.Call):
        return model.qualified_name(dimension.func) in _DEVICE_COUNTS | {"builtins.len"}
    return False


def _same_update(value: ast.AST, call: ast.AST, key: str) -> bool:
    """Another call of the same jitted function on the value (`tokens = step(model, tokens, n)`
    before the loop that repeats it): the result has the input's size."""
    return (
        isinstance(value, ast.Call) and isinstance(call, ast.Call) and dotted_name(value.func) is not None
        and dotted_name(value.func) == dotted_name(call.func) and any(dotted_name(argument) == key for argument in value.args)
    )


def _passes_itself(value: ast.AST, key: str) -> bool:
    """A call of a jitted or local update that is handed the value itself (`state = reset(state)`,
    `logs, state = step(state, batch)`): carried state keeps its structure and size from call to call."""
    if not isinstance(value, ast.Call) or _BUILDER_NAMES.search((dotted_name(value.func) or "").rsplit(".", 1)[-1]):
        return False  # `model, opt = init_step(model, opt, ...)` builds the state: its size is new
    return any(dotted_name(argument) == key for argument in [*value.args, *(k.value for k in value.keywords)])


_BUILDER_NAMES = re.compile(r"(^|_)(init|initialize|initialise|create|build|make|setup)", re.IGNORECASE)


def _updates_itself(value: ast.AST, key: str) -> bool:
    """`tokens.at[0, :n].set(prompt)`, `mask.astype(bool)`: a method chain on the value itself."""
    node = value
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
        if dotted_name(node) == key:
            return True
    return False


RULE = MissingDonation()
