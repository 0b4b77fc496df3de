"""## What it does
Flags a Python loop outside traced code that runs many eager JAX operations per iteration:
five or more `jnp`/`lax`/`jax.nn`/`jax.random` calls at the loop's own level in a loop that calls no
compiled code, or an `x.at[i].set(v)` update in a `while` loop or one that counts (`range`, also
`trange(n)`, `tqdm(range(n))`, `enumerate(range(n))`: one full copy of `x` per iteration), also one a
plain function or method of the module runs on every call the loop makes (`table = store(table, t, row)`
with `store` returning `table.at[t].set(row)`, `ring.push(x)` rebinding `self.items = self.items.at[i].set(x)`:
the copy is made per call as it is inline; not one under a condition of the callee, nor in a callee that is
jitted or decorated, or loops itself). In a loop
that reads a device array element by element (`values[t]` indexed with the loop's counter, a
jitted function's output walked one entry at a time), the operators on device values count too: each
element read, each `+`, `*`, comparison or array method (`x.sum()`) on a device array is a dispatch of
its own (semantic/values.py, `device_operation`, `walks_device_array`).

The operations of a plain function of the module the loop calls on every iteration count at the
loop (a `@staticmethod` called through its class's name, `Sampler.top_p(key, logits, p)`, is such a function; one
stacked on `jax.jit` is compiled; `x = forward(params, x)` of a hand-written network: its own operations on every call, and
those of the module's functions it calls, a loop over its layers counted once; also batched,
`x = jax.vmap(forward)(params, x)`, which outside `jit` dispatches the same operations one by one on
batching tracers, also through a name bound once to the vmap, `batched = jax.vmap(forward)` at the top
level and `batched(params, x)` in the loop: semantic/callable_chains.py; and inside a function the loop
calls, `accuracy(params, batch)` whose body calls `predict(params, x)` returning `jax.vmap(forward,
in_axes=(None, 0))(params, x)`: the batched function's operations count in the helper's, wherever the vmap
runs eagerly; not a vmap of a jitted function), except beside calls
of other libraries or modules (a solver, a sampler: their work is not counted, so the rest is
preparation; a library function that is plain array code, such as optax's losses
`softmax_cross_entropy_with_integer_labels` or `l2_loss`, is no such call: its operations count as
the library models' `eager_ops` say), in a call that is the one statement between two timer stamps, and in a loop over a
handful of named cases (a mapping's items, a name bound to a literal list of eight or fewer).

It also flags a loop that, on every iteration (not under a branch), runs a whole computation outside
`jit`: a network's forward pass or an optimizer update (what the library models mark `runs_model`:
flax `module.apply`, `state.apply_fn`, `state.apply_gradients`, haiku's `apply`, the apply function of
`stax.serial` (`init_fn, apply_fn = stax.serial(...)`: every layer in turn; one layer's pair is not a network), an optax `update`, also of an optimizer that line-searches, `optax.lbfgs()`,
calling an instance of an `nnx.Module` or `eqx.Module` class of the project, also as `self(x)` in a
method of such a class or of a linen module (bound, run through `apply(..., method=...)`) (`policy.select_action(obs)` whose body calls `self(obs)`), an nnx Optimizer's `update`,
the `update` of a `jax.example_libraries.optimizers` optimizer, also of one a project writes itself under
`@optimizers.optimizer`, in any module (the decorator makes it a maker of `(init, update, get_params)`
as `optimizers.sgd` is), and a step of an environment written in JAX (`env.step` of gymnax, brax or
jumanji: dynamics, reward and the automatic reset, tens to hundreds of operations written to run
under `jit`; a reset, once per episode, is not one); a method whose name and keywords are a library's
own signature is that library's wherever the object's class is not shown (`state.apply_gradients(grads=g)`
on a state a framework hands in or a loader of another module returns: flax takes the gradients by
keyword only; not a positional `apply_gradients(zip(grads, variables))`, nor where a class of the module
defines its own `apply_gradients`; and a call whose first argument is flax's variables: linen's
`apply(variables, *args)` takes a dict of collections, so `net.apply({"params": p}, x)` on a network
handed in as a parameter is a linen forward pass, and so are `state.apply_fn({"params": p}, x)` and
`state.apply_fn(state.params, x)`, the state's own parameters; not a dict without a `"params"`
collection, nor where the module defines a method or sets an attribute of that name)),
a function built by a differentiating transform and called (`jax.grad(f)(p)`, or `grad_fn =
jax.value_and_grad(loss)` bound in the function, at the module's top level or on `self`, then
`grad_fn(params, batch)`; also seen through batching and `functools.partial`, `jax.vmap(partial(jax.grad(f),
w))(xs)` or a name bound to `jax.vmap(jax.grad(f))`: the first compiling or differentiating transform from
the outside decides, `jax.jit(jax.vmap(jax.grad(f)))` runs compiled; in module code, the binding before the read: a notebook that rebinds `grad_fn = jax.jit(...)`
in a later cell compiles only the loops after it; also `eqx.filter_value_and_grad`, `nnx.grad`,
`optax.value_and_grad_from_state(loss)` called with the optimizer state; of a function
that is itself jitted, `jax.value_and_grad(jitted_loss)(p, b)` (also a name bound to what a factory of
the module returns, every return a compiled callable: `loss = make_loss(xs, ys)` with `return jax.jit(mse)`,
semantic/callable_chains.py), the forward and backward passes run
compiled and the message says so: the differentiation around them is redone in Python on every call
and the rest of the step cannot fuse with them), a plain function of the module or a lambda whose body
does one of these, or a network instance (an nnx or equinox module, by its construction or its
annotation, `model: eqx.Module`), batched with `jax.vmap` and called (`jax.vmap(lambda x: net.apply(params, x))(obs)`,
`jax.vmap(model, in_axes=(0, None))(x, True)`: outside `jit` vmap runs the body op by op on batching tracers), or a plain (undecorated, unjitted)
function of the project whose body does one of these (`state = train_step(state, batch)` with
`train_step` never jitted, or `agent.update(batch)` whose method does), also called through a name bound
to `functools.partial` of it, and read with what the call fixes (semantic/call_summaries.py; a method
through an instance of its class, `learner.step(w, s, x, y)` of another module's `Learner`, as a plain
function; calling an instance of a plain class of the project, `net(x)`, or `self(x)` in one of its methods,
runs the `__call__` its body defines, also of an object a static or class method of another module builds,
`Net.from_config(cfg)` returning `cls(...)`: semantic/held_networks.py; there a loop over the network
instances a list attribute holds, `for block in self.blocks: x = block(x)` with every assignment a list of
constructions of one network class, or declared `blocks: list[Block]`, is one forward pass through the
layers, not a run of steps, and an argument check first, `if x.ndim != 1: raise ValueError(...)`, leaves
the rest running on every call that returns; a list filled by `append` is not shown to hold networks): the side of
an `if` that a literal argument (or an unpassed default) takes runs on every call (`partial(train_step,
train=True)` runs the update under `if train:`; `train=False` runs none), and a parameter the call fills
with an object of a modelled kind holds it, also in the module's functions it is handed on to
(`tx.update(...)` two calls down, with `tx = optax.adam(...)` passed). Such a call is where the finding is, also
where the loop dispatches other eager operations beside it (sampling a token after the network): the
network is the loop's main cost. Each such call the loop makes on every iteration is its own finding (and
`.at[]` updates beside it another, at the loop: each copies the whole array)
(a gradient, then an optimizer update, then a target network's average: each is jitted on its own); of
calls nested in one another, the outer. Where the loop's call runs a plain function or method of the
module (`agent.learn(batch)`), each whole computation that function runs on every call is also reported
where it is written (`jax.value_and_grad(loss)(...)` and `tx.update(...)` in `learn`, two findings there,
each named once however many loops call it; the deepest line of this module that is the work, `net.apply`
in `_score` below `act`): the eager code is in the function, which shows no loop (semantic/per_call_work.py).
A parameter annotated with a modelled class
(`state: TrainState`, a library's generic base `model: eqx.Module`) is known to be one, also through a
union whose alternatives other than `None` all name the same modelled class (`net: Encoder | Decoder`,
both `nnx.Module`s; `Optional[Net]`: where it is called it is not `None`), and so is an attribute
declared with one in the class body (`net: Net`), an attribute every construction of its class passes
one (`Sampler(Net(...))` then `self.net(x)`), an attribute every assignment sets to one or to `None`
(`self.net = None` in `__init__`, `self.net = Net(...)` in `build`), the result of a function or method that returns one on every path (`net = make_net()`,
`state = builder.make_state(params)`), of this module or another (`model, opt, step = init_state(cfg)` with
`init_state` in `utils/`: the summary of its module records which callable every `return` calls at each
position, semantic/returned_kinds.py), also where the loop rebinds the name to what a method of its own
class returns again (`state = state.apply_gradients(grads=g)`), and a checkpoint restored into a template
that is one (`state = checkpointer.restore(path, item=state)`, `restore_checkpoint(path, target=state)`,
`serialization.from_bytes(state, data)`: the restore fills the template); a method taken off
such an object and called later is what the method does (`self.forward = net.apply` in `__init__`,
then `self.forward(params, obs)`; `update_fn = optimizer.update`), and so is an element of a tuple a
function or method of the module returns, unpacked into names or onto `self` (`self.update, self.state =
self.make_optimizer(lr)` where it returns `update, init(params)` or `optax.adam(lr)`). An
unannotated parameter called in the loop (`logits = model(ids)`, `net.apply(v, x)`, or `forward(params, x)`
where the callers hand in a method of such an object, `evaluate(state.apply_fn, ...)`) is what every
visible caller passes: the module's callers, through parameters they pass on, or, where the module
calls the function nowhere, the calls in the modules that import it (`main.py: chat(Net(...))`). So is a
parameter every call of its function in the module hands an instance of one class of the module
(`roll_out(env, Policy(...))`, then `policy.select_action(obs)` inside), and an element of the tuple a
compiled function returns where its body returns a parameter there (`trained, loss = step(net, batch)`
with `return net, loss` under `nnx.jit`: `trained` is what `net` is). A function of another module whose
decorator differentiates it (`@eqx.filter_value_and_grad def compute_loss`) runs the gradient when called.
A name the module binds to functions more than once calls the function whose binding reaches the call in
run order (semantic/cell_order.py): a notebook's training function run in one cell calls the `accuracy`
defined above that cell, not the one a later cell defines for another model; run again after that cell, it
calls each in turn, and both are called there. A top-level name of another module bound once to a transform of a function (`batched = jax.vmap(forward)`,
`grad_fn = jax.grad(loss)`, imported by name, through its module or by a star import) runs what its call
runs in that module, read from the binding's chain there (a compiled chain, or a name bound twice, runs none).

Per-leaf work over the whole state the loop carries counts as a whole computation too (asked after
the others): a tree map combining two or more trees (an EMA or Polyak average, `tree_map(lambda e, p:
d * e + (1 - d) * p, ema, params)`, a hand-written SGD step), `optax.incremental_update` or flax's
`unreplicate` (an `x[0]` per leaf), directly or in a plain function of the module that maps its
parameter on every call (or a view of its arrays: the array half of `eqx.partition(model, ...)`, `eqx.filter`), where one of the trees is a name the loop rebinds from a call that takes it
(`state = step(state, batch)`, `params = optax.apply_updates(params, updates)`), or that the tree work itself
steps with a tree the iteration computes from it (a hand-written SGD, `params = tree_map(lambda p, g: p - lr * g,
params, grads)` with `grads = grad_fn(params, batch)`), or that folds into itself a gradient the iteration
takes (gradient accumulation over micro-batches, `acc = tree_map(lambda a, g: a + g, acc, grads)` with `loss,
grads = grad_fn(params, batch)`, compiled or not: a gradient has the leaves of what it differentiates,
semantic/tree_work.py): the state a step carries is the model, hundreds of leaves, one dispatch each. A tree map over metrics or a config the
loop does not carry through a step is not flagged (a few leaves), nor a fold of a gradient transform's value or
auxiliary outputs (`(loss, logits), grads = ...` then folding `loss`). Nor is the whole-computation count
kept where the source shows the tree is a handful of arrays (eight leaves or fewer, semantic/tree_leaves.py:
a dict or tuple display of arrays, `dict(w=w, b=b)`, in module code also where a later cell rebinds
the name, in a loop of its own below the read, `params = init_mlp(sizes)` then `params = update(params)`,
an element of the tuple a setup function of the module returns, what every call of the module hands the parameter, the `init` of a linen module class of
the module built from `self.param` and known layers, beside instances of project classes that are no linen
modules, an equinox module defined in another file, the `init` of a treex module class of the module whose
`__init__` stores known layers, in a list display or a comprehension over a list its construction passes:
`MLP([12, 8, 1])` with `self.layers = [tx.Linear(d) for d in features]`, six arrays): per-leaf work over it, and an update of an
optimizer that keeps no state arrays (`optax.sgd` without momentum, clipping, a chain of those) over it,
are a few eager operations (measured, an eager `optax.sgd` update and `apply_updates` cost about 5
dispatches per leaf, a hand-written SGD step 3.4: benchmarks/eager_update_cost.py), counted as such: beside
a compiled step they are preparation, beside an eager gradient a small share of it (the gradient is
reported). An optimizer with moments (`adam`: 80 dispatches plus 31 per leaf) stays a whole computation
whatever the tree.

It only looks at code that runs on the host: module level, a function with host-only work (it
times, waits for or fetches device values, opens files, converts a framework tensor with `.numpy()`,
or calls jitted code), a function the module hands to a command-line runner (`tyro.cli(main)`,
`fire.Fire(main)`, `app.run(main)`), a method of a network class that decodes with the network itself
(`self(tokens)` on every iteration of a loop that grows the sequence it carries, `tokens =
jnp.concatenate([tokens, nxt], axis=1)`: a `generate`, even where nothing visible calls it, since no one
compiles a loop whose carry changes shape; not one the module traces: semantic/decoding.py), or a
function such host code calls, through any number of calls of the
module's functions, methods on `self` and methods of instances of its classes (`learner =
Learner(...)`, then `learner.fit(batches)`). Traced code counts too where it is traced only by
transforms that run op by op outside `jit`, applied on the spot by such host code: the body of `f` in
`jax.vmap(f)(xs)`, `jax.grad(f)(p)`, `jax.vmap(jax.grad(f))(xs)` or `g = jax.jacfwd(f)` then `g(x)` (a
function, a lambda, a method, and the functions such a body calls): batching and JVP tracers over
concrete arrays dispatch each operation on its own, so a Python loop there is an eager loop
(semantic/host_code.py, `runs_eagerly_transformed`); not where a `jit` wraps the transform, where the
transformed function leaves the scope that builds it (returned or handed on: the receiver may compile
it), nor where the code applying it is not known to run on the host. A module-level function with none of this in its module
counts when a module that imports it calls it from such host code (`sample(...)` of a library module
called by a script's timed `main`; or one module further, through a function of the importer). A
method a library compiles is traced code, not host code, even where it calls a jitted helper: `step` and
`reset` of an environment class deriving (in the module or through the project's base classes) from brax,
gymnax, jumanji or MuJoCo Playground, which their training and rollouts jit, and the methods of the class
only those call (semantic/host_code.py, `traced_by_library`); unless the module steps it from host code;
likewise a function Haiku transforms whose `apply` (or `init`) is jitted, `jax.jit(hk.transform(f).apply)`,
and the helpers only it calls: traced (an `apply` only called, never jitted, runs eagerly). A
function nothing visible calls may be traced by a caller in another module, and is not looked at, unless
its own body cannot be traced: a Python `if` or `while` on a device array it computes (`if
jnp.linalg.norm(fx) < tol:`) or a conversion of one to a Python number (`float(jnp.max(step))`) raise
under `jit`, so the function runs eagerly wherever it is called (semantic/host_code.py, `untraceable`). The whole computation may likewise sit any number
of plain calls below the loop's call, on every call of each (not under an `if` there; before the first
statement that may return early, it runs on every call: `scores = net.apply(p, x)` before `if with_scores:
return action, scores`, semantic/effects.py `unconditional_calls`); the message
names the call in the loop and the line of the computation. Loops over literal collections, over an
array's axes (`for d in x.shape`, `range(x.ndim)`: a rank, a handful) and
small literal ranges (ten iterations or fewer: a demonstration's handful of steps, milliseconds of dispatch) are not flagged, also through `enumerate`, `zip`,
`reversed` or `sorted` (`for i, axis in enumerate(("x", "y", "z")):`).

A comprehension is a loop too (semantic/iteration.py): one outside `jit` whose element runs a whole
computation, as above (`[evaluate(params, b) for b in loader]` with an un-jitted `evaluate` applying the
network, `{i: model.apply(p, b) for i, b in enumerate(batches)}`, `[jax.grad(loss)(p, x) for x in xs]`),
runs it once per item, reported at the call; not under a conditional expression or `and`/`or` in the
element, not over a literal display, a mapping's entries or the networks of an ensemble held in a list
attribute, not over ten items or fewer the source spells out, not in code that runs once per program
(module level, a notebook cell, an entry point, outside any loop: a comprehension there computes its
values once, per-point gradients for a plot, a few chunks prepared before training), and under the same
loop-cost, host-code and timing-harness principles as a `for`. A comprehension's few array operations per item are not
counted (the loop around it counts them).

Not flagged, by what the loop costs per program (semantic/loop_cost.py): dispatch overhead (tens of
microseconds an operation) times the operations of one iteration (a whole network, gradient or update
counts as hundreds) times the iterations times the runs. Where the code runs once per program (module
level, a notebook cell, an entry point, or a function of the module called only from such code, outside
loops), or a number of times the source fixes (a function called from such code in a loop over a
literal list of a handful of cases, `for kind in ["simple", "variational", "multiscale"]: show(model,
kind)`, three times; any other loop around the call, over epochs, steps or a loader, makes it a
per-step cost) and the source fixes the
iteration count (`range` of constants, of a name bound in the cell above,
of parameter defaults or of what every visible call passes, a name bound above the call included, also
where a notebook binds it in two cells (`lds(..., steps=steps)` with `steps = 15` in the cell above the
call), an entry of a table of settings written out above it and never changed (`range(settings["steps"])`
with `settings = {"steps": 25, ...}` or `dict(steps=25)`, no entry stored, no `update`, not merged from
another table), or `len` of a literal-built array; a loop over a literal table or its transpose,
or over evenly spaced points, `np.linspace(a, b, 50)`, or `zip` of such iterables, as many items as its
shortest known argument (`zip(positions, angles)` of two arrays built from four-row literals); a `while` that counts its iterations to a fixed
bound, `t = 0` before it, `t += 1` on every iteration and `while t < 50` or `if done or t >= 50: break`,
a bound that is a parameter counted as its default and what every visible call passes, `while t < T` in
`simulate(model, T)` called once with `T = 250` above the call;
times the loops around it), and the product is under a second, the overhead is nil (a gradient of a
jitted function, `jax.value_and_grad(jitted_loss)`, counts as the differentiation around its compiled
passes, 200 dispatches, measured at 1.3 to 3.7 ms on an H200, not as a whole computation's 500; a
gradient of a plain function whose body runs a Python loop of laps the source counts, each a jitted
step or array work, costs 65 dispatches a lap, at least the 500, since every lap is traced and
differentiated on every call: fifty laps, 65 ms measured on the CPU, so forty optimisation steps are
seconds; an eager `.at[]` update counts as the 7 dispatches of its scatter, measured 180 us): setup over the 19
directions of a lattice, data prepared once over a thousand inputs, thirty steps of a demonstration, a
rollout of fifty environment steps for an animation. A loop of unknown length (a `while True` until an
episode ends, a bound read from a parameter, a data loader), a long one, or one in a function called
per step is still flagged: a training loop of unknown length is many iterations.

Not flagged either: the rounds of rejection sampling, a `while` whose counter steps by the size of a
boolean-mask selection the iteration makes (`accepted = proposals[jnp.isfinite(log_p)]` then
`n_left -= accepted.shape[0]`, `found += len(kept)`: loop_cost.rounds_of_selection): each of its
operations works on a whole batch of proposals, the rounds are the requested count over what one round
keeps, and the selection's size sets the shapes after it, so no `lax` loop can hold the loop; a whole
computation run eagerly in a round (a sampler's forward pass) is still reported. A counter stepped by a
constant, or by the size of a plain slice, is a loop of unknown length as before.

A loop with no compiled call that advances a device value by operators on itself every iteration
(an explicit integrator: `v = v + dt * a; x = x + dt * v`, values.advances_by_arithmetic) counts
its operators on device values too: they are the computation the loop repeats.

Not flagged, as principles: operators on device values in a loop that reads no device array element
by element and advances nothing by them (`total += loss` beside a step, a tuple field `out[0] * 2`,
arithmetic on a NumPy copy): glue, not a walk over the data; conversions (`jnp.asarray(x)`, `jnp.array(x)`) are not counted as
operations: of host data they are the transfer the data needs under `jit` too (a loop that loads a
checkpoint layer by layer, or converts each batch of a data loader, moves data; it computes nothing);
a handful of eager operations beside a compiled step (`rng, sub =
jax.random.split(rng)`, normalising a batch, then `state = train_step(state, batch)`): the loop's
work is in the compiled call, and a few dispatches of preparation cost little next to it; likewise
beside a step of unknown kind that carries the loop's state, made by another module of the project
(`state, stats, rng = step_fn(rng, state, batch)` with `step_fn` from a factory or an element of the
tuple `setup_model(...)` returns: training_loops.opaque_state_step): the loop's work is that call,
and the few operations beside it (a learning-rate schedule, a clip of the training fraction) are not
shown to be the loop's work; so do
`.at[]` updates storing or correcting its result (`path = path.at[t].set(state)` in a rollout, a
solver's correction in a `while True` convergence loop: one dispatch and one copy beside the step's own
output) (a whole network or optimizer update run eagerly beside it is still reported), where the
compiled work is heavy: beside only small compiled calls (functions of the module of a few array
operations, no loop, no control flow, no transform: an integrator's step), the scatter of the copy costs
more than the step, and the updates are counted (loop_cost.beside_small_compiled_calls); a few eager
operations in an iteration that reads a file or a checkpoint from storage on every iteration
(`pickle.load`, a checkpoint restore, a function of the project that does one: the iteration waits for
the disk, milliseconds, beside which the dispatches are nil; a whole computation beside the read is
still reported), or that runs a host library's work on every iteration (a SciPy sparse solve, a
PETSc solve, a mesh file written: the library models' `host_work`, also inside a function of this
module or another project module, semantic/host_library.py; a load-stepping or Newton loop of host
solves, which also cannot become a `lax.fori_loop`), or that draws a figure or a frame on every iteration
(semantic/display_work.py: matplotlib, `ax.imshow`, `fig.savefig`, a plotting helper of the module or of
another project module, `env.render()`, a viewer's `sync()`, pygame or OpenCV display) or runs while a window
stays open (`while viewer.is_running():`, `if not renderer(state): break`): the loop is paced by its
drawing, milliseconds a frame or a panel, and a figure cannot go into a `lax.fori_loop`; any eager work,
a whole computation included, in a loop that sleeps on purpose on every iteration for a tenth of a
second or more the source fixes (`time.sleep(1)` in a background evaluator, `time.sleep(POLL)` with
`POLL = 0.5`; not under a branch: semantic/pass_weight.py), beside which a network's eager dispatches
(milliseconds) are a small share of the pass; a call that runs compiled code (a jitted function, one decorated, or
one jitted where it is bound, or a wrapper of one: `jax.vmap` of a jitted function or a
`functools.partial` of one, nested in any order, bound to a name or handed to a function whose every
call passes one, `rollout(jax.vmap(partial(step, dt=0.1)))`: each call dispatches the one compiled
program, semantic/compiled_wrappers.py; a `vmap` of a plain function is eager); a whole computation under a branch of the loop (`if i % 1000 == 0:`
an evaluation: not every iteration; but a branch whose test the loop cannot change, a configuration flag
or a parameter it never rebinds, `if use_ema:` or `if devices > 1: ... else: ...`, takes the same way on
every iteration, and what runs there is reported where nothing runs unconditionally; and a warm-up test,
a quantity that only grows against a bound that stays put, holds on every iteration once it holds
(semantic/warm_up.py): the updates under `if global_step > learning_starts:`, an agent's update under
`if len(self.buffer) > batch_size:` or after `if len(self.memory) < self.batch_size: return` in the
method the loop calls, run on every iteration after the warm-up and are reported; the other side, random
actions before learning starts, is not. So is a side of a branch on a host uniform draw that chance takes
on most iterations (`if epsilon > random.random():` explore, `else:` a greedy forward pass; the side where the
draw exceeds an open rate, or the larger share of a literal one: semantic/branch_shares.py; also through a name
bound once to the draw, `rand = random.random()` then `if rand < self.epsilon:`, and inside a function or
method the loop calls, `agent.choose(obs)` whose `else:` applies the network). A collection the code empties, `pending.clear()` after a flush,
is a periodic event, not a warm-up); a forward pass run once per iteration of a loop whose iteration is a
pass of compiled steps (an inner loop over a data loader, a `while`, or fifty or more iterations, calling
jitted code on each: an epoch): a prediction to log or plot once per pass is a small share of it (an
eager gradient or update there is the training itself, still reported; so is a forward pass beside a
short inner loop); likewise a forward pass in a loop that draws a frame or a figure on every iteration (an
animation of a policy, an interactive viewer: the network chooses what the next frame shows; a gradient or
an update beside the drawing is training, still reported); a call that is the one statement between two timer stamps
(a measurement of the eager call itself), and a callable handed in as a parameter and called with the same
arguments on every iteration of a loop that is itself the interval a timer measures (a timing harness
measures whatever its callers hand it); eager operations or `.at[]` updates in an inspection loop,
one that prints a device value it computed on every iteration (`print("x", x)`, not under a branch):
the host waits for and shows each result by design, and `fori_loop` would lose the output (a whole
network or update in such a loop is still reported: jit it and keep the print); a function that loops itself (a Python loop in its body,
or a `lax` loop: one call is a whole run, and its own loop is where a per-step cost is reported; not a
loop whose count is fixed per call rather than by a data set's length, micro-batches whose compiled
gradients it sums and applies once after the loop: one call is one optimizer step, and its eager
update is reported at the caller's loop; a loop over a data loader applying a step is still a run; semantic/training_loops.py, `one_step_loop`);
loops that run under `jit` (unrolled, compiled); a loop in an initialiser (`init_params`, called
by no loop: it runs once, over the layers it builds), or in an alternative constructor no loop
calls (a `@staticmethod`/`@classmethod` that builds an instance of its class and returns it,
`Net.load_pretrained(path)` filling layer after layer: once per object).

Test code is not flagged (a `test*` function, a `Test*` class, a test module): a test runs once on
small dummy inputs, so the cost this rule reports reaches no one; every rule whose finding is a cost
or the quality of computed values follows this one policy (semantic/test_code.py).

## Why is this bad?
Outside `jit`, every `jnp` operation is dispatched on its own: Python overhead, a kernel launch and a
fresh output buffer each, with no fusion. An `.at[].set` outside `jit` cannot update in place, so it
copies the whole array. A loop of such operations is typically 10-1000x slower than the same loop
under `jit`. See "JAX vs NumPy: arrays are immutable" in
https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html and
https://docs.jax.dev/en/latest/jit-compilation.html.

## Example
```python
x = jnp.zeros(100_000)
for i in range(100_000):
    x = x.at[i].set(jnp.sin(i * 0.01))
```

## Use instead
```python
@jax.jit
def fill(x):
    return lax.fori_loop(0, 100_000, lambda i, x: x.at[i].set(jnp.sin(i * 0.01)), x)

x = fill(jnp.zeros(100_000))
```

## Fix safety
No fix: moving a loop under `jit` requires its body to be traceable and its trip count to be known,
which the linter cannot check; the message suggests a jitted `lax.fori_loop`.

## How the runtime mode confirms it
It times a few iterations of the eager loop against the same body under `jit` with `fori_loop`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator

from jaxlint.rules.base import Rule
from jaxlint.semantic import flow, held_networks, iteration, jaxapi, library_models
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.callable_chains import callable_chain
from jaxlint.semantic.compiled_wrappers import wraps_compiled
from jaxlint.semantic.values import may_dispatch
from jaxlint.semantic.foreign_work import ForeignWork, may_be_project_call
from jaxlint.semantic.importer_facts import called_from_host_elsewhere, eager_parameter_call
from jaxlint.semantic.host_code import callee_scope, plain_decorators, runs_eagerly_transformed, runs_on_host
from jaxlint.semantic.effects import unconditional_calls
from jaxlint.semantic.display_work import draws_every_iteration
from jaxlint.semantic.host_library import host_library_every_iteration
from jaxlint.semantic import loop_cost, pass_weight
from jaxlint.semantic.loop_cost import COMPILED_GRADIENT_DISPATCHES, WHOLE_COMPUTATION_DISPATCHES, nil_cost, reads_storage_every_iteration, runs_pass_of_compiled_steps
from jaxlint.semantic.model import FUNCTION_NODES, parent_of
from jaxlint.semantic.per_call_work import computations_per_call
from jaxlint.semantic.flow import statement_list
from jaxlint.semantic.syntax import child_nodes, walk
from jaxlint.semantic.jaxapi import CLOCKS as TIMERS  # (the time module's clocks; not datetime's dates)
from jaxlint.semantic.tree_leaves import few_leaf_operations, few_leaf_update_operations
from jaxlint.semantic.tree_work import mapped_trees, maps_carried_tree
from jaxlint.semantic.branch_shares import on_common_side
from jaxlint.semantic.warm_up import loop_counters, steady_side
from jaxlint.semantic.training_loops import (
    batched_plain_function,
    assigned_in_loop, builds_its_class_once, comprehension_work, iterates_counter, eager_model_call, eager_operations_in, is_eager_operation, known_plain_call, loop_body, runs_compiled, runs_once_initialiser,
    loop_varying, opaque_state_step, shows_every_iteration, touched_objects, under_loop_branch,
)
from jaxlint.rules.host_sync_in_loop import _inside_timed_interval as inside_timed_interval

MIN_OPS = 5
_SMALL_RANGE = 11
_AT_METHODS = frozenset({"set", "add", "multiply", "mul", "divide", "div", "min", "max", "power", "apply"})


class EagerOpsInLoop(Rule):
    code = "JAX203"
    name = "eager-ops-in-loop"
    summary = "Many eager JAX operations per iteration of a Python loop outside `jit`"
    skips_test_code = True
    node_types = (ast.For, ast.While, *iteration.COMPREHENSIONS)
    fix_availability = "none"

    def check(self, node: ast.AST, context) -> None:
        if isinstance(node, iteration.COMPREHENSIONS):
            _check_comprehension(node, context)
            return
        scope = context.scope(node)
        if flow.spells_out_few_iterations(node, context.qualified_name, _SMALL_RANGE):
            return
        if scope.in_traced and not runs_eagerly_transformed(scope, context.model):
            return  # (traced code is compiled; a body only vmapped or differentiated from host code runs op by op)
        operations = 0
        updates = 0
        wholes: list[tuple[ast.Call, ast.Call]] = []  # (the loop's call, the model call it runs), each run on every iteration
        every_iteration: list[ast.Call] = []  # calls into other project modules: asked about last
        of_parameters: list[ast.Call] = []  # calls of (methods of) the function's parameters: asked about last
        through_helper: tuple[ast.Call, int, ast.Call | None] | None = None  # (the call, its operations, the first)
        tree_work: list[ast.Call] = []  # per-leaf maps over the tree the loop carries (semantic/tree_work)
        # The operations of the module's functions count only where the loop's other calls are known
        # (array operations, Python, host bookkeeping): beside a library's solver or sampler they are preparation.
        helper_work_counts = _only_known_calls(node, context) and not _over_named_cases(node, context)
        facts = _LoopFacts(node, context.model)
        in_branch: tuple[ast.Call, ast.Call] | None = None  # (the first whole computation under a branch the loop cannot change)
        operators: list[ast.AST] = []  # (operators, element reads and methods: counted below, where they matter)
        callee_updates: tuple[ast.Call, int] | None = None  # (the first call whose function makes `.at[]` copies, how many)
        for child in _same_level(node):
            if isinstance(child, _OPERATOR_NODES) and may_dispatch(child):
                operators.append(child)
            if not isinstance(child, ast.Call):
                continue
            if not (under_loop_branch(child, node) and _under_varying_branch(child, node, context, facts)) \
                    and not inside_timed_interval(child, context):
                inner = eager_model_call(child, context.model, other_modules=False)
                few = few_leaf_update_operations(child, scope, context.model) if inner is child else None
                if few is not None:
                    operations += few  # (an update without moments over a handful of arrays: a few eager operations)
                    continue
                if inner is not None:
                    if not facts.conditional(child):
                        wholes.append((child, inner))
                    elif in_branch is None or _position(child) < _position(in_branch[0]):
                        in_branch = (child, inner)  # (under a flag's branch: reported where nothing runs unconditionally)
                    continue
                if maps_carried_tree(child, node, context.model):
                    few = few_leaf_operations(child, mapped_trees(child, context.model), scope, context.model)
                    if few is not None:
                        operations += few  # (a tree of a handful of arrays: a few eager operations, not a whole computation)
                    else:
                        tree_work.append(child)  # (per-leaf work over the state the loop carries: asked last)
                    continue
                if may_be_project_call(child, context.model):
                    every_iteration.append(child)
                if _calls_parameter(child, scope):
                    of_parameters.append(child)  # (a parameter's name may also name a module of the project)
            if _is_at_update(child):
                updates += 1
                continue
            if not under_loop_branch(child, node):
                copies = _callee_at_updates(child, context)
                if copies:
                    updates += copies  # (a function the loop calls that rebuilds an array: a full copy per call)
                    callee_updates = callee_updates or (child, copies)
            helper = None
            if helper_work_counts and not under_loop_branch(child, node) and not inside_timed_interval(child, context):
                if model_free_helper(child, context.model):
                    helper = callee_scope(child, context.model)
                else:
                    helper = batched_plain_function(child, scope, context.model)
            if helper is not None:
                inner, first = eager_operations_in(helper, context.model)
                if inner:
                    operations += inner
                    if through_helper is None or inner > through_helper[1]:
                        through_helper = (child, inner, first)
                continue
            qualified = context.qualified_name(child.func)
            if qualified is not None and qualified.startswith(jaxapi.ARRAY_NAMESPACES) and qualified not in jaxapi.STATIC_CALLS:
                if is_eager_operation(qualified):
                    operations += 1
            else:
                operations += library_models.eager_operations(qualified)  # (optax's losses: plain array code)
        # (calls on every iteration first, then those under a branch the loop cannot change; by position)
        first_unconditional = lambda call: (facts.conditional(call), _position(call))  # noqa: E731
        if in_branch is not None:
            wholes.append(in_branch)
        if every_iteration and runs_on_host(scope, context.model):
            # A function or method of another project module (a model of it is built when first asked).
            wholes += [(child, inner) for child in every_iteration if (inner := eager_model_call(child, context.model)) is not None]
        if of_parameters and (runs_on_host(scope, context.model) or called_from_host_elsewhere(context.model, scope)):
            # An object the callers hand in (`generate(model, ...)` called with a module instance); not in a
            # timing harness, which measures what it is handed.
            wholes += [(child, child) for child in of_parameters
                       if not _repeated_measurement(child, node, context, facts) and eager_parameter_call(child, scope, context.model) is not None]
        wholes += [(call, call) for call in tree_work]
        # Each whole computation the loop runs on every iteration is its own finding (each is jitted on its
        # own); where none runs unconditionally, the first under a branch the loop cannot change.
        unique = {id(pair[0]): pair for pair in sorted(wholes, key=lambda pair: first_unconditional(pair[0]), reverse=True)}
        wholes = sorted(unique.values(), key=lambda pair: first_unconditional(pair[0]))
        wholes = [pair for pair in wholes if not facts.conditional(pair[0])] or wholes[:1]
        if wholes and any(_forward_pass(inner, context) for _, inner in wholes) and runs_pass_of_compiled_steps(node, context.model) is not None:
            # Beside a pass of compiled steps (an epoch over a loader), a forward pass runs once per pass
            # (a prediction to log, a plot): a small share of the iteration. A gradient or an update is
            # the training itself, still reported.
            wholes = [pair for pair in wholes if not _forward_pass(pair[1], context)]
        if wholes and any(_forward_pass(inner, context) for _, inner in wholes) and draws_every_iteration(node, context.model) is not None:
            # A loop that draws a figure or a frame every iteration (an animation, a viewer) is paced by
            # the drawing: the forward pass choosing what is shown is a share of a frame.
            wholes = [pair for pair in wholes if not _forward_pass(pair[1], context)]
        calls = {id(call) for call, _ in wholes}
        wholes = [pair for pair in wholes if not _inside_any(pair[0], calls, node)]  # (`tx.update(grad(loss)(p), s)`: one, the outer)
        whole = wholes[0] if wholes else None
        if whole is None and operations < MIN_OPS <= operations + len(operators) and (
            context.model.walks_device_array(node, scope)
            or (context.model.advances_by_arithmetic(node, scope) and not _calls_compiled(node, context))
        ):
            # A loop that reads a device array element by element also counts its operators on device values
            # (`values[t]`, `gamma * next_value - value`): each one a dispatch per element.
            operations += sum(1 for child in operators
                              if context.model.device_operation(child, scope) and not under_loop_branch(child, node))
        if updates and operations < MIN_OPS and not _many_iterations(node, context):
            updates = 0
        if (operations >= MIN_OPS or updates) and _calls_compiled(node, context):
            # Preparation beside a compiled step: the step is where the work is (a whole network or
            # update run eagerly beside it is what gets reported, if any). An `.at[]` update storing
            # the step's result (a rollout's buffer, a solver's path) is one dispatch and one copy
            # beside it, the same order of work as the step's own output: relative to the iteration, nil;
            # not beside a small compiled step (a few operations, no loop), which costs less than the copy.
            operations = 0
            if not (updates and loop_cost.beside_small_compiled_calls(node, context.model)):
                updates = 0
        if operations < MIN_OPS and not updates and whole is None:
            return
        if pass_weight.sleeps_every_pass(node, context.model) is not None:
            return  # (each iteration sleeps on purpose, a tenth of a second or more: its dispatches are a small share of it)
        if whole is None and reads_storage_every_iteration(node, context.model) is not None:
            return  # (each iteration waits for a file or a checkpoint: its few dispatches are nil beside it)
        if whole is None and host_library_every_iteration(node, context.model) is not None:
            return  # (each iteration runs a host solver or writer: its few dispatches are nil beside it)
        if whole is None and loop_cost.rounds_of_selection(node, context.model) is not None:
            return  # (rejection rounds: batch-wide operations, a few rounds, shapes set by what each round keeps)
        if whole is None and draws_every_iteration(node, context.model) is not None:
            return  # (each iteration draws a figure or a frame, milliseconds: its few dispatches are nil beside it)
        if whole is None and shows_every_iteration(node, scope, context.model):
            return  # (an inspection loop: the host reads and prints every iteration's result by design)
        if runs_once_initialiser(scope, context.model) or builds_its_class_once(scope, context.model):
            return  # (an initialiser's loop, over the layers it builds, runs once: not a per-step cost)
        shown = [_whole_dispatches(inner, context) for _, inner in wholes]
        # (a network whose maker the source shows, `stax.serial` of its layers, costs its own layers' dispatches)
        whole_dispatches = sum(shown) if shown and None not in shown else WHOLE_COMPUTATION_DISPATCHES
        dispatches = operations + updates * loop_cost.EAGER_UPDATE_DISPATCHES + (whole_dispatches if whole is not None else 0)
        if nil_cost(node, dispatches, scope, context.model):
            return  # (run once, a known handful of iterations: the whole loop's overhead is under a second)
        if not runs_on_host(scope, context.model) and not called_from_host_elsewhere(context.model, scope):
            return  # (asked last, only of a loop otherwise reported: it reads the importers)
        if whole is not None:
            for call, inner in wholes:
                _report_whole(call, inner, tree_work, context)
            if not updates:
                return
            operations = 0  # (the `.at[]` copies are reported apart: the whole computation holds the operations)
        if through_helper is not None and through_helper[1] >= MIN_OPS and not updates:
            call, count, first = through_helper
            line = f" (from line {first.lineno})" if first is not None else ""
            context.report(
                call,
                f"`{_callee(call, context)}` dispatches {count} eager JAX operations{line} on every iteration of this loop "
                f"outside `jit`{'' if operations == count else f' ({operations} in the iteration)'}, each on its own; "
                "jit the function, or move the loop into a jitted function with `lax.fori_loop`",
            )
            return
        parts = []
        if operations:
            inside = ""
            if through_helper is not None:
                call, count, first = through_helper
                line = f", from line {first.lineno}" if first is not None else ""
                inside = f" ({count} of them in `{_callee(call, context)}`{line})"
            parts.append(f"{operations} eager JAX operation{'s' if operations > 1 else ''}{inside}")
        if updates:
            inside = f"; {callee_updates[1]} of them in `{_callee(callee_updates[0], context)}`" if callee_updates is not None else ""
            parts.append(f"{updates} `.at[].` update{'s' if updates > 1 else ''} (a full copy each{inside})")
        context.report(
            node,
            f"{' and '.join(parts)} per iteration of this loop outside `jit`, each dispatched on its own; "
            f"move the loop into a jitted function with `lax.fori_loop`",
            end_node=node.iter if isinstance(node, ast.For) else node.test,
        )


def _check_comprehension(node: ast.AST, context) -> None:
    """A comprehension is a loop (semantic/iteration.py): where its element runs a whole computation
    outside `jit` (`[model.apply(params, b) for b in batches]`, a plain function of the project that
    does), it runs it once per item, as the body of a `for` would (training_loops.comprehension_work).
    Only whole computations are asked here; a comprehension's few array operations per item are the
    loop's around it."""
    scope = context.scope(node)
    model = context.model
    if scope.in_traced and not runs_eagerly_transformed(scope, model):
        return
    if loop_cost.runs_once(scope, model) and next(loop_cost.enclosing_loops(node), None) is None:
        return  # (computed once per program: per-point values for a plot, inputs prepared once)
    host = runs_on_host(scope, model)
    wholes = [(call, inner) for call, inner in comprehension_work(node, model, other_modules=host)
              if not inside_timed_interval(call, context)]
    if not wholes:
        return
    shown = [_whole_dispatches(inner, context) for _, inner in wholes]
    dispatches = sum(shown) if None not in shown else WHOLE_COMPUTATION_DISPATCHES
    if nil_cost(node, dispatches, scope, model):
        return  # (a known handful of items in code run once: the whole overhead is under a second)
    if not host and not called_from_host_elsewhere(model, scope):
        return
    for call, inner in wholes:
        if context.reported_at(call):
            continue  # (the loop around the comprehension already reports this call)
        _report_whole(call, inner, [], context, "for each item of this comprehension")


