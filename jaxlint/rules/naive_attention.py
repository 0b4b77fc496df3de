"""## What it does
Flags attention written out by hand: `softmax(q @ k.T * scale) @ v`, and the same with
`jnp.matmul`/`jnp.einsum` for either product, `k.swapaxes(-1, -2)` / `jnp.swapaxes(k, -1, -2)`
for the transpose, and division by a scale. This is a preview rule: it is off unless selected
(`--select JAX701` or `extend-select`).

Test code is not flagged (a `test*` function, a `Test*` class, a test module): a test runs once on
small dummy inputs, so the cost this rule reports reaches no one; every rule whose finding is a cost
or the quality of computed values follows this one policy (semantic/test_code.py).

## Why is this bad?
The explicit form materializes the full `(T, S)` score matrix and runs softmax as separate passes
over memory. `jax.nn.dot_product_attention` computes the same result and can dispatch to a fused
kernel (cuDNN flash attention on GPU, `implementation="cudnn"`) that never stores the score matrix,
using O(T) instead of O(T*S) memory and running faster on long sequences. See
https://docs.jax.dev/en/latest/_autosummary/jax.nn.dot_product_attention.html.

## Example
```python
def attend(q, k, v):
    scale = 1.0 / jnp.sqrt(q.shape[-1])
    return jax.nn.softmax(q @ k.T * scale, axis=-1) @ v
```

## Use instead
```python
def attend(q, k, v):
    scale = 1.0 / jnp.sqrt(q.shape[-1])
    return jax.nn.dot_product_attention(q[:, None], k[:, None], v[:, None], scale=scale)[:, 0]
```

## Fix safety
Offered only for the two-dimensional form (`k.T` means `k` is a matrix): `q`, `k` and `v` become
`(T, 1, H)` arrays with one head and the result is squeezed back. It is unsafe: the fused kernel
rounds differently from the explicit form (results agree to float tolerance, not bitwise), and
`dot_product_attention` requires `k` and `v` to share the head size. Batched layouts are not fixed:
`dot_product_attention` wants `(B, T, N, H)`, and the transposes needed depend on the layout.
No fix where the project supports a JAX older than 0.4.31, which lacks the function
(`target-jax-version` or the project's own jax requirement).

## How the runtime mode confirms it
It times both forms at the example shapes and compares the outputs within tolerance; given a
Pallas kernel it times that too.
"""

from __future__ import annotations

import ast

from jaxlint import fixes
from jaxlint.fixes import versions
from jaxlint.rules.base import Rule

_SOFTMAX = frozenset({"jax.nn.softmax", "flax.linen.softmax", "jax.nn.log_softmax"})
_MATMUL = frozenset({"jax.numpy.matmul", "jax.numpy.dot", "jax.numpy.einsum", "jax.lax.dot", "jax.lax.dot_general"})


class NaiveAttention(Rule):
    code = "JAX701"
    name = "naive-attention"
    summary = "Attention spelled out as softmax of a score matrix: use `jax.nn.dot_product_attention`"
    skips_test_code = True
    node_types = (ast.BinOp, ast.Call)
    fix_availability = "sometimes"
    preview = True

    def check(self, node: ast.AST, context) -> None:
        weights = value = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            weights, value = node.left, node.right
        elif isinstance(node, ast.Call) and context.qualified_name(node.func) in ("jax.numpy.matmul", "jax.numpy.dot") and len(node.args) == 2:
            weights, value = node.args
        elif isinstance(node, ast.Call) and context.qualified_name(node.func) == "jax.numpy.einsum" and len(node.args) == 3:
            weights, value = node.args[1], node.args[2]
        if weights is None:
            return
        softmax = _softmax_call(weights, context)
        if softmax is None or context.qualified_name(softmax.func) == "jax.nn.log_softmax":
            return
        scores = softmax.args[0]
        product = _score_product(scores, context)
        if product is None:
            return
        context.report(
            node,
            "attention written out as `softmax(q @ k.T) @ v` materializes the score matrix; "
            "use `jax.nn.dot_product_attention`, which can run a fused kernel",
            fix=_fix(node, softmax, scores, product, value, context),
        )


