"""Instrumentation inside the user's own process, for `jaxlint runtime -- COMMAND`.

Loaded by the `sitecustomize` of `trace_site/` (put first on PYTHONPATH by `trace_run`), it waits
for the program to import jax, then records, attributed to the innermost frame in the user's
files (`JAXLINT_TRACE_ROOTS`):

- compilations (`jax.monitoring` backend-compile events) with the jitted name, and the reason
  of each tracing cache miss (`jax_explain_cache_misses`, whose log records are kept out of the
  user's stderr);
- device-to-host syncs: every read of an array's host value (`float`, `.item()`, `np.asarray`,
  `print`, `jax.device_get`, ...) and `block_until_ready`, with the time the host was blocked.
  The transfer guard would only see these on GPU/TPU (on CPU it never fires, and on GPU it logs
  from C++ to the user's stderr), so the host-value accessors themselves are wrapped. On CPU,
  `np.asarray(x)` (and `.item()`, which uses it) reads a CPU array through the buffer protocol,
  with no Python frame to wrap: those reads are not seen there;
- calls of the compiled entry points of the user's functions (a thin Python wrapper around what
  `jax.jit`, `jax.pmap`, `jax.shard_map`, and, when the program imports them, `eqx.filter_jit`
  and `nnx.jit` return, only for functions defined in the user's files): host time per dispatch
  and between consecutive dispatches, the line that built the callable (its compilations are
  counted there too), the devices its outputs span, donated inputs deleted after the call, and
  the argument shapes and shardings of the second call (a loop's steady state);
- host-to-device uploads (`jax.device_put` of NumPy data, NumPy arguments of an entry point):
  bytes, and a fingerprint per upload so the same data sent again from a line is counted;
  device-to-host reads: bytes, and whether the array was split over several devices (a gather);
- lines executed in the user's files (to tell "ran fine" from "never ran");
- warnings about donation, and at exit: peak device memory (`memory_stats()`), the cost of
  reading back a value that is already on the host side (the device's sync floor), and for
  each entry point called at least twice, its compiled program's collectives and memory, and
  where its outputs could reuse an input's buffers, `memory_analysis()` with and without donating
  it, and a warm, fair timing of both (`trace_probes`).

Everything goes to `JAXLINT_TRACE_DIR/trace-<pid>.json`, rewritten at most every second while
the program runs (the parent shows progress from it) and once more at exit. The program's
behaviour is unchanged: wrappers return what the wrapped call returns and raise what it raises.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import time
import warnings
from pathlib import Path

TIMELINE_LIMIT = 4000  # events kept for the timeline; counters keep counting past it
SNAPSHOT_EVERY_S = 1.0

_SYNC_KINDS = {
    "__float__": "float()", "__int__": "int()", "__bool__": "bool()", "__index__": "index",
    "__complex__": "complex()", "item": ".item()", "tolist": ".tolist()", "__array__": "np.asarray()",
    "__format__": "format/print", "__str__": "format/print", "__repr__": "format/print",
    "device_get": "jax.device_get()", "block_until_ready": "block_until_ready()",
}


class Recorder:
    """Counters per (file, line) and a bounded timeline; written as one JSON document."""

    def __init__(self, out_dir: str, roots: list[str]) -> None:
        self.path = Path(out_dir) / f"trace-{os.getpid()}.json"
        self.roots = [os.path.normcase(os.path.abspath(root)) for root in roots if root]
        self.excluded = [os.path.normcase(os.path.abspath(p)) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
        self.own_package = os.path.normcase(str(Path(__file__).resolve().parents[1]))
        self.started = time.perf_counter()
        self.started_wall = time.time()
        self.lock = threading.RLock()
        self.user_file_cache: dict[str, bool] = {}
        self.lines: dict[str, dict] = {}  # "file:line" -> counters
        self.timeline: list[dict] = []
        self.functions: dict[str, dict] = {}  # jitted user functions by "file:def_line:name"
        self.executed: dict[str, set[int]] = {}
        self.cache_misses: list[dict] = []
        self.donation_warnings: list[dict] = []
        self.totals = {"compiles": 0, "compile_s": 0.0, "traces": 0, "syncs": 0, "sync_blocked_s": 0.0, "calls": 0,
                       "h2d_count": 0, "h2d_bytes": 0, "d2h_count": 0, "d2h_bytes": 0}
        self.at_exit: dict = {}
        self.last_snapshot = 0.0
        self.in_sync = threading.local()
        self.active = threading.local()  # the recorded jitted calls in progress on this thread (a stack)
        self.uploads_seen: dict[str, dict] = {}  # "file:line" -> fingerprint of host data -> uploads
        self.last_dispatch_end: float | None = None
        self.closed = False  # set at exit: the probes' own compilations and syncs are not the program's

    # ------------------------------------------------------------------ attribution
    def is_user_file(self, filename: str) -> bool:
        known = self.user_file_cache.get(filename)
        if known is not None:
            return known
        path = os.path.normcase(os.path.abspath(filename))
        answer = (not filename.startswith("<") and any(path.startswith(root + os.sep) or path == root for root in self.roots)
                  and "site-packages" not in path and "dist-packages" not in path
                  and not any(path.startswith(prefix + os.sep) for prefix in self.excluded if prefix not in self.roots)
                  and not path.startswith(self.own_package + os.sep))
        self.user_file_cache[filename] = answer
        return answer

    def user_frame(self, frame):
        """(file, line, function, name of the outermost library frame called from it) or None."""
        called = None
        while frame is not None:
            code = frame.f_code
            if self.is_user_file(code.co_filename):
                return code.co_filename, frame.f_lineno, code.co_name, called
            called = code.co_name
            frame = frame.f_back
        return None

    def now(self) -> float:
        return time.perf_counter() - self.started

    def line_entry(self, where) -> dict:
        key = f"{where[0]}:{where[1]}"
        entry = self.lines.get(key)
        if entry is not None and entry["function"] == "?":
            entry["function"] = where[2]
        if entry is None:
            entry = self.lines[key] = {"file": where[0], "line": where[1], "function": where[2], "compiles": 0,
                                       "compile_s": 0.0, "compiled": {}, "traces": 0, "syncs": 0,
                                       "sync_blocked_s": 0.0, "sync_kinds": {}, "sync_blocked_samples": [],
                                       "calls": 0, "dispatch_s": 0.0, "gap_s": 0.0, "called": {},
                                       "cache_miss_reasons": [], "built_compiles": 0, "built_compiled": {},
                                       "compiled_built_at": {}, "h2d_count": 0, "h2d_bytes": 0,
                                       "h2d_repeated": 0, "h2d_repeated_bytes": 0, "h2d_same_object": 0,
                                       "h2d_kinds": {}, "h2d_shapes": [], "d2h_count": 0, "d2h_bytes": 0,
                                       "gathers": 0, "gather_bytes": 0, "gather_devices": 0}
        return entry

    def event(self, record: dict) -> None:
        if len(self.timeline) < TIMELINE_LIMIT:
            self.timeline.append(record)
        if time.perf_counter() - self.last_snapshot > SNAPSHOT_EVERY_S:
            self.write(final=False)

    # ------------------------------------------------------------------ what happened
    def on_duration(self, event: str, duration: float, **kwargs) -> None:
        if self.closed or ("backend_compile_duration" not in event and "jaxpr_trace_duration" not in event):
            return
        where = self.user_frame(sys._getframe(1))
        name = str(kwargs.get("fun_name") or "?")
        with self.lock:
            if "jaxpr_trace_duration" in event:
                self.totals["traces"] += 1
                if where:
                    self.line_entry(where)["traces"] += 1
                return
            self.totals["compiles"] += 1
            self.totals["compile_s"] += duration
            if where:
                entry = self.line_entry(where)
                entry["compiles"] += 1
                entry["compile_s"] += duration
                entry["compiled"][name] = entry["compiled"].get(name, 0) + 1
                built = self.building_site()
                if built is not None and (built[0], built[1]) != (where[0], where[1]):
                    # The callable was built on another line (`f = jax.jit(...)`, then `f(x)`): that
                    # line's finding (JAX302/JAX303) is judged on these compilations too.
                    site = f"{built[0]}:{built[1]}"
                    entry["compiled_built_at"][site] = entry["compiled_built_at"].get(site, 0) + 1
                    origin = self.line_entry(built)
                    origin["built_compiles"] += 1
                    origin["built_compiled"][name] = origin["built_compiled"].get(name, 0) + 1
                    origin.setdefault("built_compile_s", 0.0)
                    origin["built_compile_s"] += duration
            self.event({"kind": "compile", "t": self.now() - duration, "duration": duration, "name": name,
                        "file": where[0] if where else None, "line": where[1] if where else None})

    def building_site(self):
        """(file, line, function) where the innermost recorded jitted call in progress was built."""
        stack = getattr(self.active, "stack", None)
        return stack[-1] if stack else None

    def on_sync(self, kind_hint: str | None, blocked: float, frame, read: tuple[int, int, bool] | None = None) -> None:
        """A host read; `read` is (bytes, devices the array spans, whether it is split over them)."""
        if self.closed:
            return
        where = self.user_frame(frame)
        kind = _SYNC_KINDS.get(where[3] if where else None) or kind_hint or "host read"
        with self.lock:
            self.totals["syncs"] += 1
            self.totals["sync_blocked_s"] += blocked
            if read is not None:
                self.totals["d2h_count"] += 1
                self.totals["d2h_bytes"] += read[0]
            if where:
                entry = self.line_entry(where)
                if read is not None:
                    entry["d2h_count"] += 1
                    entry["d2h_bytes"] += read[0]
                    if read[2]:
                        entry["gathers"] += 1
                        entry["gather_bytes"] += read[0]
                        entry["gather_devices"] = max(entry["gather_devices"], read[1])
                entry["syncs"] += 1
                entry["sync_blocked_s"] += blocked
                entry["sync_kinds"][kind] = entry["sync_kinds"].get(kind, 0) + 1
                if len(entry["sync_blocked_samples"]) < 256:
                    entry["sync_blocked_samples"].append(blocked)
            self.event({"kind": "sync", "t": self.now() - blocked, "duration": blocked, "name": kind,
                        "file": where[0] if where else None, "line": where[1] if where else None})

    def on_call(self, function_key: str, started: float, ended: float, frame) -> None:
        if self.closed:
            return
        where = self.user_frame(frame)
        with self.lock:
            gap = started - self.last_dispatch_end if self.last_dispatch_end is not None else None
            self.last_dispatch_end = ended
            self.totals["calls"] += 1
            info = self.functions[function_key]
            info["calls"] += 1
            if where:
                entry = self.line_entry(where)
                entry["calls"] += 1
                entry["dispatch_s"] += ended - started
                entry["gap_s"] += gap or 0.0
                entry["called"][function_key] = entry["called"].get(function_key, 0) + 1
                sites = info["call_sites"]
                site = f"{where[0]}:{where[1]}"
                sites[site] = sites.get(site, 0) + 1
            self.event({"kind": "call", "t": started - self.started, "duration": ended - started,
                        "name": info["name"], "file": where[0] if where else None,
                        "line": where[1] if where else None})

    def on_upload(self, host_leaves: list, kind: str, frame) -> None:
        """Host data sent to the devices (`jax.device_put`, a NumPy argument of a jitted call).

        Each upload is fingerprinted (shape, dtype, a checksum of its bytes), so that the same
        host data sent again from the same line is counted as a repeat.
        """
        if self.closed or not host_leaves:
            return
        where = self.user_frame(frame)
        total = sum(int(getattr(leaf, "nbytes", 0)) for leaf in host_leaves)
        with self.lock:
            self.totals["h2d_count"] += 1
            self.totals["h2d_bytes"] += total
            if where is None:
                return
            entry = self.line_entry(where)
            entry["h2d_count"] += 1
            entry["h2d_bytes"] += total
            entry["h2d_kinds"][kind] = entry["h2d_kinds"].get(kind, 0) + 1
            seen = self.uploads_seen.setdefault(f"{where[0]}:{where[1]}", {})
            fingerprint = tuple(_fingerprint(leaf) for leaf in host_leaves)
            objects = tuple(id(leaf) for leaf in host_leaves)
            if fingerprint in seen:
                entry["h2d_repeated"] += 1
                entry["h2d_repeated_bytes"] += total
                if seen[fingerprint] == objects:
                    entry["h2d_same_object"] += 1
            elif len(seen) < 64:
                seen[fingerprint] = objects
            if len(entry["h2d_shapes"]) < 4:
                shape = ", ".join(f"{leaf.dtype}{list(leaf.shape)}" for leaf in host_leaves[:3])
                if shape not in entry["h2d_shapes"]:
                    entry["h2d_shapes"].append(shape)

    def on_cache_miss(self, message: str) -> None:
        # "TRACING CACHE MISS at /path/file.py:20:30 (<module>):\n  reason lines"
        head, _, reasons = message.partition("\n")
        location = head.split(" at ", 1)[-1].rsplit(" (", 1)[0]
        parts = location.rsplit(":", 2)
        with self.lock:
            record = {"file": parts[0] if len(parts) == 3 else location, "reason": " ".join(reasons.split())[:400]}
            try:
                record["line"] = int(parts[1])
            except (IndexError, ValueError):
                record["line"] = None
            if len(self.cache_misses) < 500:
                self.cache_misses.append(record)
            where = (record["file"], record["line"], "?")
            if record["line"] is None or not self.is_user_file(record["file"]):
                # JAX names the innermost frame outside jax: that can be this module's jit wrapper.
                where = self.user_frame(sys._getframe(1))
            built = self.building_site()
            for site in (where, built if built is not None and built[:2] != (where or (None, None))[:2] else None):
                if site is not None:
                    reasons_seen = self.line_entry(site)["cache_miss_reasons"]
                    if len(reasons_seen) < 5 and record["reason"] not in reasons_seen:
                        reasons_seen.append(record["reason"])

    def on_warning(self, message, category, filename, lineno) -> None:
        text = str(message)
        if self.closed or "donat" not in text.lower():  # closed: the probes' own donations at exit
            return
        where = self.user_frame(sys._getframe(2))
        with self.lock:
            if len(self.donation_warnings) < 100:
                self.donation_warnings.append({"message": text[:400], "category": category.__name__,
                                               "file": where[0] if where else filename,
                                               "line": where[1] if where else lineno})

    # ------------------------------------------------------------------ output
    def document(self) -> dict:
        with self.lock:
            return {
                "pid": os.getpid(), "argv": list(sys.argv), "started": self.started_wall,
                "elapsed_s": self.now(), "totals": dict(self.totals), "lines": list(self.lines.values()),
                "functions": list(self.functions.values()),
                "executed": {name: sorted(rows) for name, rows in self.executed.items()},
                "cache_misses": list(self.cache_misses), "donation_warnings": list(self.donation_warnings),
                "timeline": list(self.timeline), "at_exit": dict(self.at_exit),
            }

    def write(self, final: bool) -> None:
        self.last_snapshot = time.perf_counter()
        try:
            document = self.document()
            document["final"] = final
            temporary = self.path.with_suffix(f".tmp{threading.get_ident()}")
            temporary.write_text(json.dumps(document, default=str), encoding="utf-8")
            os.replace(temporary, self.path)
        except Exception:
            pass  # the user's program must never fail because a report could not be written


RECORDER: Recorder | None = None


# ---------------------------------------------------------------------- installation

def install_from_environment() -> None:
    """Called by the sitecustomize: arm the jax import watcher when the parent asked for it."""
    out_dir = os.environ.get("JAXLINT_TRACE_DIR")
    if not out_dir or RECORDER is not None:
        return
    roots = os.environ.get("JAXLINT_TRACE_ROOTS", os.getcwd()).split(os.pathsep)
    start(Recorder(out_dir, roots))


def start(recorder: Recorder) -> None:
    global RECORDER
    RECORDER = recorder
    _watch_lines(recorder)
    _watch_uncaught(recorder)
    pending = {}
    for name, install in _INSTALLERS.items():
        if name in sys.modules:
            _install_guarded(recorder, install, name)
        else:
            pending[name] = install
    if pending:
        sys.meta_path.insert(0, _ImportWatcher(recorder, pending))
    atexit.register(_finish)


def _install_guarded(recorder: Recorder, install, name: str) -> None:
    try:
        install(recorder)
    except Exception as error:  # instrumentation failing must not break the program
        key = "install_error" if name == "jax" else f"install_error_{name}"
        recorder.at_exit[key] = f"{type(error).__name__}: {error}"


class _ImportWatcher:
    """A meta-path finder that instruments a module right after its `__init__` executes: jax,
    and the libraries whose own entry points wrap `jax.jit` (equinox, flax.nnx), if the program
    imports them.

    jax is not imported early: a program may set JAX_* environment variables before importing it.
    """

    def __init__(self, recorder: Recorder, pending: dict) -> None:
        self.recorder = recorder
        self.pending = dict(pending)
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        install = self.pending.get(name)
        if install is None or self.busy:
            return None
        del self.pending[name]
        if not self.pending:
            sys.meta_path.remove(self)
        import importlib.util

        self.busy = True  # find_spec below asks the meta path again
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy = False
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original_exec = loader.exec_module
        recorder = self.recorder

        def exec_module(module):
            original_exec(module)
            if "jax" in sys.modules:
                _install_guarded(recorder, install, name)

        loader.exec_module = exec_module
        return spec


def _install_equinox(recorder: Recorder) -> None:
    equinox = sys.modules["equinox"]
    _wrap_transform(recorder, sys.modules["jax"], equinox, "filter_jit", "eqx.filter_jit")


def _install_nnx(recorder: Recorder) -> None:
    nnx = sys.modules["flax.nnx"]
    _wrap_transform(recorder, sys.modules["jax"], nnx, "jit", "nnx.jit")


def install_jax_hooks(recorder: Recorder) -> None:
    import jax

    if getattr(jax.jit, "_jaxlint_transform", None):
        return

    recorder.at_exit["jax_version"] = getattr(jax, "__version__", None)
    try:
        import jax.monitoring as monitoring

        monitoring.register_event_duration_secs_listener(recorder.on_duration)
    except Exception as error:
        recorder.at_exit["compile_events_unavailable"] = str(error)
    _explain_cache_misses(recorder, jax)
    _wrap_host_reads(recorder)
    _wrap_jit(recorder, jax)
    _watch_warnings(recorder)
    if os.environ.get("JAXLINT_TRACE_VALUES") == "1":  # `jaxlint fix --verify` compares what calls return
        global _VALUES
        from jaxlint.runtime_checks.trace_values import ValueLog

        _VALUES = ValueLog(recorder, jax)


_INSTALLERS = {"jax": install_jax_hooks, "equinox": _install_equinox, "flax.nnx": _install_nnx}


def _explain_cache_misses(recorder: Recorder, jax) -> None:
    user_asked = os.environ.get("JAX_EXPLAIN_CACHE_MISSES", "").lower() in ("1", "true")
    try:
        jax.config.update("jax_explain_cache_misses", True)
    except Exception:
        return
    import logging

    def keep(record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message.startswith("TRACING CACHE MISS"):
            recorder.on_cache_miss(message)
            return user_asked  # the user's stderr sees these only if they asked for them
        return True

    for name in list(logging.root.manager.loggerDict):
        if name == "jax" or name.startswith("jax."):
            logging.getLogger(name).addFilter(keep)


def _wrap_host_reads(recorder: Recorder) -> None:
    try:
        from jax._src.array import ArrayImpl
    except Exception as error:
        recorder.at_exit["sync_tracking_unavailable"] = str(error)
        return
    value_property = ArrayImpl.__dict__.get("_value")
    if isinstance(value_property, property) and value_property.fget is not None:
        read = value_property.fget

        def timed_value(self):
            if getattr(recorder.in_sync, "active", False):
                return read(self)
            recorder.in_sync.active = True
            started = time.perf_counter()
            try:
                return read(self)
            finally:
                recorder.in_sync.active = False
                recorder.on_sync(None, time.perf_counter() - started, sys._getframe(1), _read_facts(self))

        ArrayImpl._value = property(timed_value, value_property.fset, value_property.fdel, value_property.__doc__)
    blocking = ArrayImpl.__dict__.get("block_until_ready")
    if callable(blocking):
        def timed_block(self):
            if getattr(recorder.in_sync, "active", False):
                return blocking(self)
            recorder.in_sync.active = True
            started = time.perf_counter()
            try:
                return blocking(self)
            finally:
                recorder.in_sync.active = False
                recorder.on_sync("block_until_ready()", time.perf_counter() - started, sys._getframe(1))

        timed_block.__doc__ = getattr(blocking, "__doc__", None)
        ArrayImpl.block_until_ready = timed_block


_ORIGINAL_JIT = None  # jax's own jit, for the probes at exit (their calls are not the program's)
_ORIGINALS: dict[str, object] = {}  # every entry point's own transform, by its label ("jit", "pmap", ...)


def _wrap_jit(recorder: Recorder, jax) -> None:
    global _ORIGINAL_JIT
    _ORIGINAL_JIT = jax.jit
    _wrap_transform(recorder, jax, jax, "jit", "jit")
    _wrap_transform(recorder, jax, jax, "pmap", "pmap")
    if hasattr(jax, "shard_map"):
        _wrap_transform(recorder, jax, jax, "shard_map", "shard_map")
    _wrap_device_put(recorder, jax)
    _wrap_device_get(recorder, jax)


def _wrap_transform(recorder: Recorder, jax, owner, attribute: str, label: str) -> None:
    """Replace `owner.attribute` (a transform such as `jax.jit`) by one that records the calls of
    what it returns, for functions defined in the user's files; everything else passes through."""
    original = getattr(owner, attribute, None)
    if original is None or getattr(original, "_jaxlint_transform", None):
        return
    _ORIGINALS.setdefault(label, original)

    def transform(fun=None, *args, **kwargs):
        if fun is None:  # decorator-factory form: `@jax.jit(static_argnames=...)`, `@eqx.filter_jit(donate=...)`
            return lambda f: transform(f, *args, **kwargs)
        transformed = original(fun, *args, **kwargs)
        code = getattr(fun, "__code__", None)
        if code is None or not recorder.is_user_file(code.co_filename):
            return transformed
        return _recording(recorder, jax, fun, transformed, args, kwargs, label, sys._getframe(1))

    transform.__doc__ = getattr(original, "__doc__", None)
    transform.__wrapped__ = original
    transform._jaxlint_transform = label
    setattr(owner, attribute, transform)