def _report_whole(call: ast.Call, inner, tree_work: list[ast.Call], context, where: str = "on every iteration of this loop") -> None:
    _report_at_call(call, inner, tree_work, context, where)
    if call not in tree_work:
        _report_in_callee(call, inner, context, where)


def _report_at_call(call: ast.Call, inner, tree_work: list[ast.Call], context, where: str) -> None:
    if call in tree_work:
        context.report(
            call,
            f"`{_callee(call, context)}` works leaf by leaf over the whole state this loop carries (every parameter of "
            "the model) outside `jit`, one dispatch per leaf on every iteration; do it inside the jitted step, or jit it",
        )
        return
    differentiated = _differentiated_compiled(inner, context)
    if differentiated is not None:
        through = "" if call is inner else f" (at line {inner.lineno})"
        context.report(
            call,
            f"`{_callee(call, context)}` differentiates the jitted `{context.text(differentiated)}` outside `jit`{through} "
            f"{where}: its forward and backward passes run compiled, but the differentiation around them is "
            "redone in Python on every call and the rest of the step cannot fuse with them; take the gradient inside a jitted step",
        )
        return
    laps = _differentiated_laps(inner, context) if not isinstance(inner, ForeignWork) else None
    if laps is not None:
        through = "" if call is inner else f" (at line {inner.lineno})"
        context.report(
            call,
            f"`{_callee(call, context)}` differentiates a function that runs a Python loop of {laps} laps outside `jit`{through} "
            f"{where}: every lap is traced and differentiated again on every call; take the gradient inside a jitted "
            "function, with the laps in `lax.scan` or `lax.fori_loop`",
        )
        return
    if isinstance(inner, ForeignWork):
        through = f" (through `{inner.text}` in `{inner.helper}`, {Path(inner.path).name}:{inner.line})"
    else:
        through = "" if call is inner else f" (through `{_callee(inner, context)}` at line {inner.lineno})"
    what = "a whole computation (a network, a gradient or an optimizer update)"
    if isinstance(inner, ast.Call):
        entry = library_models.call_model(context.model, inner)
        if entry is not None and entry.name.startswith(_ENVIRONMENT_LIBRARIES):
            what = "a whole environment step written in JAX (dynamics, reward, automatic reset)"
    context.report(
        call,
        f"`{_callee(call, context)}` runs {what} outside `jit`{through} {where}, "
        "each operation dispatched on its own; call a jitted function instead",
    )


