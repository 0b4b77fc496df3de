"""JAX302 and JAX402 in notebooks (semantic/dead_code.never_called_in_notebook): a per-call cost needs
calls. A notebook's top-level function, or a batched function bound to a top-level name, that no
cell reads is never called (nothing imports a notebook's names), so a cost paid per call is not
paid. A name read anywhere, also only in an IPython line (`t = %timeit -o f()`), counts as called."""

from __future__ import annotations

import json

from jaxlint.config import Settings
from jaxlint.notebook import lint_notebook
from jaxlint.rules import RULES_BY_CODE

HEADER = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef score(w, x):\n    return jnp.dot(w, x)\n"


def _notebook(*cells: str) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": cell} for cell in cells],
        "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    })


def _findings(*cells: str, filename: str = "lesson.ipynb") -> list[tuple[int, int, str]]:
    rules = [RULES_BY_CODE["JAX302"], RULES_BY_CODE["JAX402"]]
    result = lint_notebook(_notebook(*cells), filename, Settings(), rules)
    return sorted((d.cell, d.location.row, d.code) for d in result.diagnostics)


# ----- never called: silent --------------------------------------------------------------------------

def test_unread_batched_names_are_silent():
    assert _findings(
        "!pip install -q jax\n" + HEADER,
        "batched_score = jax.vmap(score, in_axes=(None, 0))\n"
        "per_row, per_col = jax.vmap(score, in_axes=(None, 0)), jax.vmap(score, in_axes=(None, 1))\n",
    ) == []


def test_uncalled_function_compiling_per_call_is_silent():
    assert _findings(
        HEADER,
        "def pairwise(xs):\n    return jax.jit(lambda a: a @ a.T)(xs)\n",
        "def batched_scores(w, xs):\n    fn = jax.vmap(jax.jit(lambda r: jnp.dot(w, r)))\n    return fn(xs)\n",
        "%matplotlib inline\nprint('setup done')\n",
    ) == []


# ----- look-alikes: called somewhere, or not a notebook ------------------------------------------------

def test_batched_name_read_by_a_cell_is_flagged():
    found = _findings(
        HEADER,
        "scores_of = jax.vmap(score, in_axes=(None, 0))\nfor rows in [jnp.ones((4, 3))] * 5:\n    print(scores_of(jnp.ones(3), rows))\n",
    )
    assert [code for _, _, code in found] == ["JAX402"]


def test_function_called_only_in_an_ipython_line_is_flagged():
    found = _findings(
        HEADER,
        "def pairwise(xs):\n    return jax.jit(lambda a: a @ a.T)(xs)\n",
        "timing = %timeit -o -n 5 pairwise(jnp.ones((8, 8)))\n",
    )
    assert [code for _, _, code in found] == ["JAX302"]


def test_function_called_by_a_cell_is_flagged():
    found = _findings(
        HEADER,
        "def pairwise(xs):\n    return jax.jit(lambda a: a @ a.T)(xs)\n",
        "for n in range(10):\n    pairwise(jnp.ones((n + 1, 3)))\n",
    )
    assert [code for _, _, code in found] == ["JAX302"]
