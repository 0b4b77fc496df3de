"""What a wall-clock interval measures: the device work dispatched and not yet waited for when the
end stamp is taken (JAX202).

An interval `t0 = timer()` ... `timer() - t0` measures the device work only when something waits
for it before the end stamp. Going backwards from the end stamp along the code that runs before it,
the first thing met decides:

- a wait (`block_until_ready`, a read on the host: `float`, `.item()`, `np.asarray`,
  `jax.device_get`, a `print` or f-string of a device value, a store of one into a NumPy array
  (`history["loss"][i] = loss`: NumPy copies it), a branch on one, a function of the
  project that reads a value it computes, a call whose effect is unknown that is handed a
  device value or the object's own state, or a compiled call whose program calls back to the host,
  which returns only when it has finished: `calls_host_back`): everything before it is done, and
  the interval is true;
- device work (a compiled call that computes something, an eager `jnp`/`lax` operation, a
  function or library call that returns device arrays): it may still run when the stamp is taken,
  and the interval measures its dispatch;
- the start stamp itself: the interval holds no device work.

A tree map (`jax.tree.map(f, tree)`) does what its function does at each leaf: array operations
only (`lambda p: p / n`) make it eager work, not a wait (_Walker._maps_array_operations). A function
of the project whose last device work is an eager `lax` loop on a body of the module leaves that
compiled program running when it returns (_module_loop). A call of a parameter runs what the callers
hand it (semantic/passed_compiled.py).

Host code in between (`pbar.update(1)`, `next(it)`, list appends, calls handed host values only)
neither waits nor dispatches and is passed over. The walk follows the code's structure, not a full
graph: the statements before the end stamp in its block, then the blocks around it (an enclosing
loop also runs its own tail before the end stamp on every iteration after the first); a branch,
loop or `try` before the stamp decides by what any of its paths holds, a wait on any path deciding
(precision first: a wait that may run makes the measurement plausible). A loop whose waits all sit
under a periodic gate of its counter that its last laps skip (`if i % 100 == 0: print(loss)`) decides
by its last lap's way through the body: those laps' work is unwaited (branch_shares.laps_after_last_gate).
A `while` whose test reads a device value ends on that read (the test runs after the last lap), and
a loop that waits on every lap followed by a light tail (no loop of its own) is taken as a wait: the
tail is about one lap's work of many (_Walker.tail_after_waiting_loop). A function that compiles its
device work afresh on every call (a `lax` loop on a body it defines itself, outside `jit`:
compiles_afresh) costs its compilation, synchronous, and is passed over as host work.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from jaxlint.semantic import jaxapi, library_models
from jaxlint.semantic.helper_syncs import call_sync
from jaxlint.semantic.model import FUNCTION_NODES, parent_of
from jaxlint.semantic.syntax import is_main_guard, walk
from jaxlint.semantic.branch_shares import gate_period, laps_after_last_gate
from jaxlint.semantic.throughput import THROUGHPUT_STEPS, spans_many_steps

# The clocks an interval is stamped with: the time module's and timeit's, and datetime's `now()`.
TIMERS = jaxapi.CLOCKS | jaxapi.DATE_CLOCKS

WAIT, WORK, START, NOTHING = "wait", "work", "start", "nothing"

# `jnp.array(host_data)` copies from host memory before it returns (measured on an H100 with jax
# 0.11.2: 0.58 s of a 0.60 s transfer inside the call); only `jax.device_put` returns at once.
# `jnp.load` reads the file on the host (an `.npz` stays NumPy's lazy archive): host I/O, not dispatch.
HOST_COPIES = frozenset({"jax.numpy.array", "jax.numpy.asarray", "jax.numpy.load"})
# Conversions that copy a device value to the host, waiting for it.
_HOST_READS = frozenset({
    "builtins.float", "builtins.int", "builtins.bool", "builtins.complex", "operator.index",
    "numpy.asarray", "numpy.array", "numpy.asanyarray", "numpy.copy", "jax.device_get",
    "jax.block_until_ready",
})
# Text made of a device value (`print(loss)`, `str(loss)`) copies it to the host first.
_FORMATTERS = frozenset({"builtins.print", "builtins.str", "builtins.repr", "builtins.format"})
_READ_METHODS = frozenset({"item", "tolist", "block_until_ready", "__array__", "copy_to_host_async"})
# Calls that only shape host control flow or containers: never a wait, never device work.
_HOST_BOOKKEEPING_METHODS = frozenset({"append", "extend", "insert", "add", "setdefault", "pop", "clear"})
# Rebuilding a pytree container (a flax or chex dataclass, a NamedTuple) makes a new container of the
# same arrays on the host: nothing is read, and nothing waits.
_CONTAINER_REBUILDS = frozenset({"replace", "_replace"})
# Key bookkeeping: cheap, and never the work an interval is meant to time (a `random.fold_in` after
# the waited-for step is not what the interval measures).
_NOT_WORK = frozenset({
    "jax.random.fold_in", "jax.random.split", "jax.random.PRNGKey", "jax.random.key", "jax.random.key_data",
    "jax.random.wrap_key_data", "jax.random.clone",
})


@dataclass(frozen=True)
class Outcome:
    """What the walk met first: WAIT, WORK (with the work calls found, last dispatched first),
    EAGER (only eager array operations so far: what ran before them decides), START (the start stamp
    or a rebinding of its name) or NOTHING."""

    kind: str
    calls: tuple[ast.Call, ...] = ()


EAGER = "eager"
_NOTHING = Outcome(NOTHING)
_WAIT = Outcome(WAIT)
_START = Outcome(START)
_device_like_cache: "WeakKeyDictionary[object, dict[int, frozenset[str]]]" = WeakKeyDictionary()


def unwaited_work(end_statement: ast.stmt, stamp: ast.AST, start_statement: ast.stmt, scope, model, computes_nothing) -> tuple[ast.Call, ...] | None:
    """The device work calls (last dispatched first) that may still run when the timer call `stamp`
    of `end_statement` takes its stamp, when the interval from `start_name`'s stamp holds them; None
    when it waits, holds no device work, or its start stamp is not found on the way back.

    `computes_nothing(binding)`: whether a jitted function hands back its own inputs (dispatch is
    then what is measured)."""
    if checks_every_result(model):
        return None  # every computation waits for its own result (jax_debug_nans)
    start_name = start_statement.targets[0].id
    walker = _Walker(start_name, scope, model, computes_nothing)
    walker.end_gates = _enclosing_tests(end_statement)
    # `print(str(loss), time.time() - t0)`: what the end stamp's own statement evaluates before the stamp.
    own = walker.expression(end_statement, until=(stamp.lineno, stamp.col_offset))
    outcome = _then(own, lambda: walker.before(end_statement))
    if outcome.kind != WORK:
        return None
    if walker.waits_every_lap(end_statement, start_statement):
        return None
    if spans_many_steps(end_statement, start_statement, outcome.calls, scope, model):
        return None  # (a window of a thousand compiled steps or more: a few dozen in flight, throughput measured)
    if walker.dispatch_bound(outcome.calls, stamp, start_statement):
        return None
    if all(walker.eager(call) for call in outcome.calls) and walker.reads_unknown_results(outcome.calls):
        # Eager operations on what an unknown call returned (`path = solver.solve(x)`, then
        # `jnp.split(path, 2)`): that call may have waited, and the operations alone are cheap.
        return None
    return outcome.calls


def unwaited_in_callable(function: ast.AST, scope, model, computes_nothing) -> tuple[ast.Call, ...] | None:
    """The device work calls (last dispatched first) that a callable timed by `timeit` leaves running
    when it returns (`timeit.timeit(lambda: step(x))`), or None when it waits or runs none."""
    if checks_every_result(model):
        return None  # every computation waits for its own result (jax_debug_nans)
    walker = _Walker("", scope, model, computes_nothing)
    if isinstance(function, ast.Lambda):
        if walker.per_element(function.body):
            return None  # `[f(a, b) for a, b in zip(xs, ys)]`: one dispatch per row, the cost it measures
        outcome = walker.expression(function.body)
    else:
        outcome = walker.backwards(function.body)
    if outcome.kind != WAIT and outcome.calls and all(walker.eager_transform(call) for call in outcome.calls):
        # `timeit(lambda: jax.grad(f)(x))`: traced on every call, then run op by op; tracing and
        # dispatching is the cost measured, as in an interval (`_Walker.dispatch_bound`).
        return None
    return _left_running(outcome, walker)


def unwaited_in_statements(statements: list[ast.stmt], scope, model, computes_nothing) -> tuple[ast.Call, ...] | None:
    """The device work calls (last dispatched first) that a run of `statements` timed as a whole
    leaves running at its end (a notebook cell under `%%time`), or None when it waits or runs none."""
    if checks_every_result(model):
        return None
    walker = _Walker("", scope, model, computes_nothing)
    return _left_running(walker.backwards(statements), walker)


def _left_running(outcome, walker) -> tuple[ast.Call, ...] | None:
    if outcome.kind == EAGER and not walker.reads_unknown_results(outcome.calls):
        return outcome.calls  # eager operations are the work of a timed callable: nothing runs before it
    return outcome.calls if outcome.kind == WORK else None


_left_running_cache: "WeakKeyDictionary[object, dict[int, ast.Call | None]]" = WeakKeyDictionary()


def work_left_running(scope, model, computes_nothing) -> ast.Call | None:
    """Function summary: the compiled call a plain function of the project dispatches and leaves
    running when it returns (`def run_chain(x, n): for i in range(n): x = step(x); return x` with a
    jitted `step`), or None. Read backwards from the end of its body, as an interval is from its end
    stamp: compiled work met before any wait. One relaxation, for a loop of compiled steps: a
    `return` that only hands the loop's state to a call jaxlint does not know
    (`return sampler.get_params(state)`, an accessor of the result) is not taken as a wait: to wait,
    it would have to copy the final state to the host, which a function handing back device work
    (every step of the loop queued) has no reason to do; a read jaxlint knows (`float`, `.item()`,
    `print`, `np.asarray`) there still waits. A function that times itself (a timer call) is a
    measurement of its own and is not summarised."""
    node = scope.node
    cache = _left_running_cache.setdefault(model, {})
    key = id(node)
    if key in cache:
        return cache[key]
    cache[key] = None  # (recursion: none while being worked out)
    # (Traced elsewhere or not: undecorated, a function called by name from host code runs there.)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
        return None
    if _measures_itself(node, model):
        return None
    walker = _Walker("", scope, model, computes_nothing)
    outcome = walker.backwards(node.body)
    found = None
    if outcome.kind == WORK:
        found = _compiled_among(outcome.calls, walker)
    elif outcome.kind == WAIT and isinstance(node.body[-1], ast.Return) and node.body[-1].value is not None:
        returned = node.body[-1]
        if not walker.waits_somewhere([returned], surely=True):
            before = walker.backwards(node.body[:-1])
            if before.kind == WORK:
                looped = [call for call in before.calls if _in_loop_of(call, node)]
                found = _compiled_among(tuple(looped), walker)
    cache[key] = found
    return found


_ends_waiting: "WeakKeyDictionary[object, dict[int, bool]]" = WeakKeyDictionary()


def _nothing_dispatched_after_last_wait(body: list[ast.stmt], walker: "_Walker") -> bool:
    """The last top-level statement of `body` that surely waits (a read jaxlint knows, not an unknown
    call handed a device value) ends, read backwards, on that wait, and no call after it dispatches
    device work, eager or compiled (`return jnp.stack(states)` after the last wait is work left
    running, however small)."""
    for index in range(len(body) - 1, -1, -1):
        if walker.waits_somewhere([body[index]], surely=True):
            if walker.backwards([body[index]]).kind != WAIT:
                return False
            return not any(
                isinstance(child, ast.Call) and walker._classify_call(child) in (WORK, EAGER)
                for statement in body[index + 1:] for child in _same_scope(statement)
            )
    return False


def returns_when_done(scope, model, computes_nothing) -> bool:
    """Function summary: the plain function's last act, read backwards from the end of its body, is a
    wait for device values, nothing is dispatched after it, and it leaves no compiled work running
    (work_left_running): `train_epoch` whose loop of compiled steps is followed by `step =
    int(state.step)` or a host copy of its metrics. A call of it returns when its work is done,
    whatever device values it hands back, so an interval around the call measures that work (also
    where the function times itself)."""
    node = scope.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
        return False
    cache = _ends_waiting.setdefault(model, {})
    key = id(node)
    if key not in cache:
        cache[key] = False  # (recursion: not while being worked out)
        walker = _Walker("", scope, model, computes_nothing)
        cache[key] = walker.backwards(node.body).kind == WAIT and (
            _nothing_dispatched_after_last_wait(node.body, walker) or walker.tail_after_waiting_loop(node.body)
        )
    return cache[key] and work_left_running(scope, model, computes_nothing) is None


def _measures_itself(function: ast.AST, model) -> bool:
    """The function takes an interval (`timer() - t0`) of its own: its waits and its work are what
    it measures (a timer read for a seed, `int(time.time())`, is not an interval)."""
    def is_timer(node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and model.qualified_name(node.func) in TIMERS

    stamps = {
        target.id for child in _same_scope(function) if isinstance(child, ast.Assign) and is_timer(child.value)
        for target in child.targets if isinstance(target, ast.Name)
    }
    for child in _same_scope(function):
        if isinstance(child, ast.BinOp) and isinstance(child.op, ast.Sub):
            for operand in (child.left, child.right):
                if is_timer(operand) or (isinstance(operand, ast.Name) and operand.id in stamps):
                    return True
    return False


def _compiled_among(calls: tuple[ast.Call, ...], walker: "_Walker") -> ast.Call | None:
    """The first of `calls` that runs compiled code and leaves it running: a jitted callable that
    computes something, or a project function whose own summary says so. A function the model only
    knows returns device arrays is not enough: it may read them on the host before it returns
    (`err = np.linalg.norm(A @ x - b)` after a solve)."""
    for call in calls:
        if walker.model.jit_binding_for_call(call) is not None:
            if _compiled_afresh(call, walker.scope):
                continue  # compiling, synchronous, is most of what a call of the function costs
            if _walks_device_elements(call, walker):
                continue  # one small step per element, dispatched op by op: dispatch is the cost
            if walker._classify_call(call) == WORK:
                return call
        elif walker._project_work_left_running(call) or walker.passed_compiled(call) is not None:
            return call
        elif _module_loop(call, walker):
            return call
    return None


def _module_loop(call: ast.Call, walker: "_Walker") -> bool:
    """`lax.fori_loop(0, n, sweep, state)` run eagerly on a body of the module (not one the function
    makes anew on each call: compiles_afresh), at the top level of the function's body: one compiled
    program, cached, dispatched like a jitted call and left running when the function returns."""
    qualified = walker.model.qualified_name(call.func)
    if qualified not in jaxapi.LAX_LOOP_BODY or _loop_on_own_closure(call, walker.scope, walker.model):
        return False
    from jaxlint.semantic.flow import enclosing_statement

    if parent_of(enclosing_statement(call)) is not walker.scope.node:
        return False  # under a branch or in a loop of the function: it may not run, or not last
    place = jaxapi.LAX_LOOP_BODY[qualified]
    body = call.args[place[0]] if len(call.args) > place[0] else next((k.value for k in call.keywords if k.arg == place[1]), None)
    if not isinstance(body, ast.Name):
        return False
    resolved = walker.model.resolve_function(body, walker.scope)
    return resolved is not None and resolved[0] is not None and resolved[0].parent is walker.model.module_scope and walker._classify_call(call) == WORK


def _walks_device_elements(call: ast.Call, walker: "_Walker") -> bool:
    """The call sits in a `for` loop over the elements of a device array (`for obs in data[1:]`):
    each element is sliced out by its own eager operation and fed to one small step, so the loop
    runs at the pace of dispatch, as the rows walked op by op of an interval do (dispatch_bound)."""
    from jaxlint.semantic.flow import enclosing_loops

    for loop in enclosing_loops(call):
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        if walker.possibly_device(loop.iter):
            return True
        # The elements of what the caller hands in (`for obs in data[1:]`): maybe a device array,
        # walked element by element; which, only the caller knows (precision first: not summarised).
        root = loop.iter
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        if isinstance(root, ast.Name) and root.id in walker.scope.param_nodes:
            return True
    return False


def _compiled_afresh(call: ast.Call, scope) -> bool:
    """`jax.jit(init, ...)(rng, x)` of a function the caller defines in its own body (a new closure on
    every call of it): traced and compiled again, synchronously, on every call."""
    function = call.func
    if not isinstance(function, ast.Call) or not function.args:
        return False
    compiled = function.args[0]
    return isinstance(compiled, ast.Lambda) or (isinstance(compiled, ast.Name) and compiled.id in scope.defs)


_afresh_cache: "WeakKeyDictionary[object, dict[int, bool]]" = WeakKeyDictionary()


def compiles_afresh(scope, model, depth: int | None = None) -> bool:
    """Function summary: a plain function (no decorator) whose device work is compiled again on
    every call, synchronously, before it is dispatched: in its own body, a `lax` loop (`fori_loop`,
    `scan`, `while_loop`) run outside `jit` on a body function it defines there (a nested `def` or a
    lambda: a new function object on every call, and JAX caches the loop's trace and executable on
    the body's identity: measured on jax 0.10.2, CPU, 148 ms a call against 0.16 ms for a body of
    the module), `jax.jit(local)(x)` of such a function (_compiled_afresh), or a call of a function
    of this module that does so (`depth` calls down); and no call of a compiled function compiled
    once (its run, not its compilation, may be what the call costs). Timed as a whole, such a
    function measures its compilation; the run left unwaited is a small part of it."""
    node = scope.node
    depth = _TAIL_DEPTH if depth is None else depth
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list or depth <= 0:
        return False
    cache = _afresh_cache.setdefault(model, {})
    key = id(node)
    if key in cache:
        return cache[key]
    cache[key] = False  # (recursion: not while being worked out)
    fresh = False
    for call in _same_scope(node):
        if not isinstance(call, ast.Call):
            continue
        if model.jit_binding_for_call(call) is not None:
            if not _compiled_afresh(call, scope):
                return False  # compiled once: its run may be the cost
            fresh = True
        elif _loop_on_own_closure(call, scope, model):
            fresh = True
        elif isinstance(call.func, ast.Name):
            resolved = model.resolve_function(call.func, scope)
            if resolved is not None and resolved[0] is not None and resolved[0] is not scope and compiles_afresh(resolved[0], model, depth - 1):
                fresh = True
    cache[key] = fresh
    return fresh


def _loop_on_own_closure(call: ast.Call, scope, model) -> bool:
    """`lax.fori_loop(0, n, body, init)` whose body is a lambda or a function defined in `scope`'s
    own body: a new function object each time the scope runs."""
    place = jaxapi.LAX_LOOP_BODY.get(model.qualified_name(call.func) or "")
    if place is None:
        return False
    position, keyword = place
    body = call.args[position] if len(call.args) > position else next((k.value for k in call.keywords if k.arg == keyword), None)
    return isinstance(body, ast.Lambda) or (isinstance(body, ast.Name) and body.id in scope.defs)


def _in_loop_of(node: ast.AST, function: ast.AST) -> bool:
    from jaxlint.semantic.flow import LOOP_NODES

    current = parent_of(node)
    while current is not None and current is not function:
        if isinstance(current, LOOP_NODES):
            return True
        current = parent_of(current)
    return False


def _breaks_out(loop: ast.AST) -> bool:
    """A `break` (or `return`) of the loop's own body, outside loops nested in it: the loop may end
    without running its test again."""
    pending = list(loop.body) + list(getattr(loop, "orelse", []))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Break, ast.Return)):
            return True
        if isinstance(node, (*FUNCTION_NODES, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            pending.extend(n for n in ast.walk(node) if isinstance(n, ast.Return))
            continue
        pending.extend(ast.iter_child_nodes(node))
    return False


def _enclosing_tests(statement: ast.stmt) -> frozenset[str]:
    """The tests (ast.dump) of the `if` statements whose body or `else` holds `statement`."""
    tests = set()
    current = parent_of(statement)
    while current is not None and not isinstance(current, (*FUNCTION_NODES, ast.ClassDef, ast.Module)):
        if isinstance(current, ast.If):
            tests.add(ast.dump(current.test))
        current = parent_of(current)
    return frozenset(tests)


def _then(later: Outcome, earlier) -> Outcome:
    """`later` ran after what `earlier()` describes: the first decided answer, going backwards. Eager
    array operations alone decide nothing (their inputs may come from a call that waited): what ran
    before them does, a compiled call or the start stamp making them part of unwaited work."""
    if later.kind not in (NOTHING, EAGER):
        return later
    before = earlier()
    if later.kind == NOTHING:
        return before
    if before.kind in (WORK, START):
        return Outcome(WORK, later.calls + before.calls)
    if before.kind == EAGER:
        return Outcome(EAGER, later.calls + before.calls)
    return later if before.kind == NOTHING else before


class _Walker:
    def __init__(self, start_name: str, scope, model, computes_nothing):
        self.start_name = start_name
        self.scope = scope
        self.model = model
        self.computes_nothing = computes_nothing
        self._device_like: frozenset[str] | None = None
        self.unknown_calls: set[int] = set()  # calls passed over whose effect jaxlint does not know
        self.possible_waits: set[int] = set()  # unknown calls counted as waits because of what they are handed
        # The tests of the branches around the end stamp (ast.dump), where an interval's end is known:
        # a gate the end stamp sits under is taken on every lap that measures.
        self.end_gates: frozenset[str] | None = None

    @property
    def device_like(self) -> frozenset[str]:
        # Asked only about names an unknown call is handed: most intervals decide before that, and
        # the names cost a walk of the whole scope (a script's module).
        if self._device_like is None:
            self._device_like = device_like_names(self.scope, self.model)
        return self._device_like

    # ----- structure -----------------------------------------------------------------------------

    def before(self, statement: ast.stmt) -> Outcome:
        """What runs last before `statement` (on the way back from it to the start stamp)."""
        from jaxlint.semantic.flow import statement_list

        located = statement_list(statement)
        if located is None:
            return _NOTHING
        block, index = located
        return _then(self.backwards(block[:index]), lambda: self._around(statement, block, index))

    def _around(self, statement: ast.stmt, block: list[ast.stmt], index: int) -> Outcome:
        """What runs before the block holding `statement` (the compound statement around it)."""
        parent = parent_of(statement)
        if parent is None or isinstance(parent, (*FUNCTION_NODES, ast.ClassDef, ast.Module)):
            return _NOTHING  # the start stamp was not on the way back
        if isinstance(parent, ast.If):
            return _then(self.test(parent.test), lambda: self.before(parent))
        if isinstance(parent, (ast.With, ast.AsyncWith)):
            return _then(self.expressions([item.context_expr for item in parent.items]), lambda: self.before(parent))
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and statement in parent.body:
            # Every iteration after the first ran the body's tail (the end stamp's statement included) last.
            previous = self.backwards(block[index:])
            if isinstance(parent, ast.While):
                previous = _then(previous, lambda: self.test(parent.test))
            return _either(previous, self.before(parent))
        return self.before(parent)

    def backwards(self, statements: list[ast.stmt]) -> Outcome:
        outcome = _last_first(statements, self.statement)
        if outcome.kind == WORK and self.tail_after_waiting_loop(statements):
            return _WAIT  # (the loop's waits hold the time; the tail is about one lap's work)
        return outcome

    # ----- loops that wait every lap -------------------------------------------------------------

    def tail_after_waiting_loop(self, statements: list[ast.stmt]) -> bool:
        """The device work at the end of `statements` is a light tail after a loop that waits on every
        lap (`while error > tol: ...` on a device value, then `return get_greedy(v)`): the loop ran
        many laps, each waited for, and the tail (no loop of its own: light_tail) is about one lap's
        work, so the time measured is the loop's. The loop and the tail lie after the interval's start."""
        for index in range(len(statements) - 1, -1, -1):
            statement = statements[index]
            if self.start_name and self.start_name in _bound_by(statement):
                return False
            if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
                return self.waits_every_lap_of(statement) and self.light_tail(statements[index + 1:])
        return False

    def waits_every_lap_of(self, loop: ast.AST) -> bool:
        """`loop` reads a device value on the host on every lap, and runs a count of laps not known to
        be small (an open count, or `_MANY_LAPS` or more): a `while` whose test reads one (the test
        runs after every lap), or a statement at the body's own level, not under a branch, that surely
        reads one (`errors.append(float(err))`, a `print` of it)."""
        laps = _counted_laps(loop, self.model)
        if 0 < laps < _MANY_LAPS:
            return False
        if isinstance(loop, ast.While) and self.possibly_device(loop.test):
            return True
        return any(
            isinstance(statement, _SIMPLE_STATEMENTS) and self.waits_somewhere([statement], surely=True)
            for statement in loop.body
        )

    def light_tail(self, statements: list[ast.stmt]) -> bool:
        """Straight-line code without a loop whose device work is light (light_call): no `for`,
        `while` or comprehension, no call that runs a loop."""
        for statement in statements:
            for node in _same_scope(statement):
                if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                    return False
                if isinstance(node, ast.Call) and self._classify_call(node) in (WORK, EAGER) and not self.light_call(node, self.scope, _TAIL_DEPTH):
                    return False
        return True

    def light_call(self, call: ast.Call, scope, depth: int) -> bool:
        """The call runs no loop: an array operation that is not a device loop (`lax.scan`, an
        iterative solver), a compiled function, or a function of this module, whose body (and the
        functions of the module it calls, `depth` calls down) holds no Python loop, comprehension or
        device loop. A call whose function is not known is not light."""
        model = self.model
        qualified = model.qualified_name(call.func)
        if qualified is not None and qualified.startswith(jaxapi.ARRAY_NAMESPACES):
            return qualified not in jaxapi.DEVICE_LOOPS
        binding = model.jit_binding_for_call(call)
        if binding is not None:
            function = binding.function
        else:
            from jaxlint.semantic.host_code import callee_scope

            function = callee_scope(call, model, scope)
        if function is None or depth <= 0 or not isinstance(function.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        for node in walk(function.node):
            if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                return False
            if isinstance(node, ast.Call) and node is not call:
                inner = model.qualified_name(node.func)
                if inner is not None and (inner in jaxapi.DEVICE_LOOPS or inner.startswith(jaxapi.ARRAY_NAMESPACES)):
                    if inner in jaxapi.DEVICE_LOOPS:
                        return False
                    continue
                if isinstance(node.func, ast.Name) and model.resolve_function(node.func, model.scope_for(node)) is not None:
                    if not self.light_call(node, model.scope_for(node), depth - 1):
                        return False
        return True

    def statement(self, statement: ast.stmt) -> Outcome:
        kind = statement.__class__
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Pass, ast.Global, ast.Nonlocal):
            return _NOTHING
        if self.start_name and _appends_stamp(statement, self.start_name, self.model):
            return _START  # `stamps.append(time.time())`, the previous lap's stamp of a list of stamps
        if self.start_name in _bound_by(statement):
            if not isinstance(statement, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
                return _START
            return _WAIT  # restarted on some paths only: not followed
        if kind is ast.If:
            if self._skipped_by_most_laps(statement):
                # `if i % 100 == 0: print(loss)` in a lap that restarts the interval: 99 laps of 100
                # skip the wait, and their intervals hold the lap's work unwaited.
                return _any_path([self.backwards(statement.orelse)], self.test(statement.test))
            return _any_path([self.backwards(statement.body), self.backwards(statement.orelse)], self.test(statement.test))
        if kind in (ast.For, ast.AsyncFor, ast.While):
            if kind is ast.While and self.possibly_device(statement.test) and not _breaks_out(statement):
                return _WAIT  # the test runs last, after the last lap, and reads a device value
            if self.waits_somewhere(statement.body):
                # A loop that waits on some iterations: the wait covers the work before it, so the
                # interval is plausible, unless every wait sits under a periodic gate of the loop's
                # counter that the last laps skip (`if i % 100 == 0: print(loss)` over a loader): the
                # work of those laps is still unwaited at the end stamp.
                return self._last_laps(statement) or _WAIT
            body = self.backwards(statement.body)
            head = self.test(statement.test) if kind is ast.While else self.expression(statement.iter)
            return _any_path([body, self.backwards(statement.orelse)], head)
        if kind in (ast.With, ast.AsyncWith):
            return _then(self.backwards(statement.body), lambda: self.expressions([item.context_expr for item in statement.items]))
        if kind is ast.Try or kind.__name__ == "TryStar":
            parts = [self.backwards(statement.body), self.backwards(statement.orelse), *(self.backwards(h.body) for h in statement.handlers)]
            return _then(self.backwards(statement.finalbody), lambda: _any_path(parts, _NOTHING))
        if kind is ast.Match:
            return _any_path([self.backwards(case.body) for case in statement.cases], self.expression(statement.subject))
        if self.stores_on_host(statement):
            return _WAIT  # the store comes last: NumPy copies the value to the host once it is computed
        return self.expression(statement)

    def stores_on_host(self, statement: ast.stmt) -> bool:
        """`history[m][i] = metrics[m]`, `trace[i] = loss`: a device value stored into a NumPy array the
        host holds (device_indices.stores_into_host_array), which copies it, waiting for the device."""
        if not isinstance(statement, (ast.Assign, ast.AugAssign)):
            return False
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        from jaxlint.semantic.device_indices import host_array_stores

        # (each element of a tuple target is a store of its own: `trace[i], state = step(state)`)
        return any(self.possibly_device(stored) for target in targets for _, stored, _ in host_array_stores(target, statement.value, self.scope, self.model))

    # ----- expressions ---------------------------------------------------------------------------

    def waits_somewhere(self, statements: list[ast.stmt], surely: bool = False) -> bool:
        """Whether some path through `statements` waits for device values (`surely`: by a read jaxlint
        knows, not an unknown call handed a device value)."""
        for statement in statements:
            for child in _same_scope(statement):
                if isinstance(child, (ast.Assign, ast.AugAssign)) and self.stores_on_host(child):
                    return True
                if isinstance(child, ast.Call):
                    if self._classify_call(child) == WAIT and not (surely and id(child) in self.possible_waits):
                        return True
                elif isinstance(child, ast.FormattedValue):
                    if self.possibly_device(child.value):
                        return True
                elif isinstance(child, (ast.If, ast.While, ast.IfExp, ast.Assert)):
                    if self.possibly_device(child.test):
                        return True
        return False

    def _skipped_by_most_laps(self, branch: ast.If) -> bool:
        """`branch` is a periodic gate (`if i % 100 == 0:`, a period above a few laps) on the counter of
        a loop around it that restarts the interval every lap (its start stamp is taken in the loop),
        and the end stamp is not under the same gate: the interval is one lap, and most laps skip the
        branch, so a wait under it does not wait for their work (branch_shares.gate_period)."""
        if not self.start_name or self.end_gates is None or ast.dump(branch.test) in self.end_gates:
            return False
        from jaxlint.semantic.flow import LOOP_NODES

        loop = parent_of(branch)
        while loop is not None and not isinstance(loop, (*FUNCTION_NODES, ast.ClassDef, ast.Module)):
            if isinstance(loop, LOOP_NODES):
                period = gate_period(branch.test, loop, self.model)
                if period is not None:
                    return period > _FEW_LAPS + 1 and self._restarted_in(loop)
            loop = parent_of(loop)
        return False

    def _restarted_in(self, loop: ast.AST) -> bool:
        """The loop's body stamps the interval's start afresh (`t0 = time.time()`), not under a branch."""
        for node in _same_scope(loop):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == self.start_name for t in node.targets):
                if isinstance(node.value, ast.Call) and self.model.qualified_name(node.value.func) in TIMERS:
                    statement = node
                    while parent_of(statement) is not loop:
                        statement = parent_of(statement)
                        if isinstance(statement, (ast.If, ast.Try, ast.Match)) or statement is None:
                            break
                    else:
                        return True
        return False

    def _last_laps(self, loop: ast.AST) -> Outcome | None:
        """The device work of `loop`'s last laps, where every wait of its body sits under a periodic
        gate of its counter (`if batch_idx % 100 == 0: bar.set_postfix(loss=f"{loss:.4f}")`) that
        those laps skip (branch_shares.laps_after_last_gate: up to the period less one laps, or the
        exact number where the source fixes the count), and the laps dispatch work the gate does not
        hold. None where a wait may run on the last lap: the loop then waits for its work."""
        path: list[ast.stmt] = []  # the last lap's way through the body: each gate's `else` side
        gated = False
        for statement in loop.body:
            if isinstance(statement, ast.If) and self.waits_somewhere(statement.body):
                laps = laps_after_last_gate(statement.test, loop, self.model)
                if laps is None or laps[0] <= _FEW_LAPS:
                    return None  # (a few laps unwaited: a small share of a loop that waits every period)
                if laps[1] and _counted_laps(loop, self.model) >= THROUGHPUT_STEPS:
                    return None  # the tail, a few dozen computations in flight at most, is a few percent of the window
                gated = True
                path.extend(statement.orelse)
                continue
            path.append(statement)
        if not gated or self.waits_somewhere(path):
            return None
        lap = self.backwards(path)
        return lap if lap.kind == WORK else None

    def test(self, node: ast.expr) -> Outcome:
        """A branch's test: branching on a device value reads it on the host, after computing it."""
        return _WAIT if self.possibly_device(node) else self.expression(node)

    def expressions(self, nodes: list[ast.AST]) -> Outcome:
        return _last_first(nodes, self.expression)

    def expression(self, node: ast.AST, until: tuple[int, int] | None = None) -> Outcome:
        """The calls and reads of one simple statement or expression, last evaluated first (only those
        done before position `until`, when given)."""
        events: list[tuple[tuple[int, int], str, ast.AST]] = []
        for child in _same_scope(node):
            if isinstance(child, ast.Call):
                verdict = self._classify_call(child)
                if verdict is not None:
                    events.append(((child.end_lineno or 0, child.end_col_offset or 0), verdict, child))
            elif isinstance(child, ast.FormattedValue) and self.possibly_device(child.value):
                # (Where the formatted expression ends: before Python 3.12 a FormattedValue carries the
                # position of its whole f-string, which would put `f"{loss} {time() - t0}"`'s read of
                # `loss` after the stamp it precedes.)
                value = child.value
                events.append(((value.end_lineno or 0, value.end_col_offset or 0), WAIT, child))
            elif isinstance(child, (ast.IfExp, ast.Assert, ast.While, ast.If)) and self.possibly_device(child.test):
                events.append(((child.test.end_lineno or 0, child.test.end_col_offset or 0), WAIT, child))
            elif isinstance(child, ast.BoolOp) and any(self.possibly_device(value) for value in child.values[:-1]):
                events.append(((child.end_lineno or 0, child.end_col_offset or 0), WAIT, child))
        if until is not None:
            events = [event for event in events if event[0] <= until]
        if not events:
            return _NOTHING
        events.sort(key=lambda event: event[0], reverse=True)
        eager: list[ast.Call] = []
        for _, verdict, child in events:
            if verdict == WAIT:
                return _WAIT
            if verdict == WORK:
                return Outcome(WORK, (*eager, child))
            eager.append(child)
        return Outcome(EAGER, tuple(eager))

    def _classify_call(self, call: ast.Call) -> str | None:
        """WAIT, WORK, or None (host code, passed over)."""
        model = self.model
        qualified = model.qualified_name(call.func)
        if qualified in TIMERS:
            return None
        if qualified in _HOST_READS:
            return WAIT if qualified == "jax.block_until_ready" or self._any_argument_device(call) else None
        if qualified in _FORMATTERS:
            return WAIT if self._any_argument_device(call) else None
        function = call.func
        if isinstance(function, ast.Attribute) and function.attr in _READ_METHODS:
            return WAIT
        binding = model.jit_binding_for_call(call)
        if binding is not None:
            if binding.function is not None and self.computes_nothing(binding.function):
                return None  # returns nothing or its own inputs: measuring dispatch is the point
            if program_calls_host_back(binding, model):
                return WAIT  # a program with a host callback returns only when it has finished
            return WORK
        if self.passed_compiled(call) is not None:
            return WORK  # `fn(*args)` of a parameter every caller fills with compiled code (`jax.lax.scan`)
        if qualified is not None:
            if qualified in HOST_COPIES or qualified in _NOT_WORK:
                return None
            if qualified in jaxapi.LAX_LOOP_BODY or qualified == "jax.lax.map":
                # `jax.lax.scan(step, carry, batches)` run eagerly: the loop is traced and compiled
                # into one program, dispatched like a jitted call; a wait before it does not cover it.
                return WORK
            if qualified.startswith(jaxapi.ARRAY_NAMESPACES) or qualified == "jax.device_put":
                return EAGER  # one operation, or a transfer: what ran before it decides
            if qualified in jaxapi.TREE_MAPS and self._maps_array_operations(call):
                return EAGER  # `tree_map(lambda p, g: p - lr * g, params, grads)`: the operations, leaf by leaf
            if qualified.startswith(("jax.", "numpy.", "math.", "random.", "time.", "builtins.", "itertools.", "functools.", "os.", "collections.")):
                if qualified.startswith("numpy.") and self._any_argument_device(call):
                    return WAIT  # NumPy converts a device argument on the host
                return None if not qualified.startswith("jax.") else self._unknown(call)
        if qualified == "dataclasses.replace" or (isinstance(function, ast.Attribute) and function.attr in _CONTAINER_REBUILDS):
            return None  # `state = state.replace(params=params)`: the same arrays in a new container
        if call_sync(call, model) is not None:
            return WAIT  # a project function that reads on the host what it computes
        if self._arithmetic_helper(call) or self._array_operations_helper(call):
            return EAGER  # `square(x)` with `def square(v): return v ** 2`: operators on a device array
        described = library_models.call_model(model, call, self.scope)
        if described is not None:
            if described.stores:
                return None  # `params_queue.put(params)`: kept by reference, nothing read
            if described.syncs:
                return WAIT if self._any_argument_device(call) or isinstance(function, ast.Attribute) else None
            if (described.result or "").startswith("alias"):
                return None  # hands back (parts of) what it was given: no computation (`nnx.split(model)`)
            if described.compiles and (described.returns or "").startswith(("device", "tuple:device")):
                return WORK  # a compiled library call returning device state (an evolution strategy's `tell`): reads nothing
            if model.device_kind(call, self.scope) == "device":
                return EAGER  # a library operation run eagerly
        elif model.device_kind(call, self.scope) == "device":
            if isinstance(function, ast.Call) and model.transform_of(function.func) in jaxapi.COMPILING and wrapped_calls_back(function, model):
                return WAIT  # `jax.jit(make_train(cfg))(rng)`, its program calling back: it returns when done
            if self._runs_only_calling_back(call):
                return WAIT  # `out = train(cfg)` whose compiled program calls back: it returns when done
            if self._project_returns_when_done(call):
                return WAIT  # a function of the project that waits for its work before it returns
            if self._project_compiles_afresh(call):
                return None  # compiled again, synchronously, on every call: compilation is its cost
            return WORK  # a compiled call, or a function of the project that returns device arrays
        elif self._project_work_left_running(call):
            return WORK  # a function of the project that returns while compiled work it dispatched runs
        if isinstance(function, ast.Attribute) and function.attr in _HOST_BOOKKEEPING_METHODS:
            return None  # `history.append(loss)` stores; nothing is read
        return self._unknown(call)

    def _maps_array_operations(self, call: ast.Call) -> bool:
        """A tree map (`jax.tree.map(f, *trees)`) applies `f` to the leaves and reads nothing itself:
        it does what `f` does. Where `f` only runs array operations on what it is handed (a lambda of
        operators, `jnp`/`lax` calls and array methods that stay on the device, `x / n`, `x[0]`; a
        `jnp` function; a plain function of the module made of such operations or operators: array_operations_only, _arithmetic_summary)
        and a tree is a device value, each leaf's operations are dispatched and the map returns while
        they run: eager work, not a wait."""
        if len(call.args) < 2 or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            return False
        if not any(self.possibly_device(tree) for tree in call.args[1:]):
            return False
        function = call.args[0]
        if isinstance(function, ast.Lambda):
            return _operations_only(function.body, self.model)
        qualified = self.model.qualified_name(function)
        if qualified is not None and qualified.startswith(jaxapi.ARRAY_NAMESPACES):
            return qualified not in jaxapi.DEVICE_LOOPS and not qualified.startswith("jax.random.")
        if isinstance(function, ast.Name):
            resolved = self.model.resolve_function(function, self.scope)
            return (
                resolved is not None and resolved[0] is not None and not resolved[1] and not resolved[2]
                and (array_operations_only(resolved[0], self.model, _ARRAY_HELPER_DEPTH) or _arithmetic_summary(resolved[0]) is not None)
            )
        return False

    def passed_compiled(self, call: ast.Call) -> str | None:
        return _passed_compiled_call(call, self.model)

    def _runs_only_calling_back(self, call: ast.Call) -> bool:
        """A function of this module whose compiled calls (at least one, in its own body) all run
        programs that call back to the host (`train_fn = jax.jit(jax.vmap(make_train(cfg)));
        return train_fn(rngs)` with a `jax.debug.callback` for progress in the training): when it
        returns, its device work has finished."""
        from jaxlint.semantic.host_code import callee_scope

        callee = callee_scope(call, self.model, self.scope)
        if callee is None or callee is self.scope or callee.node is None:
            return False
        bindings = [binding for binding in map(self.model.jit_binding_for_call, callee.calls) if binding is not None]
        return bool(bindings) and all(program_calls_host_back(binding, self.model) for binding in bindings)

    def _project_returns_when_done(self, call: ast.Call) -> bool:
        """`state = train_epoch(state, loader)` with a function of this module that waits for its
        work before it returns (returns_when_done)."""
        from jaxlint.semantic.host_code import callee_scope

        if not isinstance(call.func, (ast.Name, ast.Attribute)):
            return False
        callee = callee_scope(call, self.model, self.scope)
        return callee is not None and callee is not self.scope and returns_when_done(callee, self.model, self.computes_nothing)

    def _project_compiles_afresh(self, call: ast.Call) -> bool:
        """`h = run(params, xs)` with a plain function of this module that compiles its device work
        afresh on every call (compiles_afresh)."""
        from jaxlint.semantic.host_code import callee_scope

        if not isinstance(call.func, (ast.Name, ast.Attribute)) or self.model.jit_binding_for_call(call) is not None:
            return False
        callee = callee_scope(call, self.model, self.scope)
        return callee is not None and callee is not self.scope and compiles_afresh(callee, self.model)

    def _project_work_left_running(self, call: ast.Call) -> bool:
        """`samples = run_chain(x0, n)` with a function of the project (of this module or another,
        called by name or on an instance of its class) that leaves compiled work running when it
        returns (work_left_running)."""
        from jaxlint.semantic.host_code import callee_scope

        function = call.func
        if not isinstance(function, (ast.Name, ast.Attribute)):
            return False
        callee = callee_scope(call, self.model, self.scope)
        if callee is not None:
            return callee is not self.scope and work_left_running(callee, self.model, self.computes_nothing) is not None
        from jaxlint.semantic.foreign_work import imported_work_left_running, may_be_project_call

        if not may_be_project_call(call, self.model):
            return False
        return imported_work_left_running(call, self.model, lambda scope, model: work_left_running(scope, model, self.computes_nothing)) is not None

    def waits_every_lap(self, end_statement: ast.stmt, start_statement: ast.stmt) -> bool:
        """The interval spans iterations of a loop around the end stamp (its start stamp is outside
        it) whose body surely waits somewhere outside the end stamp's own branch (`if state.step >
        limit:` on a device value every step): at most one iteration's work is unwaited, a small part
        of the interval."""
        from jaxlint.semantic.flow import LOOP_NODES, statement_list

        child: ast.AST = end_statement
        parent = parent_of(child)
        starts = {t.id for t in getattr(start_statement, "targets", ()) if isinstance(t, ast.Name)}
        # What runs after the stamp on the laps that take it (`if i % 10 == 0: now = time.time(); ...;
        # print(float(loss))`): a wait there comes before the next stamp, so it falls inside the next
        # interval, chained from this stamp (`last = now`) or from a start before the loop.
        after_stamp: list[ast.stmt] = []
        while parent is not None and not isinstance(parent, (*FUNCTION_NODES, ast.ClassDef, ast.Module)):
            if isinstance(parent, LOOP_NODES) and any(child is s for s in parent.body):
                if any(node is start_statement for node in walk(parent)):
                    return False
                # A wait falls in this timer's next interval only when the start is not stamped
                # afresh between it and this stamp (`timerWrite = time.time() - walltime; walltime =
                # time.time()` after the host work: another timer holds the wait, and this
                # interval, restarted after it, holds the dispatch only).
                index = next(i for i, s in enumerate(parent.body) if s is child)
                lap = after_stamp + parent.body[index + 1:] + parent.body[:index]
                restarts = [i for i, s in enumerate(lap) if self._restarts(s, starts)]
                if self.waits_somewhere(lap[restarts[-1] + 1:] if restarts else lap, surely=True):
                    return True
            located = statement_list(child) if isinstance(child, ast.stmt) else None
            if located is not None:
                block, index = located
                # (straight-line statements only: a wait under a further `if` may not come every time)
                after_stamp += [
                    s for s in block[index + 1:]
                    if not isinstance(s, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.Match))
                ]
            child, parent = parent, parent_of(parent)
        return False

    def _restarts(self, statement: ast.stmt, starts: set[str]) -> bool:
        """The statement binds the interval's start to a fresh clock read (`walltime = time.time()`),
        also inside its blocks; not a rebinding from an earlier stamp (`last = now`)."""
        return any(
            isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in starts for t in node.targets)
            and any(isinstance(n, ast.Call) and self.model.qualified_name(n.func) in TIMERS for n in walk(node.value))
            for node in _same_scope(statement)
        )

    def eager(self, call: ast.Call) -> bool:
        return self._classify_call(call) == EAGER

    def dispatch_bound(self, calls, stamp: ast.AST, start_statement: ast.stmt) -> bool:
        """The interval runs its work op by op on the host, with nothing compiled in it: a loop or
        comprehension of the interval that walks a device array row by row with eager operations
        (`for t in range(T): h = jnp.tanh(h @ w + xs[t])`, `[m @ rows[i] for i in range(n)]`), or a
        function transformed and called outside jit (`grad(f)(x)`, `vmap(grad(f))(xs)`: traced on
        every call, then run one operation at a time). Tracing and dispatching each small operation
        is then the cost the interval measures, and at most the last one is unfinished at the end
        stamp. Eager operations on whole arrays (`y = x ** 2`, also repeated) are not: their
        computation may still run."""
        if not calls:
            return False
        transformed = False
        for call in calls:
            if self.eager_transform(call):
                transformed = True
            elif not self._eager_operation(call):
                return False
        begin = (start_statement.end_lineno or 0, start_statement.end_col_offset or 0)
        end = (stamp.lineno, stamp.col_offset)
        row_by_row = False
        for node in _same_scope(self.scope.node):
            if not hasattr(node, "lineno") or not begin <= (node.lineno, node.col_offset) < end:
                continue
            if isinstance(node, ast.Call):
                if not self.eager_transform(node) and not self._eager_operation(node) and self._classify_call(node) == WORK:
                    return False  # a compiled call (or a project function's device work) in the interval
            elif not transformed and not row_by_row and isinstance(node, (ast.For, ast.ListComp, ast.GeneratorExp)):
                row_by_row = self._walks_rows(node)
        return transformed or row_by_row

    def per_element(self, node: ast.AST) -> bool:
        """A comprehension over the rows of device arrays (`for a, b in zip(xs, ys)`, `for row in xs`)
        that calls something with its variables: each row is its own small dispatched computation, so
        the per-row dispatch is what it costs, and at most the last row's work is unfinished."""
        if not isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) or len(node.generators) != 1:
            return False
        generator = node.generators[0]
        iterable = generator.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in ("zip", "enumerate"):
            sources = [argument for argument in iterable.args if not (iterable.func.id == "enumerate" and argument is not iterable.args[0])]
        else:
            sources = [iterable]
        scope = self.scope
        names = {n.id for source in sources for n in walk(source) if isinstance(n, ast.Name)}
        while isinstance(scope.node, ast.Lambda) and scope.parent is not None and not names & scope.local_names:
            scope = scope.parent  # a lambda reads its free names where it is made
        if not sources or not all(self.model.device_kind(source, scope) == "device" for source in sources):
            return False
        variables = {n.id for n in walk(generator.target) if isinstance(n, ast.Name)}
        return any(
            isinstance(call, ast.Call) and {n.id for a in call.args for n in walk(a) if isinstance(n, ast.Name)} & variables
            for call in walk(node.elt)
        )

    def _walks_rows(self, loop: ast.AST) -> bool:
        """A loop or comprehension whose eager operations index a device array by its own variable."""
        if isinstance(loop, ast.For):
            variables, body = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}, loop.body
        else:
            variables = {n.id for g in loop.generators for n in walk(g.target) if isinstance(n, ast.Name)}
            body = [loop.elt]
        for part in body:
            for node in _same_scope(part):
                if isinstance(node, ast.BinOp) or (isinstance(node, ast.Call) and self._classify_call(node) == EAGER):
                    operands = [node.left, node.right] if isinstance(node, ast.BinOp) else node.args
                    for operand in operands:
                        if (isinstance(operand, ast.Subscript) and {n.id for n in walk(operand.slice) if isinstance(n, ast.Name)} & variables
                                and self.possibly_device(operand.value)):
                            return True
        return False

    def _eager_operation(self, call: ast.Call) -> bool:
        """One eager array operation: `jnp.tanh(h)`, or an array method of a device value (`g.reshape(...)`)."""
        function = call.func
        if isinstance(function, ast.Attribute) and function.attr in jaxapi.ARRAY_METHODS:
            return self.possibly_device(function.value)
        return self._classify_call(call) == EAGER

    def eager_transform(self, call: ast.Call) -> bool:
        """`grad(f)(x)`, `vmap(grad(f))(xs)`, called outside jit, of a function that is not itself jitted."""
        function = call.func
        if not isinstance(function, ast.Call) or not function.args:
            return False
        if self.model.qualified_name(function.func) not in jaxapi.EAGER_TRACING:
            return False
        inner = function.args[0]
        while isinstance(inner, ast.Call) and inner.args and self.model.qualified_name(inner.func) in jaxapi.EAGER_TRACING:
            inner = inner.args[0]  # `vmap(grad(f))`
        if isinstance(inner, ast.Call):
            return False  # `grad(jax.jit(f))`: compiled inside
        return self._runs_op_by_op(inner, self.scope, 2)

    def _runs_op_by_op(self, function_node: ast.AST, scope, depth: int) -> bool:
        """A function of the module (a def or lambda) that calls only array operations and such
        functions: transformed outside jit, it runs one small operation at a time. Not a jitted
        function, nor one that runs a lax loop (`lax.scan`: one compiled program per call, which
        may still run at the end stamp) or a call jaxlint does not know."""
        if self.model.jit_binding_for_name(function_node) is not None:
            return False
        resolved = self.model.resolve_function(function_node, scope)
        if resolved is None or resolved[0] is None or depth < 0:
            return False
        function_scope = resolved[0]
        for node in _same_scope(function_scope.node):
            if not isinstance(node, ast.Call) or node is function_node:
                continue
            qualified = self.model.qualified_name(node.func)
            if qualified is not None:
                if qualified in jaxapi.LAX_LOOP_BODY or qualified in jaxapi.COMPILING or qualified == "jax.lax.map":
                    return False
                if qualified.startswith((*jaxapi.ARRAY_NAMESPACES, "builtins.", "math.")):
                    continue
            if isinstance(node.func, ast.Attribute) and node.func.attr in jaxapi.ARRAY_METHODS:
                continue
            if not (isinstance(node.func, ast.Name) and self._runs_op_by_op(node.func, function_scope, depth - 1)):
                return False
        return True

    def reads_unknown_results(self, calls) -> bool:
        """Whether the calls read a name bound, in this scope, to the result of a call passed over as
        unknown, by a binding that may reach the read: in a script's or notebook's top-level code, read
        at the top level, the last top-level binding above the read and those between it and the read
        (a notebook that rebinds `x` from an unknown call ten cells later does not change what `x` was
        where it is read); elsewhere any binding of the scope."""
        reads = [n for call in calls for n in walk(call) if isinstance(n, ast.Name)]
        read = {n.id for n in reads}
        for node in walk(self.scope.node):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                bound = read & {n.id for target in node.targets for n in walk(target) if isinstance(n, ast.Name)}
                if bound and any(self._may_reach(node, n) for n in reads if n.id in bound):
                    self._classify_call(node.value)
                    if id(node.value) in self.unknown_calls:
                        return True
        return False

    def _may_reach(self, binding: ast.Assign, read: ast.Name) -> bool:
        """The binding may be the one `read` sees: always, except at the top level of a module read at
        its top level, where code runs once in line order and only the bindings from the last
        top-level one above the read up to the read reach it."""
        module = self.scope.node
        if not isinstance(module, ast.Module):
            return True
        statement = read
        while statement is not None and parent_of(statement) is not module:
            statement = parent_of(statement)
        if statement is None or not isinstance(statement, ast.stmt) or statement.__class__ in (ast.For, ast.AsyncFor, ast.While):
            return True  # (read in a loop of the module: a later binding may come round)
        if binding.lineno > read.lineno:
            return False
        above = [
            s for s in module.body
            if isinstance(s, ast.Assign) and s.lineno < statement.lineno
            and any(isinstance(n, ast.Name) and n.id == read.id for t in s.targets for n in walk(t))
        ]
        return not above or binding.lineno >= above[-1].lineno

    def _unknown(self, call: ast.Call) -> str | None:
        """A call jaxlint does not know: it may read what it is handed (a logger, a writer), so one
        handed a device value, or a method of the object itself, counts as a wait."""
        function = call.func
        if isinstance(function, ast.Attribute):
            receiver = function.value
            while isinstance(receiver, (ast.Attribute, ast.Subscript, ast.Call)):
                receiver = receiver.value if not isinstance(receiver, ast.Call) else receiver.func
            if (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")) or self.possibly_device(function.value):
                self.possible_waits.add(id(call))
                return WAIT
        if self._any_argument_device(call):
            self.possible_waits.add(id(call))
            return WAIT
        self.unknown_calls.add(id(call))
        return None

    def _arithmetic_helper(self, call: ast.Call) -> bool:
        """A plain function of this module whose every return is operator arithmetic of its
        parameters and numbers (`return v ** 2`, `return (a - b) / 2`), called with a device array
        for one of the parameters it computes with: the operators run on the device eagerly, one
        asynchronous operation each. Anything else in a return (a call, an attribute, a subscript)
        leaves the call unknown."""
        if not isinstance(call.func, ast.Name) or not call.args:
            return False
        resolved = self.model.resolve_function(call.func, self.scope)
        if resolved is None or resolved[1] or resolved[2]:
            return False
        summary = _arithmetic_summary(resolved[0])
        if summary is None or any(isinstance(a, ast.Starred) for a in call.args):
            return False
        parameters, used = summary
        passed = {parameters[i]: argument for i, argument in enumerate(call.args) if i < len(parameters)}
        passed.update((k.arg, k.value) for k in call.keywords if k.arg in parameters)
        return any(name in passed and self._device_argument(passed[name]) for name in used)

    def _array_operations_helper(self, call: ast.Call) -> bool:
        """A plain function of the project (array_operations_only): its whole-array operations
        (`jnp.where(spikes, reset, v + dv)`) are dispatched one by one, on device arrays or host values
        alike, and it returns while they run, reading nothing."""
        if not isinstance(call.func, ast.Name) or any(isinstance(a, ast.Starred) for a in call.args):
            return False
        resolved = self.model.resolve_function(call.func, self.scope)
        if resolved is None or resolved[0] is None or resolved[1] or resolved[2]:
            return False
        return array_operations_only(resolved[0], self.model, _ARRAY_HELPER_DEPTH)

    def _device_argument(self, argument: ast.AST) -> bool:
        """A device value. For a name, the binding that reaches the call decides where one is known
        (`x = jnp.arange(n)` timed, then `x = np.arange(n)` timed again in the same script)."""
        if isinstance(argument, ast.Name):
            from jaxlint.semantic.flow import value_at_read

            found = value_at_read(argument, self.scope, self.model)
            if found is not None and found[0] is self.scope and isinstance(found[1], ast.expr):
                return self.possibly_device(found[1])
        return self.possibly_device(argument)

    def _any_argument_device(self, call: ast.Call) -> bool:
        return any(self.possibly_device(argument) for argument in (*call.args, *(k.value for k in call.keywords)))

    def possibly_device(self, node: ast.AST) -> bool:
        """Whether a value may hold a device array: one the model knows is, one computed here from
        device work, or the object's own state (`self.params`). `x is None`, `len(x)`, `x.shape` are host values."""
        kind = self.model.device_kind(node, self.scope)
        if kind is not None:
            return kind == "device"
        for child in _same_scope(node):
            if isinstance(child, ast.Name):
                if child.id in self.device_like or child.id in ("self", "cls"):
                    return True
            elif isinstance(child, ast.Call) and self._work_call(child):
                return True
        return False

    def _work_call(self, call: ast.Call) -> bool:
        return _returns_device(call, self.scope, self.model)


_arithmetic_cache: "WeakKeyDictionary[ast.AST, tuple | None]" = WeakKeyDictionary()
_ARRAY_HELPER_DEPTH = 2
_STRAIGHT_LINE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)