def _report_in_callee(call: ast.Call, inner, context, where: str) -> None:
    """Where the loop's call runs a plain function of the module, each whole computation that function
    runs on every call is reported where it is written too (semantic/per_call_work.py): the eager code
    is there, a gradient at one line and the update below it, and the function shows no loop."""
    if call is inner or isinstance(inner, ForeignWork):
        return
    helper = callee_scope(call, context.model)
    if helper is None:
        return
    for work in computations_per_call(helper, context.model):
        if context.reported_at(work):
            continue  # (another loop calling the same function already reported it)
        context.report(
            work,
            f"`{' '.join(_callee(work, context).split())}` runs a whole computation (a network, a gradient or an optimizer update) "
            f"outside `jit` on every call of `{helper.name}`, which the loop at line {call.lineno} calls {where.replace('this loop', 'it')}, "
            "each operation dispatched on its own; jit it, or call a jitted function here",
        )


def _whole_dispatches(inner, context) -> int | None:
    """The dispatches one eager run of the whole computation `inner` costs where the source shows it:
    a network whose maker is in the source (held_networks.shown_dispatches), or a gradient of a jitted
    function, whose forward and backward passes are compiled calls (loop_cost.COMPILED_GRADIENT_DISPATCHES).
    None: the generic whole computation's."""
    shown = held_networks.shown_dispatches(inner, context.model)
    if shown is None and _differentiated_compiled(inner, context) is not None:
        return COMPILED_GRADIENT_DISPATCHES
    if shown is None:
        # A gradient of a plain function whose body loops over jitted steps (a simulation unrolled in
        # Python) differentiates every lap on every call: its cost grows with the laps.
        laps = _differentiated_laps(inner, context)
        if laps is not None:
            return max(WHOLE_COMPUTATION_DISPATCHES, laps * loop_cost.DIFFERENTIATED_LAP_DISPATCHES)
    return shown


