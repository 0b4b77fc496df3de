"""The child process: load the user's module, run one finding's check, write JSON facts.

Started by `runner` as `python -m jaxlint.runtime_checks.child JOB.json RESULT.json`, one process
per finding, so compile caches start empty, a crash takes only this finding down, and the
device is freed when it exits. It measures and reports; the verdict is decided by the parent
(`verdicts`), from these numbers alone.

Each rule has an evidence path: JAX101/102/301 run the original under `jit` (expecting the
tracer or hashing error) and the fixed version against the un-jitted original; JAX201 runs
the host loop under a device-to-host transfer guard and times it; JAX302/402 count
compilations and time calls; JAX401 reads `memory_analysis()` of the step with and without
donation. `compare` times a user-named alternative (e.g. a Pallas kernel) on the same inputs.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import sys
import time
import traceback
import types
from pathlib import Path
from typing import Any, Callable

from jaxlint.runtime_checks import measure
from jaxlint.runtime_checks.hlo import hlo_statistics
from jaxlint.runtime_checks.spec import materialize, parse_spec

TRACING_ERRORS = {"JAX101": ("TracerBoolConversionError", "ConcretizationTypeError"),
                  "JAX102": ("ConcretizationTypeError", "TracerIntegerConversionError",
                             "TracerArrayConversionError", "TracerBoolConversionError")}

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
        self.module = load_module(self.path)
        self.original = getattr(self.module, self.function)
        self.fixed_module, self.fixed_by = load_fixed_module(self.path, self.module, job)
        self.fixed = lookup_fixed(self.fixed_module, self.module, self.function)
        self.metrics: dict[str, Any] = {key: None for key in METRIC_KEYS}
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
    module = types.ModuleType(original.__name__ + "__fixed")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    exec(compile(text, fixed_filename(path), "exec"), module.__dict__)
    return module, "fixer"


def lookup_fixed(fixed_module, original_module, name: str):
    if fixed_module is not None:
        return getattr(fixed_module, name, None)
    return getattr(original_module, f"{name}__fixed", None)


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
    """JAX101/JAX102/JAX301: the original fails under jit; the fixed one compiles and agrees."""
    wrap = case.code in TRACING_ERRORS  # a traced-function finding: run it under jit
    original = jitted(case.original) if wrap else case.original
    _, error = first_call(case, case.caller(original), "original")
    case.metrics["error_original"] = error_name(error)
    case.metrics["error_message_original"] = short(error)
    reference, reference_error = attempt(case.caller(eager(case.original)))
    case.metrics["error_eager_original"] = error_name(reference_error)
    if error is not None and reference_error is None:
        record_timing(case, case.caller(eager(case.original)), "original")  # the Python fallback
    elif error is None:
        record_timing(case, case.caller(original), "original")
        record_compiled(case, original, "original")
    if case.fixed is None:
        return
    fixed = jitted(case.fixed) if wrap else case.fixed
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
    first_call(case, case.caller(driver), "fixed")
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


CHECKS: dict[str, Callable[[Case], None]] = {
    "JAX101": check_error_under_jit,
    "JAX102": check_error_under_jit,
    "JAX301": check_error_under_jit,
    "JAX201": check_host_loop,
    "JAX302": check_compiles,
    "JAX402": check_compiles,
    "JAX401": check_donation,
    "compare": check_compare,
}


def device_info() -> dict:
    import jax

    device = jax.devices()[0]
    return {"platform": jax.default_backend(), "device_kind": getattr(device, "device_kind", None),
            "device_count": jax.device_count(), "jax_version": jax.__version__,
            "python_version": sys.version.split()[0]}


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


def main(argv: list[str]) -> int:
    job_path, result_path = argv[1], argv[2]
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    result = run_job(job)
    Path(result_path).write_text(json.dumps(result, default=_jsonable), encoding="utf-8")
    return 0


def _jsonable(value: Any) -> Any:
    try:
        return float(value)
    except Exception:
        return repr(value)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
