"""## What it does
Reports a file that jaxlint could not check at all, or past some point: it does not parse (the
message is Python's `SyntaxError`, or names the newer Python whose grammar it uses), it could not be
read or decoded (binary, not valid in its encoding, no permission, not a valid notebook), or it is
nested too deeply for the parser or the analysis (a `RecursionError`, such as a 20,000-term
expression). The engine reports it, not a rule of its own; it is listed here so that it can be
looked up (`jaxlint rule JAX000`), selected and ignored like the others.

## Why is this bad?
A file that was not checked is not a file that passed. A linter that prints "All checks passed!"
and exits 0 for a file it could not read hides every finding in it, in pre-commit and in CI, so
jaxlint reports such a file as a finding and exits 1, as Ruff does for a file it cannot read
(https://docs.astral.sh/ruff/rules/io-error/) or parse. Python's own message for a parse error is
kept: https://docs.python.org/3/library/exceptions.html#SyntaxError.

It is reported even under a narrow selection (`--select JAX1`): only `--ignore JAX000` (or a
per-file ignore naming it) turns it off. A `# noqa` cannot silence it: the comment may not even
be readable.

## Example
```python
def train_step(state, batch:
    return state
```

## Use instead
```python
def train_step(state, batch):
    return state
```
For an encoding problem add a coding cookie (`# -*- coding: latin-1 -*-`) or save the file as
UTF-8; for newer syntax run jaxlint with the Python the message names; generated code nested
thousands deep is better excluded (`extend-exclude`).

## Fix safety
No fix: what the file should say is the author's decision.

## How the runtime mode confirms it
It does not: a file that does not parse does not run either.
"""

from __future__ import annotations

from jaxlint.rules.base import Rule


class SyntaxErrorRule(Rule):
    code = "JAX000"
    name = "syntax-error"
    summary = "A file that could not be read, decoded or parsed, so it was not checked"
    selection = "unless-ignored"


RULE = SyntaxErrorRule()