def _differentiated_laps(inner, context) -> int | None:
    """The laps (loop_cost.differentiated_laps) of the plain function of the module that `inner` takes a
    gradient of outside `jit` (`loss_grad(u0, target, steps)` with `loss_grad = jax.value_and_grad(simulate)`),
    where no `partial` fixes some of its arguments; else None."""
    chain = _differentiating_chain(inner, context)
    if chain is None or chain.partial or chain.differentiated is None or not chain.differentiated.args:
        return None
    function = chain.differentiated.args[0]
    resolved = context.model.resolve_function(function, context.model.scope_for(chain.differentiated))
    if resolved is None or resolved[1] or resolved[2] or resolved[0] is None:
        return None
    return loop_cost.differentiated_laps(resolved[0], inner, context.model)


def _differentiating_chain(inner, context):
    """The callable chain (semantic/callable_chains.py) that the call `inner` runs, also through a name the
    module binds in more than one cell; None where it has none."""
    if not isinstance(inner, ast.Call) or not isinstance(inner.func, (ast.Call, ast.Name)):
        return None
    chain = callable_chain(inner.func, context.scope(inner), context.model)
    if chain is None and isinstance(inner.func, ast.Name):
        standing = flow.value_at_read(inner.func, context.scope(inner), context.model, in_line_order=True)
        if standing is not None and isinstance(standing[1], ast.Call):
            chain = callable_chain(standing[1], standing[0], context.model)
    return chain