def array_operations_only(function, model, depth: int) -> bool:
    """A plain, undecorated function whose body is straight-line code (bindings of local names and
    returns, no branch, loop or print) that returns a value computed by eager array operations: calls
    of `jax.numpy`/`lax`/`nn` (not a lax loop or a transform), array methods that stay on the device
    (`v.sum()`, not `.item()`), operators, and calls of such functions. Called eagerly, it dispatches
    each operation and returns while they run."""
    node = function.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list or depth < 0:
        return False
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return False
    if not all(isinstance(s, _STRAIGHT_LINE) for s in body):
        return False
    for statement in body:
        targets = statement.targets if isinstance(statement, ast.Assign) else [] if isinstance(statement, ast.Return) else [statement.target]
        for target in targets:
            if not all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Store)) for n in walk(target)):
                return False  # `self.v = ...`, `out[i] = ...`: a store, not a local binding
    operations = 0
    for child in walk(node):
        if child is node:
            continue
        if isinstance(child, (*FUNCTION_NODES, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if not isinstance(child, ast.Call):
            continue
        qualified = model.qualified_name(child.func)
        if qualified is not None and qualified.startswith(jaxapi.ARRAY_NAMESPACES):
            if qualified in jaxapi.LAX_LOOP_BODY or qualified == "jax.lax.map" or qualified.startswith(("jax.random.", "jax.experimental.")):
                return False
            operations += 1
            continue
        if isinstance(child.func, ast.Attribute) and child.func.attr in jaxapi.ARRAY_METHODS and qualified is None:
            continue
        if isinstance(child.func, ast.Name):
            resolved = model.resolve_function(child.func, model.scope_for(child))
            if resolved is not None and resolved[0] is not None and not resolved[1] and not resolved[2]:
                if array_operations_only(resolved[0], model, depth - 1):
                    operations += 1
                    continue
        return False
    return operations > 0


# What a lambda mapped over a tree may hold and stay an array operation on the device.
_OPERATION_NODES = (
    ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Slice,
    ast.Tuple, ast.Call, ast.keyword, ast.Load, ast.operator, ast.unaryop, ast.cmpop,
)


def _operations_only(body: ast.expr, model) -> bool:
    """A lambda body of operators, indexing and array operations that stay on the device (`jnp`/`lax`
    calls, array methods other than the host reads `.item()`/`.tolist()`): no print, conversion, branch
    or other call, so nothing in it waits."""
    operations = False
    for node in walk(body):
        if not isinstance(node, _OPERATION_NODES):
            return False
        if isinstance(node, ast.Call):
            qualified = model.qualified_name(node.func)
            if qualified is not None and qualified.startswith(jaxapi.ARRAY_NAMESPACES):
                if qualified in jaxapi.DEVICE_LOOPS or qualified.startswith("jax.random."):
                    return False
            elif not (isinstance(node.func, ast.Attribute) and node.func.attr in jaxapi.ARRAY_METHODS and qualified is None):
                return False
            operations = True
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Subscript)):
            operations = True
    return operations


