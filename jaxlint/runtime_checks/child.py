"""The child process: load the user's module, run one finding's check, write JSON facts.

Started by `runner` as `python -m jaxlint.runtime_checks.child JOB.json RESULT.json`, one process
per finding, so compile caches start empty, a crash takes only this finding down, and the
device is freed when it exits. It measures and reports; the verdict is decided by the parent
(`verdicts`), from these numbers alone.

Each rule has an evidence path (`CHECKS`):
- errors: the codes of `verdicts.ERROR_RULES` (JAX101/102/103/105/106/108/109/301/306/307/601)
  run the original (under `jit` where the table says so) expecting the listed error, and the
  fixed version against a reference: the un-jitted original, else `<name>__reference`, else the
  original on NumPy inputs;
- compile counts: JAX302/402 per call, JAX303 per distinct static value;
- trace-time behaviour: JAX104 captures stdout over two calls, JAX502 compares two calls'
  outputs with and without `jit`, JAX107 looks for module state changed at trace time and
  leaked tracers;
- numerics: JAX503 NaN in `jax.grad`, JAX504 the dtypes produced, JAX501 the keys and draws of
  `jax.random` samplers, JAX602 the deprecation warnings recorded;
- compiled programs: JAX305 constant bytes in the HLO, as written and with the captured arrays
  passed as arguments; JAX401 `memory_analysis()` with and without donation;
- time: JAX201 (with a device-to-host transfer guard), JAX202 (the interval the code measures
  against the blocked call), JAX203/304/403/701 and codes without a path (compile and run time).
`compare` times a user-named alternative (e.g. a Pallas kernel) on the same inputs.
A job file may hold a list of jobs: they run one after another in this process (`run_jobs`).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import re
import importlib.util
import json
import sys
import time
import traceback
import types
import warnings
from pathlib import Path
from typing import Any, Callable

from jaxlint.runtime_checks import measure
from jaxlint.runtime_checks.hlo import hlo_statistics
from jaxlint.runtime_checks.hlo import constant_bytes
from jaxlint.runtime_checks.spec import materialize, parse_spec
from jaxlint.runtime_checks.verdicts import ERROR_RULES

DEPRECATION_CATEGORIES = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)

# Warm up for at least this long before timing, so an idle GPU has raised its clocks.
MIN_WARMUP_S = 0.25

METRIC_KEYS = (
    "error_original", "compiles_original", "compiles_fixed", "time_original_s", "time_fixed_s",
    "speedup", "compile_time_original_s", "compile_time_fixed_s", "peak_bytes_original",
    "peak_bytes_fixed", "hlo_ops_original", "hlo_ops_fixed", "flops", "bytes_accessed", "agree",
)


class Case:
    """Everything one check needs: the original and fixed callables and fresh inputs."""

    def __init__(self, job: dict) -> None:
        self.job = job
        self.code: str = job["code"]
        self.path = Path(job["filename"]).resolve()
        self.function: str = job["function"]
        self.repeat: int = max(1, int(job.get("repeat", 10)))
        self.warmup: int = max(1, int(job.get("warmup", 1)))
        self.call_spec = parse_spec(job["spec"])
        self.seed: int = int(job.get("seed", 0))
        self.metrics: dict[str, Any] = {key: None for key in METRIC_KEYS}
        # An import that fails is evidence for a rule that expects that error (a removed API
        # imported at module level); for any other rule it is a failure to set up the check.
        self.load_error: BaseException | None = None
        with recorded_warnings() as self.load_warnings:
            try:
                self.module: types.ModuleType | None = load_module(self.path)
            except Exception as error:
                rule = ERROR_RULES.get(self.code)
                if rule is None or type(error).__name__ not in rule.errors:
                    raise
                self.load_error, self.module = error, None
        self.original = getattr(self.module, self.function) if self.module is not None else None
        with recorded_warnings() as self.fixed_load_warnings:
            self.fixed_module, self.fixed_by = load_fixed_module(self.path, self.module, job)
        self.fixed = lookup_fixed(self.fixed_module, self.module, self.function)
        self.metrics["fixed_by"] = self.fixed_by if self.fixed is not None else None

    def inputs(self) -> tuple[list, dict]:
        """Fresh arrays with the same values every time (donation deletes the old ones)."""
        return materialize(self.call_spec, self.seed)

    def caller(self, function: Callable) -> Callable[[], Any]:
        args, kwargs = self.inputs()
        return lambda: function(*args, **kwargs)


def load_module(path: Path) -> types.ModuleType:
    """Import the user's file under a private name, its folder first on sys.path."""
    sys.path.insert(0, str(path.parent))
    name = f"_jaxlint_target_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def fixed_filename(path: Path) -> str:
    return f"{path} (fixed)"


def load_fixed_module(path: Path, original: types.ModuleType, job: dict):
    """The fixer's source executed as a sibling module; else the fixture's `<name>__fixed`."""
    text = job.get("fixed_text")
    if not text:
        return None, "fixture"
    module = types.ModuleType(f"_jaxlint_target_{path.stem}__fixed")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    exec(compile(text, fixed_filename(path), "exec"), module.__dict__)
    return module, "fixer"


def lookup_fixed(fixed_module, original_module, name: str):
    if fixed_module is not None:
        return getattr(fixed_module, name, None)
    return getattr(original_module, f"{name}__fixed", None) if original_module is not None else None


