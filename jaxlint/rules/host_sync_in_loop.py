"""## What it does
Flags, in a Python loop outside traced code that calls jitted code (directly, through a local
helper, through a plain function of another module of the project or a name bound to
`functools.partial` of one, or a plain method of a class of the project called through an instance
(`learner.step(state, batch)` with `learner = Learner(...)`, or built by a factory every return of
which builds one class, `learner = make_learner(cfg)`; where the name is bound more than once, the
binding that surely reaches the loop, `env = Wrapper(env)`; `self.trainer.step(...)`, also where
`__init__` binds `self.trainer = trainer` from a parameter that every construction of the class, in
this module and in the project's modules that import it, fills with an instance of one class (where
constructions pass different classes, or one passes something of unknown class, the object is
unknown: semantic/constructed_objects.py); in any module;
a name the module binds to functions more than once means the function whose binding reaches the
call in run order, top to bottom and a notebook's cells in their order: `g = partial(f, a=1)` then
`g = h` calls `h` below both, and a function's body sees the binding standing when the function runs,
semantic/cell_order.py),
read with the branches the call's literal arguments decide
(semantic/call_summaries.py: `run = partial(train_step, train=True)` whose body calls a jitted gradient
under `if train:`; `trainer.epoch(state, batches, one_step=True)` whose `if one_step: return ...` runs
one step, not the epoch loop after it; also a jitted function that function imports from a third module), through a parameter that every call of its function in the module fills with one compiled
callable, `fit(state, jax.jit(step), data)`, or through an object held in `self.obj` whose every
assignment builds one class with a compiled method; an eager `lax.scan`, `fori_loop` or `while_loop` compiles its body all the same) or runs a whole computation eagerly (a network's forward or an optimizer update, or a plain
function of the project that computes device arrays from its arguments: `forward(params, x)`;
dispatched asynchronously all the same), a per-iteration host sync of a device value produced in that loop: `float(loss)`,
`loss.item()`, `float(step(x))`, `np.asarray(x)` or any NumPy function of it (`np.sum(pred ==
label)`), a store of it into a NumPy array (`trace[i] = x` with `trace = np.zeros(...)`: NumPy
converts what it stores; each element of a tuple or list target, starred ones too, is a store of its
own: `loss[i], params = step(params, batch)`, `steps[i], losses[i] = i, loss`; `x.copy()` of a device
array is a device array), `jax.device_get(x)` (also through a local name a function binds once to
a library function, `fetch = jax.device_get`, as through an import; also of a Python container of
this iteration's device values, which copies every leaf: a display `jax.device_get((loss, acc))`, a
list the loop appends each step's results to, `jax.device_get(history)`), `str`/`format` of it, an
f-string, `%` or `.format` of it in any call, a value handed to a reporter that converts it
(`print`, `pprint.pp`, `logging`, `wandb.log({...})`, `writer.scalar`/`add_scalar`, tqdm's `set_description`/
`set_postfix`), `if loss < best:`, `if err < tol: break`, `not`/`and`/`or` over device values, and `any`/`all` over a generator or list of device
values made from this iteration's results (`if any(jnp.isnan(p).any() for p in
jax.tree.leaves(params)):`: one read per element).
Device values include the results of jitted calls (also of an attribute rebound to one, `net.apply =
jax.jit(net.apply)`, for the calls after it; judged at each read by the binding that reaches it in
the iteration: `metrics = {"step": i}` then `state, metrics = step(state, batch)` then `wandb.log(metrics)`
reads the device values), the items of a dict or list the function makes empty (or from numeric
starts) and fills only with device values (`totals["loss"] += loss`, `losses.append(loss)`), of a function transformed and called at once
(`jax.value_and_grad(f)(p, b)`, `jax.vmap(f)(xs)`: arrays, eager or compiled) or decorated by such a
transform (`@jax.value_and_grad def loss_and_grad(...)`, `@eqx.filter_value_and_grad`: called, it runs a
forward and backward pass op by op and returns arrays, also from another module of the project) and of helpers whose
every `return` is one (or, position by position, the positions of a helper's returned tuple where every
`return` gives one: `loss, aux, state = step(state)` where every `return` gives device values at
positions 0 and 1 and a host record at 2; a method of another module's class is read in its own module:
`loss = learner.update(batch)` whose body runs `self.params, self.opt_state, loss = step(...)` and
returns `loss`, the object carrying the state the loop does not), an
accumulator `total += loss` read in the loop, what a module function of one parameter returns when it maps
that tree leaf by leaf on the device (`unreplicate = lambda t: jax.tree.map(lambda x: x[0], t)`), objects an `nnx.jit` call mutates
(`metrics.compute()` after `train_step(model, metrics, batch)`), the values a loop nested in the
iteration takes from a view of this iteration's dict of device values (`for k, v in metrics.items():
writer.add_scalar(k, v)`, or its keys indexed back, `for k in metrics.keys(): print(metrics[k])`: that
walk runs every iteration however few keys it has, its reads are the iteration's; the walk binds its
names afresh on every pass, so where the loop reads them only inside it, what the scope binds to the
same names elsewhere, a later walk averaging the kept lists or a default before the loop, reaches
none of those reads), and what the library models say is
one (gymnax's `env.step`, a brax or jumanji state; envpool's NumPy results are not). A sync may be
inside a function of the project that reads its argument on the host on every call
(`history.append(to_host(metrics))` where `to_host` runs `float(v)` over it; a method of an object the
loop holds in a name or in `self.attr` built from one class, `self.stopper.update(loss)`; reading
includes a test that takes the truth of a comparison of the value, `if loss < self.best:` or `any(l
<= b for l, b in zip(losses, self.best))`, and `min`/`max` of it, also on the side of a first-call test
that every later call takes, `if self.best is None: ... elif loss < self.best:`; a tuple handed over,
`stop((acc, loss))`, is read part by part, and a `*args` parameter holds every argument from its place
on, `meter.add(loss, n)` with `def add(self, *values): [s + float(v) for s, v in zip(self.sums, values)]`
(an index, `values[1]`, reads only that argument; reading a device op of the argument,
`float(jnp.mean(values))`, reads the argument): semantic/effects.py; also a function handed to a call
that runs it where it stands, `jax.debug.callback(report, step, loss)` outside `jit` calling
`report(step, loss)`, whose body runs `loss.item()`, or a lambda whose parameters take the call's
arguments, `jax.debug.callback(lambda v: print(float(v)), loss)`: semantic/handed_callables.py), inside a function of
the module that reads, on every call, a device value it computed itself (`trainer.step(batch)` whose
body runs a jitted step and ends `return loss.item()`, or prints the loss; called by name, on `self`
or on an instance of a class of the module, any number of calls deep: the finding names the read
and its line; a function that times what it runs is a measurement and reads on purpose), or a comprehension that
asks each element of a device array for a host value (`[0.0 if d else 1.0 for d in done]`: one
blocking read per element). Indices drawn on the device (`jax.random.randint`, `permutation`,
`jnp.arange`) and then read on the host one number at a time, as slice bounds (`[data[i : i + n]
for i in ix]`), with `int(i)`, as the key of a host record (`dataset[i]["ids"]`), as the index of a
Python list or tuple (`[tasks[i] for i in perm]`: a list converts its index with `__index__`, one copy
and one wait per element, where a device array indexed the same way gathers on the device; the list
is one the source shows: a display, a comprehension, `list(...)`, a name bound only to one, or a
parameter every call of its function in the module fills with one), or as the index of
a NumPy array (`rays[tuple(ix), ...]`, `x_np[perm[i : i + b]]`), and a device scalar drawn in the
iteration used as a slice bound of any array (`ts[:, start : start + n]` with `start =
jax.random.randint(key, (), 0, m)`, arithmetic on it, a `jnp` result such as `x[: jnp.argmax(done)]`;
also where a branch rebinds the name to a number on some iterations; one finding per bound and
iteration, since slicing converts the bound with `operator.index`; a drawn table reshaped and walked
row by row, `perms = permutation(key, n)[:m].reshape(steps, size)` then `for step, perm in
enumerate(perms): x_np[perm]`, holds drawn rows), wait for the device on every
step, in the loop or in a function of the module that draws and reads them on every call, its
returned value included (reported at the read), or in the loop of a generator that yields on every
iteration (a batch loader: each iteration runs when its consumer asks for the next batch, between two
of the consumer's steps, and waits for what the consumer queued: training_loops.yields_every_iteration):
the host needs those numbers, so the fix is to draw them with NumPy, whatever uses the batch
(semantic/device_indices.py). A loop that reads on the host, on every iteration, one element of a
device array made before it (also beside the device work it dispatches, `t = int(times[i])` before a
sampling step: a read at the top of the iteration waits for the previous iteration's work as well;
taken with the loop's index, that index shifted, `values[t + 1]`, a position of a loop over host
positions, `for i in np.nonzero(mask)[0]`, or the counter a `while` loop raises, `step += 1`;
a comprehension is such a loop, `[float(probs[i, t]) for i, t in enumerate(tokens)]`) (`float(values[t])`, `if
coins[i] < p:`, `credit[t] = values[t] * g` into a NumPy array, `for v in values: total += float(v)`,
`f"{scores[i]}"`) pays a round trip per element: a whole array read twice is copied once (a JAX array
keeps its host copy), but each `values[t]` is a new slice dispatched and copied back; the fix is one
`np.asarray(values)` before the loop (device_indices.element_reads_per_iteration; one finding per
array); not in a loop that draws on every iteration (a panel per element, also through a plotting
helper of the module or of another project module: semantic/display_work.py), whose drawing costs
milliseconds beside the reads it titles. One finding per wait: once a read has waited for a computation, reads of its other results
and of results dispatched before it (`total, (v_loss, pi_loss) = update(...)`, then `np.asarray(total)`,
`np.asarray(v_loss)`, ...) wait for nothing more and are named in that finding's message.
A comprehension is a loop too (semantic/iteration.py): one that calls compiled code for each item
and reads each result on the host in its element (`[float(eval_step(p, b)) for b in loader]`,
`np.mean([np.argmax(predict(p, b)) ... for b in batches])`) waits for the device once per item,
wherever the comprehension sits (also under a periodic gate of an outer loop: the gate makes the
evaluation pass rare, not its per-batch reads). Not flagged there: a handful of items the source
spells out (at most 8), the entries of a mapping (`splits.items()`), results kept on the device.

Not flagged, as principles:
- a program that switches `jax_debug_nans` (or `jax_debug_infs`) on at its top level: JAX then
  checks every result on the host, so each computation has already waited for itself and a read
  adds no stall (benchmarks/callback_sync.py);
- a name the module never binds is unknown, except where a star import jaxlint cannot read (a module
  outside the project) is its only source: then the conventional aliases `jax`, `jnp`, `np`, `lax` and
  `optax` are those libraries, and no other name is guessed (semantic/imports.py);
- an element of an unpacking stored into a NumPy array where the callee's returns say its place holds
  a host value, or a display's host element (`steps[i], last = i, loss`);
- a container is as its contents: one that holds host values (a display of host numbers, a dict the
  loop fills with Python floats, a table drawn with NumPy) reads nothing from the device, and one of
  device values copied once after the loop reads once;
- the result of a method of an object whose class nothing shows: a parameter, a library object, a
  factory that may return objects of different classes, or a name bound to different classes where no
  one binding surely reaches the loop (in the two arms of an `if`, or rebound inside the loop);
- the sync does not run every iteration: it is gated by a condition that changes between
  iterations (`if step % 100 == 0:`, `if done:`; `if epoch % 1 == 0:` holds every time and is no
  gate, nor is a test that spaces out the training steps themselves, its side holding every carried
  update of the loop, `if len(buffer) > warmup and step % 4 == 0: loss = train_step(...)`: a read
  beside the step there runs once per step; nor is a branch on a host uniform draw, `if eps >
  random.random():`, on the side the draw exceeds the rate, which chance takes on most iterations
  (semantic/branch_shares.py); `if epoch % 1 == 0:` holds every time and is no
  gate, nor is an interval the source fixes at 1: `step % args.log_every` with `default=1`), sits in an `except` handler, a `raise` or an `assert` message, or under `if False:`, or
  reads only values the loop computes under such a gate (a JAX array keeps its host copy, so a
  progress bar that shows a loss recomputed every 100 steps waits only then). A
  condition that holds for the whole loop (`if args.track:`, `if verbose:`, `if
  jax.process_index() == 0:`, `if writer is not None:`) is no gate: the sync under it runs every
  iteration. So is an attribute of `self` the class sets only while the object is built (`if
  self.use_wandb:` with the flag stored in `__init__` and never changed by a method, whatever methods
  the loop calls), and a test of the loop's counter that never fails (`if step < MAX_LINES:` in `for
  step in range(20_000)`, with `MAX_LINES` fixed by the source above the count, an environment
  variable's default included: `int(os.environ.get("MAX_LINES", 100_000))`). A loop under a gate is still a loop: a per-batch evaluation under `if step % 100 ==
  0:` syncs per batch and is reported (one read per named split, `for name, data in
  splits.items()`, is a handful, and so is a count of batches the source fixes to 32 or fewer,
  `range(config.eval_steps)` with a field default of 16 on the class `config` is annotated with);
- the host needs the value anyway, every iteration: host code consumes it (`env.step(np.asarray(
  action))`, any call jaxlint does not know to be a reporter (a function of the module that only
  shows what it is handed, every read of that parameter going to `print`, a log line or a progress bar,
  is one: `show(jax.device_get(metrics), step)` is reported; so is a copy made in place and then only
  shown, `m = jax.device_get(m); show(m)`, and a copy bound to a name only shown, a dict display
  handed to a progress bar, `log = {"loss": float(loss)}; bar.set_postfix(log)`, or a host running
  total the scope only prints, `total += float(loss)`; while one kept in a list or handed to other code is needed;
  unless the value reaches it as text:
  `emit(f"{float(loss):.3f}")` hands over a string to show, and is reported; host arithmetic or a
  host copy around the read, `np.asarray(np.mean(loss))`, consumes nothing: what its result feeds
  decides; nor does the whole index of a device array, `frames[int(i)]` or `t = int(i)` then
  `frames[t + 1]`: a device array takes a device index as well (`lax.dynamic_index_in_dim`), so the
  read is a wait to drop, while a NumPy array's or a list's index and a slice bound need the number; nor is an accumulator, a method that adds what it is handed to an object kept across
  iterations and read only now and then, `stats.add(jax.device_get(metrics))` with
  `logger.write(stats.result())` under `if step % 100 == 0:` (semantic/accumulators.py): it keeps the
  copy for a later report, so the copy each step is reported), a tokenizer decoding token ids (also
  the last element of a list the loop appends this iteration's token to, `output.append(token)` then
  `tokenizer.decode([output[-1]])`: that element is the token; not where the append sits under a branch
  or comes after the read), a
  generator that `yield`s each step's value, a stopping test `if converged(float(g)): break`),
  boolean-mask indexing reads the mask (`x[scores > 0.5]` outside jit: the result's size depends
  on it), or the loop's purpose is to show each result (a short loop, 20 items or fewer as the source
  fixes them (a literal, a constant bound above it: semantic/loop_cost.py), carrying
  nothing between iterations, that prints or plots each prediction; or a demonstration of ten
  iterations or fewer the source spells out whose body mostly prints or plots, at least twice as
  many such calls as compiled calls and no training step, even when it carries a value from one
  iteration to the next, such as a buffer filled to show how it grows; or, in demonstration code
  (a notebook, a module under docs/, examples/, tutorials/: semantic/demo_code.py), a loop of 20
  iterations or fewer the source fixes, a parameter's default included, also through a progress
  bar (`tqdm(range(n))`, `trange(n)`), that prints or plots on every iteration (a test that holds
  every time, `i % print_freq == 0` with `print_freq = 1`, is no condition), a training step
  included: the page shows each step; or a rollout run once per program, no loop around it and no
  training step in it, that records every state it steps through into a list made before it and
  shows that list after the loop, `rollout.append(state.pipeline_state)` then `HTML(html.render(sys,
  rollout))` or a video written or shown: semantic/display_work.py, a read of the episode's flag to
  print where it ended included). Other reads of the same
  iteration's results then add no wait (the device runs compiled calls in order), and when such a
  read happens every iteration and the loop does no other host work (only compiled calls, array
  operations, builtins and list bookkeeping: a tree search's rollout), no read in it is reported.
  A value the host needs only under a condition (`kl = x.item()` then `if self.target_kl is not
  None: adapt(kl)`) is not needed every iteration: the sync is reported (read it under the
  condition);
- the loop is not a per-step loop: values computed before it (read whole; one element per iteration is
  a new slice each time, above, unless the loop is fixed to 20 iterations or fewer, hands the element to
  a call that is not a host conversion, `jnp.allclose(x[i], y)`, copies each item out with
  `np.asarray(images[i])` as its output, or, in demonstration code, only prints the elements); epoch loops (the step runs in an
  inner loop, also on the side of a first-lap test that runs on every other lap, `if epoch == 0:
  show the untrained model, else: for batch in loader: ...`, semantic/branch_shares.py, or a helper, also a function of another project module whose loop calls compiled
  steps, on the side of its branches the call takes: a fallback loop under `if rollout_fn is None:`
  does not run where the call hands a compiled rollout; or a function jaxlint cannot read whose name says it runs a pass over the data,
  `trainer.train_epoch(state, data)` of another package, not `train_epoch_step`; or the loop names an epoch and its jitted call loops on the device, also where it compiles the function a
  factory of the module returns, `jax.jit(make_train(config))`; a loop striding by a chunk it hands
  to a jitted call that loops on the device, `for i in range(0, n, k): state = run_chunk(state, i, k)`,
  runs k steps per iteration too; a loop that only counts (`range`, a progress bar over one: tqdm's,
  rich's `track`, through the binding that reaches the loop where a notebook binds the bar in two cells,
  or a function of another project module whose every return is one, a bar or a range by verbosity;
  `while`) and runs, every iteration, a compiled call that loops on the device (a rollout
  scanned over time and scanned epochs of minibatch updates in one jitted update of on-policy RL, also
  through Flax NNX's `nnx.scan`, `nnx.fori_loop`, `nnx.while_loop`, an iterative solve:
  `jax.scipy.sparse.linalg.gmres`; not a `fori_loop` of a few fixed steps, nor a solve inside an
  optimizer step, in a program that takes the gradient of a loss, `cg(fvp, grads, maxiter=20)` for a
  natural-gradient direction: the call is one step, training_loops.solve_inside_step, also where the
  gradient is taken through a name bound to `value_and_grad`; but a loss that is itself computed by an
  iterative solve or a time integration, the gradient taken through it, is heavy: each step runs the
  solve forward and its adjoint backwards, a GMRES Helmholtz solve, a wave simulation scanned over a
  range of time steps; the step's program is followed through names bound to transforms, jitted
  helpers, a function a notebook redefines (the definition standing above the step) and the functions
  of other project modules, read from their source, each definition of a name defined once per argument
  type: semantic/heavy_steps.py; not a scan over stacked layers, nor a few fixed steps, nor an implicit
  layer's `custom_root`; also a Python loop of optimizer steps inside the compiled function, unrolled
  into its program, `for i in range(steps): loss, state = train_step(xs[i], state)` with a count above
  a handful or one batch per iteration: a chunk of steps per call, semantic/heavy_steps.py; not
  gradient accumulation, whose update comes after the loop, nor a few adaptation steps), with no host
  work beside it but reporting, timer stamps, arithmetic and small dispatches (a batch reshaped, a key
  drawn from an `nnx.Rngs`: loop_cost.light_dispatch): a read waits once per many device steps and delays
  next to nothing (a loop over a data loader, one taking `next(batches)`, or one stepping a host object,
  stays a step loop); an inner loop of a few iterations the source fixes, 8 or fewer,
  `range(args.accumulation_steps)` with its default included, leaves each outer iteration a few
  steps: gradient accumulation, critic updates per generator update, and the outer loop's reads
  are reported; so is an inner loop whose count is fixed per call rather than by a data set's length:
  a compiled integrator step run a parameter's number of times, its counter unused and no data drawn,
  under an outer loop that names no epoch, is one proposal, and the outer loop's accept test reads
  per sample; micro-batches whose compiled gradients are summed, the update applied after the loop,
  are one step (also where the sum is a `range` loop nested in the step loop and the update after it
  rebinds the state its compiled calls are handed, whatever the count: each outer lap is one update, its
  values this lap's; a sum of losses that updates nothing is an epoch's total); semantic/training_loops.py, `one_step_loop`); code written to run while JAX traces (a function that enters
  `jax.ensure_compile_time_eval()`, which changes nothing outside a trace: its loops fold
  constants once per trace of the caller's jit, never per step); loops whose body always ends in `break` or `return`, or ends the first
  iteration so (a one-off check); loops over eight or fewer cases the source spells out (`for hand
  in [h1, h2, h3]`, `range(4)`) or over the first few items of a sequence (`for i in ranked[:5]`, also
  through a name bound once to such a slice); a loop whose body runs eight times or fewer in the
  whole program, as the source fixes the count (`for step in range(n_steps)` with `n_steps = 5` above
  it, `jnp.linspace(0, 1, 4)`; the counts of the loops around it multiplied, in code that runs once:
  a script's body, a notebook, an entry point; semantic/loop_cost.py): a smoke test's five steps
  read five times (a short inner loop of a long one, `for _ in range(policy_every)` in `for step in
  range(total_steps)`, or one in a function called per epoch, reads per outer step and is reported);
- the loop waits by design: it calls `block_until_ready` as a statement of its own or binding its
  result (`jax.block_until_ready(out)`, `out = f(x).block_until_ready()`), or with timer stamps of the
  same iteration around it (a latency measurement), while a wait whose result feeds a running total,
  `total += jax.block_until_ready(loss)`, with no stamp of the iteration measuring it, is a read like
  `float(loss)` and is reported, a timer around the whole loop included (it needs one wait after the
  loop: semantic/measured_waits.py); or it saves a value it computed
  to a file (`jnp.save(path, x)`) on every iteration, or restores a checkpoint from storage on every
  iteration and carries no training state (a flax or Orbax restore, `pickle.load`, a stored replay
  dataset loaded with flashbax's `Vault(...).read()`: the library models' `reads_storage`, also inside
  a function of the project: a loop over saved checkpoints or datasets, such as an evaluation of each
  time window's model or a table of each dataset's returns, waits for the disk anyway and its reads
  are its output), or runs a host library's work on every iteration (a SciPy sparse solve, a PETSc solve,
  a mesh file written: the library models' `host_work`, also inside a function of the project,
  semantic/host_library.py; the solve takes the step's values to the host and holds it for
  milliseconds at least, so a read of a small value beside it waits for nothing more); it sleeps every iteration (an animation) or
  is paced by a person (`input()` in its iteration, pygame, tkinter; an `input()` before the loop or in
  an outer loop's iteration paces that, not the many steps the loop runs between two answers); a read is the one statement between two timer
  stamps (a latency benchmark needs that wait); CLU's asynchronous metric writers
  (`create_default_writer` without `asynchronous=False`, `AsyncWriter`, `AsyncMultiWriter`) convert
  in a background thread;
- the copy is the output: evaluation or sampling loops that gather array outputs on the host
  (`outputs.append(np.asarray(logits))`, or `g = np.array(grads(p))` then `samples.append(g)`, also
  rebinding the name it copies, `feats = jax.device_get(unreplicate(feats))` then `all_feats.append(feats)`,
  `out[i:j] = predict(params, x[i:j])` into a NumPy array; in a loop that carries state through
  its compiled call, a training loop or a sampler's chain, it stays flagged; a value each iteration
  binds afresh before reading it, `block = jnp.asarray(scans[i:j])` then `block = clean(block)`,
  carries nothing between iterations, and neither does a PRNG key alone, threaded through a
  rollout's compiled call: `action, rng = act(params, obs, rng=rng)`; a plain helper that runs the
  compiled call carries the state as the call does: `z = advance(z)` where `advance` returns
  `step(z)` or calls a compiled callable its caller hands it);
- the test reads nothing from the device: a compiled call keeps its result's pytree structure, so the
  truth of a dict or list of device arrays it returns (`if metrics:` after `state, metrics =
  step(state, batch)` where `step` returns `state, {"loss": loss}`) is the container's length, known
  on the host;
- test code (a `test_*` function or one spelled `TestSampler`, a `Test*` class, or a test module: `*_test.py`, `conftest.py`,
  test helpers, or a `test_*.py` written as a test): a test reads values on purpose.

A loop that stops on its device results (`if err < tol: break`, `while err > tol:`, an episode's
`done`) waits for them at that test on every iteration. Early stopping on a patience counter is no
such test: a host counter the loop only resets or steps by a constant (`wait = 0`, `wait += 1`) under
a comparison of a device result with the best so far, and a stop that reads only that counter (`if
wait > patience: break`), with no host call deciding on the results every iteration, stops some
steps after the last improvement whichever step it is; the comparison can run every N steps (at most
N steps later), so its read is reported like any per-step read, with that advice. Where the whole loop can run on the device (a `while`, or a `for` over a `range`, whose
every call dispatches device work, a JAX environment's `env.step` included: gymnax, brax and jumanji
step on the device, semantic/training_loops.library_device_work; so does a function under a JAX transform,
applied on the spot or through a name bound to one, here or at the top level of another module of the
project, `vstep = jax.vmap(step)` reached by a star import: its body runs traced, with no host work,
training_loops.through_transform; a call that only computes with or holds device values is device work
too: semantic/held_values.py), the test is its one finding, with the advice to move the loop
into a jitted `lax.while_loop` (the fix writes it where it can), and the loop's other reads are not
reported (they add no wait), except reads of values the iteration computes again after an `if ...:
break` test (`if norm < tol: break`, then `power = jnp.sum(f * v)`, then `if power > 0:`): the device
runs that work after the test's wait, so the read waits a second time in the iteration. A loop that
grows a list it keeps (`dead.append(info)` into a list made before it: samples, a trajectory) cannot
become one `lax.while_loop` (it would need a buffer of a bound the code does not state), but its
stopping test still waits on every step and need not: it is reported with the advice to test every
N steps, a chunk of steps between tests (it stops at most N steps later); not where the list keeps
host numbers read from each step (`tokens.append(int(pred.item()))`: the host needs each one), nor a
rollout recorded for display (below). Where the loop iterates host data (`for batch in loader`) or runs code
the analysis does not know to be device work, no `lax.while_loop` holds it: the host decides every
step whether to go on, the read is the algorithm, and nothing in the loop is reported. When host code also decides on those values (a convergence helper handed `float(g)`, a host
environment handed the action (envpool, a gym environment; not a JAX one), a stopping test on a counter the host keeps, other than a patience counter (above);
not a call that only computes with or holds them: a plain function whose result is a device array,
`loss_new = loss_fn(theta, x, y)`, a record or container built from them, `State(params, opt)`, a
list's `append`: semantic/held_values.py), the loop needs the
host by design and is not reported at all, except for a round trip (below). Code under `if False:`
is switched off and not reported.

A guard against a failed step is not a stopping test: `if jnp.isnan(loss): break` (or `return`, or
`not all(isfinite(...))`; semantic/guards.py) never fires in a run that goes well, so the loop's
length does not depend on it and the host did not need the value before the guard existed. It is a
wait on every step, reported like any other read (check it every N steps, or on the device); reads
after it in the same iteration wait for nothing more and are named in its finding. A guard in a loop
whose steps run on the host (no compiled call) costs nothing.

A device array the loop only built from host data (`dones = jnp.logical_or(dones, done)` over an
environment's flags, a helper wrapping them in `jnp.array`) is reported with its own message: reading
it back waits for no computation, but every iteration pays a round trip to the device and back, and
the fix is to keep it on the host (no `lax.while_loop` rewrite is offered). A helper that runs no
compiled code of its own but is handed a compiled step's result (`state, reward, done =
env_step(state, act(params, state))` with `env_step` written in `jnp`) computes on the device from it:
what it returns is device work, no host data, and a stop on it is a wait like any other.

## Why is this bad?
JAX dispatches work asynchronously: a jitted call returns at once and the Python loop races ahead,
queueing the next steps while the accelerator computes. Reading a value on the host blocks until the
device has finished everything queued, every iteration, so the accelerator idles while Python runs.
See "Asynchronous dispatch" (https://docs.jax.dev/en/latest/async_dispatch.html) and "Avoiding
Host-Device Transfers" in the JAX GPU performance tips.

## Example
```python
total = 0.0
for batch in batches:
    state, loss = train_step(state, batch)
    total += float(loss)
```

## Use instead
```python
total = jnp.zeros(())
for batch in batches:
    state, loss = train_step(state, batch)
    total = total + loss
total = float(total)
```
For `x = step(x)` loops that stop on a device condition, move the loop into a jitted
`lax.while_loop` over `(x, i)` with the same iteration cap.

## Fix safety
Accumulating on device and converting once after the loop is unsafe: the accumulator becomes an
array (float32 where the Python float was float64), and code in the loop that read the running
Python total would see an array. The fix never sums in the value's own dtype: each term enters as
`jnp.asarray(loss, float)`, JAX's default float (float32, or float64 under x64), as the original's
Python floats did, so a bfloat16 or float16 loss does not drift in a bfloat16 running sum. A
`.item()` total is accumulated only when it starts as a float literal (`total = 0.0`): from an int
start, `.item()` keeps the value's kind (a count stays an int) and no fix is offered. Moving a break loop into `lax.while_loop` is unsafe: the loop body
must be traceable and the step function runs inside another jit. The loop is hoisted into a
module-level jitted function taking the carried values and the values the loop reads as arguments,
so it compiles once for all calls with the same shapes; a loop that reads objects (called, or asked
for attributes arrays lack) gets no fix.

## How the runtime mode confirms it
On a GPU, `jax.transfer_guard_device_to_host("disallow")` raises at the sync inside the loop; on any
device it times an iteration of the original against the fixed version (H100: about 54x for a
break loop, 4x for `float(loss)` accumulation).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from jaxlint.fixes import host_sync as host_sync_fix
from jaxlint.semantic.timed_work import checks_every_result
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import (
    carried_state, demo_code, device_indices, display_work, effects, flow, guards, held_values, helper_syncs, host_library, iteration, jaxapi, key_values, loop_cost,
    measured_waits, storage_reads, trace_time,
)
from jaxlint.semantic.accumulators import keeps_for_later
from jaxlint.semantic.arrays import instance_attribute_values
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.jaxapi import CLOCKS as TIMERS  # (the time module's clocks; not datetime's dates)
from jaxlint.semantic.host_code import callee_scope
from jaxlint.semantic.flow import iterates_few_literal_cases, runs_at_most_once, statement_list, target_elements
from jaxlint.semantic.model import is_within, parent_of
from jaxlint.semantic.branch_shares import on_common_side, paces_the_steps, side_after_first_lap
from jaxlint.semantic.training_loops import compiled_call_loops_on_device, iterates_counter, LoopValues, assigned_in_loop, holds_every_iteration, iteration_count, helper_returns_device, helper_runs_training_loop, library_device_work, runs_compiled, through_transform, loop_body, loop_varying, micro_step_loops, runs_epoch_on_device, unknown_epoch_pass, one_step_loop, yields_every_iteration
from jaxlint.semantic.syntax import child_nodes, walk  # ast.iter_child_nodes and ast.walk minus ctx markers, faster

_EXPLICIT_SYNCS = {
    "builtins.float": "float", "builtins.int": "int", "builtins.bool": "bool", "builtins.str": "str",
    "builtins.repr": "repr", "builtins.format": "format", "numpy.asarray": "np.asarray", "numpy.array": "np.array",
    "jax.device_get": "jax.device_get",
}
_LOGGING_PREFIXES = ("logging.", "absl.logging.")
# Reporting calls that convert the device values handed to them (print, log, summary writers, progress bars).
_REPORTING_QUALIFIED = ("wandb.log", "mlflow.log_metric", "mlflow.log_metrics", "tensorflow.summary.", "pprint.pp", "pprint.pprint")
_REPORTING_METHODS = frozenset({
    "scalar", "scalars", "add_scalar", "add_scalars", "histogram", "add_histogram", "write_scalars",
    "write_summaries", "log_metric", "log_metrics", "set_description", "set_description_str", "set_postfix",
    "set_postfix_str", "info", "debug", "warning", "error", "log",
})


class HostSyncInLoop(Rule):
    code = "JAX201"
    name = "host-sync-in-loop"
    summary = "Per-iteration device-to-host sync in a loop that calls jitted code"
    skips_test_code = True
    node_types = (ast.For, ast.While, ast.AsyncFor, *iteration.COMPREHENSIONS)
    fix_availability = "sometimes"
    # A loop that calls compiled code calls a jitted callable (directly or through local helpers):
    # every spelling of one says `jit` or `pmap`, or it comes from the project or a configured decorator.
    # A loop that runs a whole computation eagerly differentiates (`grad`), maps or scans it. A
    # generator's loop runs between two steps of its consumer, wherever that consumer is (`yield`).
    required_text = ("jit", "pmap", "grad", "vmap", "lax.", "yield")
    fires_through_project_imports = True

    def check(self, node: ast.AST, context) -> None:
        if isinstance(node, iteration.COMPREHENSIONS):
            self._check_comprehension(node, context)
            return
        scope = context.scope(node)
        model = context.model
        if scope.in_traced and not model.runs_concretely(scope):
            return  # under jit the loop is unrolled at trace time; under autodiff alone it runs eagerly
        if trace_time.written_for_tracing(scope, model, context.source.text):
            return  # it folds constants under `ensure_compile_time_eval`: runs once per trace of the caller's jit
        if carried_state.in_test_code(node, str(context.source.filename), model) or carried_state.paced_by_person(node, model) or carried_state.paced_loop(node, model):
            return  # a test's loop checks values on purpose; a person paces an interactive loop
        if _waits_each_iteration(node, context) or runs_at_most_once(node) or iterates_few_literal_cases(node, scope) or _few_sliced_items(node, context):
            return
        if _few_reads_per_program(node, scope, model):
            return  # a handful of iterations in all (`range(n)` with `n = 5` above it, in code that runs once)
        if checks_every_result(model):
            return  # with jax_debug_nans on, every computation already waits for its result: a read adds no stall
        values = LoopValues(node, scope, model)
        compiled = values.calls_compiled_code() or _reads_own_compiled_result(values, context)
        if compiled is None:
            _report_element_reads(node, context)
            if yields_every_iteration(node):
                self._report_streamed_draws(node, values, context)
            return
        if _has_inner_training_loop(node, context):
            return
        if _loop_gated_by_outer_loop(node, context) and flow.iterates_mapping(node):
            return  # every N steps, one read per named split (`for name, data in eval_sets.items()`): a handful
        if _gated_handful(node, context):
            return  # every N steps, a count of evaluation batches the source fixes to a handful
        if _short_report_loop(node, values, context):
            return  # prints or plots each of a few predictions: the host needs each value, a handful of times
        if _recorded_rollout(node, context):
            return  # a rollout run once that records every state to show it after the loop
        step_name = _callee_text(compiled, context)
        stops, derivation = _stopping_tests(node, values, context)
        tested = values.truth_test_syncs(node.test) if isinstance(node, ast.While) else None
        if tested is not None and _adaptive_while(node, context):
            return  # each iteration compiles for a host value it grows: the host must see the test
        assigned = assigned_in_loop(node)
        found: list[tuple[ast.AST, str]] = []
        drawn_findings: set[int] = set()  # reads of index arrays drawn on the device: their own advice
        needed_on_host: set[str] = set()
        for child in [*values.body, *values.walked_views_body()]:
            if _decodes_on_host(child) and not _under_condition(child, node):
                needed_on_host |= {name for a in child.args for name in _values_read(a, values, context)}
            if isinstance(child, (ast.Yield, ast.YieldFrom)) and child.value is not None and not _under_condition(child, node):
                # A generator hands each step's value to its consumer (a streaming sampler): it waits for it.
                needed_on_host |= _values_read(child.value, values, context)
            mask = _boolean_mask(child, values)
            if mask is not None and not _under_condition(child, node):
                # `x[mask]` outside jit: the result's size depends on the mask, so the host reads it
                # (and waits for what produced it) every iteration anyway.
                needed_on_host |= _computed_from(_values_read(mask, values, context), values, context)
            converted = _converted_in_place(child, context)
            if converted is not None and not _under_condition(child, node) and not _only_shown_after(converted, node, child, context):
                needed_on_host.add(converted)  # (a copy that what follows only shows is no need: `m = jax.device_get(m); show(m)`)
            if isinstance(child, ast.While) and child is not node and values.truth_test_syncs(child.test) is not None and _adaptive_while(child, context):
                # An adaptive inner loop needs its test on the host (above): the outer iteration waits
                # there anyway, and reads of those values after it add no wait.
                if not _under_condition(child, node):
                    needed_on_host |= _values_read(child.test, values, context)
                continue
            description = self._sync(child, context, values)
            if description is None:
                continue
            if _gated(child, node, context, values, assigned) or _reads_only_gated_values(child, node, context, values, assigned):
                continue
            if _in_raise(child):
                continue  # formatted only when the program aborts
            if _rebuilds_on_host(child, node, context):
                continue  # `if not ok: table = rebuild_on_cpu(x)`: host code repairs what the next step uses
            if _inside_host_rebuild(child, node, context, values):
                continue  # runs only when the device said to repair (`print(...)` beside the rebuild)
            drawn_indices = _reads_indices_drawn_on_device(child, values, context)
            if not _is_formatting(child) and not _iterates_array_built_here(child, context) and not drawn_indices and not _internal_helper_sync(child, node, context) and _needed_by_host_consumer(child, node, context):
                # (a string made from a device value is never what a host consumer needs, nor are
                # host numbers that had no reason to be made on the device: `for s in jnp.arange(...)`)
                if not _under_condition(child, node):
                    needed_on_host |= _values_read(child, values, context)
                continue
            if _collected_on_host(child, node, context) and not _carries_training_state(node, context):
                continue
            if _in_assert_message(child):
                continue  # formatted only when the assertion fails
            if _inside_timed_interval(child, context):
                continue  # `start = time.time(); print(f(x)); t[i] = time.time() - start`: the read makes the timing true
            if _iterates_array_built_here(child, context):
                child = next(g.iter for g in child.generators if _array_built_here(g.iter, context))  # where the fix goes
            elif drawn_indices:
                drawn_findings.add(id(child))
            found.append((child, description))
        # An element of a device array made before the loop, read with the loop's index (`t =
        # int(times[i])`): each read is a slice dispatched and one number waited for, whatever else the
        # loop dispatches; a read at the top of the iteration waits for the previous iteration's work.
        element_findings = _element_reads_beside_device_work(node, context, found, step_name)
        found.extend(element_findings)
        element_ids = {id(child) for child, _ in element_findings}
        if (found or stops or tested is not None) and _restores_each_iteration(node, context):
            return  # each iteration loads a saved checkpoint from storage: a loop over checkpoints, waiting on the disk anyway
        if (found or stops or tested is not None) and _heavy_iterations(node, values, context):
            return  # each iteration is a compiled call that loops on the device; the host has next to nothing to overlap
        if stops and not needed_on_host and _patience_stops(stops, derivation, values, context):
            # Early stopping on a patience counter: the host need not see every step's value (checking
            # every N steps stops at most N steps later), so the loop's reads are per-step reads.
            stops, patience = [], True
        else:
            patience = False
        if stops and (needed_on_host or _host_driven(stops, derivation, values, context)):
            # The loop stops on what the device computed (early stopping, a convergence test, an
            # episode's `done`) and feeds it to host code: it reads it on the host every iteration by
            # design, so other reads of the step's results add no wait, and the loop cannot move to
            # the device. Only a stopping test that round-trips host data through `jnp` is reported.
            for stop in stops:
                stop_value = values.truth_test_syncs(stop.test)
                if stop_value is not None and values.built_from_host_data(stop_value) and not _gated(stop, node, context, values, assigned):
                    keyword = "while" if isinstance(stop, ast.While) else "if"
                    context.report(stop.test if isinstance(stop, ast.While) else stop, _round_trip_message(f"`{keyword} {snippet(context.text(stop.test))}`"))
            return
        if (stops or tested is not None) and _device_loop_keeping_list(node, values, context):
            # The loop only dispatches device work, but keeps a list it grows (a trajectory, the dead
            # points of a nested sampler): no one `lax.while_loop` holds it, yet its stopping test is
            # still a wait per step; testing every N steps (a chunk of steps between tests) removes it.
            for stop in stops or [node]:
                test = stop.test
                if _gated(stop, node, context, values, assigned) or values.truth_test_syncs(test) is None and not _reads_derived(test, derivation[0], values):
                    continue
                keyword = "while" if isinstance(stop, ast.While) else "if"
                context.report(
                    test if isinstance(stop, ast.While) else stop,
                    f"`{keyword} {snippet(context.text(test))}` on a device value waits for the device on every iteration "
                    f"of this loop (it calls `{step_name}`); the loop keeps a list it grows, so it cannot move into one "
                    f"`lax.while_loop`, but the test need not see every step: run a chunk of N steps between tests "
                    f"(a jitted `lax.scan` or `fori_loop`, or test every N iterations; it stops at most N steps later)",
                )
            return
        if (stops or tested is not None) and not _runs_as_device_iteration(node, values, context):
            # The loop stops on its device results but iterates host data or runs host code each
            # iteration: it cannot move into a `lax.while_loop`, so the host must see the test every
            # step; that read is the algorithm (the loop's other reads add no wait). Only a stopping
            # test that round-trips host data through `jnp` is reported.
            for stop in stops or [node]:
                stop_value = values.truth_test_syncs(stop.test)
                if stop_value is not None and values.built_from_host_data(stop_value) and not _gated(stop, node, context, values, assigned):
                    keyword = "while" if isinstance(stop, ast.While) else "if"
                    context.report(stop.test if isinstance(stop, ast.While) else stop, _round_trip_message(f"`{keyword} {snippet(context.text(stop.test))}`"))
            return
        if tested is not None:
            if values.built_from_host_data(tested):
                context.report(node.test, _round_trip_message(f"`while {snippet(context.text(node.test))}`"))
                return
            context.report(
                node.test,
                f"`while {snippet(context.text(node.test))}` on a device value waits for the device on every iteration "
                f"(the loop calls `{step_name}`); move the loop into a jitted `lax.while_loop`",
                fix=host_sync_fix.fix_for(node, node, context),
            )
            return
        if (found or stops or tested is not None) and _calls_project_run(values, context):
            return  # an iteration is a whole run of device steps in another module: an epoch loop
        if found and needed_on_host and not stops and _only_dispatch_besides_reads(values, context):
            # Host code needs a device result every iteration (`p = np.array(softmax(logits))` for
            # `np.random.choice`), and the loop does no other host work: that read waits for all the
            # device work queued before it, so another read in between adds no wait to overlap.
            return
        stopping_statements = {id(stop) for stop in stops}
        if stops:
            # A loop that stops on its device results waits for them at the stopping test anyway: that
            # test is the one finding (a `lax.while_loop` removes it); other reads add no wait.
            stopping = stopping_statements
            found = [
                (child, description) for child, description in found
                if id(_statement_of(child)) in stopping or _recomputed_after_stop(child, stops, values)
            ]
        needed_on_host = _derived_in_loop(needed_on_host, node, values, context) if needed_on_host else needed_on_host
        reported_statements: set[int] = set()
        synced: set[str] = set()
        # One finding per wait: once a read has waited for a computation, reads of its other results (and
        # of results dispatched before it) wait for nothing more; they are named in that finding's message.
        waits: list[tuple[ast.AST, set[str], list[int]]] = []  # (the read reported, names ready, lines folded in)
        for child, description in sorted(found, key=lambda item: (item[0].lineno, item[0].col_offset)):
            statement = _statement_of(child)
            if id(statement) in reported_statements:
                continue  # one finding per statement: `print(f"{a} {float(b)}")` is one sync to fix
            read = {n.id for n in walk(child) if isinstance(n, ast.Name) and values.is_fresh(n)}
            if read and read <= synced and not (stops and _recomputed_after_stop(child, stops, values)):
                for _, ready, folded in waits:
                    if read <= ready and child.lineno not in folded:
                        folded.append(child.lineno)
                        break
                continue  # already waited for earlier in this iteration: a JAX array keeps its host copy
            if read & needed_on_host:
                continue  # a host consumer needs that value every iteration anyway (`tokenizer.decode(token)`)
            if read and not _under_condition(child, node):
                # (a copy made under an `if` may not exist when a later line reads the value)
                ready = _derived_in_loop(_unpacked_from(read, node), node, values, context)
                synced |= ready
                waits.append((child, ready, []))
            reported_statements.add(id(statement))
            helper_read = _helper_reading_drawn_indices(child, context) if id(child) in drawn_findings and isinstance(child, ast.Call) else None
            if helper_read is not None:
                # The read is in the function the loop calls: reported where it is (the fix goes there),
                # once however many loops call the function.
                read, array = helper_read
                if not context.reported_at(read):
                    helper = callee_scope(child, context.model)
                    context.report(
                        read,
                        f"reading each element of `{snippet(context.text(array))}`, drawn on the device, as a host number, waits for the device "
                        f"once per element on every call of `{helper.name}`, which runs on every iteration of the loop at "
                        f"line {node.lineno} (it calls `{step_name}`); the host needs these numbers: draw them on the host "
                        f"with NumPy (`np.random.default_rng(seed).integers(...)`) or index on the device",
                    )
                continue
            if id(child) in element_ids:
                context.report(child, description)
                continue
            if id(child) in drawn_findings:
                context.report(
                    child,
                    f"{description} waits for the device on every iteration of this loop (it calls `{step_name}`); "
                    f"the host needs these numbers: draw them on the host with NumPy "
                    f"(`np.random.default_rng(seed).integers(...)`) or index on the device",
                )
                continue
            if _array_built_here(child, context) or values.built_from_host_data(_synced_part(child, values)):
                context.report(child, _round_trip_message(description))
                continue
            advice = (
                "the loop stops on it and can run on the device: move it into a jitted `lax.while_loop`"
                if id(statement) in stopping_statements else
                "a second wait in the iteration, for work dispatched after the stopping test: decide on the device "
                "(`jnp.where`, `lax.cond`) and move the loop into a jitted `lax.while_loop`"
                if stops and _recomputed_after_stop(child, stops, values) else
                "early stopping need not see every step: test the patience counter every N steps (it stops at most N steps later) or count on the device"
                if patience and isinstance(statement, (ast.If, ast.While)) else
                "it only indexes a device array: keep the index on the device (`x[i]`, `lax.dynamic_index_in_dim`)"
                if _only_indexes_device_arrays(child, node, context) else
                "keep values on the device and read them after the loop or every N steps"
            )
            context.report(
                child,
                f"{description} waits for the device on every iteration of this loop (it calls `{step_name}`); {advice}",
                fix=host_sync_fix.fix_for(child, node, context),
            )
        _name_folded_reads(waits, context)

    def _check_comprehension(self, node: ast.AST, context) -> None:
        """A comprehension is a loop (semantic/iteration.py): one that calls compiled code for each item
        and reads the result on the host in its element waits for the device once per item."""
        scope = context.scope(node)
        model = context.model
        if scope.in_traced and not model.runs_concretely(scope):
            return
        if trace_time.written_for_tracing(scope, model, context.source.text):
            return
        if carried_state.in_test_code(node, str(context.source.filename), model) or carried_state.interactive_module(model):
            return
        if any(_mapping_view(generator.iter) for generator in node.generators):
            return  # the named entries of a mapping (`splits.items()`): a few settings, not a data stream
        values = LoopValues(node, scope, model)
        compiled = values.calls_compiled_code()
        if checks_every_result(model):
            return
        count = loop_cost.loop_iterations(node, scope, model)
        if compiled is None:
            if count is None or count > _SHORT_LOOP:
                self._report_comprehension_element_reads(node, context)
            return
        if count is not None and count <= flow.FEW_ITERATIONS:
            return  # a handful of items the source spells out: a few reads, not a hot loop
        for child in sorted(values.body, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))):
            if isinstance(child, iteration.COMPREHENSIONS):
                continue  # (its own element reads are judged where they are, as that comprehension's loop)
            description = self._sync(child, context, values)
            if description is None:
                continue
            if context.reported_at(child):
                return  # the loop around the comprehension already reports this read
            context.report(
                child,
                f"{description} waits for the device once per item of this comprehension (it calls "
                f"`{_callee_text(compiled, context)}` for each); keep the results on the device and read them once after it",
            )
            return

    def _report_comprehension_element_reads(self, node: ast.AST, context) -> None:
        """A comprehension that reads on the host one element of a device array made before it per item,
        taken with its own index (device_indices.comprehension_element_reads): one round trip per item.
        In demonstration code, one that only formats the elements shows them on purpose."""
        reads = device_indices.comprehension_element_reads(node, context.scope(node), context.model)
        if not reads or all(read.show for read in reads) and demo_code.is_demonstration_module(str(context.source.filename)):
            return
        read, array, _ = reads[0]
        name = snippet(context.text(array))
        if context.reported_at(read):
            return  # the loop around the comprehension already reports this read
        context.report(
            read,
            f"`{snippet(context.text(read))}` reads one element of `{name}`, a device array, on the host for every item of "
            f"this comprehension: each is a round trip to the device (a slice dispatched, then one number copied back); "
            f"copy the array to the host once before it (`np.asarray({name})`) and index that",
        )

    def _report_streamed_draws(self, loop: ast.AST, values: LoopValues, context) -> None:
        """A generator's loop that yields every iteration (a batch loader) and reads indices it draws on
        the device as host numbers (slice bounds, `int(i)`, the index of a Python list or a NumPy array):
        it runs once per batch its consumer takes, and each read waits for the draw and for the steps the
        consumer queued before asking (training_loops.yields_every_iteration). One finding per statement."""
        assigned = assigned_in_loop(loop)
        reported: set[int] = set()
        for child in sorted(values.body, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))):
            if not _reads_indices_drawn_on_device(child, values, context) or _under_condition(child, loop):
                continue
            statement = _statement_of(child)
            if id(statement) in reported or _gated(child, loop, context, values, assigned):
                continue
            description = self._sync(child, context, values)
            if description is None:
                continue
            reported.add(id(statement))
            context.report(
                child,
                f"{description} on every item this generator yields: each read waits for the device, and for the "
                f"steps its consumer queued before asking for the item; the host needs these numbers: draw them on "
                f"the host with NumPy (`np.random.default_rng(seed).integers(...)`) or index on the device",
            )

    def _sync(self, node: ast.AST, context, values: LoopValues) -> str | None:
        fresh = values.is_fresh
        if isinstance(node, ast.Call):
            qualified = context.qualified_name(node.func)
            if qualified in _EXPLICIT_SYNCS and len(node.args) >= 1 and fresh(node.args[0]):
                if qualified != "builtins.format" and len(node.args) != 1:
                    return None
                return f"`{_EXPLICIT_SYNCS[qualified]}({snippet(context.text(node.args[0]))})`"
            if qualified in _BULK_COPIES and len(node.args) == 1 and not node.keywords and values.holds_fresh(node.args[0]):
                return f"`{_EXPLICIT_SYNCS[qualified]}({snippet(context.text(node.args[0]))})` (a container of device values: every leaf is read)"
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("item", "tolist") and not node.args and fresh(node.func.value):
                return f"`{snippet(context.text(node))}`"
            if measured_waits.is_wait(node, context.qualified_name) and fresh(measured_waits.waited_value(node)) and not measured_waits.on_purpose(node, values.loop, context.qualified_name, TIMERS):
                # `total += jax.block_until_ready(loss)`: a value fetch that no stamp of the iteration measures
                return f"`{snippet(context.text(node))}` (a wait no timer of the iteration measures)"
            if _numpy_function(qualified):
                # Any NumPy function computes on the host: it copies a device argument there first
                # (`np.sum(pred == label)`, `np.mean(losses)`), waiting for whatever produced it.
                value = _first_fresh([*node.args, *(k.value for k in node.keywords)], fresh)
                if value is not None:
                    return f"`{snippet(context.text(node))}` (NumPy copies `{snippet(context.text(value))}` to the host)"
            if isinstance(node.func, ast.Attribute) and node.func.attr == "format" and isinstance(node.func.value, ast.Constant):
                value = _first_fresh(node.args + [k.value for k in node.keywords], fresh)
                if value is not None:
                    return f"formatting device value `{snippet(context.text(value))}`"
            if _is_reporting_call(node, context) and not _writes_in_background(node, context):
                value = _first_fresh(_reported_values(node), fresh)
                if value is not None:
                    return f"reporting device value `{snippet(context.text(value))}`"
            # A function of the project that reads its argument on the host on every call (`to_host(metrics)`
            # whose body runs `float(v)` over it): the sync is in the helper (semantic/effects.py).
            # (a tuple or list display handed over is read part by part: `stop((acc, loss))`)
            synced = effects.synced_arguments(context.model, node, values.scope) if any(fresh(a) or isinstance(a, (ast.Tuple, ast.List)) for a in node.args) else []
            value = _first_fresh([part for a in synced for part in (a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])], fresh)
            if value is not None:
                return f"`{snippet(context.text(node))}` (which reads `{snippet(context.text(value))}` on the host)"
            # A function of the module that reads, on every call, a device value it computed itself
            # (`trainer.step(batch)` whose body ends `return loss.item()`): semantic/helper_syncs.py.
            drawn = _helper_reading_drawn_indices(node, context)
            if drawn is not None:
                return f"`{snippet(context.text(node))}` (which draws indices on the device and reads each one on the host)"
            inner = helper_syncs.call_sync(node, context.model)
            if inner is not None:
                where = f"{Path(inner.path).name}:{inner.line}" if inner.path else f"line {inner.line}"
                return f"`{snippet(context.text(node))}` (which reads a device value on the host on every call: `{inner.text}` at {where})"
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            # `[0.0 if d else 1.0 for d in done]` over a device array: one blocking read per element.
            # A device array made on the spot and iterated (`for start in jnp.arange(0, n, size)`)
            # is read the same way when its elements serve as host numbers (slice bounds).
            value = _elementwise_host_read(node, lambda n: fresh(n) or _array_built_here(n, context) or _drawn_in_iteration(n, values, context),
                                           _host_sequence_of(values, context))
            if value is not None:
                if _drawn_in_iteration(value, values, context):
                    return f"reading each element of `{snippet(context.text(value))}`, drawn on the device, as a host number (one wait per element)"
                if not fresh(value):
                    return f"iterating `{snippet(context.text(value))}` element by element"
                container = parent_of(value)
                if isinstance(container, ast.Attribute) and container.attr in ("items", "values"):
                    return f"reading each value of `{snippet(context.text(value))}` (device arrays) on the host"
                return f"reading each element of device value `{snippet(context.text(value))}` on the host"
        elif isinstance(node, ast.Subscript):
            index = _drawn_index_of_host_array(node, values, context)
            if index is not None:
                return (f"indexing NumPy array `{snippet(context.text(node.value))}` with `{snippet(context.text(index))}`, drawn on "
                        f"the device (NumPy copies the index to the host)")
            bound = device_indices.device_slice_bound(node, values.scope, context.model, lambda part: _made_in_iteration(part, values))
            if bound is not None and _first_slice_at(node, bound, values, context):
                return (f"slicing `{snippet(context.text(node.value))}` at `{snippet(context.text(bound))}`, a device scalar (each slice "
                        f"bound is read on the host, waiting for the draw and the work queued before it)")
        elif isinstance(node, ast.JoinedStr):
            value = _first_fresh([v.value for v in node.values if isinstance(v, ast.FormattedValue)], fresh)
            if value is not None:
                return f"formatting device value `{snippet(context.text(value))}`"
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, (ast.Constant, ast.JoinedStr)):
            operands = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            value = _first_fresh(operands, fresh)
            if value is not None:
                return f"formatting device value `{snippet(context.text(value))}`"
        elif isinstance(node, ast.Assign):
            # `trace[i] = position` into a NumPy array: NumPy converts the stored value on the host; so
            # does each element of an unpacking (`loss[i], params = step(params, batch)`).
            store = _device_store(node, values, context)
            if store is not None:
                buffer, stored, place = store
                what = f"device value `{snippet(context.text(stored))}`" if place is None else f"an element of device value `{snippet(context.text(stored))}`"
                return f"storing {what} into NumPy array `{snippet(context.text(buffer.value))}` (NumPy copies it to the host)"
        elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            value = values.truth_test_syncs(node.test)
            if value is not None:
                keyword = {ast.If: "if", ast.While: "while", ast.IfExp: "if", ast.Assert: "assert"}[type(node)]
                return f"`{keyword} {snippet(context.text(node.test))}` on a device value"
        elif (isinstance(node, ast.BoolOp) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))) and not _is_test(node):
            # (`-x`, `~x`: arithmetic on the device; only `not` and `and`/`or` ask for a truth value)
            value = values.truth_test_syncs(node)
            if value is not None:
                return f"`{snippet(context.text(node))}` reads the truth of a device value"
        return None


def _device_store(node: ast.Assign, values: LoopValues, context) -> tuple[ast.Subscript, ast.expr, int | None] | None:
    """The first store of a device value this iteration made into a NumPy array the host holds
    (device_indices.host_array_stores): (store, stored value, place in the unpacking or None). An
    element of an unpacked call counts unless the callee's returns say its place is not a device value."""
    for target in node.targets:
        for store, stored, place in device_indices.host_array_stores(target, node.value, values.scope, context.model):
            if not values.is_fresh(stored):
                continue
            if place is not None and place >= 0 and isinstance(stored, ast.Call) and isinstance(target, (ast.Tuple, ast.List)):
                positions = context.model.call_device_positions(stored, values.scope, len(target.elts))
                if positions is not None and not positions[place]:
                    continue
            return store, stored, place
    return None