def _softmax_call(node: ast.AST, context) -> ast.Call | None:
    if isinstance(node, ast.Call) and context.qualified_name(node.func) in _SOFTMAX and len(node.args) == 1:
        axis = next((k.value for k in node.keywords if k.arg == "axis"), None)
        if axis is None or (isinstance(axis, ast.UnaryOp) and isinstance(axis.op, ast.USub) and isinstance(axis.operand, ast.Constant) and axis.operand.value == 1):
            if all(k.arg == "axis" for k in node.keywords):
                return node
    return None


def _score_product(scores: ast.AST, context):
    """The `q @ k.T`-like product inside the scores (possibly scaled): (q, k-transposed node, scale op, scale)."""
    scale_op = scale = None
    node = scores
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        left_product = _product(node.left, context)
        if left_product is not None:
            scale_op, scale = type(node.op), node.right
            node = node.left
        elif isinstance(node.op, ast.Mult) and _product(node.right, context) is not None:
            scale_op, scale = ast.Mult, node.left
            node = node.right
        else:
            return None
    found = _product(node, context)
    if found is None:
        return None
    return (*found, scale_op, scale)


def _product(node: ast.AST, context):
    """(q, k, transposed-with-.T) for `q @ k.T`, `q @ k.swapaxes(-1, -2)`, `jnp.matmul(q, k.T)`, `einsum('..qd,..kd->..qk', q, k)`."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        q, kt = node.left, node.right
    elif isinstance(node, ast.Call) and context.qualified_name(node.func) in ("jax.numpy.matmul", "jax.numpy.dot") and len(node.args) == 2:
        q, kt = node.args
    elif isinstance(node, ast.Call) and context.qualified_name(node.func) == "jax.numpy.einsum" and len(node.args) == 3:
        subscripts = node.args[0]
        if not (isinstance(subscripts, ast.Constant) and isinstance(subscripts.value, str) and "->" in subscripts.value):
            return None
        inputs, output = subscripts.value.replace(" ", "").split("->")
        operands = inputs.split(",")
        if len(operands) != 2:
            return None
        left, right = operands
        # Contract the last letter of both operands; the output keeps the other letters of each.
        if not left or not right or left[-1] != right[-1] or left[-1] in output:
            return None
        return node.args[1], node.args[2], False
    else:
        return None
    if isinstance(kt, ast.Attribute) and kt.attr in ("T", "mT"):
        return q, kt.value, kt.attr == "T"
    if isinstance(kt, ast.Call) and isinstance(kt.func, ast.Attribute) and kt.func.attr == "swapaxes" and _last_two(kt.args):
        return q, kt.func.value, False
    if isinstance(kt, ast.Call) and context.qualified_name(kt.func) in ("jax.numpy.swapaxes", "jax.numpy.matrix_transpose") and kt.args:
        if context.qualified_name(kt.func) == "jax.numpy.matrix_transpose" or _last_two(kt.args[1:]):
            return q, kt.args[0], False
    return None


def _last_two(arguments) -> bool:
    values = []
    for argument in arguments:
        if isinstance(argument, ast.UnaryOp) and isinstance(argument.op, ast.USub) and isinstance(argument.operand, ast.Constant):
            values.append(-argument.operand.value)
        elif isinstance(argument, ast.Constant):
            values.append(argument.value)
        else:
            return False
    return sorted(values) == [-2, -1]


def _fix(node, softmax, scores, product, value, context):
    q, k, plain_transpose, scale_op, scale = product
    if not plain_transpose or not isinstance(node, ast.BinOp):
        return None
    if not versions.supports(context, versions.DOT_PRODUCT_ATTENTION):
        return None  # the project supports a JAX older than the function
    for operand in (q, k, value):
        if not isinstance(operand, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            return None
    attention, import_edits = fixes.reference(context, "jax.nn.dot_product_attention")
    if not attention:
        return None
    if scale is None:
        scale_text = "1.0"
    elif scale_op is ast.Mult:
        scale_text = context.text(scale)
    else:
        scale_text = f"1 / ({context.text(scale)})" if fixes.needs_parentheses(scale) else f"1 / {context.text(scale)}"
    arguments = ", ".join(f"{context.text(operand)}[:, None]" for operand in (q, k, value))
    text = f"{attention}({arguments}, scale={scale_text})[:, 0]"
    return context.fix("Use `jax.nn.dot_product_attention`", [context.replace(node, text), *import_edits], safe=False)


RULE = NaiveAttention()