def _differentiated_compiled(inner, context) -> ast.expr | None:
    """The function a transform differentiates where it is itself compiled (`jax.value_and_grad(step)(p)`
    with a jitted `step`, or a wrapper of one: semantic/compiled_wrappers.py), else None."""
    if not isinstance(inner, ast.Call) or not isinstance(inner.func, (ast.Call, ast.Name)):
        return None
    chain = callable_chain(inner.func, context.scope(inner), context.model)  # (also `vmap(grad(f))`, a name bound to one)
    if chain is None and isinstance(inner.func, ast.Name):
        # A name the module binds in more than one cell (`grad_fn = jax.value_and_grad(loss)` in two):
        # the binding that stands where the loop reads it, in the order the cells run.
        standing = flow.value_at_read(inner.func, context.scope(inner), context.model, in_line_order=True)
        if standing is not None and isinstance(standing[1], ast.Call):
            chain = callable_chain(standing[1], standing[0], context.model)
    differentiating = chain.differentiated if chain is not None else None
    if differentiating is None or not differentiating.args:
        return None
    function = differentiating.args[0]
    return function if wraps_compiled(function, context.model.scope_for(differentiating), context.model) else None


_UPDATING = ("update", "apply_gradients", "apply_updates", "step")
# Libraries of environments written in JAX (semantic/library_models/environments.py): their `step` is the
# whole computation a call runs.
_ENVIRONMENT_LIBRARIES = ("gymnax.", "brax.", "jumanji.")