def _reads_own_compiled_result(values: LoopValues, context) -> ast.Call | None:
    """The first call of a function (also of another project module) that runs compiled code and reads
    its result on the host on every call (semantic/helper_syncs.py): the loop calls compiled code there."""
    calls = sorted((n for n in values.body if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))),
                   key=lambda n: (n.lineno, n.col_offset))
    return next((call for call in calls if helper_syncs.call_sync(call, context.model) is not None), None)


def _internal_helper_sync(node: ast.AST, loop: ast.AST, context) -> bool:
    """A call of a function that reads a device value on the host for itself (a `print`, a log line) and
    does not return the copy: whatever the caller does with the result, the read was overhead."""
    if not isinstance(node, ast.Call):
        return False
    inner = helper_syncs.call_sync(node, context.model)
    if inner is None:
        return False
    if not inner.returned:
        return True
    if inner.position is None:
        return False
    # `params, loss = step(params, batch)` where `step` returns `(params, float(loss))`: whether the host
    # needs the copy is a question about `loss` alone (the carried `params` goes back into the step).
    parent = parent_of(node)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Tuple):
        elements = parent.targets[0].elts
        if inner.position < len(elements) and not any(isinstance(e, ast.Starred) for e in elements):
            names = {n.id for n in walk(elements[inner.position]) if isinstance(n, ast.Name)}
            return not _names_feed_host_consumer(names, loop, parent, context)
    return False


