"""## What it does
Reports a `# noqa: JAXnnn` code that suppresses nothing on its line. It runs only when asked:
`jaxlint check --report-unused-noqa`, or a selection that names it (`--extend-select JAX001`,
`extend-select = ["JAX001"]`); a broad selector such as `ALL` does not switch it on. Only codes of
rules that ran on the file are judged: a blanket `# noqa`, other tools' codes (`E501`) and codes of
rules that are not selected are left alone.

## Why is this bad?
A stale suppression hides the next real finding on that line, and tells readers a problem exists
that no longer does. Ruff has the same rule for the same reason:
https://docs.astral.sh/ruff/rules/unused-noqa/.

## Example
```python
import jax


@jax.jit
def scale(x):
    return x * 2  # noqa: JAX101
```

## Use instead
```python
import jax


@jax.jit
def scale(x):
    return x * 2
```

## Fix safety
Safe: removing a code that suppresses nothing changes no finding. The fix removes the stale codes
and keeps the others (`# noqa: JAX101, JAX201` becomes `# noqa: JAX201`); where text follows the
directive inside the same comment there is no fix, since the wording is the author's.

## How the runtime mode confirms it
It does not: this is about comments, not about what the code does.
"""

from __future__ import annotations

from jaxlint.rules.base import Rule


class UnusedNoqa(Rule):
    code = "JAX001"
    name = "unused-noqa"
    summary = "A `# noqa` code that suppresses nothing"
    fix_availability = "sometimes"
    selection = "when-named"


RULE = UnusedNoqa()