def _forward_pass(inner, context) -> bool:
    """A network run forward (`model.apply(params, x)`, `state.apply_fn(...)`, `net(x)`): no gradient, no
    optimizer update, and in this module (a computation in another is not read here)."""
    if isinstance(inner, ForeignWork) or not isinstance(inner, ast.Call):
        return False
    if isinstance(inner.func, ast.Call):
        return False  # (`jax.grad(f)(p)`: a transform called at once)
    name = inner.func.attr if isinstance(inner.func, ast.Attribute) else inner.func.id if isinstance(inner.func, ast.Name) else ""
    return not any(word in name.lower() for word in (*_UPDATING, "grad", "train", "fit"))


def _inside_any(call: ast.Call, calls: set[int], loop: ast.AST) -> bool:
    parent = parent_of(call)
    while parent is not None and parent is not loop:
        if id(parent) in calls:
            return True
        parent = parent_of(parent)
    return False


_FEW_CASES = 8
_OPERATOR_NODES = (ast.BinOp, ast.Compare, ast.AugAssign, ast.UnaryOp, ast.Subscript, ast.Call)
_BRANCH_TYPES = (ast.If, ast.IfExp, ast.BoolOp, ast.ExceptHandler)


def _calls_parameter(call: ast.Call, scope) -> bool:
    """`p(...)` or `p.method(...)` for a parameter `p` of the function the loop is in."""
    function = call.func
    receiver = function.value if isinstance(function, ast.Attribute) else function
    return isinstance(receiver, ast.Name) and receiver.id in scope.params