def _drawn_in_iteration(node: ast.AST, values: LoopValues, context) -> bool:
    """An index array this iteration draws on the device (`jax.random.randint(...)`, `jnp.arange(...)`,
    written in place or bound to a name the loop rebinds): semantic/device_indices.py."""
    if isinstance(node, ast.Name) and node.id not in values.assigned:
        return False
    return device_indices.drawn_on_device(node, values.scope, context.model)


def _first_slice_at(subscript: ast.Subscript, bound: ast.expr, values: LoopValues, context) -> bool:
    """`subscript` is the iteration's first slice at this device bound (`ts[:, a:b]` then `ys[:, a:b]`):
    the first waits for the device; the others copy a number already computed (one finding)."""
    text = context.text(bound)
    for node in sorted((n for n in values.body if isinstance(n, ast.Subscript)), key=lambda n: (n.lineno, n.col_offset)):
        found = device_indices.device_slice_bound(node, values.scope, context.model, lambda part: _made_in_iteration(part, values))
        if found is not None and context.text(found) == text:
            return node is subscript
    return True


def _made_in_iteration(part: ast.AST, values: LoopValues) -> bool:
    """A slice bound the iteration computes: it reads a name the loop binds (`start:start + n` with
    `start` drawn in the loop), or calls on the spot (`x[: jnp.argmax(mask)]`)."""
    return any(isinstance(n, ast.Call) or isinstance(n, ast.Name) and n.id in values.assigned for n in walk(part))


