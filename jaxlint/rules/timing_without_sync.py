"""## What it does
Flags a wall-clock interval, `t0 = time.time()` ... `time.time() - t0` (also `perf_counter`,
`monotonic`, `timeit.default_timer`, and the CPU-time clocks `process_time` and `thread_time`, in
seconds or nanoseconds, under whatever name they are imported: `from time import process_time`;
jaxapi.CLOCKS; and `datetime.now()`, `utcnow()`, `today()`, whose difference is a `timedelta`), whose end stamp is taken while JAX work it holds may still
run: going backwards from the end stamp along the code that runs before it (semantic/timed_work.py),
device work comes before anything that waits for it. Device work is a compiled call that computes
something, a function of the project or a vmapped/transformed call that returns device arrays, or
eager `jnp`/`lax` operations and `jax.device_put` that the start stamp or a compiled call precedes,
among them a function of the module that only returns operator arithmetic of its parameters, called
with a device array (`square(x)` with `def square(v): return v ** 2`), or a plain function of the
project whose straight-line body (local bindings and a return, no branch, loop or read) calls only
whole-array `jnp`/`lax` operations, array methods that stay on the device, and such functions
(`def relax(v, i): fired = v > 0.3; return jnp.where(fired, reset, v + i)`; semantic/timed_work.
array_operations_only): it dispatches each operation and returns while they run. An eager `lax.scan`,
`fori_loop`, `while_loop` or `lax.map` is one compiled program, dispatched like a jitted call: a
wait before it (a data loader that reads its batches on the host, then the epoch's scan) does not
cover it. And a function or method of
the project, in this module or another, that returns while compiled work it dispatched still runs
(`samples = run_chain(x0, n)` around a loop of a jitted step, returning its state or handing it to
an accessor jaxlint does not know, `return sampler.get_params(state)`; semantic/timed_work.py's
work_left_running). A call of a parameter runs what the callers hand it: where every call of the
function, in its module or (for a module-level function the module never calls) in the modules that
import it, fills the parameter with compiled code (a jitted function, a `lax` loop handed as a value,
`jax.lax.scan`; a factory's closure that only calls a jitted function; a parameter of the caller its
own callers fill so), the call is a compiled call, and the message names what they pass
(semantic/passed_compiled.py): `def time_it(fn, *args)` in a module that names no JAX, called as
`time_it(jax.lax.scan, body, state, batches)` elsewhere, is flagged. A parameter some caller fills
with a plain Python function, or one the function binds again, is not known. A plain function traced elsewhere (differentiated by `jax.grad` in a jitted
step) runs op by op where host code calls it by name (`score = objective(params, held_out)`).
Stamps kept in a list are intervals too: `stamps.append(time.time())` on every lap of a loop, the list
made before the loop (`stamps = [time.time()]` or `[]`) and differences of its items taken after it
(`t - stamps[0]`, `np.diff(stamps)`); each lap's interval runs from the previous lap's stamp, and the
finding is on the appended stamp. A list of stamps never differenced is a log of moments, not flagged.
The stamps may sit in different blocks: a start before the training loop and an end stamp under
`if step % 100 == 0:` inside it (steps per second logged, nothing read after the stamp), a
cumulative time printed per step, a branch whose test is a host value (`if out is None`).
A tree map between the call and the end stamp (`jax.tree.map(lambda p: p / n, state)`, or of a `jnp`
function or a function of the module made of array operations) dispatches those operations leaf by
leaf and reads nothing: the interval still ends before the work (one whose function reads, `.item()`
or `np.asarray`, waits). Rebuilding a pytree container between the call and the end stamp (`state = state.replace(params=p)`
of a flax or chex dataclass, a NamedTuple's `._replace`, `dataclasses.replace`) reads nothing: the
interval still ends before the work. An `nnx.jit` step that updates the modules it is handed in place
(`optimizer.update(model, grads)`, `metrics.update(...)`) is work whether it returns nothing, the
modules, or a loss; where its result is nothing or the modules, the advice is to read a value it
updated (no automatic fix: `block_until_ready` of a module or of None returns at once). The finding is on the end stamp and names the work that was
timed: the last compiled call, else the last array operation that is not key bookkeeping
(`random.fold_in`, `random.split`).

Also flags `timeit.timeit(...)`, `timeit.repeat(...)` and `timeit.Timer(...)` of a lambda or a local
function without arguments that returns while device work it dispatched still runs
(`timeit.timeit(lambda: step(x), number=100)`): each run measures dispatch. So does a notebook's
`%timeit step(x)` line, which runs the expression the same way (no automatic fix on IPython syntax;
`%timeit y = step(x)` times the same value, the name being local to IPython's timing function),
a cell under `%%time` or `%%timeit` (also below another cell magic such as `%%capture`): the rest
of the cell is the interval, and it ends when the cell's last statement returns (the value a cell
ends with is displayed after the time is taken), and a `%time step(x)` or `%time y = step(x)` line,
which runs its expression once the way `%timeit` runs it many times.

Also flags a `with` block timed by a context manager that stamps a clock when the block starts and
again when it ends (semantic/timer_contexts.py): a library timer (`with Timer("step"):` of
`codetiming`, `linetimer.CodeTimer`), a class of the module whose `__enter__` and `__exit__` both read
a clock, or a `contextlib.contextmanager` function that reads a clock before its `yield` and after it.
The block is the interval, as a `%%time` cell is: it ends when the block's last statement returns. The
finding is on the timer of the `with` statement.

Not flagged, as principles:
- a context manager that stamps one moment, not an interval (a clock read on entering only, or
  before the `yield` only), and any context manager that reads no clock (a mesh, a profiler trace);
- work that returns only when it has finished (benchmarks/callback_sync.py, CPU and H200): a
  compiled program that calls back to the host (`jax.debug.callback`/`print`, `io_callback`,
  `pure_callback`, in its body, a scan body or cond branch, a function it calls, or a factory of
  another module of the project that builds it), and every computation of a program that switches
  `jax_debug_nans` on at its top level;
- intervals that wait: they block (`.block_until_ready()`, `jax.block_until_ready`), read a result
  on the host (`float`, `.item()`, `np.asarray`, `jax.device_get`, `print`/`str`/an f-string of a
  device value, also in the end stamp's own statement before the stamp; a store of a device value into
  a NumPy array, `trace[i] = loss` or `history["loss"][i] = loss` with `history` a dict of NumPy
  arrays, which NumPy copies to the host: semantic/device_indices.stores_into_host_array), branch on a device value,
  call a function of the project that reads what it computes (`float`, `.item()`, a print of it,
  also in its `return`) or whose last act is such a read with nothing dispatched after it (an epoch
  function ending in `step = int(state.step)` or a host copy of its metrics returns when its work is
  done, whatever device values it hands back: semantic/timed_work.returns_when_done), or hand a device value (or the
  object's own state: `self.log(...)`) to a call jaxlint does not know (a logger or writer may read
  it; a library's compiled functions over an explicit state, such as an evolution strategy's `ask`
  and `tell`, are known and read nothing). A wait covers the work dispatched before it, not the work after it (a loader that waits, then a
scan dispatched and never waited for, is flagged). A wait on any path decides: a branch or loop before the end stamp that may wait (`if
  loss_changed: print(loss)`) makes the measurement plausible. A loop whose only waits sit under a
  periodic gate of its counter waits on the laps that take the gate, not on the laps after the last
  of them: where the source's count leaves more than a few (8) laps after the last wait, or the count
  is open and the period exceeds 9 (`for i, batch in enumerate(loader): ...; if i % 100 == 0:
  bar.set_postfix(loss=f"{loss:.4f}")`: up to 99 laps; `for i in range(250)` with `if i % 100 == 0:`:
  49; a gate joined to conditions that hold for the whole loop, `if verbose and i % 10 == 0:`, is
  that gate, and where they do not hold nothing waits at all), the work of those laps is unwaited at an end stamp after the loop, and the interval is flagged
  (semantic/branch_shares.laps_after_last_gate). Not where the last lap takes the gate (`range(201)`),
  where a few laps at most follow the last wait (`if i % 5 == 0:`), or where the loop runs a thousand
  counted laps or more (the tail is a few percent of the window: semantic/throughput.py). The same
  holds for an interval restarted every lap (`t0 = time.time()` in the loop body) whose only wait
  before the end stamp sits under such a gate with a period above 9 (`if i % 100 == 0:
  print(loss)`): the laps that skip the gate end while their work runs, and the interval is flagged
  (semantic/branch_shares.gate_period); not where the end stamp sits under the same gate.
  Host code between (`pbar.update(1)`, list
  appends, calls handed host values only) neither waits nor dispatches and is passed over;
- intervals whose work is not asynchronous device work: no JAX work, only host copies
  (`jnp.array(host_data)` and `jnp.asarray` copy from the host before they return, so timing them
  measures the copy; `jnp.load` reads the file on the host), calls that hand back parts of what they
  were given (`nnx.split(model)`), jitted calls that hand back their inputs unchanged (measuring
  dispatch is the point), or only eager operations on what a call jaxlint does not know returned
  (that call may have waited, and the operations alone are cheap; in a script's or notebook's
  top-level code, the binding that reaches the read decides: `x` drawn on the device above the
  interval and rebound from an unknown call ten cells later is still a device array there);
- intervals that run their work op by op on the host, with nothing compiled in them: a loop or
  comprehension of the interval that walks a device array row by row with eager operations
  (`for t in range(n): h = jnp.tanh(h @ w + xs[t])`), or a function transformed and called
  outside jit (`grad(f)(x)`, `vmap(grad(f))(xs)`, traced on every call; also the callable `timeit`
  or `%timeit` times, `%timeit jax.jacrev(f)(x)`): tracing and dispatching
  each small operation is the cost they measure, and at most the last one is unfinished at the
  end stamp (eager operations on whole arrays, `y = x ** 2`, also repeated, stay flagged);
- a function of the project timed as a whole whose compiled work costs its dispatch or its
  compilation: it walks a device array element by element, one small step each (`for obs in
  data[1:]`; of what its caller hands in, whose kind only the caller knows), or jits a closure of its own on every call (`jax.jit(init)(key)`, traced and compiled
  before it returns), or runs a `lax` loop (`fori_loop`, `scan`, `while_loop`) outside `jit` on a
  body function it defines in its own body, a nested `def` or a lambda, itself or in a function of
  the module it calls (JAX caches the loop on the body's identity, so a new body is traced and
  compiled on every call: 148 ms a call against 0.16 ms for a body of the module, jax 0.10.2 CPU;
  semantic/timed_work.compiles_afresh), with no compiled call of its own compiled once; nor one
  whose compiled results it reads before returning, itself or in a function it calls
  (`np.linalg.norm(A @ x - b)` after a solve);
- a loop that waits on every lap and the short tail after it: a `while` whose test reads a device
  value (`while error > tol:`, the test running once more after the last lap), or a loop with a
  statement at its own level that surely reads one (`history.append(float(loss))`), of an open
  count or ten laps or more, followed, in the interval or in a function of the project it calls
  (`v = solve(model)` with the loop and a final `return get_greedy(v)`), by straight-line code
  without a loop whose compiled calls run none (no Python loop or comprehension, no `lax` loop or
  iterative solver in the functions it calls): the tail is about one lap's work of a loop that ran
  many, each waited for (semantic/timed_work.tail_after_waiting_loop). A tail that loops (200
  compiled steps after a bisection, a jitted `lax.fori_loop`), a loop of a few counted laps, a loop
  whose reads are gated to some laps, or a tail calling a function jaxlint cannot read, stay flagged;
- an interval over many iterations of a loop around the end stamp (its start stamp outside it)
  whose body surely waits somewhere besides the end stamp's own branch (`if jnp.max(w) > limit:`
  every step, `history.append(float(loss))`) where no fresh restart of the interval's start follows
  the wait before the stamp comes round again (a wait followed by `save_time += time.time() - mark;
  mark = time.time()` is that other timer's, and this interval, restarted after it, holds the
  unwaited work): at most one iteration's work is unwaited at the stamp;
  nor one whose own branch, right after the end stamp and on every lap that takes it, waits (`if i %
  10 == 0: now = time.time(); print(f"{loss} {now - last}"); last = now`): that wait falls inside the
  next interval, so chained from stamp to stamp, or from a start before the loop, each interval holds
  the steps it spans, one window late (a wait under a further `if` there may not come, and counts not);
- an interval that holds a thousand compiled steps or more (semantic/throughput.py): a loop of a
  known count of 1000 or more between the stamps that runs a compiled call on every iteration
  (`for _ in range(5000): state = step(state, batch)`, then the end stamp), or an end stamp under a
  periodic branch of the loop's counter with a known period of 1000 or more (`if i % 5000 == 0:`, the
  start taken before the loop or again under that branch). The runtime admits only a few dozen
  computations in flight per device (XLA's `max_inflight_computations`, 32 by default on GPU and
  TPU); a host further ahead waits in the next dispatch, so at most those are unfinished at the end
  stamp and the window measures throughput to a few percent. A hundred steps, a window of unknown
  length (a data loader, a period read from a configuration) or work after the loop stay flagged;
- compilation time: the first call of a jitted function in its scope, outside any loop of the
  interval, timed by stamps the code names as compiling, tracing, a first or warm-up call
  (`compile_seconds = t1 - t0`, `log("compiling...")` inside the interval; for a timed `with` block,
  the timer's arguments or the block's text: `with Timer("compilation"): step(x)`): tracing and
  compiling run synchronously before the call returns, so the interval measures what it says;
- code in traced functions, and tests skipped unconditionally (`@pytest.mark.skip`,
  `@unittest.skip`: the interval never runs; `skipif` may let it run, and is checked).

Test code is flagged like any other: an interval timed in a test is there to be read, and the
number it prints is wrong the same way (the test-code policy of semantic/test_code.py skips costs
that reach no one, and this measurement reaches its reader).

## Why is this bad?
JAX dispatches asynchronously: a jitted call or an eager `jnp` operation returns as soon as the work
is queued. The interval then measures dispatch, not computation, and the cost shows up later, in
whatever line first reads the result. See "Asynchronous dispatch"
(https://docs.jax.dev/en/latest/async_dispatch.html) and the benchmarking FAQ
(https://docs.jax.dev/en/latest/faq.html#benchmarking-jax-code).

## Example
```python
start = time.perf_counter()
out = step(params, batch)
elapsed = time.perf_counter() - start
```

## Use instead
```python
start = time.perf_counter()
out = jax.block_until_ready(step(params, batch))
elapsed = time.perf_counter() - start
```

## Fix safety
Safe: `jax.block_until_ready` returns its argument unchanged, so the program computes the same
values; only the measured interval changes, to the one that was meant. The fix waits once, for the
last result computed in the interval, inserting `jax.block_until_ready(name)` just before the end
stamp (under its branch, when it has one) when the name it is bound to (directly, or through
arithmetic: `x = x + step(x) * lr`; every name a helper returns, `(a, b)`, since a helper's outputs
may come from different compiled calls) is surely bound there (or the end stamp's own statement reads it first, as in
`return y, time.time() - t0`), and wrapping the call otherwise. It never waits inside a loop of the
interval: a wait there would sync every iteration and time something else, so a result bound only
in the loop and not surely bound at the end stamp gets no fix, as does a project that supports a
JAX older than 0.2.27, which lacks `jax.block_until_ready`. A lambda timed by `timeit` gets its body
wrapped (`lambda: jax.block_until_ready(step(x))`: `timeit` discards the value); a named function
gets no fix.

## How the runtime mode confirms it
It times the interval as written and with the result blocked on: on an accelerator the unblocked
interval is a small fraction of the blocked one (dispatch only).
"""