def _wrap_device_put(recorder: Recorder, jax) -> None:
    """`jax.device_put` of host data: bytes and a fingerprint per call, at the user's line."""
    original = jax.device_put
    if getattr(original, "_jaxlint_transform", None):
        return
    import numpy

    def device_put(x, *args, **kwargs):
        try:
            if not getattr(recorder.in_sync, "active", False):
                host = [leaf for leaf in jax.tree.leaves(x) if isinstance(leaf, numpy.ndarray)]
                recorder.on_upload(host, "jax.device_put()", sys._getframe(1))
        except Exception:
            pass
        return original(x, *args, **kwargs)

    device_put.__doc__ = getattr(original, "__doc__", None)
    device_put.__wrapped__ = original
    device_put._jaxlint_transform = "device_put"
    jax.device_put = device_put


def _wrap_device_get(recorder: Recorder, jax) -> None:
    """`jax.device_get(tree)` is one sync at the user's line, however many arrays the tree holds
    (a list of per-step losses read once after the loop is not a sync per step)."""
    original = jax.device_get
    if getattr(original, "_jaxlint_transform", None):
        return

    def device_get(x):
        if getattr(recorder.in_sync, "active", False):
            return original(x)
        try:
            facts = [_read_facts(leaf) for leaf in jax.tree.leaves(x) if isinstance(leaf, jax.Array)]
        except Exception:
            facts = []
        facts = [fact for fact in facts if fact is not None]
        recorder.in_sync.active = True
        started = time.perf_counter()
        try:
            return original(x)
        finally:
            recorder.in_sync.active = False
            if facts:
                read = (sum(fact[0] for fact in facts), max(fact[1] for fact in facts), any(fact[2] for fact in facts))
                recorder.on_sync("jax.device_get()", time.perf_counter() - started, sys._getframe(1), read)

    device_get.__doc__ = getattr(original, "__doc__", None)
    device_get.__wrapped__ = original
    device_get._jaxlint_transform = "device_get"
    jax.device_get = device_get