def _mapping_view(iterable: ast.expr) -> bool:
    """`d.items()`, `d.keys()`, `d.values()`."""
    return (
        isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in ("items", "keys", "values") and not iterable.args
    )


def _helper_reading_drawn_indices(call: ast.Call, context) -> tuple[ast.AST, ast.expr] | None:
    """The element-wise host read of indices a function of the module draws on the device on every call
    (`batch = get_batch(key, data)` whose body slices the data at each of `jax.random.randint(...)`)."""
    if context.model.jit_binding_for_call(call) is not None:
        return None
    helper = callee_scope(call, context.model)
    return None if helper is None else device_indices.index_read_in_function(helper, context.model)


def _reads_indices_drawn_on_device(node: ast.AST, values: LoopValues, context) -> bool:
    """A read of host numbers that had no reason to be made on the device: the host needs them (to index
    host data), so the fix is to draw them there, whatever consumes the result."""
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        return _elementwise_host_read(node, lambda n: _drawn_in_iteration(n, values, context), _host_sequence_of(values, context)) is not None
    if isinstance(node, ast.Subscript):
        return (
            _drawn_index_of_host_array(node, values, context) is not None
            or device_indices.device_slice_bound(node, values.scope, context.model, lambda part: _made_in_iteration(part, values)) is not None
        )
    return isinstance(node, ast.Call) and _helper_reading_drawn_indices(node, context) is not None


def _drawn_index_of_host_array(subscript: ast.Subscript, values: LoopValues, context) -> ast.expr | None:
    """`rays[tuple(idx), ...]`, `x_train[perm[i : i + b]]`: a NumPy array indexed, every iteration, by a
    new device array of drawn indices (drawn in this iteration, or a slice of a drawn array at numbers
    this iteration sets)."""
    assigned = values.assigned

    def made_in_iteration(part: ast.AST) -> bool:
        if isinstance(part, ast.Subscript):
            bounds = {n.id for n in walk(part.slice) if isinstance(n, ast.Name)}
            if bounds & assigned:
                return True  # a slice at this iteration's numbers: a new device array each time
            part = part.value
        return not isinstance(part, ast.Name) or part.id in assigned

    return device_indices.drawn_index_of_host_array(subscript, values.scope, context.model, made_in_iteration)


def _iterates_array_built_here(node: ast.AST, context) -> bool:
    return isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) and any(
        _array_built_here(generator.iter, context) for generator in node.generators
    )


def _array_built_here(node: ast.AST, context) -> bool:
    """`jnp.arange(0, n, size)`, `jnp.array(bounds)`: a device array the expression itself creates."""
    if not isinstance(node, ast.Call):
        return False
    qualified = context.qualified_name(node.func) or ""
    return qualified.startswith(("jax.numpy.", "jax.lax.")) and qualified not in jaxapi.STATIC_CALLS


def _numpy_function(qualified: str | None) -> bool:
    """A NumPy array function (`numpy.sum`, `numpy.mean`, `numpy.concatenate`): it runs on the host.
    Not NumPy's random generators (a device value handed to one is a parameter the host needs: the
    loop's host consumer), and not the conversions `_EXPLICIT_SYNCS` already names."""
    return bool(qualified) and qualified.startswith("numpy.") and not qualified.startswith("numpy.random.") and qualified not in _EXPLICIT_SYNCS


def _elementwise_host_read(comprehension: ast.AST, iterated_ok, host_indexed=lambda node: False) -> ast.expr | None:
    """The device array a comprehension iterates when its element asks each item for a host value
    (a truth test, `float(d)`, `d.item()`, a slice bound `x[s : s + n]`, the index of a Python list
    `tasks[d]`): every element is a separate read that waits for the device (semantic/device_indices.py)."""
    elements = [comprehension.key, comprehension.value] if isinstance(comprehension, ast.DictComp) else [comprehension.elt]
    return device_indices.element_read_on_host(comprehension.generators, elements, iterated_ok=iterated_ok, host_indexed=host_indexed)


def _host_sequence_of(values: LoopValues, context):
    """Whether an indexed expression of the loop is a Python list or tuple (device_indices.host_sequence)."""
    return lambda node: device_indices.host_sequence(node, values.scope, context.model)


def _host_driven(stops: list, derivation: tuple[set[str], set[str]], values: LoopValues, context) -> bool:
    """Whether host code decides on the device values: a stopping test on what host logic computed
    (`patience` counted from `float(val_loss)`), or a call other than compiled code, array operations,
    conversions and reporting that is handed a device-derived value (`converged(history, float(g))`,
    `env.step(action)`, a renderer)."""
    derived, decided_on_host = derivation
    if any(_reads_names(stop.test, decided_on_host) or _host_call_on(stop.test, derived, values, context) for stop in stops):
        return True
    return any(_host_call_on(node, derived, values, context) for node in values.body if isinstance(node, ast.Call) and not isinstance(parent_of(node), ast.Call))


def _patience_stops(stops: list, derivation: tuple[set[str], set[str]], values: LoopValues, context) -> bool:
    """Whether every stopping test reads only patience counters: host counters the loop sets to
    constants or steps by constants (`wait = 0`, `wait += 1`), only under a branch that compares a device
    result with the best so far (`if loss < best:` where the loop sets `best = loss`), with no host call deciding on device results on every iteration. The
    stop comes some steps after the last improvement whatever the exact step: the test can run every
    N steps, unlike a convergence test on the value itself (`while err > tol`)."""
    derived, decided_on_host = derivation
    loop = values.loop
    counters: set[str] = set()
    others: set[str] = set()
    for node in values.body:
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            (counters if isinstance(node.value, ast.Constant) and isinstance(node.op, (ast.Add, ast.Sub)) else others).add(node.target.id)
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            constant = isinstance(node.value, ast.Constant) or isinstance(node.value, ast.Name) and node.value.id not in derived
            for target in node.targets:
                (counters if constant else others).add(target.id)
    counters -= others
    counters &= decided_on_host

    def tests_above(node: ast.AST) -> list[ast.expr]:
        found, child, parent = [], node, parent_of(node)
        while parent is not None and parent is not loop:
            if isinstance(parent, ast.If) and child is not parent.test:
                found.append(parent.test)
            child, parent = parent, parent_of(parent)
        return found

    # The best so far: a device-derived name the loop assigns under a test that reads it (`if loss <
    # best: best = loss`). A counter stepped under a threshold on the value itself is no patience.
    bests = {
        name for node in values.body if isinstance(node, ast.Assign)
        for target in node.targets for name in (n.id for n in walk(target) if isinstance(n, ast.Name))
        if name in derived and any(_reads_names(test, {name}) for test in tests_above(node))
    }
    for node in values.body:
        if isinstance(node, (ast.Assign, ast.AugAssign)) and any(
            isinstance(n, ast.Name) and n.id in counters for target in (node.targets if isinstance(node, ast.Assign) else [node.target]) for n in walk(target)
        ):
            if not any(_reads_names(test, bests) for test in tests_above(node)):
                return False
    if not counters or not bests:
        return False
    for stop in stops:
        if isinstance(stop, ast.While):
            return False
        read = {n.id for n in walk(stop.test) if isinstance(n, ast.Name)}
        if not read & counters or read & (derived - counters):
            return False
    assigned = assigned_in_loop(loop)
    return not any(
        _host_call_on(node, derived, values, context) and not _gated(node, loop, context, values, assigned)
        for node in values.body if isinstance(node, ast.Call) and not isinstance(parent_of(node), ast.Call)
    )