class _LoopFacts:
    """What the loop rebinds and touches, worked out when first asked (most loops never ask), and the
    answer of `loop_varying` per branch test."""

    def __init__(self, loop: ast.AST, model):
        self.loop = loop
        self.model = model
        self._assigned: set[str] | None = None
        self._touched: set[str] | None = None
        self._varying: dict[int, bool] = {}
        self._counters: set[str] | None = None
        self._steady: dict[int, bool | None] = {}

    @property
    def assigned(self) -> set[str]:
        if self._assigned is None:
            self._assigned = assigned_in_loop(self.loop)
        return self._assigned

    @property
    def counters(self) -> set[str]:
        if self._counters is None:
            self._counters = loop_counters(self.loop)
        return self._counters

    def steady(self, branch: ast.AST, child: ast.AST) -> bool:
        """`child` is on the side of `if` `branch` that a warm-up test takes on every iteration once
        warmed up (`if global_step > learning_starts:`, semantic/warm_up)."""
        if not isinstance(branch, ast.If) or child is branch.test:
            return False
        key = id(branch.test)
        if key not in self._steady:
            self._steady[key] = steady_side(branch.test, self.loop, self.counters)
        side = self._steady[key]
        if side is None:
            return on_common_side(branch, child, self.model)
        return any(child is statement for statement in (branch.body if side else branch.orelse))

    def conditional(self, node: ast.AST) -> bool:
        """Under a branch of the loop's body that may not run on every iteration (the steady side of a
        warm-up test runs on every iteration after the warm-up)."""
        if not under_loop_branch(node, self.loop):
            return False
        child, parent = node, parent_of(node)
        while parent is not None and parent is not self.loop:
            if isinstance(parent, _BRANCH_TYPES) and not self.steady(parent, child):
                return True
            child, parent = parent, parent_of(parent)
        return False

    def varying(self, test: ast.expr, model) -> bool:
        key = id(test)
        if key not in self._varying:
            if self._touched is None:
                self._touched = touched_objects(self.loop)
            self._varying[key] = loop_varying(test, self.loop, model, self.assigned, self._touched)
        return self._varying[key]