@contextlib.contextmanager
def recorded_warnings():
    """Every warning raised inside, each occurrence (filters set to "always")."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def deprecations(caught: list) -> list[str]:
    return [f"{item.category.__name__}: {str(item.message)[:200]}" for item in caught
            if issubclass(item.category, DEPRECATION_CATEGORIES)]


def to_numpy(tree: Any) -> Any:
    """The inputs with every array leaf as a NumPy array (a reference for mutating code)."""
    import jax
    import numpy as np

    return jax.tree.map(lambda leaf: np.array(leaf) if isinstance(leaf, jax.Array) else leaf, tree)


def attempt(call: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    try:
        return measure.block(call()), None
    except Exception as error:  # the user's error is a measurement, not our failure
        return None, error


def error_name(error: BaseException | None) -> str | None:
    return type(error).__name__ if error is not None else None


def short(error: BaseException | None, limit: int = 300) -> str | None:
    if error is None:
        return None
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:limit]


def jitted(function: Callable) -> Callable:
    import jax

    return function if hasattr(function, "lower") else jax.jit(function)


def eager(function: Callable) -> Callable:
    """The function with every `jit` inside it disabled: the Python-level fallback."""
    import jax

    def run(*args, **kwargs):
        with jax.disable_jit():
            return function(*args, **kwargs)

    return run


def record_compiled(case: Case, function: Callable, suffix: str, inputs: tuple | None = None) -> None:
    """HLO statistics, cost and memory of `function` as one jitted computation, if it lowers."""
    args, kwargs = inputs if inputs is not None else case.inputs()
    try:
        compiled = measure.compiled_for(function, args, kwargs)
    except Exception as error:
        case.metrics[f"hlo_error_{suffix}"] = error_name(error)
        return
    try:
        stats = hlo_statistics(compiled.as_text())
    except Exception:
        stats = None
    case.metrics[f"hlo_ops_{suffix}"] = stats["ops"] if stats else None
    case.metrics[f"hlo_stats_{suffix}"] = {k: v for k, v in stats.items() if k != "ops"} if stats else None
    memory = measure.memory_stats(compiled)
    case.metrics[f"peak_bytes_{suffix}"] = memory["peak_bytes"]
    case.metrics[f"alias_bytes_{suffix}"] = memory["alias_bytes"]
    cost = measure.cost_stats(compiled)
    case.metrics[f"flops_{suffix}"] = cost["flops"]
    case.metrics[f"bytes_accessed_{suffix}"] = cost["bytes_accessed"]


def record_timing(case: Case, call: Callable[[], Any], suffix: str, prepare=None) -> None:
    with measure.Counted() as counted:
        timing = measure.time_calls(call, case.repeat, case.warmup, block=measure.block, prepare=prepare,
                                    min_warmup_s=MIN_WARMUP_S)
    case.metrics[f"time_{suffix}_s"] = timing.median_s
    case.metrics[f"time_{suffix}_spread_s"] = timing.spread_s
    case.metrics[f"timing_{suffix}"] = timing.to_json()
    calls = timing.repeats + timing.warmup
    case.metrics[f"compiles_per_call_{suffix}"] = (counted.compiles / calls) if counted.compiles is not None else None


def first_call(case: Case, call: Callable[[], Any], suffix: str):
    """The cold call: its compile count and compile time are the version's compile cost."""
    with measure.Counted() as counted:
        started = time.perf_counter()
        value, error = attempt(call)
        elapsed = time.perf_counter() - started
    case.metrics[f"compiles_{suffix}"] = counted.compiles
    case.metrics[f"compile_time_{suffix}_s"] = counted.compile_seconds
    case.metrics[f"first_call_{suffix}_s"] = elapsed
    return value, error


def finish(case: Case) -> None:
    """Contract fields derived from the rest: speedup, and flops/bytes of what runs."""
    metrics = case.metrics
    original, fixed = metrics.get("time_original_s"), metrics.get("time_fixed_s")
    if original and fixed:
        metrics["speedup"] = original / fixed
    for key in ("flops", "bytes_accessed"):
        metrics[key] = metrics.get(f"{key}_original") if metrics.get(f"{key}_original") is not None else metrics.get(f"{key}_fixed")


# ---------------------------------------------------------------- rule evidence paths

def check_error_under_jit(case: Case) -> None:
    """The codes of ERROR_RULES: the original raises the rule's error; the fixed one runs and agrees."""
    rule = ERROR_RULES[case.code]
    if case.load_error is not None:  # the module itself does not import: the error is the evidence
        case.metrics["error_original"] = error_name(case.load_error)
        case.metrics["error_message_original"] = short(case.load_error)
        case.metrics["error_at_import"] = True
        reference, reference_error = None, case.load_error
    else:
        original = jitted(case.original) if rule.under_jit else case.original
        _, error = first_call(case, case.caller(original), "original")
        case.metrics["error_original"] = error_name(error)
        case.metrics["error_message_original"] = short(error)
        reference, reference_error, reference_call = reference_value(case)
        case.metrics["error_eager_original"] = error_name(case.metrics.pop("_eager_error", None))
        if error is not None and reference_call is not None and case.metrics["reference"] == "the un-jitted original":
            record_timing(case, reference_call, "original")  # the Python fallback
        elif error is None:
            record_timing(case, case.caller(original), "original")
            record_compiled(case, original, "original")
    if case.fixed is None:
        return
    fixed = jitted(case.fixed) if rule.under_jit else case.fixed
    value, fixed_error = first_call(case, case.caller(fixed), "fixed")
    case.metrics["error_fixed"] = error_name(fixed_error)
    case.metrics["error_message_fixed"] = short(fixed_error)
    if fixed_error is not None:
        return
    case.metrics["agree"] = measure.values_agree(reference, value) if reference_error is None else None
    with measure.Counted() as counted:
        record_timing(case, case.caller(fixed), "fixed")
    if counted.compiles is not None and case.metrics["compiles_fixed"] is not None:
        # Equal values on every call: a hashable static argument compiles once in all.
        case.metrics["compiles_fixed_all_calls"] = case.metrics["compiles_fixed"] + counted.compiles
    case.metrics["cache_size_fixed"] = jitted_cache_size(case.fixed_module, case.module, case.function)
    record_compiled(case, fixed, "fixed")