def _arithmetic_summary(function) -> tuple[list[str], set[str]] | None:
    """(positional parameters, those the returns compute with) of a plain function whose body only
    returns operator arithmetic of its parameters; None otherwise. Read once per function."""
    node = function.node
    if node in _arithmetic_cache:
        return _arithmetic_cache[node]
    summary = None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list and function.returns:
        arguments = node.args
        body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        # A body that does more than return (binds, prints, branches) is not read here.
        if arguments.vararg is None and arguments.kwarg is None and all(isinstance(statement, ast.Return) for statement in body):
            parameters = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
            used: set[str] = set()
            if all(_operator_arithmetic(value, set(parameters), used) for value in function.returns):
                summary = (parameters, used)
    _arithmetic_cache[node] = summary
    return summary


def _operator_arithmetic(node: ast.AST, parameters: set[str], used: set[str]) -> bool:
    """`node` is built by operators (`+ - * / // % **`, unary minus) from parameters and numbers, with
    at least one operator: the parameters it reads are added to `used`."""
    if isinstance(node, ast.BinOp) and not isinstance(node.op, (ast.MatMult,)):
        return _operand(node.left, parameters, used) and _operand(node.right, parameters, used)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _operand(node.operand, parameters, used)
    return False


def _operand(node: ast.AST, parameters: set[str], used: set[str]) -> bool:
    if isinstance(node, ast.Name) and node.id in parameters:
        used.add(node.id)
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool)
    return _operator_arithmetic(node, parameters, used)


