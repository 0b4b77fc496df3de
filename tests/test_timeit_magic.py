"""JAX202 on a notebook's `%timeit` line: IPython runs the expression many times and reports the wall
time per run, so an expression that returns while its device work runs measures dispatch only.
notebook.py masks the line as `__jaxlint_timeit__(lambda: <expression>)`, which the rule reads like
`timeit.timeit(lambda: ...)`; no fix is written on the IPython line, and a fix of the rest of the
notebook gives the line back as it was."""

from __future__ import annotations

import json

from jaxlint.cli import build_settings, enabled_rules
from jaxlint.notebook import fix_notebook, lint_notebook, mask_ipython, unmask

_SETUP = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n\nkey = jax.random.PRNGKey(0)\nx = jax.random.normal(key, (512, 512))\n"
_STEP = "@jax.jit\ndef step(v):\n    return jnp.tanh(v @ v.T)\n"


def _notebook(*cells: str) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells],
        "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5,
    })


def _timing_findings(*cells: str) -> list[tuple[int, int]]:
    settings = build_settings(["."], None, ("JAX202",), (), ())
    result = lint_notebook(_notebook(*cells), "nb.ipynb", settings, enabled_rules(settings))
    return [(d.cell, d.location.row) for d in result.diagnostics if d.code == "JAX202"]


def test_timeit_of_a_compiled_call_is_flagged():
    assert _timing_findings(_SETUP, _STEP + "%timeit step(x)") == [(2, 4)]


def test_timeit_with_options_and_a_trailing_comment_is_flagged():
    assert _timing_findings(_SETUP, _STEP + "\n%timeit -n 10 -r 3 step(x)  # ten loops") == [(2, 5)]


def test_timeit_of_an_eager_operation_and_inside_a_loop_is_flagged():
    cells = (_SETUP, "%timeit jnp.dot(x, x.T)", "for size in (8, 16):\n    y = jnp.ones((size, size))\n    %timeit jnp.sin(y)")
    assert _timing_findings(*cells) == [(2, 1), (3, 3)]


def test_timeit_that_waits_or_times_host_code_is_silent():
    cells = (
        _SETUP,
        _STEP + "%timeit step(x).block_until_ready()",
        "%timeit jax.block_until_ready(step(x))",
        "host = np.ones((64, 64))\n%timeit np.dot(host, host)",
        "%timeit float(step(x).sum())",
    )
    assert _timing_findings(*cells) == []


def test_timeit_statement_or_continued_line_stays_masked():
    # An augmented assignment or several statements are not one timed value: masked like any magic.
    masked, lines = mask_ipython("%timeit y += step(x)\n%timeit step(a, \\\n    b)")
    assert masked == "pass  # @@ipython 1@@\npass  # @@ipython 2@@\n# @@ipython 3@@"
    masked, lines = mask_ipython("%timeit a = 1; b = step(x)")
    assert masked == "pass  # @@ipython 1@@"
    # One plain assignment times its value (IPython binds the name inside its timing function).
    masked, lines = mask_ipython("%timeit y = step(x)")
    assert masked == "__jaxlint_timeit__(lambda: step(x))  # @@ipython 1@@"
    assert unmask(masked, lines) == "%timeit y = step(x)"
    masked, lines = mask_ipython("%timeit step(x)  # fast")
    assert masked == "__jaxlint_timeit__(lambda: step(x))  # @@ipython 1@@"
    assert unmask(masked, lines) == "%timeit step(x)  # fast"


def test_fixing_the_notebook_keeps_the_timeit_line():
    settings = build_settings(["."], None, (), (), ())
    text = _notebook(_SETUP, _STEP + "%timeit step(x)")
    fixed, _ = fix_notebook(text, settings, enabled_rules(settings), unsafe=True)
    cells = json.loads(fixed)["cells"]
    assert cells[1]["source"].endswith("%timeit step(x)")


def _key_findings(*cells: str) -> list[tuple[int, int]]:
    settings = build_settings(["."], None, ("JAX501",), (), ())
    result = lint_notebook(_notebook(*cells), "nb.ipynb", settings, enabled_rules(settings))
    return [(d.cell, d.location.row) for d in result.diagnostics if d.code == "JAX501"]


def test_benchmark_inputs_drawn_from_one_key_are_not_reuse():
    # `%timeit` discards what it runs: draws that only feed it reach no result, whatever bits they share.
    cells = (
        "import jax\nimport jax.numpy as jnp\nkey = jax.random.PRNGKey(0)",
        "a = jax.random.normal(key, (256, 256))\nb = jax.random.normal(key, (256, 256))\n%timeit jnp.dot(a, b).block_until_ready()",
    )
    assert _key_findings(*cells) == []
    kept = cells[1] + "\nproduct = jnp.dot(a, b)"
    assert _key_findings(cells[0], kept) == [(2, 2)]