def _donated_positions(jit_kwargs: dict) -> set[int]:
    donated = jit_kwargs.get("donate_argnums") or ()
    return {donated} if isinstance(donated, int) else set(donated)


def _recording(recorder: Recorder, jax, fun, jitted, jit_args: tuple, jit_kwargs: dict, transform: str = "jit",
               build_frame=None):
    code = fun.__code__
    key = f"{code.co_filename}:{code.co_firstlineno}:{getattr(fun, '__qualname__', code.co_name)}"
    built = recorder.user_frame(build_frame) if build_frame is not None else None
    donate = jit_kwargs.get("donate")  # equinox: donate="all" / "all-except-first" / "warn" / "none"
    with recorder.lock:
        info = recorder.functions.setdefault(key, {
            "key": key, "name": getattr(fun, "__qualname__", code.co_name), "file": code.co_filename,
            "line": code.co_firstlineno, "calls": 0, "call_sites": {}, "jit_objects": 0,
            "donates": bool(jit_kwargs.get("donate_argnums") or jit_kwargs.get("donate_argnames")
                            or (isinstance(donate, str) and donate not in ("none", "warn"))),
            "transform": transform, "built_at": {}, "devices": 0, "donated_leaves": 0, "donated_deleted": 0,
        })
        info["jit_objects"] += 1
        if built is not None:
            site = f"{built[0]}:{built[1]}"
            info["built_at"][site] = info["built_at"].get(site, 0) + 1
    state = {"recorded_args": 0}
    donated_positions = _donated_positions(jit_kwargs) if transform in ("jit", "pmap", "nnx.jit") else set()
    import numpy

    def call(*args, **kwargs):
        try:
            traced = _has_tracer(jax, args, kwargs)
        except Exception:
            traced = True
        if traced:  # called while tracing another function: inlined there, no dispatch of its own
            return jitted(*args, **kwargs)
        try:
            host = [leaf for leaf in jax.tree.leaves((args, kwargs)) if isinstance(leaf, numpy.ndarray)]
            if host:
                recorder.on_upload(host, f"argument of {info['name']}", sys._getframe(1))
        except Exception:
            pass
        stack = getattr(recorder.active, "stack", None)
        if stack is None:
            stack = recorder.active.stack = []
        stack.append(built)
        started = time.perf_counter()
        try:
            result = jitted(*args, **kwargs)
        finally:
            stack.pop()
        ended = time.perf_counter()
        try:
            if state["recorded_args"] < 2:
                # The second call's arguments are the steady state of a loop (the first may be host
                # data or a differently placed initial state); pmap places its inputs itself.
                state["recorded_args"] += 1
                keep = transform != "pmap"
                _PROBES[key] = (fun, jit_args, jit_kwargs, _abstract(jax, args, keep), _abstract(jax, kwargs, keep))
            recorder.on_call(key, started, ended, sys._getframe(1))
            if info["calls"] <= 3:
                leaves = [leaf for leaf in jax.tree.leaves(result) if hasattr(leaf, "sharding")]
                if leaves:
                    info["devices"] = max(info["devices"], len(leaves[0].sharding.device_set))
            if donated_positions:
                for position in donated_positions:
                    if position < len(args):
                        for leaf in jax.tree.leaves(args[position]):
                            if hasattr(leaf, "is_deleted"):
                                info["donated_leaves"] += 1
                                info["donated_deleted"] += bool(leaf.is_deleted())
            if _VALUES is not None:
                _VALUES.record(key, info["name"], result)
            if info["calls"] <= 3 or info["calls"] % 50 == 0:
                _sample_memory(recorder, jax)
        except Exception:
            pass
        return result

    for name in ("__module__", "__name__", "__qualname__", "__doc__"):
        value = getattr(fun, name, None)
        if isinstance(value, str) or (name == "__doc__" and value is None):
            setattr(call, name, value)
    call.__wrapped__ = fun  # as on jax's own jitted functions
    for name in ("lower", "trace", "eval_shape", "clear_cache", "_cache_size", "_fun"):
        if hasattr(jitted, name):
            setattr(call, name, getattr(jitted, name))
    call._jaxlint_jitted = jitted
    return call