def reference_value(case: Case) -> tuple[Any, BaseException | None, Callable | None]:
    """What the fixed version must compute: the first of these that runs.

    The original without `jit` (`jax.disable_jit()`); else the module's `<name>__reference`
    (e.g. the NumPy equivalent, or the same code written with the current API); else the
    original without `jit` on NumPy inputs (item assignment works on NumPy arrays).
    """
    call = case.caller(eager(case.original))
    value, error = attempt(call)
    case.metrics["_eager_error"] = error
    if error is None:
        case.metrics["reference"] = "the un-jitted original"
        return value, None, call
    explicit = getattr(case.module, f"{case.function}__reference", None)
    if explicit is not None:
        call = case.caller(explicit)
        value, error = attempt(call)
        case.metrics["reference"] = f"{case.function}__reference"
        return value, error, call if error is None else None
    args, kwargs = to_numpy(case.inputs())
    call = lambda: eager(case.original)(*args, **kwargs)  # noqa: E731
    value, numpy_error = attempt(call)
    if numpy_error is None:
        case.metrics["reference"] = "the original on NumPy inputs"
        return value, None, call
    case.metrics["reference"] = None
    return None, error, None


def jitted_cache_size(fixed_module, module, function: str) -> int | None:
    """Largest `_cache_size()` among the fixed module's jitted globals (the static-arg callee)."""
    namespace = vars(fixed_module) if fixed_module is not None else vars(module)
    sizes = [measure.cache_size(value) for value in namespace.values() if hasattr(value, "lower")]
    sizes = [size for size in sizes if size is not None]
    return max(sizes) if sizes else None


def check_host_loop(case: Case) -> None:
    """JAX201: a transfer guard locates per-iteration syncs; time per call, original vs fixed."""
    value, error = first_call(case, case.caller(case.original), "original")
    case.metrics["error_original"] = error_name(error)
    if error is not None:
        case.metrics["error_message_original"] = short(error)
        return
    record_timing(case, case.caller(case.original), "original")
    case.metrics.update(guarded_sync(case, case.original, str(case.path), "original"))
    record_compiled(case, case.original, "original")
    if case.fixed is None:
        return
    fixed_value, fixed_error = first_call(case, case.caller(case.fixed), "fixed")
    case.metrics["error_fixed"] = error_name(fixed_error)
    if fixed_error is not None:
        case.metrics["error_message_fixed"] = short(fixed_error)
        return
    case.metrics["agree"] = measure.values_agree(value, fixed_value)
    record_timing(case, case.caller(case.fixed), "fixed")
    fixed_file = fixed_filename(case.path) if case.fixed_by == "fixer" else str(case.path)
    case.metrics.update(guarded_sync(case, case.fixed, fixed_file, "fixed"))
    record_compiled(case, case.fixed, "fixed")


def guarded_sync(case: Case, function: Callable, filename: str, suffix: str) -> dict:
    """Run under `transfer_guard_device_to_host("disallow")`: where does the first sync happen?

    On CPU, device memory is host memory and the guard never fires: the result is None there.
    """
    import jax

    facts = {f"transfer_guard_{suffix}": None, f"sync_line_{suffix}": None, f"sync_in_loop_{suffix}": None}
    if jax.default_backend() == "cpu":
        return facts
    guard = getattr(jax, "transfer_guard_device_to_host", None)
    if guard is None:
        return facts
    call = case.caller(function)
    try:
        with guard("disallow"):
            measure.block(call())
    except Exception as error:
        if "disallow" not in str(error).lower():
            facts[f"transfer_guard_{suffix}"] = f"error: {error_name(error)}"
            return facts
        line = innermost_line(error, filename)
        facts[f"transfer_guard_{suffix}"] = "raised"
        facts[f"sync_line_{suffix}"] = line
        facts[f"sync_in_loop_{suffix}"] = line_in_loop(case, filename, line) if line else None
        return facts
    facts[f"transfer_guard_{suffix}"] = "no transfer"
    facts[f"sync_in_loop_{suffix}"] = False
    return facts


def innermost_line(error: BaseException, filename: str) -> int | None:
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename in (filename, str(Path(filename).resolve())):
            line = frame.lineno
    return line


def line_in_loop(case: Case, filename: str, line: int) -> bool:
    text = case.job["fixed_text"] if filename.endswith("(fixed)") else case.path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return True
    return False


def check_compiles(case: Case) -> None:
    """JAX302/JAX402 (and codes without a dedicated path): compile counts and time per call."""
    value, error = first_call(case, case.caller(case.original), "original")
    case.metrics["error_original"] = error_name(error)
    if error is not None:
        case.metrics["error_message_original"] = short(error)
        return
    record_timing(case, case.caller(case.original), "original")
    record_compiled(case, case.original, "original")
    if case.fixed is None:
        return
    fixed_value, fixed_error = first_call(case, case.caller(case.fixed), "fixed")
    case.metrics["error_fixed"] = error_name(fixed_error)
    if fixed_error is not None:
        case.metrics["error_message_fixed"] = short(fixed_error)
        return
    case.metrics["agree"] = measure.values_agree(value, fixed_value)
    record_timing(case, case.caller(case.fixed), "fixed")
    record_compiled(case, case.fixed, "fixed")