_CALLBACK_DEPTH = 2
_NAN_CHECKS = frozenset({"jax_debug_nans", "jax_debug_infs"})


def checks_every_result(model) -> bool:
    """The module switches on `jax_debug_nans` (or `jax_debug_infs`) unconditionally at its top
    level (`jax.config.update("jax_debug_nans", True)`, a notebook cell's top level included) or at
    the top level of its `if __name__ == "__main__":` block (the module run as the program): JAX
    then checks every result on the host, so each computation returns only when it has finished
    (benchmarks/callback_sync.py: 100% of the work done at return on the CPU, 99.9% on an H200),
    and a later read of it waits for nothing more."""
    found = model.__dict__.get("_jaxlint_checks_every_result")
    if found is None:
        statements = list(model.tree.body)
        for statement in model.tree.body:
            if isinstance(statement, ast.If) and is_main_guard(statement.test):
                statements.extend(statement.body)
        found = model._jaxlint_checks_every_result = any(_switches_on_nan_checks(statement, model) for statement in statements)
    return found


def _switches_on_nan_checks(statement: ast.stmt, model) -> bool:
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        qualified = model.qualified_name(call.func) or ""
        return (
            qualified.endswith("config.update") and len(call.args) == 2
            and isinstance(call.args[0], ast.Constant) and call.args[0].value in _NAN_CHECKS
            and isinstance(call.args[1], ast.Constant) and call.args[1].value is True
        )
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Attribute):
        target = statement.targets[0]
        return (
            target.attr in _NAN_CHECKS and (model.qualified_name(target.value) or "").endswith("config")
            and isinstance(statement.value, ast.Constant) and statement.value.value is True
        )
    return False