def _stopping_tests(loop: ast.AST, values: LoopValues, context) -> tuple[list[ast.AST], tuple[set[str], set[str]]]:
    """`if ...: break` (or `return`) tests of the loop, and a `while` loop's own test when it is one,
    that read what this iteration's compiled calls produced: directly (`if loss < tol: break`), through
    a host copy (`val = float(loss)`; `if val > best: patience += 1`; `if patience > 10: break`) or
    through a branch on such a value. A stop on a host counter (`if step >= n: break`) is not one.
    Returned with the loop's device-derived names (see `_device_derived_names`), found on the way."""
    candidates = [
        node for node in values.body
        if isinstance(node, ast.If) and node.body and isinstance(node.body[-1], (ast.Break, ast.Return)) and not _constant_false(node.test)
        and not guards.nonfinite_guard(node.test, context)  # a guard against a failed step: a per-step wait, not the loop's length
    ]
    if not candidates and not isinstance(loop, ast.While):
        return [], (set(), set())
    derivation = _device_derived_names(values, context)
    tests = [loop] if isinstance(loop, ast.While) else []
    return [node for node in [*tests, *candidates] if _reads_derived(node.test, derivation[0], values)], derivation


def _device_derived_names(values: LoopValues, context) -> tuple[set[str], set[str]]:
    """Names the loop binds from its device results, copies of them on the host, and anything computed
    from those or assigned under a branch that tests them; and, of those, the ones host logic decides
    (assigned under such a branch, `patience += 1`, or returned by a call that is neither compiled code,
    an array operation nor a conversion: `improvement = expected - cost(x)`)."""
    assignments: list[tuple[set[str], ast.AST, list[ast.expr]]] = []
    for node in values.body:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            if _draws_keys(node.value, values):
                continue  # `key = random.split(key)[0]`: a key to pass on, not a result to decide on
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for target in targets for n in walk(target) if isinstance(n, ast.Name)}
            tests = []
            parent = parent_of(node)
            while parent is not None and parent is not values.loop:
                if isinstance(parent, ast.If):
                    tests.append(parent.test)
                parent = parent_of(parent)
            assignments.append((names, node.value, tests))
    derived: set[str] = set()
    decided_on_host: set[str] = set()
    changed = True
    while changed:
        changed = False
        for names, value, tests in assignments:
            if names <= derived:
                continue
            controlled = any(_reads_derived(test, derived, values) for test in tests)
            if controlled or _reads_derived(value, derived, values):
                derived |= names
                compiled = isinstance(value, ast.Call) and runs_compiled(value, values.model)
                if controlled or not compiled and (_host_call_on(value, derived, values, context) or _reads_names(value, decided_on_host)):
                    decided_on_host |= names  # (what compiled code returns is a device result again)
                changed = True
    return derived, decided_on_host


_HOST_ARITHMETIC = frozenset({"builtins.abs", "builtins.min", "builtins.max", "builtins.round", "builtins.len"})


def _reads_names(expression: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in walk(expression))


def _host_call_on(expression: ast.AST, derived: set[str], values: LoopValues, context) -> bool:
    """A call in `expression` that is handed a device-derived value and is none of compiled code,
    array operations, conversions or reporting: host code decides with it."""
    model = context.model
    for node in walk(expression):
        if not isinstance(node, ast.Call) or _calls_device_code(node, model) or held_values.holds_or_computes(node, model, values.scope):
            continue  # (array work, a record or container of the values, list bookkeeping: no decision)
        qualified = context.qualified_name(node.func) or ""
        if qualified.startswith(("jax.", "numpy.", "math.", "functools.partial")) or qualified in _EXPLICIT_SYNCS or qualified in _HOST_ARITHMETIC or _is_sink_call(node, context):
            continue
        if isinstance(node.func, ast.Attribute) and values.is_device(node.func.value):
            continue  # an array method (`loss.mean()`)
        if any(_reads_derived(argument, derived, values) for argument in [*node.args, *(k.value for k in node.keywords)]):
            return True
    return False


# Calls that cost the host nothing worth overlapping with the device: bookkeeping on a list or dict.
_LIGHT_METHODS = frozenset({"append", "extend", "keys", "items", "values", "get", "pop", "copy"})


def _only_dispatch_besides_reads(values: LoopValues, context) -> bool:
    """Whether every call in the loop is compiled code, an array operation (`jax`, `numpy`, including
    `np.random.choice` on a host copy), a builtin, a conversion or list and dict bookkeeping: no host
    work (an environment step, a data loader, a method of the program's own) runs between its reads."""
    model = context.model
    for node in values.body:
        if not isinstance(node, ast.Call) or _calls_device_code(node, model) or held_values.holds_or_computes(node, model, values.scope):
            continue
        qualified = context.qualified_name(node.func) or ""
        if qualified.startswith(("jax.", "numpy.", "math.", "builtins.")):
            continue
        if isinstance(node.func, ast.Attribute) and (values.is_device(node.func.value) or node.func.attr in _LIGHT_METHODS):
            continue
        return False
    return True


def _runs_as_device_iteration(loop: ast.AST, values: LoopValues, context) -> bool:
    """A `while` loop, or a `for` over a `range`, whose every call is dispatch of device work (see
    `_only_dispatch_besides_reads`): the whole loop, its stopping test included, can run as one
    jitted `lax.while_loop`. A loop over host data (`for batch in loader`) or one that runs host code
    each iteration cannot: the host must decide every step whether to go on."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        iterable = loop.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" and iterable.args:
            iterable = iterable.args[0]
        if not (isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) == "builtins.range"):
            return False
    if _grows_list_kept_after(loop):
        return False
    return _only_dispatch_besides_reads(values, context)


def _recomputed_after_stop(read: ast.AST, stops: list, values: LoopValues) -> bool:
    """A read of a device value the iteration computes again after an `if ...: break` test has waited
    (`if norm < tol: break`, then `power = jnp.sum(forces * velocity)`, then `if power > 0:`): the
    device runs that new work after the test's wait, so the read waits a second time in the same
    iteration. (A `while` loop's test waits at the top of the next iteration: not counted.)"""
    statement = _statement_of(read)
    ends = [stop.end_lineno for stop in stops if isinstance(stop, ast.If) and stop.end_lineno < statement.lineno]
    if not ends:
        return False
    after = max(ends)
    names = {n.id for n in walk(read) if isinstance(n, ast.Name) and values.is_fresh(n)}
    if not names:
        return False
    for node in values.body:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and after < node.lineno < statement.lineno and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {n.id for target in targets for n in walk(target) if isinstance(n, ast.Name)}
            if bound & names and values.model.device_kind(node.value, values.scope) == "device":
                return True
    return False


def _device_loop_keeping_list(loop: ast.AST, values: LoopValues, context) -> bool:
    """A `while` loop, or a `for` over a `range`, that grows a list it keeps (`_grows_list_kept_after`) and
    whose every other call dispatches device work, holds device values (semantic/held_values.py) or
    reports (a print, a log line, a progress bar's `update`): only the list keeps it off the device."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        iterable = loop.iter
        if not (isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) == "builtins.range"):
            return False
    if not _grows_list_kept_after(loop):
        return False
    model = context.model
    for node in values.body:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend") and any(
            _is_host_read(inner, context) for argument in node.args for inner in walk(argument)
        ):
            return False  # `tokens.append(int(pred.item()))`: the host keeps each value as a number; it needs it
        if not isinstance(node, ast.Call) or _calls_device_code(node, model) or held_values.holds_or_computes(node, model, values.scope):
            continue
        qualified = context.qualified_name(node.func) or ""
        if qualified.startswith(("jax.", "numpy.", "math.", "builtins.")) or _is_reporting_call(node, context):
            continue
        if isinstance(node.func, ast.Attribute) and (values.is_device(node.func.value) or node.func.attr in _LIGHT_METHODS):
            continue
        if held_values.progress_bar_update(node, model, values.scope):
            continue
        return False
    return True


def _is_host_read(node: ast.AST, context) -> bool:
    """`float(x)`, `int(x)`, `x.item()`, `x.tolist()`, `np.asarray(x)`, `jax.device_get(x)`: a host copy."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("item", "tolist") and not node.args:
        return True
    return (context.qualified_name(node.func) or "") in _EXPLICIT_SYNCS


def _heavy_iterations(loop: ast.AST, values: LoopValues, context) -> bool:
    """Every iteration runs, unconditionally, a compiled call that loops on the device (a rollout
    scanned over time and epochs of minibatch updates inside one jitted update, a GMRES solve:
    training_loops.compiled_call_loops_on_device), the loop counts iterations rather than iterating
    host data (`range`, a progress bar over one, `while`), and its other host work is light (array
    operations, builtins, timer stamps, reporting calls, list bookkeeping). A read waits once per
    many device steps, and all it delays is that light host work: the device idles for a fraction
    of one of those steps. A loop over a data loader, or one stepping a host environment, has host
    work worth overlapping and stays a step loop."""
    if isinstance(loop, (ast.For, ast.AsyncFor)) and not iterates_counter(loop.iter, context.model):
        return False
    model = context.model
    heavy = False
    for node in values.body:
        if not isinstance(node, ast.Call) or _conditional(node, loop):
            continue
        if model.jit_binding_for_call(node) is not None:
            heavy = heavy or compiled_call_loops_on_device(node, model)
            continue
        if _calls_device_code(node, model):
            continue
        qualified = context.qualified_name(node.func) or ""
        if qualified == "builtins.next":
            return False  # `batch = next(loader)`: host data each iteration, worth overlapping
        if qualified.startswith(("jax.", "numpy.", "math.", "builtins.", "time.")) or _is_reporting_call(node, context):
            continue
        if _prints_a_report(node) or any(_prints_a_report(outer) for outer in _calls_around(node, loop)):
            continue  # `console.print(f"{format_count(rate)} steps/s")`: a report and what formats it
        if isinstance(node.func, ast.Attribute) and (values.is_device(node.func.value) or node.func.attr in _LIGHT_METHODS):
            continue
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, (ast.Constant, ast.JoinedStr)):
            continue  # `"...".format(...)`
        if loop_cost.light_dispatch(node, values.scope, model):
            continue  # `x.reshape(...)`, `rngs()`: a small dispatch, no host work to overlap
        return False
    return heavy


def _prints_a_report(call: ast.AST) -> bool:
    """A console's or logger's `print` method (`console.print(...)`, `accelerator.print(...)`): text for
    the user, light host work beside a heavy compiled call."""
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "print"


def _calls_around(node: ast.AST, loop: ast.AST):
    """The calls whose arguments hold `node`, up to its statement in `loop`."""
    current = parent_of(node)
    while current is not None and current is not loop and not isinstance(current, ast.stmt):
        if isinstance(current, ast.Call):
            yield current
        current = parent_of(current)


def _grows_list_kept_after(loop: ast.AST) -> bool:
    """The loop appends to a list it did not create (`rollout.append(state)` into `rollout = []` made
    before it): a trajectory whose length the stopping test decides on the host. A `lax.while_loop`
    cannot grow a Python list; it would need a buffer of a bound the code does not state."""
    made_inside = flow.assigned_in(loop)
    for statement in loop.body:
        for node in walk(statement):
            if (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend")
                and isinstance(node.func.value, ast.Name) and node.func.value.id not in made_inside
            ):
                return True
    return False


def _calls_device_code(call: ast.Call, model) -> bool:
    """Compiled code, a helper around it (`params, info = adam_minimizer(...)`), a transformed
    function (`jax.vmap(f)(x)`, also through a name bound to one here or in another module of the
    project: training_loops.through_transform), or a library call that computes device values (a
    gymnax environment's `env.step`: training_loops.library_device_work): it runs on the device."""
    if model.jit_binding_for_call(call) is not None or helper_returns_device(call, model) or runs_compiled(call, model):
        return True
    if library_device_work(call, model):
        return True
    return through_transform(call, model)


def _draws_keys(value: ast.AST, values: LoopValues) -> bool:
    while isinstance(value, ast.Subscript):
        value = value.value
    return isinstance(value, ast.Call) and (values.model.qualified_name(value.func) or "").startswith("jax.random.")


def _reads_derived(expression: ast.AST, derived: set[str], values: LoopValues) -> bool:
    """Whether `expression` reads a result of this iteration's device work (PRNG keys drawn in the
    loop are not results: handing one to host code waits for nothing)."""
    for node in walk(expression):
        if isinstance(node, ast.Name) and node.id in derived:
            return True
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and values.is_fresh(node) and not _is_drawn_key(node, values):
            return True
    return False


def _is_drawn_key(node: ast.AST, values: LoopValues) -> bool:
    if isinstance(node, ast.Call):
        return _draws_keys(node, values)
    if not isinstance(node, ast.Name):
        return False
    bound = values.bound_in_loop(node.id)
    return bool(bound) and all(_draws_keys(value, values) for value in bound)


def _constant_false(test: ast.expr) -> bool:
    """`if False:`, `if 0:`: code switched off by hand."""
    return isinstance(test, ast.Constant) and not test.value