def check_donation(case: Case) -> None:
    """JAX401: the step's memory with and without donation, and whether the input is deleted."""
    callee_name, captured = capture_step_call(case)
    case.metrics["step_function"] = callee_name
    if callee_name is None:
        case.metrics["error_message_original"] = "No call of a jitted module-level function was found on the line to analyse."
        return
    original_step = getattr(case.module, callee_name)
    fixed_step = lookup_fixed(case.fixed_module, case.module, callee_name)
    args, kwargs = captured
    # The step's own executable: peak, alias bytes, HLO and cost (`memory_analysis()`).
    record_compiled(case, original_step, "original", (args, kwargs))
    expected, deleted = call_on_copies(original_step, args, kwargs)
    case.metrics["donated_input_deleted_original"] = deleted
    record_timing(case, case.caller(case.original), "original")
    driver = case.fixed
    if fixed_step is None:
        # No fixed source: donate the rebound arguments ourselves, so the evidence does not
        # depend on the fixer, and run the original driver with that step patched in.
        fixed_step = donating_variant(case, original_step)
        driver = patched(case.module, callee_name, fixed_step, case.original) if fixed_step else None
        case.metrics["fixed_by"] = "runtime: donate_argnums=" + str(case.metrics.get("donate_argnums")) if fixed_step else None
    if fixed_step is None or driver is None:
        return
    record_compiled(case, fixed_step, "fixed", (args, kwargs))
    value, deleted = call_on_copies(fixed_step, args, kwargs)
    case.metrics["donated_input_deleted_fixed"] = deleted
    case.metrics["agree"] = measure.values_agree(expected, value)
    # Donated inputs are consumed: each timed call of the fixed driver gets fresh ones.
    fresh: dict[str, Any] = {}
    # Block on them too: an unfinished host-to-device copy must not be timed as the step.
    prepare = lambda: fresh.update(zip(("args", "kwargs"), measure.block(case.inputs())))  # noqa: E731
    _, driver_error = first_call(case, case.caller(driver), "fixed")
    if driver_error is not None:  # e.g. a donated buffer read again: the fix is not safe to apply
        case.metrics["error_fixed"] = error_name(driver_error)
        case.metrics["error_message_fixed"] = short(driver_error)
        return
    record_timing(case, lambda: driver(*fresh["args"], **fresh["kwargs"]), "fixed", prepare=prepare)


def donating_variant(case: Case, step: Callable) -> Callable | None:
    """`jax.jit(step.__wrapped__, donate_argnums=...)` for the arguments rebound on the line."""
    import jax

    wrapped = getattr(step, "__wrapped__", None)
    if wrapped is None:
        return None
    tree = ast.parse(case.path.read_text(encoding="utf-8"))
    positions: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno == case.job.get("line") and isinstance(node.value, ast.Call):
            targets = {name.id for target in node.targets for name in ast.walk(target) if isinstance(name, ast.Name)}
            positions |= {i for i, arg in enumerate(node.value.args) if isinstance(arg, ast.Name) and arg.id in targets}
    if not positions:
        return None
    case.metrics["donate_argnums"] = sorted(positions)
    return jax.jit(wrapped, donate_argnums=tuple(sorted(positions)))


def patched(module: types.ModuleType, name: str, replacement: Callable, driver: Callable) -> Callable:
    """`driver` run with `module.name` replaced for the duration of each call."""
    def run(*args, **kwargs):
        saved = getattr(module, name)
        setattr(module, name, replacement)
        try:
            return driver(*args, **kwargs)
        finally:
            setattr(module, name, saved)
    return run


def capture_step_call(case: Case) -> tuple[str | None, tuple[list, dict]]:
    """Run the driver once with its jitted callees wrapped, recording the first call's inputs."""
    names = callee_names(case)
    captured: dict[str, tuple[list, dict]] = {}
    order: list[str] = []
    originals = {name: getattr(case.module, name) for name in names}

    def recorder(name: str, function: Callable) -> Callable:
        def wrapper(*args, **kwargs):
            if name not in captured:
                captured[name] = (list(args), dict(kwargs))
                order.append(name)
            return function(*args, **kwargs)
        return wrapper

    for name, function in originals.items():
        setattr(case.module, name, recorder(name, function))
    try:
        _, error = first_call(case, case.caller(case.original), "original")
    finally:
        for name, function in originals.items():
            setattr(case.module, name, function)
    case.metrics["error_original"] = error_name(error)
    if not order:
        return None, ([], {})
    return order[0], captured[order[0]]