def program_calls_host_back(binding, model) -> bool:
    """The program a jitted callable compiles calls back to the host: its function (`@jax.jit def`,
    `jax.jit(f)`), or what the transforms around it wrap, through `vmap`/`partial` and a factory
    that returns a nested function (`jax.jit(jax.vmap(make_train(config)))`), of this module or,
    by its summary, of another module of the project."""
    if binding.function is not None:
        return calls_host_back(binding.function, model)
    return wrapped_calls_back(binding.node, model)


def wrapped_calls_back(wrapped: ast.AST, model) -> bool:
    """A transform call (`jax.jit(...)`) compiles a program that calls back to the host."""
    callable_ = _wrapped_callable(wrapped, model)
    if callable_ is None:
        return False
    resolved = model.resolve_function(callable_, model.scope_for(callable_))
    if resolved is not None:
        return calls_host_back(resolved[0], model)
    if not isinstance(callable_, ast.Call):
        return False
    from jaxlint.semantic.training_loops import factory_functions

    functions = factory_functions(callable_, model)
    if functions:
        return any(calls_host_back(function, model) for function in functions)
    return isinstance(callable_.func, ast.Name) and _imported_function_calls_back(callable_.func, model)


def _wrapped_callable(wrapped: ast.AST, model) -> ast.expr | None:
    """What the transforms of `jax.jit(jax.vmap(partial(f, ...)))` compile, under `vmap` and
    `partial`: `f`, or the factory call in `jax.jit(make_train(config))`."""
    for _ in range(4):
        if not isinstance(wrapped, ast.Call) or not wrapped.args:
            return None
        inner = wrapped.args[0]
        if isinstance(inner, ast.Call) and (model.transform_of(inner.func) is not None or model.qualified_name(inner.func) == "functools.partial"):
            wrapped = inner
            continue
        return inner
    return None