# `%%time` and `%%timeit` cells: the rest of the cell is the interval, linted after the magic line
# masked as `__jaxlint_timed_cell__("time", n)`.


def test_time_cell_of_a_compiled_call_is_flagged():
    assert _timing_findings(_SETUP, _STEP, "%%time\ny = step(x)") == [(3, 1)]


def test_time_cell_under_another_cell_magic_is_flagged():
    cells = (_SETUP, "%%capture out\n%%time\nys = jax.jit(jax.vmap(jnp.tanh))(x)")
    assert _timing_findings(*cells) == [(2, 2)]


def test_timeit_cell_of_several_eager_operations_is_flagged():
    # The cell's result is read in a later cell: after the interval, which measured dispatch.
    cells = (_SETUP, "%%timeit -n 3 -r 2\nh = jnp.tanh(x @ x)\nh = h / jnp.linalg.norm(h)", "print(float(h.sum()))")
    assert _timing_findings(*cells) == [(2, 1)]


def test_time_cells_that_wait_or_time_host_code_are_silent():
    cells = (
        _SETUP,
        _STEP,
        "%%time\ny = step(x)\ny.block_until_ready()",
        "%%timeit\nloss = float(step(x).sum())",
        "%%time\nhost = np.ones((64, 64))\nz = np.dot(host, host)",
        "%%time\nfor i in range(3):\n    y = step(y)\n    print(y[0, 0])",
    )
    assert _timing_findings(*cells) == []


def test_time_line_inside_a_cell_is_not_a_cell_magic():
    masked, lines = mask_ipython("y = 1\n%%time\ny = step(x)")
    assert masked == "y = 1\npass  # @@ipython 1@@\ny = step(x)"
    masked, lines = mask_ipython("%%capture out\n%%timeit\nstep(x)")
    assert masked == '# @@ipython 1@@\n__jaxlint_timed_cell__("timeit", 1)  # @@ipython 2@@\nstep(x)'
    assert unmask(masked, lines) == "%%capture out\n%%timeit\nstep(x)"


def test_fixing_the_notebook_keeps_the_time_cell_magic():
    settings = build_settings(["."], None, (), (), ())
    text = _notebook(_SETUP, _STEP, "%%time\ny = step(x)")
    fixed, _ = fix_notebook(text, settings, enabled_rules(settings), unsafe=True)
    assert json.loads(fixed)["cells"][2]["source"] == "%%time\ny = step(x)"


def test_timeit_of_a_function_redefined_in_an_earlier_cell_is_flagged():
    # The notebook defines `f` twice; the `%timeit` line reads the definition above it.
    cells = (
        _SETUP,
        "def f(a, b):\n    return 2 * a ** 3 - b ** 2",
        "def f(v):\n    v = v + 2\n    return jnp.sum(v ** 2)",
        "%timeit f(x)",
    )
    assert _timing_findings(*cells) == [(4, 1)]


def test_timeit_of_one_call_per_row_is_dispatch_bound():
    # Each row is its own small computation: the per-row dispatch is what the line measures.
    cells = (
        _SETUP,
        "def f(a, b):\n    return jnp.dot(a, b)\n\nys = jax.random.normal(key, (512, 512))",
        "%timeit [f(a, b) for a, b in zip(x, ys)]",
        "%timeit [jnp.sum(row) for row in x]",
    )
    assert _timing_findings(*cells) == []
    assert _timing_findings(cells[0], cells[1], "%timeit [f(x, ys) for _ in range(3)]") == [(3, 1)]


# `%timeit` calls what it times many times, also where its result is kept (`t = %timeit -o f(x)`, masked as
# `t = __jaxlint_timeit__(lambda: f(x))`): a function called there runs once per timed run, as in a loop.

_SAMPLER = (
    "@jax.jit\ndef chain(key, start):\n    return start + jax.random.normal(key, start.shape)\n\n"
    "def sample(key, starts):\n    keys = jax.random.split(key, starts.shape[0])\n"
    "    run = jax.vmap(chain)\n    return run(keys, starts).block_until_ready()\n"
)


def _batched_findings(*cells: str) -> list[tuple[int, int]]:
    settings = build_settings(["."], None, ("JAX402",), (), ())
    result = lint_notebook(_notebook(*cells), "nb.ipynb", settings, enabled_rules(settings))
    return [(d.cell, d.location.row) for d in result.diagnostics if d.code == "JAX402"]


def test_kept_timeit_result_is_masked_as_the_timed_call():
    masked, lines = mask_ipython("for n in sizes:\n    t = %timeit -o -n 5 sample(key, x[:n])  # per size\n    print(t.best)")
    assert masked == "for n in sizes:\n    t = __jaxlint_timeit__(lambda: sample(key, x[:n]))  # @@ipython 1@@\n    print(t.best)"
    assert unmask(masked, lines) == "for n in sizes:\n    t = %timeit -o -n 5 sample(key, x[:n])  # per size\n    print(t.best)"