_PROBES: dict[str, tuple] = {}
_VALUES = None  # a trace_values.ValueLog when JAXLINT_TRACE_VALUES=1

FINGERPRINT_FULL_BYTES = 8 << 20  # checksum every byte up to this size; above it, 256 evenly spaced 16 kB blocks


def _fingerprint(leaf) -> tuple:
    """Shape, dtype and a checksum of a host array's bytes: equal for the same data sent twice."""
    import zlib

    import numpy

    data = numpy.ascontiguousarray(leaf)
    raw = memoryview(data).cast("B") if data.nbytes else b""
    if data.nbytes <= FINGERPRINT_FULL_BYTES:
        checksum = zlib.crc32(raw)
    else:
        block, blocks = 16 << 10, 256
        stride = data.nbytes // blocks
        checksum = 0
        for index in range(blocks):
            checksum = zlib.crc32(raw[index * stride:index * stride + block], checksum)
        checksum = zlib.crc32(raw[-block:], checksum)
    return (tuple(data.shape), str(data.dtype), checksum)


def _read_facts(array) -> tuple[int, int, bool] | None:
    """(bytes, devices it spans, whether it is split over them) of an array read back to the host."""
    try:
        sharding = array.sharding
        devices = len(sharding.device_set)
        return int(array.nbytes), devices, devices > 1 and not sharding.is_fully_replicated
    except Exception:
        return None


