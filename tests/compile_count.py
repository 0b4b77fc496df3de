"""Count XLA compilations while code runs, through `jax.monitoring` (no private cache inspection).

Golden fixes must compile once: `compiles_after_warmup(call)` runs `call()` once to warm every cache
(eager op kernels included), then runs it `repeats` more times with the same shapes and returns how
many backend compilations those later calls triggered. A fix that builds a new jitted callable per
call (closures, `jax.jit(...)` inside the function) compiles on every repeat; a hoisted one gives 0.
"""

from __future__ import annotations

import jax
import jax.monitoring

# The event jax records for every backend compilation (jax._src.dispatch.BACKEND_COMPILE_EVENT).
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


class _CompileCounter:
    def __init__(self) -> None:
        self.count = 0
        jax.monitoring.register_event_duration_secs_listener(self._listen)

    def _listen(self, event: str, duration: float, **_: object) -> None:
        if event == BACKEND_COMPILE_EVENT:
            self.count += 1


_COUNTER: _CompileCounter | None = None


def compiles_during(call) -> int:
    """How many backend compilations happen while `call()` runs (it is blocked on until ready)."""
    global _COUNTER
    if _COUNTER is None:
        _COUNTER = _CompileCounter()
    before = _COUNTER.count
    jax.block_until_ready(call())
    return _COUNTER.count - before


def compiles_after_warmup(call, repeats: int = 3) -> int:
    compiles_during(call)
    return sum(compiles_during(call) for _ in range(repeats))


def compiles_over(function, argument_sets) -> int:
    """Call `function(*arguments)` for each set (same shapes, other values): compilations after the first call."""
    first, *rest = argument_sets
    compiles_during(lambda: function(*first))
    return sum(compiles_during(lambda arguments=arguments: function(*arguments)) for arguments in rest)