def callee_names(case: Case) -> list[str]:
    """Jitted module globals called on the finding's line (or anywhere in the function)."""
    tree = ast.parse(case.path.read_text(encoding="utf-8"))
    function = next((node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and node.name == case.function), None)
    if function is None:
        return []
    calls = [node for node in ast.walk(function) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    on_line = [call for call in calls if call.lineno == case.job.get("line")]
    names = [call.func.id for call in (on_line or calls)]  # type: ignore[attr-defined]
    return [name for name in dict.fromkeys(names) if hasattr(getattr(case.module, name, None), "lower")]


def call_on_copies(step: Callable, args: list, kwargs: dict) -> tuple[Any, bool | None]:
    """Call on copies of the inputs; report whether any copy was deleted (donated)."""
    import jax
    import jax.numpy as jnp

    copy = lambda leaf: jnp.array(leaf, copy=True) if isinstance(leaf, jax.Array) else leaf  # noqa: E731
    args_copy, kwargs_copy = jax.tree.map(copy, (args, kwargs))
    value = measure.block(step(*args_copy, **kwargs_copy))
    leaves = [leaf for leaf in jax.tree.leaves((args_copy, kwargs_copy)) if isinstance(leaf, jax.Array)]
    deleted = any(leaf.is_deleted() for leaf in leaves) if leaves else None
    return value, deleted


def check_compare(case: Case) -> None:
    """`--compare MODULE:FUNC`: the alternative on the same inputs, timed against the target."""
    alternative = load_alternative(case.job["alternative"])
    value, error = first_call(case, case.caller(case.original), "original")
    case.metrics["error_original"] = error_name(error)
    if error is not None:
        case.metrics["error_message_original"] = short(error)
        return
    record_timing(case, case.caller(case.original), "original")
    record_compiled(case, case.original, "original")
    alt_value, alt_error = first_call(case, case.caller(alternative), "fixed")
    case.metrics["error_fixed"] = error_name(alt_error)
    if alt_error is not None:
        case.metrics["error_message_fixed"] = short(alt_error)
        return
    case.metrics["agree"] = measure.values_agree(value, alt_value, rtol=1e-3, atol=1e-4)
    record_timing(case, case.caller(alternative), "fixed")
    record_compiled(case, alternative, "fixed")


def load_alternative(reference: str) -> Callable:
    module_part, _, name = reference.rpartition(":")
    if module_part.endswith(".py") or "/" in module_part:
        module = load_module(Path(module_part).resolve())
    else:
        module = importlib.import_module(module_part)
    return getattr(module, name)


# ---------------------------------------------------------------- the rest of the catalogue

def run_original_and_fixed(case: Case, original: Callable, fixed: Callable | None):
    """First calls of both versions (compile counts and times); their values, or None on error."""
    value, error = first_call(case, case.caller(original), "original")
    case.metrics["error_original"] = error_name(error)
    case.metrics["error_message_original"] = short(error)
    if error is not None or fixed is None:
        return value, None, error is None
    fixed_value, fixed_error = first_call(case, case.caller(fixed), "fixed")
    case.metrics["error_fixed"] = error_name(fixed_error)
    case.metrics["error_message_fixed"] = short(fixed_error)
    if fixed_error is None:
        case.metrics["agree"] = measure.values_agree(value, fixed_value)
        return value, fixed_value, True
    return value, None, True


def captured_stdout(call: Callable[[], Any]) -> tuple[str, BaseException | None]:
    """What a call prints, `jax.debug.print` included (its callbacks are flushed inside)."""
    import jax

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        _, error = attempt(call)
        with contextlib.suppress(Exception):
            jax.effects_barrier()
    return buffer.getvalue(), error


TRACER_REPR = re.compile(r"Traced<|Tracer\b|JVPTracer|BatchTracer|DynamicJaxprTracer")


def check_trace_print(case: Case) -> None:
    """JAX104: under jit, the original prints a tracer on the first call and nothing later."""
    for suffix, function in (("original", case.original), ("fixed", case.fixed)):
        if function is None:
            continue
        call = case.caller(jitted(function))
        outputs = []
        for _ in range(3):
            text, error = captured_stdout(call)
            if error is not None:
                case.metrics[f"error_{suffix}"] = error_name(error)
                case.metrics[f"error_message_{suffix}"] = short(error)
                break
            outputs.append(text)
        else:
            lines = [len(text.splitlines()) for text in outputs]
            case.metrics[f"stdout_lines_{suffix}"] = lines if suffix == "original" else max(lines)
            case.metrics[f"stdout_tracer_{suffix}"] = any(TRACER_REPR.search(text) for text in outputs)
            sample = next((text.strip().splitlines()[0] for text in outputs if text.strip()), None)
            case.metrics[f"stdout_sample_{suffix}"] = sample[:160] if sample else None
        if case.metrics.get("error_original"):
            return
    if case.fixed is not None and not case.metrics.get("error_fixed"):
        case.metrics["agree"] = measure.values_agree(attempt(case.caller(case.original))[0],
                                                     attempt(case.caller(case.fixed))[0])


def check_host_state(case: Case) -> None:
    """JAX502: two jitted calls return the same values; two un-jitted calls do not."""
    jitted_call, eager_call = case.caller(jitted(case.original)), case.caller(eager(case.original))
    first, error = first_call(case, jitted_call, "original")
    case.metrics["error_original"] = error_name(error)
    case.metrics["error_message_original"] = short(error)
    if error is not None:
        return
    second, _ = attempt(jitted_call)
    case.metrics["identical_under_jit"] = measure.values_agree(first, second, rtol=0, atol=0)
    one, eager_error = attempt(eager_call)
    two, _ = attempt(eager_call)
    if eager_error is None:
        case.metrics["varies_without_jit"] = not measure.values_agree(one, two, rtol=0, atol=0)


def check_leaked_tracer(case: Case) -> None:
    """JAX107: module state changed while tracing only, holding a tracer that cannot be used."""
    import jax
    import jax.numpy as jnp

    namespace = vars(case.module)

    def signature() -> dict[str, tuple]:
        return {name: (id(value), len(value) if isinstance(value, (list, dict, set)) else None)
                for name, value in namespace.items() if not name.startswith("__") and not callable(value)
                and not isinstance(value, types.ModuleType)}

    call = case.caller(jitted(case.original))
    before = signature()
    _, error = first_call(case, call, "original")
    case.metrics["error_original"] = error_name(error)
    case.metrics["error_message_original"] = short(error)
    if error is not None:
        return
    after_first = signature()
    for _ in range(2):
        attempt(call)
    after_later = signature()
    case.metrics["state_changed_first_call"] = sorted(n for n in after_first if after_first[n] != before.get(n))
    case.metrics["state_changed_later_calls"] = sorted(n for n in after_later if after_later[n] != after_first.get(n))
    leaked, use_error = [], None
    for name in case.metrics["state_changed_first_call"]:
        tracers = [leaf for leaf in jax.tree.leaves(namespace[name]) if isinstance(leaf, jax.core.Tracer)]
        if tracers:
            leaked.append(name)
            if use_error is None:
                _, use_error = attempt(lambda: jnp.add(tracers[0], 1))
    case.metrics["leaked_tracers"] = leaked
    case.metrics["leaked_tracer_error"] = error_name(use_error)


class StampRecorder:
    """Replaces `time.time`/`perf_counter`/`monotonic` as the module sees them, recording stamps."""

    CLOCKS = ("time", "perf_counter", "monotonic")

    def __init__(self, module: types.ModuleType) -> None:
        self.module, self.stamps, self.saved = module, [], {}

    def _clock(self, clock: Callable[[], float]) -> Callable[[], float]:
        def stamp() -> float:
            value = clock()
            self.stamps.append(value)
            return value
        return stamp

    def __enter__(self) -> "StampRecorder":
        proxy = types.SimpleNamespace(**{name: getattr(time, name) for name in dir(time) if not name.startswith("_")})
        for name in self.CLOCKS:
            setattr(proxy, name, self._clock(getattr(time, name)))
        for name, value in list(vars(self.module).items()):
            if value is time:
                self.saved[name] = value
                setattr(self.module, name, proxy)
            elif any(value is getattr(time, clock) for clock in self.CLOCKS):
                self.saved[name] = value
                setattr(self.module, name, self._clock(value))
        return self

    def __exit__(self, *exc: Any) -> None:
        for name, value in self.saved.items():
            setattr(self.module, name, value)

    def interval(self) -> float | None:
        return self.stamps[-1] - self.stamps[0] if len(self.stamps) >= 2 else None


def measured_intervals(case: Case, module: types.ModuleType, function: Callable, repeat: int) -> float | None:
    """Median of the interval the code itself measures (first to last clock stamp of a call)."""
    import statistics

    call = case.caller(function)
    intervals = []
    for _ in range(repeat):
        with StampRecorder(module) as recorder:
            measure.block(call())
        if recorder.interval() is not None:
            intervals.append(recorder.interval())
    return statistics.median(intervals) if intervals else None


def check_unsynced_timing(case: Case) -> None:
    """JAX202: the interval the code measures against the call's time with the result blocked on."""
    run_original_and_fixed(case, case.original, case.fixed)
    case.metrics["agree"] = None  # the outputs include the measured intervals: they never agree
    if case.metrics["error_original"]:
        return
    record_timing(case, case.caller(case.original), "original")
    case.metrics["measured_interval_original_s"] = measured_intervals(case, case.module, case.original, case.repeat)
    if case.fixed is not None and not case.metrics["error_fixed"]:
        module = case.fixed_module or case.module
        record_timing(case, case.caller(case.fixed), "fixed")
        case.metrics["measured_interval_fixed_s"] = measured_intervals(case, module, case.fixed, case.repeat)
    case.metrics["speedup"] = None  # both run the same work: a ratio would mislead


def check_per_value_compiles(case: Case) -> None:
    """JAX303: calls of the jitted callee, distinct static values, compilations and cache size."""
    names = callee_names(case)
    calls: list[tuple] = []
    originals = {name: getattr(case.module, name) for name in names}

    def recorder(name: str, function: Callable) -> Callable:
        def wrapper(*args, **kwargs):
            calls.append((name, static_key(args, kwargs)))
            return function(*args, **kwargs)
        return wrapper

    for name, function in originals.items():
        setattr(case.module, name, recorder(name, function))
    try:
        value, fixed_value, ran = run_original_and_fixed(case, case.original, None)
    finally:
        for name, function in originals.items():
            setattr(case.module, name, function)
    if not ran:
        return
    callee = calls[0][0] if calls else None
    case.metrics["callee"] = callee
    case.metrics["callee_calls_original"] = sum(1 for name, _ in calls if name == callee)
    case.metrics["static_values_original"] = len({key for name, key in calls if name == callee}) if callee else None
    case.metrics["cache_size_original"] = measure.cache_size(originals[callee]) if callee else None
    record_timing(case, case.caller(case.original), "original")
    if case.fixed is None:
        return
    fixed_value, fixed_error = first_call(case, case.caller(case.fixed), "fixed")
    case.metrics["error_fixed"] = error_name(fixed_error)
    case.metrics["error_message_fixed"] = short(fixed_error)
    if fixed_error is None:
        case.metrics["agree"] = measure.values_agree(value, fixed_value)
        record_timing(case, case.caller(case.fixed), "fixed")


def static_key(args: tuple, kwargs: dict) -> str:
    """The non-array arguments of a call, as the jit cache would key them."""
    import jax
    import numpy as np

    def plain(leaf: Any) -> bool:
        return not isinstance(leaf, (jax.Array, np.ndarray))

    leaves = [repr(leaf) for leaf in jax.tree.leaves((list(args), kwargs)) if plain(leaf)]
    return "|".join(leaves)


def check_embedded_constant(case: Case) -> None:
    """JAX305: constant bytes and compile time as written, and with captured arrays as arguments."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    inner = getattr(case.original, "__wrapped__", case.original)
    namespace = inner.__globals__ if hasattr(inner, "__globals__") else vars(case.module)
    names = [name for name in getattr(getattr(inner, "__code__", None), "co_names", ())
             if isinstance(namespace.get(name), (np.ndarray, jax.Array)) and np.ndim(namespace[name]) > 0]
    case.metrics["captured_arrays"] = [f"{name} {tuple(np.shape(namespace[name]))}" for name in names]
    constants = {name: jnp.asarray(namespace[name]) for name in names}
    case.metrics["captured_bytes"] = sum(int(value.nbytes) for value in constants.values())

    def taking(arrays, *args, **kwargs):
        saved = {name: namespace[name] for name in arrays}
        namespace.update(arrays)
        try:
            return inner(*args, **kwargs)
        finally:
            namespace.update(saved)

    as_argument = jax.jit(taking)
    args, kwargs = case.inputs()
    fixed = lambda *a, **k: as_argument(constants, *a, **k)  # noqa: E731
    value, error = first_call(case, case.caller(jitted(case.original)), "original")
    case.metrics["error_original"] = error_name(error)
    case.metrics["error_message_original"] = short(error)
    if error is not None or not names:
        return
    fixed_value, fixed_error = first_call(case, lambda: as_argument(constants, *args, **kwargs), "fixed")
    case.metrics["error_fixed"] = error_name(fixed_error)
    case.metrics["error_message_fixed"] = short(fixed_error)
    case.metrics["fixed_by"] = "runtime: captured arrays passed as arguments"
    if fixed_error is not None:
        return
    case.metrics["agree"] = measure.values_agree(value, fixed_value)
    for suffix, compiled in (("original", lambda: measure.compiled_for(jitted(case.original), args, kwargs)),
                             ("fixed", lambda: as_argument.lower(constants, *args, **kwargs).compile())):
        try:
            case.metrics[f"hlo_constant_bytes_{suffix}"] = constant_bytes(compiled().as_text())
        except Exception as problem:
            case.metrics[f"hlo_error_{suffix}"] = error_name(problem)
    record_timing(case, case.caller(jitted(case.original)), "original")
    record_timing(case, case.caller(fixed), "fixed")
    record_compiled(case, case.original, "original")


SAMPLERS = (
    "normal", "uniform", "bernoulli", "randint", "choice", "permutation", "categorical", "gumbel",
    "truncated_normal", "exponential", "gamma", "beta", "dirichlet", "laplace", "logistic", "poisson",
    "multivariate_normal", "cauchy", "rademacher", "ball", "orthogonal", "t", "chisquare", "weibull_min",
    "maxwell", "pareto", "loggamma", "triangular", "lognormal", "rayleigh", "wald", "geometric", "binomial",
    "bits",
)


def recorded_draws(case: Case, module: types.ModuleType, function: Callable) -> tuple[list, BaseException | None]:
    """Run eagerly with `jax.random` samplers wrapped: [(key bytes, draw)] in call order."""
    import jax
    import jax.random as random
    import numpy as np

    draws: list[tuple[bytes, Any]] = []

    def key_bytes(key: Any) -> bytes:
        if jax.dtypes.issubdtype(getattr(key, "dtype", None), jax.dtypes.prng_key):
            key = random.key_data(key)
        return np.asarray(key).tobytes()

    def wrap(sampler: Callable) -> Callable:
        def recording(key, *args, **kwargs):
            value = sampler(key, *args, **kwargs)
            draws.append((key_bytes(key), np.asarray(value)))
            return value
        return recording

    saved_random = {name: getattr(random, name) for name in SAMPLERS if hasattr(random, name)}
    saved_module = {name: value for name, value in vars(module).items()
                    if any(value is sampler for sampler in saved_random.values())}
    wrapped = {name: wrap(sampler) for name, sampler in saved_random.items()}
    try:
        for name, sampler in wrapped.items():
            setattr(random, name, sampler)
        for name, value in saved_module.items():
            setattr(module, name, next(wrapped[n] for n, s in saved_random.items() if s is value))
        _, error = attempt(case.caller(eager(function)))
    finally:
        for name, sampler in saved_random.items():
            setattr(random, name, sampler)
        for name, value in saved_module.items():
            setattr(module, name, value)
    return draws, error


def check_key_reuse(case: Case) -> None:
    """JAX501: samplers given a key already used by another sampler, and how alike the draws are."""
    import numpy as np

    for suffix, module, function in (("original", case.module, case.original),
                                     ("fixed", case.fixed_module or case.module, case.fixed)):
        if function is None:
            continue
        draws, error = recorded_draws(case, module, function)
        case.metrics[f"error_{suffix}"] = error_name(error)
        case.metrics[f"error_message_{suffix}"] = short(error)
        if error is not None:
            return
        seen: dict[bytes, Any] = {}
        reused, identical, correlations = 0, True, []
        for key, draw in draws:
            if key in seen:
                reused += 1
                first, again = seen[key].ravel().astype(float), draw.ravel().astype(float)
                size = min(first.size, again.size)
                identical = identical and size > 0 and bool(np.array_equal(first[:size], again[:size]))
                if size > 1 and np.std(first[:size]) > 0 and np.std(again[:size]) > 0:
                    correlations.append(float(np.corrcoef(first[:size], again[:size])[0, 1]))
            else:
                seen[key] = draw
        case.metrics[f"sampler_draws_{suffix}"] = len(draws)
        case.metrics[f"reused_key_draws_{suffix}"] = reused
        if suffix == "original" and reused:
            case.metrics["reused_draws_identical_prefix"] = identical
            case.metrics["reused_draws_correlation"] = max(correlations) if correlations else None
    case.metrics["agree"] = None  # the fix changes the random stream on purpose


def check_nan_gradient(case: Case) -> None:
    """JAX503: NaN entries in jax.grad (w.r.t. the first argument) of the original and the fixed."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    values = {}
    for suffix, function in (("original", case.original), ("fixed", case.fixed)):
        if function is None:
            continue
        value, error = first_call(case, case.caller(function), suffix)
        case.metrics[f"error_{suffix}"] = error_name(error)
        case.metrics[f"error_message_{suffix}"] = short(error)
        if error is not None:
            return
        values[suffix] = value
        gradient = jax.grad(lambda *a, **k: jnp.sum(jnp.asarray(function(*a, **k))))
        grad, grad_error = attempt(case.caller(gradient))
        case.metrics[f"grad_error_{suffix}"] = error_name(grad_error)
        if grad_error is None:
            leaves = [np.asarray(leaf) for leaf in jax.tree.leaves(grad)]
            case.metrics[f"grad_nan_{suffix}"] = int(sum(np.isnan(leaf).sum() for leaf in leaves))
            case.metrics["grad_size"] = int(sum(leaf.size for leaf in leaves))
    if "fixed" in values:
        case.metrics["agree"] = measure.values_agree(values["original"], values["fixed"])


def check_dtype(case: Case) -> None:
    """JAX504: whether x64 is on, the dtypes the original returns, and truncation warnings."""
    import jax

    with recorded_warnings() as caught:
        value, error = first_call(case, case.caller(case.original), "original")
    case.metrics["error_original"] = error_name(error)
    case.metrics["error_message_original"] = short(error)
    case.metrics["x64_enabled"] = bool(jax.config.jax_enable_x64)
    if error is None:
        case.metrics["result_dtypes_original"] = sorted({str(getattr(leaf, "dtype", type(leaf).__name__))
                                                         for leaf in jax.tree.leaves(value)})
    case.metrics["dtype_warnings_original"] = [str(item.message)[:200] for item in caught
                                               if "64" in str(item.message) and "not available" in str(item.message)]


def check_deprecation(case: Case) -> None:
    """JAX602: deprecation warnings recorded at import and on a call, original and fixed."""
    with recorded_warnings() as caught:
        value, fixed_value, ran = run_original_and_fixed(case, case.original, None)
    case.metrics["deprecation_warnings_original"] = deprecations(case.load_warnings) + deprecations(caught)
    if not ran or case.fixed is None:
        return
    with recorded_warnings() as caught:
        fixed_value, fixed_error = first_call(case, case.caller(case.fixed), "fixed")
    case.metrics["error_fixed"] = error_name(fixed_error)
    case.metrics["error_message_fixed"] = short(fixed_error)
    imported = deprecations(case.fixed_load_warnings) if case.fixed_module is not None else []
    case.metrics["deprecation_warnings_fixed"] = imported + deprecations(caught)
    if fixed_error is None:
        case.metrics["agree"] = measure.values_agree(value, fixed_value)
        record_timing(case, case.caller(case.fixed), "fixed")
    record_timing(case, case.caller(case.original), "original")


CHECKS: dict[str, Callable[[Case], None]] = {
    **{code: check_error_under_jit for code in ERROR_RULES},
    "JAX104": check_trace_print,
    "JAX107": check_leaked_tracer,
    "JAX201": check_host_loop,
    "JAX202": check_unsynced_timing,
    "JAX302": check_compiles,
    "JAX303": check_per_value_compiles,
    "JAX305": check_embedded_constant,
    "JAX401": check_donation,
    "JAX402": check_compiles,
    "JAX501": check_key_reuse,
    "JAX502": check_host_state,
    "JAX503": check_nan_gradient,
    "JAX504": check_dtype,
    "JAX602": check_deprecation,
    "compare": check_compare,
    # JAX203/JAX304/JAX403/JAX701 and any other code: check_compiles (compile and run time).
}


def device_info() -> dict:
    import jax

    device = jax.devices()[0]
    return {"platform": jax.default_backend(), "device_kind": getattr(device, "device_kind", None),
            "device_count": jax.device_count(), "jax_version": jax.__version__,
            "python_version": sys.version.split()[0], "tf32_agreement": measure.tf32_in_effect()}


def run_job(job: dict) -> dict:
    result: dict[str, Any] = {"device": None, "metrics": {}, "error": None}
    try:
        result["device"] = device_info()
        case = Case(job)
        result["metrics"] = case.metrics
        CHECKS.get(case.code, check_compiles)(case)
        finish(case)
    except Exception as error:  # a failure to set up the check: the parent reports inconclusive
        result["error"] = f"{type(error).__name__}: {short(error)}"
        result["traceback"] = traceback.format_exc(limit=-6)
    return result


def run_jobs(jobs: list[dict]) -> list[dict]:
    """Several findings in one process, one after another (saves a JAX start-up per finding)."""
    return [run_job(job) for job in jobs]


def main(argv: list[str]) -> int:
    job_path, result_path = argv[1], argv[2]
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    result = run_jobs(job) if isinstance(job, list) else run_job(job)
    Path(result_path).write_text(json.dumps(result, default=_jsonable), encoding="utf-8")
    return 0


def _jsonable(value: Any) -> Any:
    try:
        return float(value)
    except Exception:
        return repr(value)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