def test_function_timed_by_timeit_runs_many_times():
    assert _batched_findings(_SETUP, _SAMPLER, "for n in (8, 64):\n    t = %timeit -o sample(key, x[:n])\n    print(t.best)") == [(2, 7)]
    assert _batched_findings(_SETUP, _SAMPLER, "t = %timeit -o -r 3 sample(key, x)") == [(2, 7)]
    assert _batched_findings(_SETUP, _SAMPLER, "%timeit sample(key, x)") == [(2, 7)]


def test_function_run_once_or_by_time_is_not_repeated():
    # A plain call, and `%time` (one run), outside any loop: the batching cost is paid once.
    assert _batched_findings(_SETUP, _SAMPLER, "y = sample(key, x)") == []
    assert _batched_findings(_SETUP, _SAMPLER, "%time y = sample(key, x)") == []
    assert _batched_findings(_SETUP, _SAMPLER, "%%time\ny = sample(key, x)") == []


def test_timeit_cell_runs_its_body_many_times():
    assert _batched_findings(_SETUP, _SAMPLER, "%%timeit -n 3\ny = sample(key, x)") == [(2, 7)]
    assert _batched_findings(_SETUP, _SAMPLER, "%%capture out\n%%timeit\ny = sample(key, x)") == [(2, 7)]


# `%time` lines: IPython runs the expression (an assignment's value) once between two clock reads;
# masked as `__jaxlint_timeit__(lambda: <expression>, "time")` and read as `%timeit` is.


def test_time_line_of_a_compiled_call_is_flagged():
    assert _timing_findings(_SETUP, _STEP, "%time y = step(x)") == [(3, 1)]


def test_time_line_of_an_expression_and_inside_a_loop_is_flagged():
    cells = (_SETUP, _STEP, "%time step(x)", "for size in (8, 16):\n    y = jnp.ones((size, size))\n    %time z = jnp.sin(y)")
    assert _timing_findings(*cells) == [(3, 1), (4, 3)]


def test_time_lines_that_wait_or_time_host_code_are_silent():
    cells = (
        _SETUP,
        _STEP,
        "%time y = step(x).block_until_ready()",
        "%time loss = float(step(x).sum())",
        "host = np.ones((64, 64))\n%time z = np.dot(host, host)",
        "%time z = np.dot(x, x)",
    )
    assert _timing_findings(*cells) == []


def test_time_line_masking_keeps_the_expression_and_gives_the_line_back():
    masked, lines = mask_ipython("%time y = step(x)  # once")
    assert masked == '__jaxlint_timeit__(lambda: step(x), "time")  # @@ipython 1@@'
    assert unmask(masked, lines) == "%time y = step(x)  # once"
    # Another statement, several, or a continued line: masked like any other magic.
    masked, _ = mask_ipython("%time for i in range(2): step(x)\n%time a = step(x); b = a\n%time a += 1\n%time step(a, \\\n    b)")
    assert masked == "pass  # @@ipython 1@@\npass  # @@ipython 2@@\npass  # @@ipython 3@@\npass  # @@ipython 4@@\n# @@ipython 5@@"


def test_fixing_the_notebook_keeps_the_time_line():
    settings = build_settings(["."], None, (), (), ())
    text = _notebook(_SETUP, _STEP, "%time y = step(x)\nprint(x)")
    fixed, _ = fix_notebook(text, settings, enabled_rules(settings), unsafe=True)
    assert json.loads(fixed)["cells"][2]["source"] == "%time y = step(x)\nprint(x)"


def test_time_cell_of_an_operation_on_a_name_rebound_later_is_flagged():
    # A later cell rebinds `x` from a call jaxlint does not know: the `x` the cell reads is still the
    # device array drawn above it, so the cell times an eager operation's dispatch.
    cells = (_SETUP, "%%time\ny = jnp.dot(x, x)", "x, extra = load_pair()")
    assert _timing_findings(*cells) == [(2, 1)]


def test_noqa_on_a_timeit_or_time_line_silences_it():
    cells = (_SETUP, _STEP, "%timeit step(x)  # noqa: JAX202", "%time y = step(x)  # noqa: JAX202", "%time z = step(x)  # noqa: JAX101")
    assert _timing_findings(*cells) == [(5, 1)]
    masked, lines = mask_ipython("%time y = step(x)  # noqa: JAX202")
    assert masked == '__jaxlint_timeit__(lambda: step(x), "time")  # noqa: JAX202  # @@ipython 1@@'
    assert unmask(masked, lines) == "%time y = step(x)  # noqa: JAX202"