def _imported_function_calls_back(name: ast.Name, model) -> bool:
    """`make_train(config)` imported from a module of the project whose summary says its body calls
    back to the host."""
    project = getattr(model, "project", None)
    qualified = model.qualified_name(name)
    if project is None or not qualified or "." not in qualified or not project.may_hold(qualified.split(".")[0]):
        return False
    module, _, function = qualified.rpartition(".")
    summary = project.module(module)
    return summary is not None and function in summary.host_callback_functions


def calls_host_back(function, model) -> bool:
    """The compiled function (a Scope) calls back to the host (`jaxapi.CALLING_BACK`:
    `jax.debug.callback`, `jax.debug.print`, `io_callback`, `pure_callback`), in its body, in a
    function nested in it (a `lax.scan` body, a `lax.cond` branch), in a function of the module it
    calls, two calls deep (training_loops.calls_reached), or in a function of another module of the
    project it calls (the module's summary). Such a program returns from its call only when it has
    finished, on the CPU and on a GPU alike (`benchmarks/callback_sync.py`: 99-100% of the work is
    done when the call returns, against 0.2% without a callback on the CPU), so a clock read right
    after the call measures the work."""
    from jaxlint.semantic.training_loops import calls_reached

    for node, holder, left in calls_reached(function, model, _CALLBACK_DEPTH):
        if model.qualified_name(node.func) in jaxapi.CALLING_BACK:
            return True
        if left > 0 and isinstance(node.func, ast.Name) and model.resolve_function(node.func, model.scope_for(node)) is None:
            if _imported_function_calls_back(node.func, model):
                return True
    return False