def _in_raise(node: ast.AST) -> bool:
    """Inside a `raise` statement: runs only when the program aborts."""
    parent = parent_of(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        parent = parent_of(parent)
    return isinstance(parent, ast.Raise)


def _adaptive_while(loop: ast.While, context) -> bool:
    """`while err > tol and n < n_max: n += 20; out, err = solve(x, n)` with `n` static for the
    jitted `solve`: every iteration runs a program compiled for a size the host grows, so neither a
    `lax.while_loop` nor a read after the loop can replace the host's test."""
    # The size grown in the body is also bounded by the test (`n < n_max`).
    grown = flow.assigned_in(loop) & flow.loaded_names(loop.test)
    model = context.model
    for node in loop_body(loop):
        if not isinstance(node, ast.Call):
            continue
        binding = model.jit_binding_for_call(node)
        if binding is None:
            continue
        arguments = [(position, None, argument) for position, argument in enumerate(node.args) if not isinstance(argument, ast.Starred)]
        arguments += [(None, keyword.arg, keyword.value) for keyword in node.keywords if keyword.arg]
        for position, keyword, argument in arguments:
            if binding.is_static(position, keyword) and flow.loaded_names(argument) & grown:
                return True
    return False


def _inside_host_rebuild(node: ast.AST, loop: ast.AST, context, values: LoopValues) -> bool:
    """In the body of an `if` on a device value that `_rebuilds_on_host`: it runs only on that
    device-decided branch."""
    child, parent = node, parent_of(node)
    while parent is not None and parent is not loop:
        if (
            isinstance(parent, ast.If) and child is not parent.test and values.truth_test_syncs(parent.test) is not None
            and _rebuilds_on_host(parent, loop, context)
        ):
            return True
        child, parent = parent, parent_of(parent)
    return False


def _rebuilds_on_host(sync: ast.AST, loop: ast.AST, context) -> bool:
    """The sync is an `if` test whose body rebinds, with a call of host code (not compiled code, not
    an array operation), a name the loop reads again: `if not ok: pairs = cpu_neighbour_list(x)`. The
    device value decides how the host repairs the state the next step uses, every step."""
    if not isinstance(sync, ast.If):
        return False
    model = context.model
    read_in_loop = flow.loaded_names(loop)
    assigned = flow.assigned_in(loop)
    for statement in sync.body:
        if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
            continue
        call = statement.value
        if model.jit_binding_for_call(call) is not None:
            continue
        # A function of a module or of a long-lived object (`utils.cpu_nlist`, `env.reset`), not a
        # method of a value the loop computes (`jnp.argmax(x).item()`) nor an array operation.
        function = call.func
        if isinstance(function, ast.Attribute) and not (isinstance(function.value, ast.Name) and function.value.id not in assigned):
            continue
        qualified = context.qualified_name(function) or ""
        if not isinstance(function, (ast.Name, ast.Attribute)) or qualified.startswith(("jax.", "numpy.", "builtins.")):
            continue
        rebound = {name for target in statement.targets for name in flow.target_names(target)}
        if rebound & read_in_loop:
            return True
    return False


def _in_assert_message(node: ast.AST) -> bool:
    child, parent = node, parent_of(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        child, parent = parent, parent_of(parent)
    return isinstance(parent, ast.Assert) and child is parent.msg


_SAVES = frozenset({"numpy.save", "numpy.savez", "numpy.savez_compressed", "jax.numpy.save", "jax.numpy.savez"})


def _waits_each_iteration(loop: ast.AST, context) -> bool:
    """The loop calls `block_until_ready` unconditionally on every iteration, or saves a value it
    computed to a file (`jnp.save(path, state)`): it is synchronous by design (a benchmark, an
    evaluation that times itself, a sampler writing every configuration), and a host read after
    that wait stalls nothing more. Or it runs a host solver or writer on every iteration (a sparse
    solve, PETSc, a mesh file: semantic/host_library.py), which takes the step's device values to the
    host and holds the iteration for milliseconds at least: a read beside it waits for nothing more."""
    assigned = None
    for node in loop_body(loop):
        if isinstance(node, ast.Call) and not _conditional(node, loop):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name == "block_until_ready" and measured_waits.on_purpose(node, loop, context.qualified_name, TIMERS):
                return True
            if name in ("save", "savez", "savez_compressed") and context.qualified_name(func) in _SAVES:
                assigned = flow.assigned_in(loop) if assigned is None else assigned
                if any(isinstance(argument, ast.Name) and argument.id in assigned for argument in node.args[1:]):
                    return True
    return host_library.host_library_every_iteration(loop, context.model) is not None


def _restores_each_iteration(loop: ast.AST, context) -> bool:
    """Every iteration restores a checkpoint or loads a saved object from storage (the library models'
    `reads_storage`, or a function of the project that does so on every call: semantic/storage_reads.py),
    and the loop carries no training state: a loop over saved checkpoints (an evaluation of each time
    window's model), which waits for the disk on every iteration and whose reads are its output."""
    model = context.model
    restores = any(
        isinstance(node, ast.Call) and not _conditional(node, loop) and storage_reads.reads_storage(node, model)
        for node in loop_body(loop)
    )
    return restores and not _carries_training_state(loop, context)


_BULK_COPIES = ("numpy.asarray", "numpy.array", "jax.device_get")


def _collected_on_host(sync: ast.AST, loop: ast.AST, context) -> bool:
    """`outputs.append(np.asarray(logits))`, `preds[name].append(np.array(ids)[:n])`, `keys +=
    [jax.device_get(k)]`, `g = np.array(grads(p))` then `all_grads.append(g)`: a loop gathering array outputs on the host (predictions, embeddings,
    samples) has to copy them; that copy is the point, not a log line. Scalars converted for a list
    (`losses.append(float(loss))`) stay flagged. A read wrapped in a copy (`np.asarray(np.argmax(
    logits))`) is gathered as that copy, and so is a store into a NumPy array (`out[i:j] = predict(p, x[i:j])`)."""
    if isinstance(sync, ast.Assign):
        return True  # (`_sync` reports an Assign only for a store of a device value into a NumPy array)
    parent = parent_of(sync)
    while isinstance(parent, ast.Call) and sync in parent.args and context.qualified_name(parent.func) in _BULK_COPIES:
        sync, parent = parent, parent_of(parent)
    if not (isinstance(sync, ast.Call) and context.qualified_name(sync.func) in _BULK_COPIES):
        return False
    # `np.array(out_ids)[:batch_size]`: the part of the copy that is kept (padding cut off).
    while isinstance(parent_of(sync), ast.Subscript) and parent_of(sync).value is sync:
        sync = parent_of(sync)
    parent = parent_of(sync)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        # (not the copy's own operand: `feats = jax.device_get(unreplicate(feats))` rebinds the name to its copy)
        inside = {id(n) for n in walk(parent.value)}
        reads = [n for n in loop_body(loop) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and id(n) not in inside]
        return bool(reads) and all(_appended_to_list(read) for read in reads)
    return _appended_to_list(sync)


def _appended_to_list(value: ast.AST) -> bool:
    """`outputs.append(value)`, `outputs.extend(value)` or `outputs += [value]`."""
    parent = parent_of(value)
    if isinstance(parent, ast.Call) and value in parent.args and isinstance(parent.func, ast.Attribute) and parent.func.attr in ("append", "extend"):
        return True
    if isinstance(parent, (ast.List, ast.Tuple)):
        grand = parent_of(parent)
        return isinstance(grand, ast.AugAssign) and grand.value is parent
    return False


def _carries_training_state(loop: ast.AST, context) -> bool:
    """A training loop: a jitted call rebinds what it is passed (`state, loss = step(state, batch)`) or
    is named for training (`train_step(model, optimizer, batch)` updating nnx objects in place). A
    PRNG key threaded through the call (`action, rng = act(params, obs, rng=rng)` in a rollout) is
    not training state."""
    model = context.model
    # The loop's own item (`for config in configs: config = smear(config)`) is bound afresh each
    # iteration: transforming it carries nothing from one iteration to the next.
    items = flow.target_names(loop.target) if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
    items |= _bound_afresh_each_iteration(loop)
    keys = None
    for node in loop_body(loop):
        if not isinstance(node, ast.Call) or not runs_compiled(node, model):
            continue  # (a jitted call, or a helper of the module that runs one: `z = advance(z)`)
        callee = context.text(node.func).rsplit(".", 1)[-1].lower()
        if "train" in callee or "update" in callee:
            return True
        carried = flow.rebinds_handed(parent_of(node), node) - items
        if carried:
            keys = key_values.key_names(model.scope_for(loop).node, context) if keys is None else keys
            if carried - keys:
                return True
    return False


def _bound_afresh_each_iteration(loop: ast.AST) -> set[str]:
    """Names each iteration binds before it reads them, by a statement of the loop body itself (not under a
    condition) whose value does not read them: `batch = jnp.array(scans[i:i + n])` then `batch = fix(batch)`
    carries nothing from one iteration to the next, as the loop's own item does not."""
    fresh: set[str] = set()
    read: set[str] = set()
    for statement in loop.body:
        if isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets):
            value_reads = {n.id for n in walk(statement.value) if isinstance(n, ast.Name)}
            for target in statement.targets:
                if target.id not in read and target.id not in value_reads:
                    fresh.add(target.id)
            read |= value_reads
            continue
        read |= {n.id for n in walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return fresh


def _report_element_reads(loop: ast.AST, context) -> None:
    """A loop that runs no device work of its own but reads, every iteration, one element of a device
    array made before it (semantic/device_indices.element_reads_per_iteration): each read is a round
    trip to the device for one number. A loop the source fixes to a handful of iterations (20 or
    fewer) pays a handful of them; in demonstration code, a loop that only prints the elements shows
    them on purpose; a loop that draws on every iteration spends its time drawing."""
    scope = context.scope(loop)
    count = iteration_count(loop.iter, scope, context.model) if isinstance(loop, (ast.For, ast.AsyncFor)) else None
    if count is not None and count <= _SHORT_LOOP:
        return
    reads = device_indices.element_reads_per_iteration(loop, scope, context.model)
    if reads and all(read.show for read in reads) and demo_code.is_demonstration_module(str(context.source.filename)):
        return  # a page that prints each element shows them: the reader is meant to see each one
    if reads and (_draws_every_iteration(loop, context) or display_work.draws_every_iteration(loop, context.model) is not None):
        return  # drawing a panel costs milliseconds, far more than the reads it shows
    reported: set[str] = set()
    for read, array, _ in reads:
        name = snippet(context.text(array))
        if name in reported:
            continue  # one finding per array: one copy before the loop serves every read of it
        reported.add(name)
        context.report(
            read,
            f"`{snippet(context.text(read))}` reads one element of `{name}`, a device array, on the host on every "
            f"iteration: each is a round trip to the device (a slice dispatched, then one number copied back); "
            f"copy the array to the host once before the loop (`np.asarray({name})`) and index that",
        )


def _element_reads_beside_device_work(loop: ast.AST, context, found: list, step_name: str) -> list[tuple[ast.AST, str]]:
    """The element reads of `_report_element_reads` in a loop that also dispatches device work: one per
    array, as (read, message), not where a read found already covers the statement, and with the
    same exemptions (a loop the source fixes to a handful of iterations, a demonstration that only
    prints the elements, a loop that draws a panel per element)."""
    scope = context.scope(loop)
    count = iteration_count(loop.iter, scope, context.model) if isinstance(loop, (ast.For, ast.AsyncFor)) else None
    if count is not None and count <= _SHORT_LOOP:
        return []
    reads = device_indices.element_reads_per_iteration(loop, scope, context.model)
    if not reads:
        return []
    if all(read.show for read in reads) and demo_code.is_demonstration_module(str(context.source.filename)):
        return []
    if _draws_every_iteration(loop, context) or display_work.draws_every_iteration(loop, context.model) is not None:
        return []
    covered = {id(_statement_of(child)) for child, _ in found}
    result: list[tuple[ast.AST, str]] = []
    arrays: set[str] = set()
    for read, array, _ in reads:
        name = snippet(context.text(array))
        if name in arrays or id(_statement_of(read)) in covered:
            continue
        arrays.add(name)
        result.append((read, (
            f"`{snippet(context.text(read))}` reads one element of `{name}`, a device array made before the loop, on the "
            f"host; it waits for the device on every iteration of this loop (it calls `{step_name}`): each is a slice "
            f"dispatched and one number copied back; copy the array to the host once before the loop "
            f"(`np.asarray({name})`) and index that")))
    return result


def _draws_every_iteration(loop: ast.AST, context) -> bool:
    """The loop draws on a figure on every iteration (`ax.imshow(...)`, `plt.plot(...)`, not under a
    condition): each drawing call costs a millisecond or more on the host, so one element read per
    iteration, tens of microseconds, is a small part of what the loop costs. (`print` is cheap and
    does not count.)"""
    for node in loop_body(loop):
        if not isinstance(node, ast.Call) or _conditional(node, loop):
            continue
        qualified = context.qualified_name(node.func) or ""
        if qualified == "builtins.print":
            continue
        if _shows_output(node, context):
            return True
    return False


def _has_inner_training_loop(loop: ast.AST, context) -> bool:
    """An epoch loop, whose own syncs run once per epoch: an inner loop (here or in a helper it calls)
    calls the jitted step, or the loop names an epoch and its jitted call loops on the device. An
    inner loop of a few iterations the source fixes (gradient accumulation over 4 micro-batches, 5
    critic updates: `range(args.micro_steps)` with its default) leaves each outer iteration a few
    device steps: a read there drains the queue every few steps, and the outer loop is a step loop."""
    model = context.model
    micro_steps = None
    for node in loop_body(loop, nested=True):
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)) and node is not loop:
            if not _conditional_after_first_lap(node, loop, model) and any(isinstance(n, ast.Call) and model.jit_binding_for_call(n) is not None for n in loop_body(node)):
                if micro_steps is None:
                    micro_steps = {id(inner) for inner in micro_step_loops(loop, model)}
                if _few_fixed_iterations(node, context) or one_step_loop(node, model) or id(node) in micro_steps:
                    continue  # (micro-batches of one step, an integrator's steps of one proposal: one step)
                return True
        elif isinstance(node, ast.Call) and helper_runs_training_loop(node, model) and not _conditional(node, loop):
            return True  # (an evaluation pass every N steps does not make this an epoch loop)
        elif isinstance(node, ast.Call) and not _conditional(node, loop) and unknown_epoch_pass(node, model):
            return True  # `bbb.train_epoch(...)` of another package, in `for epoch in ...`: a pass per iteration
    return runs_epoch_on_device(loop, model)


def _conditional_after_first_lap(node: ast.AST, loop: ast.AST, model) -> bool:
    """`node` sits under a branch of `loop` other than the side that runs on every lap but the first
    (`else:` of `if epoch == 0:`, semantic/branch_shares.side_after_first_lap): a pass there runs
    once per lap all the same."""
    child, current = node, parent_of(node)
    while current is not None and current is not loop:
        if isinstance(current, ast.If) and child is not current.test:
            side = side_after_first_lap(current, loop, model)
            if side is None or not any(child is statement for statement in side):
                return True
        elif isinstance(current, (ast.If, ast.IfExp, ast.Try)):
            return True
        child, current = current, parent_of(current)
    return False


def _few_sliced_items(loop: ast.AST, context) -> bool:
    """A `for` over the first few items of a sequence, as the source fixes them (`for x in top[:5]`,
    or a name bound once to such a slice, `shown = [i for i in ids if ok(i)][:5]`): a handful of
    iterations (flow.FEW_ITERATIONS), shown or checked one by one, not a hot loop."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = loop.iter
    if isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) == "builtins.enumerate" and iterable.args:
        iterable = iterable.args[0]
    scope = context.scope(loop)
    iterable = flow.single_binding(iterable, scope)
    if not (isinstance(iterable, ast.Subscript) and isinstance(iterable.slice, ast.Slice)):
        return False
    count = iteration_count(iterable, context.scope(iterable), context.model)
    return count is not None and count <= flow.FEW_ITERATIONS


def _few_fixed_iterations(loop: ast.AST, context) -> bool:
    """A `for` loop the source fixes to run at most a handful of times (flow.FEW_ITERATIONS)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    count = iteration_count(loop.iter, context.scope(loop), context.model)
    return count is not None and count <= flow.FEW_ITERATIONS


def _inside_timed_interval(node: ast.AST, context) -> bool:
    """The sync is the one statement between two timer stamps (`start = time.time()` just before it,
    a `time.time()` just after it): a latency measurement of the call it reads, which needs the wait."""
    statement = _statement_of(node)
    located = statement_list(statement)
    if located is None:
        return False
    block, index = located
    if index == 0 or index + 1 >= len(block):
        return False

    def stamps(statement: ast.stmt) -> bool:
        return any(isinstance(n, ast.Call) and context.qualified_name(n.func) in TIMERS for n in walk(statement))

    before = block[index - 1]
    return isinstance(before, ast.Assign) and isinstance(before.value, ast.Call) and stamps(before) and stamps(block[index + 1])


def _calls_project_run(values: LoopValues, context) -> bool:
    """An iteration calls, unconditionally, a function of another project module that loops over
    compiled steps itself (`results = vmc_sampling(params, key, nsteps=500)`). Asked only of loops
    with something to report: it may read the other module's source."""
    project = context.model.project
    if project is None:
        return False
    for node in values.body:
        if isinstance(node, ast.Call) and not _conditional(node, values.loop):
            qualified = context.qualified_name(node.func)
            if qualified and "." in qualified and project.runs_device_loop(qualified):
                return True
    return False


def _loop_gated_by_outer_loop(loop: ast.AST, context) -> bool:
    """An evaluation loop under `if step % 100 == 0:` of an enclosing training loop runs every N steps."""
    parent = parent_of(loop)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        if isinstance(parent, (ast.For, ast.While, ast.AsyncFor)):
            gate = _enclosing_if_below(loop, parent)
            return gate is not None and loop_varying(gate.test, parent, context.model)
        parent = parent_of(parent)
    return False


# The most iterations a loop run every N steps of an enclosing loop may take and still be a handful
# of reads per interval (judge-r8 read 16 evaluation batches every 250 steps as nil).
_GATED_HANDFUL = 32


def _gated_handful(loop: ast.AST, context) -> bool:
    """A `for` loop under a gate that varies with an enclosing loop (`if step % eval_every == 0:`)
    whose count the source fixes to at most `_GATED_HANDFUL` (`range(12)`, `range(config.eval_steps)`
    with a field default of 16 on the class `config` is annotated with): a fixed handful of reads
    once per interval. A loop over a data loader, or of a count the source does not fix, is a whole
    pass and still syncs per batch."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not _loop_gated_by_outer_loop(loop, context):
        return False
    count = _fixed_count(loop.iter, context)
    return count is not None and count <= _GATED_HANDFUL


def _fixed_count(iterable: ast.expr, context) -> int | None:
    """`iteration_count`, and `range(config.field)` where `config` is a parameter annotated with a
    configuration class: the field's default."""
    model = context.model
    scope = context.scope(iterable)
    count = iteration_count(iterable, scope, model)
    if count is not None:
        return count
    if not (
        isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) == "builtins.range"
        and len(iterable.args) == 1 and not iterable.keywords
    ):
        return None
    bound = iterable.args[0]
    if not (isinstance(bound, ast.Attribute) and isinstance(bound.value, ast.Name) and bound.value.id in scope.param_nodes):
        return None
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    annotation = next((a.annotation for a in arguments if a.arg == bound.value.id), None)
    if annotation is None:
        return None
    fields = model.constant_evaluator().class_defaults(annotation, scope)
    value = fields.get(bound.attr) if fields else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _enclosing_if_below(node: ast.AST, outer: ast.AST) -> ast.If | None:
    child, parent = node, parent_of(node)
    while parent is not None and parent is not outer:
        if isinstance(parent, ast.If) and child is not parent.test:
            return parent
        child, parent = parent, parent_of(parent)
    return None