def _sample_memory(recorder: Recorder, jax) -> None:
    """The largest device memory seen after a jitted call: the allocator's count where it keeps
    one, and the bytes of all live arrays (what the program holds, whatever the allocator)."""
    peak = recorder.at_exit.setdefault("memory_samples", {"allocator_bytes_max": None, "live_array_bytes_max": 0,
                                                          "samples": 0})
    peak["samples"] += 1
    try:
        stats = jax.devices()[0].memory_stats() or {}
    except Exception:
        stats = {}
    if stats.get("bytes_in_use"):
        peak["allocator_bytes_max"] = max(peak["allocator_bytes_max"] or 0, stats["bytes_in_use"])
    live = sum(array.nbytes for array in jax.live_arrays() if not array.is_deleted())
    peak["live_array_bytes_max"] = max(peak["live_array_bytes_max"], live)


def _has_tracer(jax, args, kwargs) -> bool:
    tracer = jax.core.Tracer
    return any(isinstance(leaf, tracer) for leaf in jax.tree.leaves((args, kwargs)))


def _abstract(jax, tree, keep_sharding: bool = True):
    def spec(leaf):
        if isinstance(leaf, jax.Array):
            return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype,
                                        sharding=getattr(leaf, "sharding", None) if keep_sharding else None)
        return leaf

    return jax.tree.map(spec, tree)


