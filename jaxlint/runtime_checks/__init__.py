"""The runtime mode: run flagged functions on the accelerator and turn warnings into evidence.

`jaxlint runtime` is the only part of jaxlint that executes user code, and only when asked.

`jaxlint runtime -- COMMAND` runs the user's own program (`trace_run`) with an instrumentation
hook loaded through `trace_site/sitecustomize.py` (`trace_hook`: compilations, host syncs, jitted
calls, executed lines, donation probes, per source line), then joins what ran to the static
findings of the same files (`trace_join`) and reports it (`trace_report`: text, JSON, HTML).

`jaxlint runtime path.py::function` checks single functions with example inputs.
The parent process (this package's `cli`, `runner`, `targets`, `verdicts`, `report`) never
imports jax: it finds the findings statically, asks the fixer for the fixed source, and hands
one job per finding to a child process (`child`) that imports jax, builds the example inputs
(`spec`), counts compilations, reads HLO statistics (`hlo`), memory and cost analyses and
times both versions (`measure`). A crash, hang or out-of-memory in the child becomes an
`inconclusive` verdict, never a jaxlint failure.
"""