def _conditional(node: ast.AST, loop: ast.AST) -> bool:
    current = parent_of(node)
    while current is not None and current is not loop:
        if isinstance(current, (ast.If, ast.IfExp, ast.Try)):
            return True
        current = parent_of(current)
    return False


def _first_fresh(candidates, fresh) -> ast.expr | None:
    for candidate in candidates:
        if fresh(candidate):
            return candidate
    return None


def _is_formatting(node: ast.AST) -> bool:
    """An f-string, `"%f" % x` or `"{}".format(x)`: the string itself is the sync."""
    if isinstance(node, (ast.JoinedStr, ast.BinOp)):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" and isinstance(node.func.value, ast.Constant)


def _makes_text(parent: ast.AST, child: ast.AST) -> bool:
    """Whether `parent` turns `child` into text: a field of an f-string, an operand of `"..." % x`, an
    argument of `"...".format(x)`."""
    if isinstance(parent, ast.FormattedValue):
        return child is parent.value
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Mod):
        return child is parent.right and isinstance(parent.left, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(parent.left, "value", ""), str)
    if isinstance(parent, ast.Tuple):
        grand = parent_of(parent)
        return isinstance(grand, ast.BinOp) and _makes_text(grand, parent)
    return (
        isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "format"
        and isinstance(parent.func.value, ast.Constant) and isinstance(parent.func.value.value, str) and child is not parent.func
    )


def _is_test(node: ast.AST) -> bool:
    """Part of an `if`/`while`/ternary/assert test, where that statement's own check reports it."""
    child, parent = node, parent_of(node)
    while isinstance(parent, (ast.BoolOp, ast.UnaryOp)):
        child, parent = parent, parent_of(parent)
    return isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and child is parent.test


def _is_reporting_call(call: ast.Call, context) -> bool:
    """print, logging, wandb, summary writers and progress bars: they convert what they are handed."""
    qualified = context.qualified_name(call.func) or ""
    if qualified == "builtins.print" or qualified.startswith(_LOGGING_PREFIXES):
        return True
    if qualified.startswith(_REPORTING_QUALIFIED) or qualified in _REPORTING_QUALIFIED:
        return True
    return not qualified and isinstance(call.func, ast.Attribute) and call.func.attr in _REPORTING_METHODS


# CLU's metric writers that hand every write to a background thread: the loop does not wait for the
# conversion. `create_default_writer` returns one unless called with `asynchronous=False`.
_BACKGROUND_WRITERS = frozenset({
    "clu.metric_writers.create_default_writer", "clu.metric_writers.AsyncWriter", "clu.metric_writers.AsyncMultiWriter",
    "clu.metric_writers.async_writer.AsyncWriter", "clu.metric_writers.async_writer.AsyncMultiWriter",
})


def _writes_in_background(call: ast.Call, context) -> bool:
    """`writer.write_scalars(step, {...})` on a writer that every assignment builds as an asynchronous
    CLU writer (`writer = metric_writers.create_default_writer(workdir)`, or `self.writer = ...`)."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(receiver, ast.Name):
        scope = context.scope(call)
        bound = bound_values(context.model, receiver.id, scope) if scope is not None else None
        values = bound[1] if bound is not None else None
    elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
        values = instance_attribute_values(context.model, receiver.attr, context.scope(call))
    else:
        return False
    return bool(values) and all(_builds_background_writer(value, context) for value in values)


def _builds_background_writer(value: ast.expr, context) -> bool:
    if not isinstance(value, ast.Call) or context.qualified_name(value.func) not in _BACKGROUND_WRITERS:
        return False
    for keyword in value.keywords:
        if keyword.arg == "asynchronous":
            return isinstance(keyword.value, ast.Constant) and keyword.value.value is True
        if keyword.arg is None:
            return False  # `**options` may turn it off
    return True


def _reported_values(call: ast.Call) -> list[ast.expr]:
    """Arguments as handed over, looking into dict/list/tuple displays (`wandb.log({"loss": loss})`);
    f-strings are reported by their own check."""
    values: list[ast.expr] = []
    stack = [*call.args, *(keyword.value for keyword in call.keywords)]
    while stack:
        value = stack.pop(0)
        if isinstance(value, ast.Starred):
            value = value.value
        if isinstance(value, ast.Dict):
            stack.extend(v for v in value.values if v is not None)
        elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            stack.extend(value.elts)
        elif not isinstance(value, ast.JoinedStr):
            values.append(value)
    return values


def _under_condition(node: ast.AST, loop: ast.AST) -> bool:
    """Inside a branch, a `try` or a `with` of the loop body: not run on every iteration for sure.
    The test of an `if` itself runs every time (`if converged(float(g)): break`)."""
    child, parent = node, parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test or isinstance(parent, (ast.Try, ast.With)):
            return True
        child, parent = parent, parent_of(parent)
    return False


def _statement_of(node: ast.AST) -> ast.AST:
    current = node
    while current is not None and not isinstance(current, ast.stmt):
        current = parent_of(current)
    return current if current is not None else node


def _gated(node: ast.AST, loop: ast.AST, context, values: LoopValues, assigned: set[str]) -> bool:
    """Inside an `if` on a host condition that changes between iterations (`step % 100 == 0`, `done`).
    A condition that holds for the whole loop (`args.track`, `verbose`, `jax.process_index() == 0`)
    runs the sync on every iteration all the same."""
    child, parent = node, parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
            if _constant_false(parent.test) and (child in parent.body if isinstance(parent, ast.If) else child is parent.body):
                return True  # `if False:`: switched off
            if (
                values.truth_test_syncs(parent.test) is None and loop_varying(parent.test, loop, context.model, assigned)
                and not on_common_side(parent, child, context.model) and not paces_the_steps(parent, child, loop, context.model)
            ):
                return True
        if isinstance(parent, ast.ExceptHandler):
            return True  # a fallback that runs only when the `try` body failed
        child, parent = parent, parent_of(parent)
    return False


def _reads_only_gated_values(node: ast.AST, loop: ast.AST, context, values: LoopValues, assigned: set[str]) -> bool:
    """Every device value the sync reads is computed only under a gate (`if i % 100 == 0: cur_loss =
    model.loss(...)`, shown by a progress bar every step): a JAX array keeps its host copy, so the
    read waits only on the iterations where the gate fired."""
    read = {n.id for n in walk(node) if isinstance(n, ast.Name) and values.is_fresh(n)}
    if not read or any(isinstance(n, ast.Call) and values.is_fresh(n) for n in walk(node)):
        return False
    for name in read:
        bound = values.bound_in_loop(name)
        if not bound or not all(_gated(value, loop, context, values, assigned) for value in bound):
            return False
    return True


# Tokenizer methods: they read token ids as host integers, so the loop waits for them every step.
_HOST_DECODERS = frozenset({"decode", "batch_decode", "detokenize", "convert_ids_to_tokens", "id_to_piece", "decode_ids"})


def _derived_in_loop(names: set[str], loop: ast.AST, values, context) -> set[str]:
    """`names` and what the loop computes from them with array operations alone
    (`active = active & ~jnp.isin(token, stops)`): ready as soon as they are, so reading them waits
    for nothing more. A value that went through other code (`done = env_step(np.asarray(action))`)
    is new."""
    derived = set(names)
    statements = [n for n in loop_body(loop) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None]
    # Results of the call that produced a needed value (`a, entropy = policy(params, obs)` with `a` read
    # for `env.step`), and of every compiled call dispatched before it: the device runs them in order,
    # so that wait covers them all.
    compiled = [
        statement for statement in statements
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) and values.is_fresh(statement.value) and not _array_operations_only(statement.value, context)
    ]
    produced_by = [(statement, {n.id for target in statement.targets for n in walk(target) if isinstance(n, ast.Name)}) for statement in compiled]
    latest = max((statement.lineno for statement, produced in produced_by if produced & names), default=None)
    if latest is not None:
        for statement, produced in produced_by:
            if statement.lineno <= latest:
                derived |= produced
    assignments = [n for n in statements if _array_operations_only(n.value, context)]
    changed = True
    while changed:
        changed = False
        for assignment in assignments:
            if not any(isinstance(n, ast.Name) and n.id in derived for n in walk(assignment.value)):
                continue
            targets = assignment.targets if isinstance(assignment, ast.Assign) else [assignment.target]
            for name in {n.id for target in targets for n in walk(target) if isinstance(n, ast.Name)} - derived:
                derived.add(name)
                changed = True
    return derived


def _unpacked_from(names: set[str], loop: ast.AST) -> set[str]:
    """`names` and the names the loop unpacks or copies them from (`loss, acc = metrics` gives `metrics`):
    the values a read of `names` waits for are those of the computation that made the source."""
    sources = set(names)
    copies = [
        n for n in loop_body(loop)
        if isinstance(n, ast.Assign) and all(isinstance(e, ast.Name) for e in walk(n.value) if not isinstance(e, (ast.Tuple, ast.List)))
    ]
    changed = True
    while changed:
        changed = False
        for copy in copies:
            if {e.id for target in copy.targets for e in target_elements(target) if isinstance(e, ast.Name)} & sources:
                new = {e.id for e in walk(copy.value) if isinstance(e, ast.Name)} - sources
                if new:
                    sources |= new
                    changed = True
    return sources


def _name_folded_reads(waits: list[tuple[ast.AST, set[str], list[int]]], context) -> None:
    """Name, in a finding's message, the later reads of the same iteration that wait for nothing more."""
    for read, _, folded in waits:
        if not folded:
            continue
        start = context.source.start(read)
        for index, diagnostic in enumerate(context.diagnostics):
            if diagnostic.code == context.rule.code and diagnostic.location == start:
                lines = ", ".join(str(line) for line in sorted(folded))
                plural = "s" if len(folded) > 1 else ""
                context.diagnostics[index] = dataclasses.replace(
                    diagnostic, message=f"{diagnostic.message} (this one wait also covers the read{plural} at line{plural} {lines})",
                )
                break


def _values_read(node: ast.AST, values, context) -> set[str]:
    """Fresh device names whose values a sync reads: not the inputs of a compiled call inside it
    (`np.asarray(policy(params, obs))` waits for `policy`'s result, not for `obs`)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Call) and context.model.jit_binding_for_call(current) is not None:
            continue
        if isinstance(current, ast.Name) and values.is_fresh(current):
            found.add(current.id)
        appended = _last_appended(current, values)
        if appended is not None:
            stack.append(appended)  # `output[-1]` just after `output.append(token)`: this iteration's token
        stack.extend(child_nodes(current))  # (no context markers: only calls and names are looked at)
    return found


def _last_appended(node: ast.AST, values) -> ast.expr | None:
    """What `xs[-1]` reads where the loop appends to the list `xs` on every iteration, at its own level
    and before the statement reading it: the value appended this iteration (a generated token kept in
    the output and decoded from there, `tokenizer.decode([output[-1]])`)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return None
    index = node.slice
    if not (isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) and isinstance(index.operand, ast.Constant) and index.operand.value == 1):
        return None
    loop = values.loop
    body = getattr(loop, "body", None)
    if not isinstance(body, list):
        return None
    appended = None
    for statement in body:
        if any(inner is node for inner in walk(statement)):
            return appended
        if isinstance(statement, (ast.If, ast.Try, ast.For, ast.While, ast.With)):
            if any(isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in ("append", "extend", "insert", "pop", "clear")
                   and isinstance(inner.func.value, ast.Name) and inner.func.value.id == node.value.id for inner in walk(statement)):
                appended = None  # (changed under a branch: not surely this iteration's value)
            continue
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                and call.func.value.id == node.value.id):
            appended = call.args[0] if call.func.attr == "append" and len(call.args) == 1 and not call.keywords else None
    return None


def _array_operations_only(expression: ast.AST, context) -> bool:
    """Operators, and calls of `jax.numpy`/`jax.lax` functions or of array methods (`x.squeeze()`)."""
    for node in walk(expression):
        if isinstance(node, ast.Call):
            qualified = context.qualified_name(node.func) or ""
            if qualified.startswith(("jax.numpy.", "jax.lax.")):
                continue
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and context.qualified_name(node.func.value) is None:
                continue  # a method of a local value: `token.squeeze()`
            return False
    return True


def _round_trip_message(description: str) -> str:
    return (
        f"{description} reads back a device array that this loop built from host data (no compiled step "
        "produced it): every iteration pays a round trip to the device and back; keep that value on the "
        "host (NumPy or plain Python) instead of wrapping it in `jnp`"
    )


def _synced_part(node: ast.AST, values) -> ast.AST:
    """What a sync reads: the device value an `if`/`while`/`assert` tests, else the expression itself."""
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return values.truth_test_syncs(node.test) or node.test
    return node


