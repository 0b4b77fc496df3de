"""A notebook whose saved outputs show the failure a finding predicts (the TracerBoolConversionError of
`jax.jit(relu)(1.0)`, a tracer printed at trace time) demonstrates it on purpose: the lesson runs it,
shows the error and fixes it in a later cell. Those findings are not reported; the same code without
such an output, or with an output of another function or another error, still is."""

from __future__ import annotations

import json

from jaxlint.config import Settings
from jaxlint.notebook import lint_notebook
from jaxlint.rules import ALL_RULES

RELU = "import jax\nimport jax.numpy as jnp\n\ndef relu(x):\n    if x > 0:\n        return x\n    return 0.0\n"
PRINTER = "def show(x):\n    print(x)\n    return x * 2\n\nshow_jit = jax.jit(show)\n"
METHOD = (
    "class Scale:\n    def __init__(self, k):\n        self.k = k\n\n    @jax.jit\n    def apply(self, x):\n"
    "        return self.k * x\n\nscaled = Scale(2.0)\n"
)


def _error(name: str, frame: str) -> dict:
    return {
        "output_type": "error", "ename": name, "evalue": "...",
        "traceback": ["\x1b[0;31m---------\x1b[0m", f"Cell In[3], line 5, in {frame}(x)\n      4 def {frame}(x):\n----> 5     if x > 0:"],
    }


def _notebook(*cells: tuple[str, list]) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "source": s, "outputs": o} for s, o in cells],
        "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5,
    })


def _codes(text: str) -> list[tuple[str, int]]:
    result = lint_notebook(text, "lesson.ipynb", Settings(), ALL_RULES)
    return sorted((d.code, d.cell) for d in result.diagnostics)


def test_tracer_error_shown_by_the_notebook_is_a_demonstration():
    text = _notebook((RELU, []), ("jax.jit(relu)(1.0)", [_error("TracerBoolConversionError", "relu")]))
    assert ("JAX101", 1) not in _codes(text)


def test_error_named_only_by_the_cell_that_raised():
    # No frame names the function (an older IPython), but the raising cell hands it to `jax.make_jaxpr`.
    error = {"output_type": "error", "ename": "ConcretizationTypeError", "evalue": "...", "traceback": []}
    text = _notebook((RELU, []), ("jax.make_jaxpr(relu)(1.0)", [error]))
    assert ("JAX101", 1) not in _codes(text)


def test_trace_time_print_shown_through_an_alias():
    stream = {"output_type": "stream", "name": "stdout", "text": ["Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace>\n"]}
    text = _notebook(("import jax\n" + PRINTER, []), ("show_jit(1.0)", [stream]))
    assert ("JAX104", 1) not in _codes(text)


def test_jitted_method_error_shown():
    text = _notebook(("import jax\n" + METHOD, []), ("scaled.apply(3.0)", [_error("TypeError", "apply")]))
    assert ("JAX307", 1) not in _codes(text)


# --- look-alikes: still reported ----------------------------------------------------------------------
def test_same_code_without_saved_outputs():
    text = _notebook((RELU, []), ("jax.jit(relu)(1.0)", []))
    assert ("JAX101", 1) in _codes(text)


def test_error_of_another_function():
    other = "def other(x):\n    return -x if x else x\n"
    text = _notebook((RELU + other, []), ("jax.jit(relu)(1.0)", []), ("jax.jit(other)(1.0)", [_error("TracerBoolConversionError", "other")]))
    assert ("JAX101", 1) in _codes(text)


def test_error_that_is_not_a_tracer_error():
    text = _notebook((RELU, []), ("jax.jit(relu)(1.0)", [_error("ValueError", "relu")]))
    assert ("JAX101", 1) in _codes(text)


def test_printed_values_are_not_a_trace_time_print():
    stream = {"output_type": "stream", "name": "stdout", "text": ["2.0\n"]}
    text = _notebook(("import jax\n" + PRINTER, []), ("show_jit(1.0)", [stream]))
    assert ("JAX104", 1) in _codes(text)


def test_a_later_redefinition_is_not_covered_by_an_earlier_demonstration():
    again = "def relu(x):\n    while x > 0:\n        x = x - 1\n    return x\n"
    text = _notebook(
        (RELU, []), ("jax.jit(relu)(1.0)", [_error("TracerBoolConversionError", "relu")]),
        (again, []), ("jax.jit(relu)(2.0)", []),
    )
    codes = _codes(text)
    assert ("JAX101", 1) not in codes and ("JAX101", 3) in codes
