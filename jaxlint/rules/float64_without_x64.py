"""## What it does
Flags requests for 64-bit types from JAX, `dtype=jnp.float64` (also `int64`, `uint64`,
`complex128`, or the NumPy and string spellings passed to a JAX function) and
`.astype(jnp.float64)` on a JAX array, in a program that never enables 64-bit mode. To stay
conservative it only looks at modules that are a program's entry point (`if __name__ ==
"__main__":`), where x64 would have to be switched on, and stays silent when the module mentions
`enable_x64` anywhere (`jax.config.update("jax_enable_x64", True)`, `jax.enable_x64`, `JAX_ENABLE_X64`),
reads absl flags (which may set `--jax_enable_x64`), or imports a module of its own project (whose
import may switch x64 on, as a package `__init__` often does). The environment variable cannot be
seen statically.

## Why is this bad?
Unless `jax_enable_x64` is set at program start, JAX canonicalizes 64-bit requests to 32 bits:
`jnp.zeros(3, dtype=jnp.float64).dtype` is `float32`, with only a warning for explicit requests.
Code that needs double precision (accumulations, physics, small step sizes) silently computes in
single precision. See "Double (64bit) precision" in
https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#double-64bit-precision and
https://docs.jax.dev/en/latest/default_dtypes.html.

## Example
```python
import jax.numpy as jnp

def main():
    x = jnp.linspace(0, 1, 10, dtype=jnp.float64)  # float32 in fact

if __name__ == "__main__":
    main()
```

## Use instead
```python
import jax
jax.config.update("jax_enable_x64", True)  # at program start
import jax.numpy as jnp
```
or ask for `jnp.float32` when single precision is what you want.

## Fix safety
No fix: enabling x64 changes the default dtype of every array in the program (memory and speed),
and only the author knows whether double precision is needed.

## How the runtime mode confirms it
It evaluates the flagged expression and reports the dtype it actually produced (`float32`).
"""

from __future__ import annotations

import ast

from jaxlint.rules.base import Rule

_WIDE = frozenset({"float64", "int64", "uint64", "complex128"})
_DTYPE_NAMESPACES = ("jax.numpy.", "numpy.")


class Float64WithoutX64(Rule):
    code = "JAX504"
    name = "float64-without-x64"
    summary = "A 64-bit dtype requested from JAX in a program that never enables x64"
    node_types = (ast.Call,)
    # Only a script (`if __name__ == "__main__":`) is reported, see `_entry_point_without_x64`.
    required_text = ("__main__",)
    fix_availability = "none"

    def check(self, node: ast.Call, context) -> None:
        if not _entry_point_without_x64(context):
            return
        qualified = context.qualified_name(node.func)
        if qualified is not None and qualified.startswith(("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.")):
            for keyword in node.keywords:
                if keyword.arg == "dtype" and _wide(keyword.value, context):
                    self._report(keyword.value, context)
            if qualified in ("jax.numpy.float64", "jax.numpy.int64", "jax.numpy.complex128", "jax.numpy.uint64"):
                self._report(node, context)
            return
        if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and len(node.args) == 1 and not node.keywords:
            if _wide(node.args[0], context) and _is_jax_array(node.func.value, context):
                self._report(node.args[0], context)

    def _report(self, node, context) -> None:
        context.report(
            node,
            f"`{context.text(node)}` is silently 32-bit: this program never enables x64; call "
            "`jax.config.update(\"jax_enable_x64\", True)` at startup, or ask for the 32-bit type",
        )


def _wide(node: ast.AST, context) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in _WIDE
    qualified = context.qualified_name(node)
    if qualified is None:
        return False
    for namespace in _DTYPE_NAMESPACES:
        if qualified.startswith(namespace) and qualified[len(namespace):] in _WIDE:
            return True
    return False


def _is_jax_array(node: ast.AST, context) -> bool:
    scope = context.scope(node)
    if scope.in_traced:
        return context.level(node, scope) >= 1  # a traced value with `.astype` is an array
    return context.model.device_kind(node, scope) == "device"


def _entry_point_without_x64(context) -> bool:
    cached = getattr(context, "_jaxlint_x64_entry", None)
    if cached is not None and cached[0] is context.model:
        return cached[1]
    text = context.source.text
    result = (
        "__main__" in text
        and "enable_x64" not in text.lower()
        and "flags" not in text.lower()
        and _has_main_guard(context.model.tree)
        # A module of its own project that it imports may switch x64 on at import time (a package's
        # `__init__` calling `jax.config.update("jax_enable_x64", True)`).
        and not context.model.imports_from_project
    )
    context._jaxlint_x64_entry = (context.model, result)
    return result


def _has_main_guard(tree: ast.Module) -> bool:
    for statement in tree.body:
        if isinstance(statement, ast.If) and isinstance(statement.test, ast.Compare):
            names = [statement.test.left, *statement.test.comparators]
            if any(isinstance(n, ast.Name) and n.id == "__name__" for n in names):
                return True
    return False


RULE = Float64WithoutX64()