def _converted_in_place(node: ast.AST, context) -> str | None:
    """`a = a.item()`, `action = np.asarray(action)`: the loop moves the value to the host for what
    follows (an environment step), so it waits for the call that produced it every iteration."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
        return None
    name, value = node.targets[0].id, node.value
    if not isinstance(value, ast.Call):
        return None
    if isinstance(value.func, ast.Attribute) and value.func.attr in ("item", "tolist") and not value.args:
        source = value.func.value
    elif context.qualified_name(value.func) in _EXPLICIT_SYNCS and len(value.args) == 1:
        source = value.args[0]
    else:
        return None
    return name if isinstance(source, ast.Name) and source.id == name else None


def _decodes_on_host(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _HOST_DECODERS


def _needed_by_host_consumer(node: ast.AST, loop: ast.AST, context) -> bool:
    """Whether the synced value feeds host code that needs it now (an environment step, a callback)."""
    if isinstance(node, (ast.If, ast.While, ast.Assign)):
        return False  # (an Assign is a store into a NumPy array: the array keeps the copy, nothing consumes it now)
    child, parent = node, parent_of(node)
    if isinstance(parent, ast.Expr):
        return False  # a statement of its own (`print(loss)`, `x.block_until_ready()`): nothing consumes it
    while parent is not None and parent is not loop:
        if _makes_text(parent, child):
            return False  # made into text (`f"{float(loss):.4f}"`): whatever takes the string only shows the number
        if _indexes_device_array(parent, child, context):
            return False  # `frames[int(i)]`: a device array takes a device index as well, the host needs nothing
        if isinstance(parent, ast.Call) and child is not parent.func:
            if _host_arithmetic(parent, context):
                child, parent = parent, parent_of(parent)
                continue  # `np.mean(jax.device_get(x))`: host arithmetic on the copy; what the result feeds decides
            return not (_is_sink_call(parent, context) or _project_reporter(parent, child, context) or keeps_for_later(parent, loop))
        if isinstance(parent, (ast.If, ast.While)) and child is parent.test:
            return False
        if isinstance(parent, ast.AugAssign):
            return False
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            names = {t.id for target in targets for t in walk(target) if isinstance(t, ast.Name)}
            return _names_feed_host_consumer(names, loop, parent, context)
        if isinstance(parent, (ast.stmt, ast.Return)):
            return True
        child, parent = parent, parent_of(parent)
    return True


def _indexes_device_array(parent: ast.AST, child: ast.AST, context) -> bool:
    """`child` (a host number, or host arithmetic on one) is the whole index of a device array
    (`frames[t]`, `frames[t + 1]`, not a slice bound: a slice's size must be known on the host). The
    array gathers with a device index as well (`frames[t]` with `t` left on the device,
    `lax.dynamic_index_in_dim`), so the host conversion feeds no host code."""
    if not (isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load) and child is parent.slice):
        return False
    if isinstance(child, ast.Slice) or (isinstance(child, ast.Tuple) and any(isinstance(e, ast.Slice) for e in child.elts)):
        return False
    return context.model.device_kind(parent.value, context.scope(parent)) == "device"


def _only_indexes_device_arrays(read: ast.AST, loop: ast.AST, context) -> bool:
    """The host number `read` makes feeds only indices of device arrays (`x[int(i)]`, or `t = int(i)`
    then `x[t]`, `x[t + 1]`), through host arithmetic."""
    def indexes(node: ast.AST) -> bool:
        child, parent = node, parent_of(node)
        while isinstance(parent, (ast.BinOp, ast.UnaryOp)):
            child, parent = parent, parent_of(parent)
        return _indexes_device_array(parent, child, context)

    if indexes(read):
        return True
    parent = parent_of(read)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    uses = [n for n in loop_body(loop) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return bool(uses) and all(indexes(use) for use in uses)


def _names_feed_host_consumer(names: set[str], loop: ast.AST, assignment: ast.AST, context) -> bool:
    uses = [
        n for n in loop_body(loop)
        if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)
        and not is_within(n, assignment)  # (`m = jax.device_get(m)`: the old binding it reads is no use of the copy)
    ]
    if not uses:
        return True  # nothing reads it in the loop: it is consumed elsewhere, we cannot tell how
    for use in uses:
        if _needed_only_under_condition(use, assignment, names, loop):
            continue  # `if self.target_kl is not None: adapt(kl)`: read it there, not every step
        child, parent = use, parent_of(use)
        while parent is not None and parent is not loop:
            if isinstance(parent, ast.Call) and _appends_to_list_read_in_loop(parent, child, loop):
                return True  # `generated.append(token)` with `generated` read again in the loop: next input
            if isinstance(parent, ast.Call) and child is not parent.func:
                if _host_arithmetic(parent, context):
                    child, parent = parent, parent_of(parent)
                    continue  # `print(np.round(value, 3))`: what the result of the arithmetic feeds decides
                if not (_is_sink_call(parent, context) or _project_reporter(parent, child, context) or keeps_for_later(parent, loop)):
                    return True
                break
            if _binds_shown_name(parent, child, loop, context):
                break  # `log = {"loss": value}` then `bar.set_postfix(log)`: bound to a name that is only shown
            if _indexes_device_array(parent, child, context):
                break  # `t = int(draw)` then `frames[t + 1]`: the index could stay on the device
            if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.Return)):
                return True  # flows on into code we do not follow
            if isinstance(parent, ast.stmt):
                break
            child, parent = parent, parent_of(parent)
    return False


def _appends_to_list_read_in_loop(call: ast.Call, argument: ast.AST, loop: ast.AST) -> bool:
    """`history.append(value)` where the loop also reads `history` elsewhere (to build its next input),
    not just a record read after the loop."""
    function = call.func
    if not (isinstance(function, ast.Attribute) and function.attr in ("append", "extend") and isinstance(function.value, ast.Name)):
        return False
    if argument not in call.args:
        return False
    name = function.value.id
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and n is not function.value
        and not (isinstance(parent_of(n), ast.Attribute) and parent_of(n).attr in ("append", "extend"))
        for n in loop_body(loop)
    )


_HOST_ARITHMETIC_BUILTINS = frozenset({"builtins.float", "builtins.int", "builtins.round", "builtins.abs"})


def _host_arithmetic(call: ast.Call, context) -> bool:
    """A NumPy array function or a numeric builtin (`np.mean`, `np.round`, `float`, `round`) computing
    on a host copy, or a copy of a copy (`np.asarray(np.mean(x))`): it needs the value no more than
    what its result feeds does."""
    qualified = context.qualified_name(call.func)
    return _numpy_function(qualified) or qualified in _HOST_ARITHMETIC_BUILTINS or qualified in _BULK_COPIES


def _is_sink_call(call: ast.Call, context) -> bool:
    """Calls that only report a value: printing, logging, summary writers, appending to a history list."""
    qualified = context.qualified_name(call.func) or ""
    if qualified in ("builtins.print", "builtins.str", "builtins.format", "builtins.repr") or _is_reporting_call(call, context):
        return True
    return isinstance(call.func, ast.Attribute) and call.func.attr in ("append", "format") and not qualified


def _binds_shown_name(parent: ast.AST, child: ast.AST, loop: ast.AST, context, depth: int = 0) -> bool:
    """`log = {"loss": value}` or `total += value` whose name every later read only shows (a dict display
    handed to a progress bar, a host running total printed): the value is shown, one binding removed.
    The running total is read wherever its scope reads it (printed after the loop or per epoch)."""
    if depth > 1:
        return False
    if isinstance(parent, ast.Assign) and child is parent.value and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        return _only_shown_after(parent.targets[0].id, loop, parent, context, depth + 1)
    if isinstance(parent, ast.AugAssign) and child is parent.value and isinstance(parent.target, ast.Name):
        return _only_shown_after(parent.target.id, context.scope(loop).node, parent, context, depth + 1)
    return False


def _only_shown_after(name: str, loop: ast.AST, assignment: ast.AST, context, depth: int = 0) -> bool:
    """Every read of `name` in the loop after it is rebound to its host copy (`m = jax.device_get(m)`)
    only shows it: handed, directly or as text, to `print`, a reporter or a reporter of the module, or
    kept by an accumulator for a later report (semantic/accumulators.py). A copy kept in a list,
    stepped into an environment or handed to other code is needed by the host."""
    region = loop_body(loop) if isinstance(loop, (ast.For, ast.While, ast.AsyncFor)) else [
        n for n in walk(loop) if isinstance(n, ast.Name) and n.id == name and context.model.scope_for(n) is context.scope(assignment)]
    uses = [
        n for n in region
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and not is_within(n, assignment)
    ]
    if not uses:
        return False
    for use in uses:
        child, parent = use, parent_of(use)
        while True:
            if _binds_shown_name(parent, child, loop, context, depth):
                break
            if parent is None or parent is loop or isinstance(parent, ast.stmt):
                return False
            if isinstance(parent, ast.Call):
                if child is parent.func:
                    return False
                qualified = context.qualified_name(parent.func)
                if qualified == "builtins.print" or (_is_reporting_call(parent, context) and not _writes_in_background(parent, context)) or _project_reporter(parent, child, context):
                    break
                if keeps_for_later(parent, loop):
                    break  # kept by an accumulator for a later report: not needed now either
                if qualified not in ("builtins.float", "builtins.str", "builtins.format", "builtins.round"):
                    return False
            elif not isinstance(parent, (ast.FormattedValue, ast.JoinedStr, ast.Subscript, ast.Attribute, ast.Dict, ast.Tuple, ast.keyword, ast.BinOp)):
                return False
            child, parent = parent, parent_of(parent)
    return True


def _project_reporter(call: ast.Call, argument: ast.AST, context) -> bool:
    """`print_metrics(metrics, step)`, `self.show(metrics)`: a function of the module that only shows
    the parameter the value fills (semantic/effects.shown_only_parameters): it reports the value, as
    `print` does, and needs it for nothing else."""
    position = next((index for index, a in enumerate(call.args) if a is argument), None)
    if position is None:
        return False
    scope = callee_scope(call, context.model)
    if scope is None or not scope.is_function or scope.in_traced:
        return False
    return position in effects.shown_only_parameters(scope.node, scope.has_self, context.model.qualified_name)


def _callee_text(call: ast.Call, context) -> str:
    func = call.func
    while isinstance(func, ast.Call):
        func = func.func
    return snippet(context.text(func))


def _needed_only_under_condition(use: ast.AST, assignment: ast.AST, names: set[str], loop: ast.AST) -> bool:
    """`use` sits in a branch the assignment is outside of, and the branch's test does not read the
    value itself: the host needs the value only when that condition holds, yet the sync runs every
    iteration (`kl = x.item()` then `if self.target_kl is not None: adapt(kl)`). A test that reads
    it (`if kl > limit: adapt(kl)`) needs it every iteration."""
    child, parent = use, parent_of(use)
    while parent is not None and parent is not loop:
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test and not is_within(assignment, parent):
            if not (flow.loaded_names(parent.test) & names):
                return True
        child, parent = parent, parent_of(parent)
    return False


_BOOLEAN_FUNCTIONS = frozenset({
    "jax.numpy.isnan", "jax.numpy.isinf", "jax.numpy.isfinite", "jax.numpy.logical_and", "jax.numpy.logical_or",
    "jax.numpy.logical_not", "jax.numpy.logical_xor", "jax.numpy.isclose", "jax.numpy.equal", "jax.numpy.not_equal",
    "jax.numpy.greater", "jax.numpy.greater_equal", "jax.numpy.less", "jax.numpy.less_equal", "jax.numpy.isin",
})


def _boolean_mask(node: ast.AST, values: LoopValues) -> ast.expr | None:
    """The device boolean mask of `x[mask]` (read, not assigned): a comparison, a `jnp.isfinite`-like
    call, `~`/`&`/`|` of those, or a name the loop binds only to such."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
        return None
    index = node.slice
    if _is_boolean(index, values, set()) and values.is_device(index):
        return index
    return None


def _is_boolean(expression: ast.AST, values: LoopValues, visiting: set[str]) -> bool:
    if isinstance(expression, ast.Compare):
        return not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expression.ops)
    if isinstance(expression, ast.UnaryOp) and isinstance(expression.op, ast.Invert):
        return _is_boolean(expression.operand, values, visiting)
    if isinstance(expression, ast.BinOp) and isinstance(expression.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _is_boolean(expression.left, values, visiting) and _is_boolean(expression.right, values, visiting)
    if isinstance(expression, ast.Call):
        if values.model.qualified_name(expression.func) in _BOOLEAN_FUNCTIONS:
            return True
        function = expression.func
        return (
            isinstance(function, ast.Attribute) and function.attr == "astype" and len(expression.args) == 1
            and isinstance(expression.args[0], ast.Name) and expression.args[0].id == "bool"
        )
    if isinstance(expression, ast.Name) and expression.id not in visiting:
        visiting.add(expression.id)
        bound = values.bound_in_loop(expression.id)
        return bool(bound) and all(_is_boolean(value, values, visiting) for value in bound)
    return False


def _computed_from(names: set[str], values: LoopValues, context) -> set[str]:
    """`names` and the fresh names they were computed from by array operations in the loop (`keep =
    scores > 0.5` was computed from `scores`): waiting for them waits for those too."""
    found = set(names)
    stack = list(names)
    while stack:
        name = stack.pop()
        for value in values.bound_in_loop(name):
            if isinstance(value, ast.AugAssign) or not _array_operations_only(value, context):
                continue
            for read in walk(value):
                if isinstance(read, ast.Name) and read.id not in found and values.is_fresh(read):
                    found.add(read.id)
                    stack.append(read.id)
    return found


# A loop this short that prints or plots each result is a look at a few predictions, not a hot loop.
_SHORT_LOOP = 20
_PLOT_METHODS = frozenset({"imshow", "plot", "scatter", "set_title", "title", "text", "bar", "hist", "matshow", "set_xlabel", "set_ylabel"})


def _short_report_loop(loop: ast.AST, values: LoopValues, context) -> bool:
    """A loop over at most `_SHORT_LOOP` items (`range(5)`, `images[:8]`, `zip(xs[:4], ys)`) that
    carries no state from one iteration to the next and prints or plots what it computes: the host
    needs each prediction, and a handful of waits is the point."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    if _demonstration_loop(loop, values, context) or _tutorial_output_loop(loop, values, context):
        return True
    if not _few_items(loop.iter) and not _counted_at_most(loop, values, context, _SHORT_LOOP):
        return False
    if _carries_training_state(loop, context) or _carries_values(loop):
        return False
    return any(isinstance(node, ast.Call) and _shows_output(node, context) for node in values.body)


def _recorded_rollout(loop: ast.AST, context) -> bool:
    """A rollout run once per program (loop_cost.runs_once, no loop around it) that records every
    state it steps through and shows them after the loop (display_work.recorded_for_display: a render
    of the trajectory, a video), with no training step in it (no call named for training or an
    update, no gradient): its purpose is to show each state, and a read of the episode's flag beside
    it waits a few milliseconds in all."""
    model = context.model
    scope = context.scope(loop)
    if next(flow.enclosing_loops(loop), None) is not None or not loop_cost.runs_once(scope, model):
        return False
    for node in loop_body(loop):
        if not isinstance(node, ast.Call):
            continue
        if (context.qualified_name(node.func) or "") in jaxapi.DIFFERENTIATING:
            return False
        callee = context.text(node.func).rsplit(".", 1)[-1].lower()
        if ("train" in callee or "update" in callee) and runs_compiled(node, model):
            return False
    return display_work.recorded_for_display(loop, model) is not None


def _shows_output(call: ast.Call, context) -> bool:
    """A call that prints or plots: `print`, matplotlib, or a plotting method of a local object."""
    qualified = context.qualified_name(call.func) or ""
    if qualified == "builtins.print" or qualified.startswith("matplotlib."):
        return True
    return not qualified and isinstance(call.func, ast.Attribute) and call.func.attr in _PLOT_METHODS


def _tutorial_output_loop(loop: ast.AST, values: LoopValues, context) -> bool:
    """In demonstration code (a notebook, docs/, examples/, tutorials/: semantic/demo_code.py), a loop
    of at most `_SHORT_LOOP` iterations the source fixes (`range(10)`, `range(steps)` with `steps=20`
    left at its default) that prints or plots on every iteration: the reader is meant to watch each
    step, a training step included, and a handful of waits is what the page shows."""
    if not demo_code.is_demonstration_module(str(context.source.filename)):
        return False
    count = iteration_count(loop.iter, values.scope, context.model)
    if count is None or count > _SHORT_LOOP:
        return False
    return any(
        isinstance(node, ast.Call) and not _under_varying_condition(node, loop, context) and _shows_output(node, context)
        for node in values.body
    )


def _under_varying_condition(node: ast.AST, loop: ast.AST, context) -> bool:
    """`_under_condition`, where a test that holds on every iteration (`i % print_freq == 0` with
    `print_freq = 1`) is no condition."""
    child, parent = node, parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
            if not holds_every_iteration(parent.test, context.model, loop):
                return True
        elif isinstance(parent, (ast.Try, ast.With)):
            return True
        child, parent = parent, parent_of(parent)
    return False


_DEMONSTRATION_ITERATIONS = 10


def _demonstration_loop(loop: ast.AST, values: LoopValues, context) -> bool:
    """A notebook demonstration: at most ten iterations the source fixes (`range(1, 10)`, a short
    literal list, `range(n)` with `n = 6` above it: semantic/loop_cost.py) whose body mostly shows things, at least twice as many print or plot calls as
    compiled calls, none of them a training step (`train_step`, `update`). It may carry state (a
    buffer filled one item per iteration to show how it grows): a handful of waits is its purpose."""
    if not _counted_at_most(loop, values, context, _DEMONSTRATION_ITERATIONS):
        return False
    model = context.model
    shows = compiled = 0
    for node in values.body:
        if not isinstance(node, ast.Call):
            continue
        qualified = context.qualified_name(node.func) or ""
        if qualified == "builtins.print" or qualified.startswith("matplotlib.") or (
            not qualified and isinstance(node.func, ast.Attribute) and node.func.attr in _PLOT_METHODS
        ):
            shows += 1
        elif model.jit_binding_for_call(node) is not None or runs_compiled(node, model):
            callee = context.text(node.func).rsplit(".", 1)[-1].lower()
            if "train" in callee or "update" in callee:
                return False
            compiled += 1
    return shows >= 2 and shows >= 2 * compiled


def _few_reads_per_program(loop: ast.AST, scope, model) -> bool:
    """The loop's body runs a handful of times in the whole program (flow.FEW_ITERATIONS), as the model
    counts it (semantic/loop_cost.py): its trip count times those of the loops around it, all fixed by
    the source (`for step in range(n_steps)` with `n_steps = 5` above it, evenly spaced points), in
    code that runs once (a script's body, a notebook, an entry point). Not a short inner loop of a
    step loop (`for _ in range(policy_frequency)` inside `for step in range(total_steps)`), nor one in
    a function called per epoch: those read once per outer step."""
    count = loop_cost.iterations_per_run(loop, scope, model)
    return count is not None and count <= flow.FEW_ITERATIONS and loop_cost.runs_once(scope, model)


def _counted_at_most(loop: ast.AST, values: LoopValues, context, limit: int) -> bool:
    """The model's trip count of `loop` (semantic/loop_cost.py: `range(n)` with `n` fixed above it,
    a literal container or an array built from one, evenly spaced points) is known and at most `limit`."""
    count = loop_cost.loop_iterations(loop, values.scope, context.model)
    return count is not None and count <= limit


def _carries_values(loop: ast.AST) -> bool:
    """Some iteration reads what an earlier one bound: `key, sub = split(key)`, `total += x`,
    `state = f(state)`. Independent predictions carry nothing."""
    for node in loop_body(loop):
        if isinstance(node, ast.AugAssign):
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {name for target in targets for name in flow.target_names(target)}
            if bound & flow.loaded_names(node.value):
                return True
    return False


def _few_items(iterable: ast.expr) -> bool:
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name):
        if iterable.func.id == "enumerate" and iterable.args:
            return _few_items(iterable.args[0])
        if iterable.func.id == "zip" and iterable.args:
            return any(_few_items(argument) for argument in iterable.args)
        if iterable.func.id == "range" and iterable.args:
            bounds = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, int) else None for a in iterable.args]
            if None in bounds:
                return False
            try:
                return len(range(*bounds)) <= _SHORT_LOOP
            except (TypeError, ValueError):
                return False
        return False
    if isinstance(iterable, ast.Subscript) and isinstance(iterable.slice, ast.Slice):
        lower, upper, step = iterable.slice.lower, iterable.slice.upper, iterable.slice.step
        if step is not None or not (isinstance(upper, ast.Constant) and isinstance(upper.value, int)):
            return False
        start = 0 if lower is None else lower.value if isinstance(lower, ast.Constant) and isinstance(lower.value, int) else None
        return start is not None and 0 <= start <= upper.value and upper.value - start <= _SHORT_LOOP
    return False


RULE = HostSyncInLoop()
