"""## What it does
Flags item assignment on a JAX array: `x[i] = v`, `x[i] += v`, `x[:, 0] *= 2`, ... where `x` is known
to be a JAX array (the result of a `jax.numpy`/`jax.random`/`jax.nn` call, an `.at[...]` update, a
call of a jitted function whose every `return` is an array, an array parameter of a traced function,
or an instance attribute every assignment of which in the class is such a value:
`self.counts = jnp.zeros(n)`), inside or outside traced code.

## Why is this bad?
JAX arrays are immutable: item assignment raises `TypeError: JAX arrays are immutable and do not
support in-place item assignment`, eagerly and under `jit` alike. The functional form
`x.at[i].set(v)` returns an updated copy, which XLA performs in place when it can. See
https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html and "In-place updates" in
https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html.

NumPy arrays are mutable and are never flagged, nor are lists, dicts, and values the analysis
cannot show to be JAX arrays (a traced parameter may be a dict of arrays; a jitted function may
return a dict, which is a plain mutable dict after the call). An assignment in the body of a `try`
(in its own function or module) whose handler catches the `TypeError` it raises (`TypeError`,
`Exception`, `BaseException` or a bare `except:`) is not flagged: that code shows or probes the
error on purpose and has its own fallback. An assignment in a handler, an `else` or `finally`
block, or under a handler for another error is still flagged. So is one in a function whose every compiled call sits
in such a `try` (`try: f(x) except TypeError: ...`): a lesson that shows the error on purpose.

## Example
```python
x = jnp.zeros(5)
x[0] = 1.0
x[1:3] += 2.0
```

## Use instead
```python
x = jnp.zeros(5)
x = x.at[0].set(1.0)
x = x.at[1:3].add(2.0)
```

## Fix safety
`x[i] = v` becomes `x = x.at[i].set(v)`; `+=`, `-=`, `*=`, `/=`, `**=` become `.add`, `.subtract`,
`.multiply`, `.divide`, `.power`; `x[i] = jnp.minimum(x[i], v)` becomes `x.at[i].min(v)` (and
`maximum`, `.max`); `self.v[i] = x` becomes `self.v = self.v.at[i].set(x)`. A chained store
(`t[i][j] = v`) is flagged without a fix: `t[i, j]` means the same only for plain integer indices.
The fix is safe: the original statement always raises, and the update computes
the value the assignment meant. Other augmented operators (`//=`, `%=`, bitwise) get no fix.

## How the runtime mode confirms it
It runs the function with the example inputs: the original raises `TypeError` (immutable array);
the fixed version runs and returns the values the NumPy equivalent computes.
"""

from __future__ import annotations

import ast

from jaxlint.fixes import inplace_update
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import containers
from jaxlint.semantic.arrays import is_jax_array, parameter_rebindings
from jaxlint.semantic.model import TRACED



class InplaceArrayUpdate(Rule):
    code = "JAX105"
    name = "inplace-array-update"
    summary = "Item assignment on an immutable JAX array"
    node_types = (ast.Assign, ast.AugAssign)
    fix_availability = "sometimes"
    # The store raises TypeError eagerly and traced alike; a `try` that catches it expects it.
    raised_when_traced = ("TypeError",)

    def check(self, node: ast.Assign | ast.AugAssign, context) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if not isinstance(target, ast.Subscript):
                continue
            if self._is_jax_array(target, context):
                array = context.text(target.value)
                context.report(
                    target,
                    f"`{snippet(context.text(target))}` assigns into JAX array `{array}`, which is immutable (TypeError); "
                    f"write `{array} = {array}.at[...].set(...)`",
                    fix=inplace_update.at_update_fix(node, target, context) if len(targets) == 1 else None,
                )
                continue
            # `t[i][j] = v`: indexing a JAX array returns a new JAX array, immutable like its source,
            # so the store raises as well (and would change only the copy if it did not).
            inner = target.value
            while isinstance(inner, ast.Subscript) and not self._is_jax_array(inner, context):
                inner = inner.value
            if isinstance(inner, ast.Subscript):
                array = context.text(inner.value)
                context.report(
                    target,
                    f"`{snippet(context.text(target))}` assigns into `{snippet(context.text(target.value))}`, an array indexed out "
                    f"of JAX array `{array}`, which is immutable (TypeError); update `{array}` itself with one index: "
                    f"`{array} = {array}.at[...].set(...)`",
                )

    def _is_jax_array(self, target: ast.Subscript, context) -> bool:
        scope = context.scope(target)
        array = target.value
        if containers.python_collection(array, scope, context):
            return False  # `untrys: list[Array]`, `out = [...]`: a Python container of arrays takes item stores
        if isinstance(array, ast.Name):
            # Whether a name holds a JAX array depends only on the name and its scope; a module that
            # fills one table item by item (`table[k] = ...` hundreds of times) asks the same question
            # each time, and each answer scans the owning scope's bindings.
            key = ("JAX105", "is_jax_array", array.id, id(scope))
            if context.memo(key, is_jax_array, context.model, array, scope):
                return True
        elif is_jax_array(context.model, array, scope):
            return True
        # A traced parameter of unknown structure: only an index a list or dict cannot take is proof.
        return (
            isinstance(array, ast.Name) and context.is_traced_code(target) and context.level(array, scope) >= TRACED
            and array.id in scope.param_nodes and parameter_rebindings(array.id, scope) == []
            and _array_only_index(target.slice)
        )


def _array_only_index(index: ast.AST) -> bool:
    """`x[:, 0]`, `x[..., i]`, `x[None, 1:]`: tuples with slices or Ellipsis index arrays only."""
    if not isinstance(index, ast.Tuple):
        return False
    return any(
        isinstance(element, ast.Slice) or (isinstance(element, ast.Constant) and element.value is Ellipsis)
        for element in index.elts
    )


RULE = InplaceArrayUpdate()