def _returns_device(call: ast.Call, scope, model) -> bool:
    qualified = model.qualified_name(call.func)
    if qualified is not None and (qualified.startswith(jaxapi.ARRAY_NAMESPACES) or qualified == "jax.device_put"):
        return qualified not in _NOT_WORK
    return (
        model.jit_binding_for_call(call) is not None or model.device_kind(call, scope) == "device"
        or _passed_compiled_call(call, model) is not None
    )


def _passed_compiled_call(call: ast.Call, model) -> str | None:
    """What every caller hands the parameter `call` calls, where that is compiled code
    (semantic/passed_compiled.py: `time_it(jax.lax.scan, ...)`, `fit(params, data, jitted_update)`):
    the call dispatches it, and what it returns are device values."""
    function = call.func
    if not isinstance(function, ast.Name):
        return None
    scope = model.scope_for(call)
    if function.id in scope.local_names and function.id not in scope.param_nodes:
        return None  # (bound here otherwise; a parameter of this function, or of one a closure reads, is asked)
    from jaxlint.semantic.passed_compiled import passed_compiled

    return passed_compiled(function.id, scope, model)


# Laps a periodic wait may leave unwaited at the end of a loop and still count as its wait: a few steps.
_FEW_LAPS = 8
# Laps of a loop that waits every lap beyond which a light tail after it (about one lap's work) is a
# small share of the interval (at most a tenth); a loop of an open count (a convergence loop) counts.
_MANY_LAPS = 10
# How many calls down a tail's functions are read for loops.
_TAIL_DEPTH = 3
_SIMPLE_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)