from __future__ import annotations

import ast
import itertools
import re

from jaxlint import fixes
from jaxlint.fixes import versions
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import flow
from jaxlint.semantic.model import FUNCTION_NODES, parent_of
from jaxlint.semantic.passed_compiled import passed_compiled
from jaxlint.semantic.syntax import TIMED_CELL_MAGIC, TIMEIT_MAGIC
from jaxlint.semantic.test_code import in_skipped_test
from jaxlint.semantic.timer_contexts import times_block
from jaxlint.semantic.timed_work import TIMERS, unwaited_in_callable, unwaited_in_statements, unwaited_work


class TimingWithoutSync(Rule):
    code = "JAX202"
    name = "timing-without-sync"
    summary = "Wall-clock interval around JAX work that never waits for the result"
    node_types = (ast.BinOp, ast.Call, ast.With)
    fix_availability = "sometimes"
    # A timing helper of a module that names no JAX (`def time_it(fn, *args)`), handed compiled code
    # by its importers: the clock reads it needs (semantic/passed_compiled.py).
    fires_on_handed_callables = ("perf_counter", "time.time", "time()", "timeit", "monotonic", "process_time", "datetime")

    def check(self, node: ast.AST, context) -> None:
        if isinstance(node, ast.With):
            self._check_timer_block(node, context)
            return
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == TIMED_CELL_MAGIC:
                self._check_timed_cell(node, context)
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "append":
                self._check_stamp_list(node, context)
            else:
                self._check_timeit(node, context)
            return
        if not isinstance(node.op, ast.Sub) or not isinstance(node.right, ast.Name):
            return
        scope = context.scope(node)
        if scope.in_traced:
            return
        end_statement = self._stamp_statement(node.left, node, context, end=True)
        if end_statement is None:
            return
        start_statement = self._stamp_statement(node.right, end_statement, context, end=False)
        if start_statement is None:
            return
        work = unwaited_work(end_statement, _end_stamp(node, end_statement, context), start_statement, scope, context.model, _computes_nothing)
        if not work:
            return
        last = _timed_call(work, context)
        if _measures_compilation(last, node, start_statement, end_statement, context):
            return
        if in_skipped_test(node, context.model):
            return  # a test the framework never runs measures nothing
        if _updated_in_place_only(last, context):
            # The step updates the modules it is handed in place: its result is not what to wait on.
            advice = "read a value the step updated (a metric) or block on an array of the updated state"
        else:
            advice = "call `jax.block_until_ready(...)` on the result"
        context.report(
            _end_stamp(node, end_statement, context),
            f"this interval times {_timed_text(last, context)} without waiting for its result: JAX dispatches "
            f"asynchronously, so it measures dispatch only; {advice} before the end stamp",
            fix=_fix(last, end_statement, start_statement, context),
        )

    def _check_stamp_list(self, call: ast.Call, context) -> None:
        """`stamps.append(time.time())` on every lap of a loop, with `stamps = [...]` made before the
        loop and differences of its items taken after it (`t - stamps[0]`, `np.diff(stamps)`): each lap
        is an interval from the previous stamp (the list's first stamp, or its making, for the first
        lap) to this one."""
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if not isinstance(receiver, ast.Name) or len(call.args) != 1 or call.keywords:
            return
        stamp = call.args[0]
        if not isinstance(stamp, ast.Call) or context.qualified_name(stamp.func) not in TIMERS:
            return
        end_statement = parent_of(call)
        scope = context.scope(call)
        if not isinstance(end_statement, ast.Expr) or scope.in_traced:
            return
        loop = parent_of(end_statement)
        while loop is not None and not isinstance(loop, (ast.For, ast.AsyncFor, ast.While, *FUNCTION_NODES, ast.ClassDef, ast.Module)):
            loop = parent_of(loop)
        if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
            return
        name = receiver.id
        start_statement = _list_made_before(loop, name)
        if start_statement is None or not _differenced_after(loop, name, context):
            return
        work = unwaited_work(end_statement, stamp, start_statement, scope, context.model, _computes_nothing)
        if not work or in_skipped_test(call, context.model):
            return
        last = _timed_call(work, context)
        context.report(
            stamp,
            f"this interval (the laps between the stamps kept in `{name}`) times {_timed_text(last, context)} "
            f"without waiting for its result: JAX dispatches asynchronously, so it measures dispatch only; "
            f"call `jax.block_until_ready(...)` on the result before the stamp",
        )

    def _check_timer_block(self, statement: ast.With, context) -> None:
        """`with Timer("step"): state = step(state)`: the timer stamps its end while the work runs."""
        scope = context.scope(statement)
        if scope.in_traced:
            return
        timer = next((i.context_expr for i in statement.items if times_block(i.context_expr, scope, context.model)), None)
        if timer is None:
            return
        work = unwaited_in_statements(statement.body, scope, context.model, _computes_nothing)
        if not work:
            return
        last = _timed_call(work, context)
        if in_skipped_test(statement, context.model) or _block_measures_compilation(last, statement, context):
            return
        context.report(
            timer,
            f"`{snippet(context.text(timer))}` times {_timed_text(last, context)} without waiting for its result: "
            f"JAX dispatches asynchronously, so the block's time is dispatch only; end the block with "
            f"`jax.block_until_ready(...)` of the result",
        )

    def _check_timed_cell(self, call: ast.Call, context) -> None:
        """A notebook cell under `%%time` or `%%timeit`, linted as `__jaxlint_timed_cell__("time", n)`
        (notebook.py) before the `n` lines it times: the cell ends while its work runs."""
        statement = parent_of(call)
        module = parent_of(statement)
        if not isinstance(statement, ast.Expr) or not isinstance(module, ast.Module) or len(call.args) != 2:
            return
        magic, length = (argument.value if isinstance(argument, ast.Constant) else None for argument in call.args)
        if not isinstance(magic, str) or not isinstance(length, int):
            return
        after = module.body[module.body.index(statement) + 1:]
        timed = list(itertools.takewhile(lambda s: s.lineno <= statement.lineno + length, after))
        if not timed:
            return
        work = unwaited_in_statements(timed, context.scope(call), context.model, _computes_nothing)
        if not work:
            return
        last = _timed_call(work, context)
        context.report(
            call,
            f"`%%{magic}` times {_timed_text(last, context)} without waiting for its result: JAX dispatches "
            f"asynchronously, so the cell's time is dispatch only; end the cell with "
            f"`jax.block_until_ready(...)` of the result",
        )

    def _check_timeit(self, call: ast.Call, context) -> None:
        """`timeit.timeit(lambda: step(x), number=100)`: the callable returns while its work runs."""
        function = call.func
        spelled = function.attr if isinstance(function, ast.Attribute) else function.id if isinstance(function, ast.Name) else None
        # A notebook's `%timeit f(x)`, linted as `__jaxlint_timeit__(lambda: f(x))`, and `%time y = f(x)`,
        # linted as `__jaxlint_timeit__(lambda: f(x), "time")` (notebook.py).
        once = len(call.args) == 2 and isinstance(call.args[1], ast.Constant) and call.args[1].value == "time"
        magic = isinstance(function, ast.Name) and spelled == TIMEIT_MAGIC and (len(call.args) == 1 or once)
        if not magic and (spelled not in _TIMEIT_NAMES or context.qualified_name(function) not in _TIMEIT_CALLS):
            return
        timed = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "stmt"), None)
        scope = context.scope(call)
        if timed is None or scope.in_traced:
            return
        if isinstance(timed, ast.Lambda):
            callable_node = timed
        elif isinstance(timed, ast.Name):
            resolved = context.model.resolve_function(timed, scope)
            callable_node = resolved[0].node if resolved is not None and resolved[1] == 0 and not resolved[2] else None
            if not isinstance(callable_node, (ast.FunctionDef, ast.AsyncFunctionDef)) or callable_node.args.args:
                return
        else:
            return
        callable_scope = context.model.scope_of_node.get(callable_node) or scope
        work = unwaited_in_callable(callable_node, callable_scope, context.model, _computes_nothing)
        if not work:
            return
        last = _timed_call(work, context)
        if in_skipped_test(call, context.model):
            return  # a test the framework never runs measures nothing
        fix = None
        if magic:
            # The line is IPython syntax in the notebook; a fix would be written on its masked form.
            context.report(
                call,
                f"`%{'time' if once else 'timeit'}` times {_timed_text(last, context)} without waiting for its result: "
                f"JAX dispatches asynchronously, so {'the time printed is' if once else 'each run measures'} dispatch only; "
                f"time `{snippet(context.text(timed.body))}.block_until_ready()` (or `jax.block_until_ready(...)` of it) instead",
            )
            return
        if isinstance(timed, ast.Lambda) and versions.supports(context, versions.BLOCK_UNTIL_READY):
            blocker, import_edits = fixes.reference(context, "jax.block_until_ready")
            if blocker:
                edit = context.replace(timed.body, f"{blocker}({context.text(timed.body)})")
                fix = context.fix(f"Wait for the timed result with `{blocker}`", [edit, *import_edits], safe=True)
        context.report(
            call,
            f"`{snippet(context.text(function))}` times {_timed_text(last, context)} without waiting for its result: "
            f"JAX dispatches asynchronously, so each run measures dispatch only; return "
            f"`jax.block_until_ready(...)` of the result from the timed callable",
            fix=fix,
        )

    def _stamp_statement(self, expression: ast.expr, anchor: ast.AST, context, end: bool) -> ast.stmt | None:
        """The statement that takes the stamp `expression` reads: a timer call, or `name = timer()`."""
        if isinstance(expression, ast.Call):
            if context.qualified_name(expression.func) not in TIMERS or not end:
                return None
            return flow.enclosing_statement(expression)
        if not isinstance(expression, ast.Name):
            return None
        current = flow.enclosing_statement(anchor)
        while current is not None:
            located = flow.statement_list(current)
            if located is None:
                return None
            block, index = located
            # The closest `name = timer()` before the anchor in the same block, with no other binding between.
            for statement in reversed(block[:index]):
                if _is_stamp(statement, expression.id, context):
                    return statement
                if expression.id in flow.assigned_in(statement):
                    return None
            # Read under a branch, a `with` or a loop (`if i % N == 0: print(t1 - t0)`): the stamps are before it.
            parent = parent_of(current)
            current = None if parent is None or isinstance(parent, (*FUNCTION_NODES, ast.ClassDef, ast.Module)) else parent
        return None