def _position(call: ast.Call) -> tuple[int, int]:
    return call.lineno, call.col_offset


def _under_varying_branch(node: ast.Call, loop: ast.AST, context, facts: "_LoopFacts") -> bool:
    """Inside a branch of the loop's body that may run on some iterations and not others: an `if` (or a
    conditional expression) whose test can change from one iteration to the next (`step % 100 == 0`,
    training_loops.loop_varying), a boolean operator or an exception handler. A test the loop cannot
    change (a configuration flag, `if use_ema:`; `if n_devices > 1: ... else: ...`) picks the same branch
    on every iteration: what runs under it runs on every iteration of the runs that take it."""
    qualified = context.qualified_name(node.func)
    if qualified is not None and (qualified.startswith("builtins.") or qualified.startswith(jaxapi.ARRAY_NAMESPACES)):
        return True  # (an array operation or a builtin is never a whole computation: not worth asking)
    model = context.model
    child, parent = node, parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, (ast.If, ast.IfExp)):
            if child is parent.test:
                return True
            if facts.steady(parent, child):
                pass  # (the side a warm-up test takes on every iteration once warmed up)
            elif facts.varying(parent.test, model):
                return True
        elif isinstance(parent, (ast.ExceptHandler, ast.BoolOp)):
            return True
        child, parent = parent, parent_of(parent)
    return False


def _repeated_measurement(call: ast.Call, loop: ast.AST, context, facts: _LoopFacts) -> bool:
    """A timing harness: the loop is the interval a timer measures (a timer stamp bound before it in its
    block, `start = time.perf_counter()`, and read after it, also in a `return`), and `call` takes nothing
    the loop rebinds (the same call with the same arguments on every iteration, `out = fn(*args)`): it
    measures whatever its callers hand it, eager or compiled."""
    located = statement_list(loop)
    if located is None:
        return False
    block, index = located

    def stamps(statement: ast.stmt) -> bool:
        return any(isinstance(n, ast.Call) and context.qualified_name(n.func) in TIMERS for n in walk(statement))

    if not (any(isinstance(statement, ast.Assign) and stamps(statement) for statement in block[:index])
            and any(stamps(statement) for statement in block[index + 1:])):
        return False
    arguments = [*call.args, *(k.value for k in call.keywords)]
    return not any(isinstance(n, ast.Name) and n.id in facts.assigned for argument in arguments for n in walk(argument))


def _over_named_cases(loop: ast.AST, context) -> bool:
    """The loop walks a handful of cases (a comparison of configurations, of problem sizes): the items of
    a mapping, or a name bound only to a literal list or tuple of a few elements (`Ts = [100, 1000]`)."""
    if flow.iterates_mapping(loop):
        return True
    iterable = loop.iter if isinstance(loop, (ast.For, ast.AsyncFor)) else None
    if not isinstance(iterable, ast.Name):
        return False
    found = bound_values(context.model, iterable.id, context.scope(loop))
    return found is not None and bool(found[1]) and all(
        isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) <= _FEW_CASES for value in found[1]
    )


def _only_known_calls(loop: ast.AST, context) -> bool:
    for call in loop_body(loop, nested=True):
        if isinstance(call, ast.Call):
            qualified = context.qualified_name(call.func)
            if qualified is not None and not known_plain_call(qualified) and callee_scope(call, context.model) is None \
                    and not library_models.eager_operations(qualified):
                return False  # (a library's plain array function, optax's losses, is counted, not another library's work)
    return True


def model_free_helper(call: ast.Call, model) -> bool:
    """A call of a plain function of the module (not compiled): its array operations run here, eagerly."""
    return isinstance(call.func, (ast.Name, ast.Attribute)) and model.jit_binding_for_call(call) is None and callee_scope(call, model) is not None


def _calls_compiled(loop: ast.AST, context) -> bool:
    """Some call of the loop (at any depth) runs compiled code: a jitted callable or a helper around one,
    or a method that every class of the module defining it compiles, called on an object of a class
    nothing names (`trainer.call_model_pmap(x, t)`), or may: a step of unknown kind that another module
    of the project makes and that carries the loop's state (`opaque_state_step`)."""
    model = context.model
    return any(
        isinstance(n, ast.Call) and (runs_compiled(n, model) or model.may_call_compiled_method(n) or opaque_state_step(n, model))
        for n in loop_body(loop, nested=True)
    )


def _callee(call: ast.Call, context) -> str:
    text = context.text(call.func)
    return text if len(text) <= 60 else text[:57] + "..."


_NOT_ENTERED = frozenset({ast.For, ast.While, ast.AsyncFor, ast.ClassDef, *FUNCTION_NODES})


def _same_level(loop: ast.AST) -> Iterator[ast.AST]:
    stack = [*loop.body]
    while stack:
        node = stack.pop()
        yield node
        if node.__class__ in _NOT_ENTERED:
            continue
        stack.extend(child_nodes(node))  # (no context markers: only calls are looked at)


def _is_at_update(call: ast.Call) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute) and func.attr in _AT_METHODS
        and isinstance(func.value, ast.Subscript) and isinstance(func.value.value, ast.Attribute)
        and func.value.value.attr == "at"
    )


def _callee_at_updates(call: ast.Call, context) -> int:
    """How many `.at[]` updates a plain function or method of the module runs on every call (not under a
    condition; `return buf.at[i].set(x)`, `self.obs = self.obs.at[self.pos].set(o)`): outside `jit` each
    copies the whole array, on every call the loop makes, as the loop's own updates do. None for a call
    that runs compiled code, or a function that is decorated (other than `@staticmethod`) or loops itself
    (its loop is reported, or not, where it is)."""
    model = context.model
    if not isinstance(call.func, (ast.Name, ast.Attribute)) or model.jit_binding_for_call(call) is not None:
        return 0
    callee = callee_scope(call, model)
    if callee is None or not isinstance(callee.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not plain_decorators(callee.node):
        return 0
    if callee.in_traced or any(isinstance(n, (ast.For, ast.While)) and model.scope_for(n) is callee for n in walk(callee.node)):
        return 0
    return sum(1 for c in unconditional_calls(callee.node) if _is_at_update(c) and model.scope_for(c) is callee)


def _many_iterations(loop: ast.AST, context) -> bool:
    """A `while`, or a loop that counts (`range`, also through a progress bar, `trange(n)`, `tqdm(range(n))`,
    or `enumerate(range(n))`: training_loops.iterates_counter): the kind of loop that walks an array one
    `.at[]` update at a time. (A loop over a collection's items walks the items: a handful of segments, the
    episodes that just finished.)"""
    if isinstance(loop, ast.While):
        return True
    iterable = loop.iter
    return iterates_counter(iterable, context.model)


RULE = EagerOpsInLoop()