def _counted_laps(loop: ast.AST, model) -> int:
    from jaxlint.semantic.loop_cost import loop_iterations

    return loop_iterations(loop, model.scope_for(loop), model) or 0


def _last_first(items: list, outcome_of) -> Outcome:
    """What runs last before the end of `items` (statements or expressions evaluated in order): read
    from the last one back, up to the first that decides (a wait or device work)."""
    outcome = _NOTHING
    for item in reversed(items):
        current = outcome_of(item)
        outcome = _then(outcome, lambda: current)
        if outcome.kind not in (NOTHING, EAGER):
            return outcome
    return outcome


def _either(previous: Outcome, entry: Outcome) -> Outcome:
    """Two ways into an enclosing loop's body: the previous iteration's tail, or the loop's entry."""
    kinds = (previous.kind, entry.kind)
    if WAIT in kinds:
        return _WAIT
    for kind in (WORK, EAGER, START):
        if kind in kinds:
            return previous if previous.kind == kind else entry
    return _NOTHING


def _any_path(paths: list[Outcome], before: Outcome) -> Outcome:
    """A compound statement before the end stamp: a wait on any path decides (precision first), then
    work on any path; a compound with neither leaves the decision to what ran before it (`before`)."""
    kinds = [path.kind for path in paths]
    if WAIT in kinds or START in kinds:
        return _WAIT
    for kind in (WORK, EAGER):
        for path in paths:
            if path.kind == kind:
                return _then(path, lambda: before) if kind == EAGER else path
    return before


def _appends_stamp(statement: ast.stmt, name: str, model) -> bool:
    """`name.append(time.time())`: a stamp kept in a list."""
    value = statement.value if isinstance(statement, ast.Expr) else None
    return (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "append"
        and isinstance(value.func.value, ast.Name) and value.func.value.id == name and len(value.args) == 1
        and isinstance(value.args[0], ast.Call) and model.qualified_name(value.args[0].func) in TIMERS
    )


def _bound_by(statement: ast.stmt) -> set[str]:
    names: set[str] = set()
    for node in _same_scope(statement):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
    return names


def _same_scope(region: ast.AST):
    from jaxlint.semantic.flow import walk_same_scope

    return walk_same_scope(region)


def device_like_names(scope, model) -> frozenset[str]:
    """Names of the scope bound from device work (a compiled call, an eager array operation, a call
    the model knows returns device arrays) or from such names (`loss = loss + out.mean()`,
    `m = metrics.compute()`), and the names handed to compiled calls."""
    per_model = _device_like_cache.setdefault(model, {})
    key = id(scope.node)
    cached = per_model.get(key)
    if cached is not None:
        return cached
    assignments = []
    for node in walk(scope.node):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            assignments.append(node)
    device: set[str] = {name for name, only in model.device_names(scope).items() if only}
    # What a compiled call is handed is device state or becomes it (`train_step(model, optimizer,
    # metrics, batch)` updates nnx objects in place): reads of it later (`metrics.compute()`) may be
    # device values.
    for node in walk(scope.node):
        if isinstance(node, ast.Call) and model.jit_binding_for_call(node) is not None:
            for argument in (*node.args, *(k.value for k in node.keywords)):
                root = argument.value if isinstance(argument, ast.Starred) else argument
                while isinstance(root, (ast.Attribute, ast.Subscript)):
                    root = root.value
                if isinstance(root, ast.Name) and root.id not in ("self", "cls"):
                    device.add(root.id)
    # A container filled with device values holds them (`history.append(metrics)`, `logs[k] = loss`).
    stores = []
    for node in walk(scope.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _HOST_BOOKKEEPING_METHODS:
            if isinstance(node.func.value, ast.Name):
                stores.append((node.func.value.id, node.args))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    stores.append((target.value.id, [node.value]))
    for _ in range(2):  # a second pass for names read before they are bound in textual order
        for assignment in assignments:
            names_read = {n.id for n in walk(assignment.value) if isinstance(n, ast.Name)}
            from_work = bool(names_read & device) or any(
                isinstance(n, ast.Call) and _returns_device(n, scope, model) for n in walk(assignment.value)
            )
            if isinstance(assignment, ast.AugAssign):
                from_work = from_work or (isinstance(assignment.target, ast.Name) and assignment.target.id in device)
            if from_work:
                targets = assignment.targets if isinstance(assignment, ast.Assign) else [assignment.target]
                for target in targets:
                    device.update(n.id for n in walk(target) if isinstance(n, ast.Name))
        for container, values in stores:
            if any(isinstance(n, ast.Name) and n.id in device for value in values for n in walk(value)):
                device.add(container)
    result = frozenset(device)
    per_model[key] = result
    return result