def _watch_warnings(recorder: Recorder) -> None:
    previous = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        try:
            recorder.on_warning(message, category, filename, lineno)
        except Exception:
            pass
        return previous(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning


def _watch_lines(recorder: Recorder) -> None:
    """Record executed lines of the user's files; sys.monitoring (3.12+) disables each after its first hit."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        tool = next((i for i in range(5, 0, -1) if monitoring.get_tool(i) is None), None)
        if tool is not None:
            monitoring.use_tool_id(tool, "jaxlint-runtime")

            def on_line(code, line):
                if recorder.is_user_file(code.co_filename):
                    recorder.executed.setdefault(code.co_filename, set()).add(line)
                return monitoring.DISABLE

            monitoring.register_callback(tool, monitoring.events.LINE, on_line)
            monitoring.set_events(tool, monitoring.events.LINE)
            return

    def local(frame, event, arg):
        if event == "line":
            recorder.executed.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
        return local

    def global_trace(frame, event, arg):
        if recorder.is_user_file(frame.f_code.co_filename):
            return local
        return None

    sys.settrace(global_trace)
    threading.settrace(global_trace)


def _watch_uncaught(recorder: Recorder) -> None:
    """The exception that ends the program: its class, message and the user's frames in its traceback."""
    previous = sys.excepthook

    def excepthook(kind, error, traceback):
        try:
            frames = []
            while traceback is not None:
                code = traceback.tb_frame.f_code
                if recorder.is_user_file(code.co_filename):
                    frames.append({"file": code.co_filename, "line": traceback.tb_lineno, "function": code.co_name})
                traceback = traceback.tb_next
            recorder.at_exit["uncaught"] = {"error": kind.__name__, "message": str(error)[:500], "frames": frames}
        except Exception:
            pass
        return previous(kind, error, error.__traceback__)

    sys.excepthook = excepthook


# ---------------------------------------------------------------------- at exit

def _finish() -> None:
    recorder = RECORDER
    if recorder is None:
        return
    recorder.at_exit["elapsed_s"] = recorder.now()
    recorder.closed = True
    jax = sys.modules.get("jax")
    steps = [_device_facts, _sync_floor]
    if _VALUES is not None:
        steps.append(_returned_values)
    if os.environ.get("JAXLINT_TRACE_PROBE", "1") != "0":
        steps.append(_donation_probes)
    if jax is not None:
        for step in steps:
            try:
                step(recorder, jax)
            except Exception as error:
                recorder.at_exit.setdefault("errors", []).append(f"{step.__name__}: {type(error).__name__}: {error}")
    recorder.write(final=True)


def _device_facts(recorder: Recorder, jax) -> None:
    device = jax.devices()[0]
    recorder.at_exit["device"] = {"platform": device.platform, "device_kind": device.device_kind,
                                  "device_count": jax.device_count(), "jax_version": jax.__version__,
                                  "python_version": sys.version.split()[0]}
    peaks = []
    for each in jax.local_devices():
        try:
            stats = each.memory_stats() or {}
        except Exception:
            stats = {}
        peaks.append({"device": str(each), "peak_bytes_in_use": stats.get("peak_bytes_in_use"),
                      "bytes_limit": stats.get("bytes_limit"), "bytes_in_use": stats.get("bytes_in_use")})
    recorder.at_exit["memory"] = peaks


def _sync_floor(recorder: Recorder, jax) -> None:
    """Median time to read back a scalar that is already computed: the least a sync costs here."""
    import jax.numpy as jnp

    value = jnp.zeros(())
    value.block_until_ready()
    samples = []
    recorder.in_sync.active = True  # the probe's own reads are not the program's syncs
    for _ in range(25):
        fresh = value + 0  # a new array each time, so no cached host copy is returned
        fresh.block_until_ready()
        started = time.perf_counter()
        fresh.__array__()
        samples.append(time.perf_counter() - started)
    recorder.in_sync.active = False
    samples.sort()
    recorder.at_exit["ready_sync_s"] = samples[len(samples) // 2]


def _returned_values(recorder: Recorder, jax) -> None:
    recorder.at_exit["values"] = _VALUES.summary()


def _donation_probes(recorder: Recorder, jax) -> None:
    from jaxlint.runtime_checks.trace_probes import donation_probes

    donation_probes(recorder, jax, _PROBES, _ORIGINAL_JIT or jax.jit, dict(_ORIGINALS))