_TIMEIT_NAMES = frozenset({"timeit", "repeat", "Timer"})
_TIMEIT_CALLS = frozenset({"timeit.timeit", "timeit.repeat", "timeit.Timer"})


# Words by which code names an interval as the time to compile (`compile_time = t1 - t0`,
# `print(f"trace + compile: {t1 - t0}")`, `first_call = ...`): timing the first call of a jitted
# function measures its tracing and compilation, which run synchronously before the call returns.
# Whole words of names and text (split at `_`, case and punctuation): `firststeps` is not one.
_COMPILATION_WORDS = frozenset({
    "compile", "compiled", "compiles", "compiling", "compilation", "trace", "traced", "tracing",
    "first", "warmup", "warm", "lower", "lowering", "lowered",
})


def _measures_compilation(call: ast.Call, difference: ast.BinOp, start_statement: ast.stmt, end_statement: ast.stmt, context) -> bool:
    """The timed call is the first call of a jitted function in its scope, outside any loop of the
    interval, and the code names the interval as compilation (its stamps, the difference's target or
    the text that reports it)."""
    if context.model.jit_binding_for_call(call) is None:
        return False
    statement = flow.enclosing_statement(call)
    if any(True for _ in flow.enclosing_loops(statement)) and next(flow.enclosing_loops(statement)) not in list(flow.enclosing_loops(start_statement)):
        return False  # repeated inside the interval: not one first call
    if not _first_call(call, context):
        return False
    words: list[str] = []
    reading = flow.enclosing_statement(difference)
    for region in {id(s): s for s in (start_statement, end_statement, reading)}.values():
        for node in ast.walk(region):
            if isinstance(node, ast.Name):
                words.append(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                words.append(node.value)
            elif isinstance(node, ast.Attribute):
                words.append(node.attr)
    located = flow.statement_list(start_statement)
    if located is not None and any(s is end_statement for s in located[0]):
        # The text the interval itself shows (`log("compiling...")`), not its names.
        block, index = located
        for statement in block[index + 1 : next(i for i, s in enumerate(block) if s is end_statement)]:
            words.extend(n.value for n in ast.walk(statement) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return _name_compilation(words)


def _block_measures_compilation(call: ast.Call, statement: ast.With, context) -> bool:
    """`_measures_compilation` for a `with` block a timer times: the first call of a jitted function,
    not repeated by a loop of the block, in a block whose timer or text names compilation
    (`with Timer("compilation"): step(x)`)."""
    if context.model.jit_binding_for_call(call) is None or not _first_call(call, context):
        return False
    if any(_inside(loop, statement) for loop in flow.enclosing_loops(flow.enclosing_statement(call))):
        return False
    words: list[str] = []
    for item in statement.items:
        for node in ast.walk(item.context_expr):
            if isinstance(node, ast.Name):
                words.append(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                words.append(node.value)
    for body_statement in statement.body:
        words.extend(n.value for n in ast.walk(body_statement) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return _name_compilation(words)


def _first_call(call: ast.Call, context) -> bool:
    """No call of the same callee precedes `call` in its scope: it compiles."""
    callee = context.text(call.func)
    function = context.scope(call).node
    for other in flow.walk_same_scope(function):
        if isinstance(other, ast.Call) and other is not call and context.text(other.func) == callee:
            if (other.lineno, other.col_offset) < (call.lineno, call.col_offset):
                return False  # called before: compiled already
    return True


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    current = parent_of(node)
    while current is not None:
        if current is outer:
            return True
        current = parent_of(current)
    return False


def _name_compilation(words: list[str]) -> bool:
    tokens = set(re.split(r"[^a-z]+", " ".join(words).replace("_", " ").lower()))
    return bool(tokens & _COMPILATION_WORDS)


def _list_made_before(loop: ast.AST, name: str) -> ast.Assign | None:
    """`name = [...]` (a list display, empty or holding a first stamp) in the loop's block before it,
    with no other binding of `name` between."""
    located = flow.statement_list(loop)
    if located is None:
        return None
    block, index = located
    for statement in reversed(block[:index]):
        if (
            isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == name
        ):
            return statement if isinstance(statement.value, ast.List) else None
        if name in flow.assigned_in(statement):
            return None
    return None


def _differenced_after(loop: ast.AST, name: str, context) -> bool:
    """Differences of the list's stamps are taken after the loop, in its block: a subtraction with an
    item of the list as an operand (`t - stamps[0]`), or `np.diff(stamps)`."""
    located = flow.statement_list(loop)
    if located is None:
        return False
    block, index = located

    def item(node: ast.AST) -> bool:
        return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name

    for statement in block[index + 1:]:
        for node in ast.walk(statement):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and (item(node.left) or item(node.right)):
                return True
            if (
                isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == name
                and (context.qualified_name(node.func) or "").endswith(("numpy.diff", "numpy.ediff1d"))
            ):
                return True
    return False


def _end_stamp(difference: ast.BinOp, end_statement: ast.stmt, context) -> ast.AST:
    """Where the interval ends: the timer call of `time.time() - t0`, or of `t1 = time.time()` read later."""
    if isinstance(difference.left, ast.Call):
        return difference.left
    value = getattr(end_statement, "value", None)
    return value if isinstance(value, ast.Call) else difference


def _is_stamp(statement: ast.stmt, name: str, context) -> bool:
    return (
        isinstance(statement, ast.Assign) and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name
        and isinstance(statement.value, ast.Call) and context.qualified_name(statement.value.func) in TIMERS
    )


# Key bookkeeping: cheap, and never the work an interval is meant to time.
_KEY_BOOKKEEPING = frozenset({
    "jax.random.fold_in", "jax.random.split", "jax.random.PRNGKey", "jax.random.key", "jax.random.key_data",
    "jax.random.wrap_key_data", "jax.random.clone",
})


def _timed_call(work: list[ast.Call], context) -> ast.Call:
    """The call the interval is about, to name and wait for: the last compiled call, else the last
    array operation that is not key bookkeeping (`random.fold_in` beside a `jnp.dot` times the dot)."""
    model = context.model
    # By where each call ends: `jnp.cumsum(jnp.sin(x))` is the cumsum, the outer call.
    ordered = sorted(work, key=lambda call: (call.end_lineno, call.end_col_offset))
    jitted = [call for call in ordered if model.jit_binding_for_call(call) is not None]
    if jitted:
        return jitted[-1]
    costly = [call for call in ordered if context.qualified_name(call.func) not in _KEY_BOOKKEEPING]
    return (costly or ordered)[-1]


def _timed_text(call: ast.Call, context) -> str:
    """The timed call as the message names it: its callee, and for a parameter what every caller
    hands it (`` `fn` (`jax.lax.scan`, as its callers pass it) ``), the JAX work that was timed."""
    named = f"`{snippet(context.text(call.func))}`"
    if isinstance(call.func, ast.Name) and context.model.jit_binding_for_call(call) is None:
        passed = passed_compiled(call.func.id, context.scope(call), context.model)
        if passed is not None and passed != call.func.id:
            return f"{named} (`{snippet(passed)}`, as its callers pass it)"
    return named


def _computes_nothing(function) -> bool:
    """Every `return` hands back the function's own inputs unchanged (`return graph, state`): a
    dispatch benchmark. A parameter the body rebinds (`state = update(state); return state`) is a result,
    and so is one an `nnx.jit` body updates in place (`optimizer.update(model, grads)`,
    `metrics.update(loss=loss)`, `model.count.value += 1`): its modules come back changed, returned or not."""
    if isinstance(function.node, ast.Lambda):
        return False
    if "flax.nnx.jit" in function.transforms and _updates_parameters_in_place(function):
        return False
    return _returns_only_handed(function)


def _returns_only_handed(function) -> bool:
    """Every `return` (none at all included) hands back parameters the body does not rebind."""
    parameters = set(function.param_nodes)
    parameters -= {name for target, _ in function.bindings for name in _bound_names(target)}
    for value in function.returns:
        elements = value.elts if isinstance(value, ast.Tuple) else [value]
        if not all(isinstance(e, ast.Name) and e.id in parameters for e in elements):
            return False
    return True


def _updated_in_place_only(call: ast.Call, context) -> bool:
    """`train_step(model, optimizer, batch)` of an `nnx.jit` function that returns nothing or only the
    modules it was handed: what it computed lives in those modules, not in a result to wait on."""
    binding = context.model.jit_binding_for_call(call)
    return (
        binding is not None and binding.transform == "flax.nnx.jit" and binding.function is not None
        and _returns_only_handed(binding.function)
    )


def _updates_parameters_in_place(function) -> bool:
    """The body calls a method of a parameter (`optimizer.update(...)`) or assigns into one
    (`model.w.value = ...`, `cache[k] = ...`), outside nested functions."""
    return any(change.kind == "method" or change.assigned
               for change in flow.changes_in_place(function.node, set(function.param_nodes), nested=False))


def _bound_names(target: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}


def _fix(last: ast.Call, end_statement: ast.stmt, start_statement: ast.stmt, context):
    statement = flow.enclosing_statement(last)
    if statement is None:
        return None
    if not versions.supports(context, versions.BLOCK_UNTIL_READY):
        return None  # the project supports a JAX older than the function
    if _updated_in_place_only(last, context):
        # Its results are the modules it updated in place (or nothing): `block_until_ready` of a
        # module or of None returns at once, so there is no call to wait on that the fix could write.
        return None
    blocker, import_edits = fixes.reference(context, "jax.block_until_ready")
    if not blocker:
        return None
    before_end = _dominating_statements(end_statement)
    if isinstance(statement, ast.Assign) and _computed_from(last, statement.value) and len(statement.targets) == 1:
        # Outputs of one jitted call become ready together: waiting for any one surely bound waits for the
        # call; so does waiting for arithmetic of its result (`x = x + step(x) * lr`).
        target = statement.targets[0]
        names = [target.id] if isinstance(target, ast.Name) else [e.id for e in getattr(target, "elts", []) if isinstance(e, ast.Name)]
        surely_bound = [
            candidate for candidate in names
            if any(s is statement for s in before_end) or candidate in context.scope(statement).param_nodes
            or _bound_before(candidate, before_end) or _read_first_by(end_statement, candidate)
        ]
        if context.model.jit_binding_for_call(last) is not None:
            name = surely_bound[0] if surely_bound else None
        else:
            # A helper's outputs may come from different compiled calls: wait for all of them.
            name = None
            if surely_bound and len(surely_bound) == len(names):
                name = names[0] if len(names) == 1 else f"({', '.join(names)})"
        if name is not None:
            # Surely bound at the end stamp: wait for it there, once, leaving the loop (if any) pipelined.
            indent = context.source.indentation(end_statement.lineno)
            if context.source.start(end_statement).column - 1 == len(indent):
                edit = context.insert_before(end_statement, f"{blocker}({name})\n{indent}")
                return context.fix(f"Wait for `{name}` with `{blocker}` before the end stamp", [edit, *import_edits], safe=True)
    located = flow.statement_list(end_statement)
    if located is None or not any(s is statement for s in located[0][: located[1]]):
        # Not in the end stamp's own block (in a loop or a branch of the interval): wrapping the call there
        # would wait on every iteration, or on a path that does not reach the stamp.
        return None
    text = context.text(last)
    edit = context.replace(last, f"{blocker}({text})")
    return context.fix(f"Wrap the result in `{blocker}`", [edit, *import_edits], safe=True)


def _dominating_statements(statement: ast.stmt) -> list[ast.stmt]:
    """The statements that run before `statement` on every path to it in its function: those before it
    in its block, and before each enclosing compound statement in theirs."""
    found: list[ast.stmt] = []
    current = statement
    while True:
        located = flow.statement_list(current)
        if located is None:
            return found
        block, index = located
        found.extend(block[:index])
        parent = parent_of(current)
        if parent is None or isinstance(parent, (*FUNCTION_NODES, ast.ClassDef, ast.Module)):
            return found
        current = parent


def _computed_from(call: ast.Call, value: ast.expr) -> bool:
    """`value` is `call`, or arithmetic whose operand chain reaches it (`-f(x)`, `x + f(x) * lr`): an
    array that is ready only once the call's result is. An attribute or item read (`f(x).shape`) is not."""
    node = call
    while node is not value:
        parent = parent_of(node)
        if not isinstance(parent, (ast.BinOp, ast.UnaryOp)):
            return False
        node = parent
    return True


def _read_first_by(end_statement: ast.stmt, name: str) -> bool:
    """`return y, time.time() - t0`: the end stamp's own statement reads `name` before the stamp, so
    waiting for it just before raises exactly where the original would if it were unbound."""
    if not isinstance(end_statement, (ast.Return, ast.Expr)) or not isinstance(end_statement.value, ast.Tuple):
        return False
    first = end_statement.value.elts[0] if end_statement.value.elts else None
    return isinstance(first, ast.Name) and first.id == name


def _bound_before(name: str, statements: list[ast.stmt]) -> bool:
    for statement in statements:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
            return True
    return False


RULE = TimingWithoutSync()
