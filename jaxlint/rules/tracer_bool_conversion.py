"""## What it does
Flags Python control flow and boolean operations on a traced value inside a traced function:
`if`, `while`, `assert`, the ternary `a if c else b`, `and`/`or`/`not`, `bool()`, chained
comparisons such as `0 < x < 1`, and the builtins `min`/`max`; also `any`, `all` and `sorted` over a
traced array (`if any(x > 0):`): they walk it row by row and test or compare each row in Python
(semantic/iteration.py, `walked_by_builtin`), not over a Python list of static values or a generator
over a shape.

Code inside a `try` that catches the error JAX raises here (`TypeError`, `Exception` or an error class
of `jax.errors`) probes on purpose and has a fallback: it is not flagged. Nor is a function whose every
compiled call sits in such a `try` (`@jax.jit def f` then `try: f(2) except
jax.errors.TracerBoolConversionError: ...`): a lesson that shows the error on purpose. So is a
notebook function whose run the notebook's saved outputs show failing with a tracer error (the cell
that ran `jax.jit(relu)(1.0)` holds the TracerBoolConversionError, named in its traceback or handed to
the transform there); the same holds for every rule that says "this raises when traced" (JAX102,
JAX103, JAX105, JAX106, JAX108, JAX307), and for a trace-time `print` whose tracer the output shows
(JAX104): the author has already seen what a finding would say (notebook.demonstrated_failures).

## Why is this bad?
Inside `jax.jit` (and `vmap`, `grad`, `lax.scan` bodies, ...) arguments are abstract tracers: their
values are unknown while JAX traces the function. Python needs a concrete `True`/`False`, so
`bool(tracer)` raises `TracerBoolConversionError` (a `ConcretizationTypeError`). See
https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError and
"Control flow" in https://docs.jax.dev/en/latest/control-flow.html.

Static views of a traced value are fine and are not flagged: `x.shape`, `x.ndim`, `x.dtype`,
`len(x)`, `x is None`, `isinstance(x, ...)`, and arguments listed in `static_argnums`/`static_argnames`.
Nor are values JAX hands over as plain Python values: a defaulted parameter that no call in the
module passes (jit traces only what a call passes; the calls of the compiled callable count wherever it is
stored, `self.fn = jax.jit(f)` or a copy of a local name, a wrapper of a wrapper (`g = jax.pmap(f)` then
`g = jax.jit(g)`, `jax.jit(jax.vmap(f))`), a keyword-only `functools.partial` of f bound to a name and
compiled later (the keywords it binds are fixed values), for a function nested in another the names that
function binds, a method compiled bound (`jax.jit(self._apply)`), whatever decorator that binds configuration f
carries, and whatever wrapper compiles it, `partitioner.partition(f, ...)`, when its result is bound
and called), the `nondiff_argnums` of a `jax.custom_vjp`/
`custom_jvp` function in its `fwd`, `bwd` and `jvp` rules (and `bwd` defaults JAX never fills, and
its residuals, which hold whatever `fwd` kept), non-array arguments of `eqx.filter_custom_vjp` rules,
a length a helper returns from a shape (`return x, x.shape[0]`), the targets of `jax.debug.callback`
(they run on the host), and
`lax.axis_size(...)`, which is a Python int, and a name in the branch of `isinstance(v, int)` (or
`float`, `bool`, `str`: no tracer is an instance of a Python scalar type). Nor is a `jax.custom_vjp`/
`custom_jvp` function, or a rule of one, that hands work to a host library (a SciPy sparse matrix or
solver, a PETSc object or solve, AMGX; itself or through the module's functions it calls): a host
solver given a gradient takes concrete arrays only, and JAX calls the primal and its rules with them
under an eager `grad` (semantic/host_library.py); the functions only it calls are host code too. A
function that `jit`, `vmap` or `grad` traces itself is still traced there. Nor is a function compiled
only into names nothing reads (`g = jax.jit(f)`, `g` never called): no abstract value reaches it; and
where traced callers reach f (a called `jit`, holding a size static, of a function that calls f), such
a name adds no tracer to what those callers pass (a size read from a dictionary they hold static stays
a Python int, in f and in the helpers f hands it to). Nor is code in a branch that runs only with `jit` switched off (`if
jax.config.jax_disable_jit:`, also `jax.config.read("jax_disable_jit")`, a name bound to the flag, the
`else` of `if not ...:`, or what follows `if not ...: return`): jit then calls the function on concrete
arrays and lax loops run in Python, and under a trace the branch never runs (a function only `vmap`
traces still sees tracers there; semantic/jit_disabled.py). Nor is a name after a test that leaves when
it is a tracer or an array (`if isinstance(x, jax.core.Tracer): raise ...`), or when it is not a Python
number (`if not isinstance(n, int): return ...`): the statements after it see what the `else` of the
test would. One
compiled onto an instance attribute (`self._update = jax.jit(update)`, also `jax.pmap`) is called
through its objects, from any module: it is traced, and every parameter the transform does not hold
static is a tracer, whoever calls it. These apply to every rule
that asks whether a value is traced (JAX101-JAX108).

What is traced, for those rules: the parameters a transform traces and what is computed from them;
the result of a call handed a traced value even where jaxlint cannot see the callee (a function
passed in or held in an attribute, `grad_fn = jax.value_and_grad(f)` called later, another library's
function, a call whose arguments do not match the def), unless a library model says the call returns
host data (NumPy, `math`, the standard library, `jax.eval_shape`); a value picked by a traced index
(`table[i]`); and the name a read sees is the binding that reaches it (an unpacking's element
included: `n = x.sum()` then `rows, n = x.shape` leaves `n` a Python int), in module code in execution
order, a notebook's cells in their order (`jax.grad(f)` after `f = lambda x: ...` transforms that
lambda, not a later `@jax.jit def f`, whose calls `f(1.0, True)` then show what it is passed; and
`jax.vmap(df)` after `df = jax.grad(f)` transforms that result, not an earlier NumPy `def df` plotted on
NumPy arrays; semantic/cell_order.py). A def that a factory of the
module returns (`init_fun, apply_fun = layer(3)`, `score = make_scorer(s)`), called from traced code,
is traced as a def called by name is. A function Haiku transforms whose `apply` or `init` is jitted
(`jax.jit(hk.transform(f).apply)`, also through a name bound to the transform, `hk.without_apply_rng`,
`hk.transform_with_state`) is traced, its parameters after the ones Haiku passes first (`params, rng`):
`static_argnums` counts those, and its defaults stay Python values. A function handed to a `lax` loop
or branch is traced whether passed by position or by its keyword (`fori_loop(lower=0, upper=n,
body_fun=step, init_val=x)`, `scan(f=body, ...)`).

Traced where the step is written in another module (semantic/framework_methods.py): the forward pass
of a Flax linen `Module` (`__call__`, `@nn.compact` methods) or a Haiku `hk.Module` (`__call__` and
its public methods), its class deriving from one directly or through a project base class, in a
module that runs none of its models itself (no `init`/`apply` outside the classes, no
`hk.transform`): the model's training code applies it inside its jitted, differentiated step. Its
inputs are tracers: the positional parameters with no default that the body shows to be arrays
(annotated so, or it reads their shape, slices them, hands them to `jax.numpy`/`lax`, a submodule or
a library layer); a size handed to `np.arange` or a list of groups is not one; a defaulted parameter (`train=True`,
an optional `mask=None` or cache), one annotated as a Python scalar (`deterministic: bool`) and one
the method tests bare (`if train:`) are options of the call, Python values. `setup`/`__init__` are
not traced. A module that applies its models itself (a notebook, a script) is read from its own
calls. Flax NNX and Equinox modules are called directly, often eagerly: not assumed traced. A NumPyro
model (a module-level function drawing `numpyro.sample` sites, not called by name in its module) is
traced: its inference runs it under a trace (MCMC kernels compile the chain, `Predictive` maps it with
`lax.map`/`vmap`, `SVI.run` compiles its steps), so its sample values are tracers; its parameters
are not (the inference hands the model's arguments over as constants).

## Example
```python
@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0
```

## Use instead
```python
@jax.jit
def relu(x):
    return jnp.where(x > 0, x, 0.0)
```
or `lax.cond(pred, true_fn, false_fn, operand)` when only one branch should run, or mark the
argument static with `static_argnames` when it really is a Python value.

## Fix safety
`min`/`max` of arrays become `jnp.minimum`/`jnp.maximum`, and `and`/`or`/`not` outside a condition
become `jnp.logical_and`/`logical_or`/`logical_not`: these compute the same values elementwise and
are safe. An `if`/`else` whose arms assign the same names or both return, and a ternary, become
`jnp.where`: unsafe, because both arms are evaluated, so an arm that would raise or produce NaN now
runs (and NaN gradients can flow from the unselected arm). Other side-effect-free arms become
`lax.cond` (unsafe). A `while` on a traced condition becomes `lax.while_loop` over the loop-carried
names (unsafe; refused when the loop has `break`/`return`/`yield`, a carried value changes shape,
or the function is differentiated, since reverse-mode AD does not go through `while_loop`).
The rewritten statements keep their comments; a comment on the `if`/`while`/`else` line moves to
the line that replaces it.

## How the runtime mode confirms it
It runs the function under `jax.jit` with the example inputs: the original raises
`TracerBoolConversionError`; the fixed version compiles and agrees with the original run without
`jit`.
"""

from __future__ import annotations

import ast

from jaxlint.rules.base import Rule, snippet
from jaxlint import fixes
from jaxlint.fixes import control_flow as control_flow_fix
from jaxlint.rules.python_loop_in_traced import traced_array_walked
from jaxlint.semantic import iteration
from jaxlint.semantic.model import ARRAY, TRACED, parent_of

_CONDITION_OWNERS = (ast.If, ast.While, ast.Assert, ast.IfExp)


class TracerBoolConversion(Rule):
    code = "JAX101"
    name = "tracer-bool-conversion"
    summary = "Python control flow or boolean conversion of a traced value"
    raised_when_traced = ("TypeError",)
    node_types = (ast.If, ast.While, ast.Assert, ast.IfExp, ast.BoolOp, ast.UnaryOp, ast.Call, ast.Compare, ast.comprehension)
    traced_code_only = True
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        if not context.is_traced_code(node) or context.model.runs_concretely(context.scope(node)):
            return  # autodiff alone (no jit) sees concrete values
        scope = context.scope(node)
        where = f"in traced function `{scope.name}`"
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            if _converted_level(node.test, scope, context) == ARRAY:
                keyword = {ast.If: "if", ast.While: "while", ast.IfExp: "conditional expression"}[type(node)]
                fix = control_flow_fix.control_flow_fix(node, context, scope)
                hint = "use `lax.while_loop`" if isinstance(node, ast.While) else "use `jnp.where` or `lax.cond`"
                reason = f" ({fix})" if isinstance(fix, str) else ""
                context.report(
                    node.test if not isinstance(node, ast.IfExp) else node,
                    f"Python `{keyword}` on traced value `{snippet(context.text(node.test))}` {where} raises "
                    f"TracerBoolConversionError; {hint}, or make the value static{reason}",
                    fix=None if isinstance(fix, str) else fix,
                )
        elif isinstance(node, ast.Assert):
            if _converted_level(node.test, scope, context) == ARRAY:
                context.report(
                    node.test,
                    f"`assert` on traced value `{snippet(context.text(node.test))}` {where} raises "
                    "TracerBoolConversionError; use `checkify.check` or assert on static shapes only",
                )
        elif isinstance(node, ast.comprehension):
            for condition in node.ifs:
                if _converted_level(condition, scope, context) == ARRAY:
                    context.report(
                        condition,
                        f"comprehension `if` on traced value `{snippet(context.text(condition))}` {where} raises "
                        "TracerBoolConversionError; use `jnp.where` or a boolean mask",
                    )
        elif isinstance(node, ast.BoolOp):
            if _in_condition(node):
                return
            converted = node.values[:-1]
            if any(context.level(value, scope) == ARRAY for value in converted):
                operator = "and" if isinstance(node.op, ast.And) else "or"
                function = "logical_and" if operator == "and" else "logical_or"
                context.report(
                    node,
                    f"`{operator}` on traced values {where} calls `bool()` on a tracer; use `jnp.{function}`",
                    fix=_logical_fix(node, context),
                )
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not) and not _in_condition(node) and context.level(node.operand, scope) == ARRAY:
                context.report(
                    node,
                    f"`not` on traced value `{snippet(context.text(node.operand))}` {where} calls `bool()` on a tracer; use `jnp.logical_not`",
                    fix=_logical_fix(node, context),
                )
        elif isinstance(node, ast.Compare):
            if len(node.ops) > 1 and not _in_condition(node) and context.level(node, scope) == ARRAY:
                if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                    return
                context.report(
                    node,
                    f"chained comparison `{snippet(context.text(node))}` on a traced value {where} calls `bool()` on a tracer; "
                    "write `(a < x) & (x < b)`",
                )
        elif isinstance(node, ast.Call):
            self._check_call(node, context, scope, where)

    def _check_call(self, node: ast.Call, context, scope, where: str) -> None:
        qualified = context.qualified_name(node.func)
        if qualified == "builtins.bool" and len(node.args) == 1 and context.level(node.args[0], scope) == ARRAY:
            context.report(node, f"`bool()` of traced value `{snippet(context.text(node.args[0]))}` {where} raises TracerBoolConversionError")
        elif qualified in iteration.TRUTH_TESTING_BUILTINS and qualified not in ("builtins.min", "builtins.max"):
            # `any(x > 0)`, `all(mask)`, `sorted(x)`: the builtin walks the array row by row and tests
            # (or compares) each row in Python: `bool()` of the first tracer raises.
            walked = iteration.walked_by_builtin(node, context.model)
            if walked is None or not traced_array_walked(walked, node, scope, context):
                return
            name = qualified.removeprefix("builtins.")
            replacement = {"any": "jnp.any", "all": "jnp.all", "sorted": "jnp.sort"}[name]
            context.report(
                node,
                f"builtin `{name}` over traced array `{snippet(context.text(walked))}` {where} tests each row in Python "
                f"(`bool()` of a tracer) and raises TracerBoolConversionError; use `{replacement}`",
            )
        elif qualified in ("builtins.min", "builtins.max") and node.args and not node.keywords:
            levels = [context.level(arg, scope) for arg in node.args]
            # Python's min/max compare their arguments with `<`: a tracer (or a pytree, a TypeError) fails.
            if max(levels) < TRACED:
                return
            function = "minimum" if qualified == "builtins.min" else "maximum"
            context.report(
                node,
                f"builtin `{qualified[9:]}` on traced values {where} compares tracers in Python; use `jnp.{function}`",
                fix=_minmax_fix(node, context, function) if len(node.args) == 2 else None,
            )


def _logical_fix(node: ast.AST, context):
    """`a and b` -> `jnp.logical_and(a, b)`; `not a` -> `jnp.logical_not(a)` (elementwise, same values)."""
    if isinstance(node, ast.UnaryOp):
        function, operands = "logical_not", [node.operand]
    else:
        function = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
        operands = node.values
    name, import_edits = fixes.reference(context, f"jax.numpy.{function}")
    if not name:
        return None
    # n-ary and/or nest left to right, as Python evaluates them.
    text = context.text(operands[0])
    for operand in operands[1:]:
        text = f"{name}({text}, {context.text(operand)})"
    if len(operands) == 1:
        text = f"{name}({text})"
    return context.fix(f"Use `{name}`", [context.replace(node, text), *import_edits], safe=True)


def _minmax_fix(node: ast.Call, context, function: str):
    name, import_edits = fixes.reference(context, f"jax.numpy.{function}")
    if not name:
        return None
    first, second = (context.text(arg) for arg in node.args)
    return context.fix(f"Use `{name}`", [context.replace(node, f"{name}({first}, {second})"), *import_edits], safe=True)


def _converted_level(test: ast.expr, scope, context) -> int:
    """The level of what a condition converts with `bool()`: `not x` and `a and not b` convert `x`
    and `b` themselves (the result of `not` is a Python bool, but computing it calls `bool(x)`)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _converted_level(test.operand, scope, context)
    if isinstance(test, ast.BoolOp):
        return max(_converted_level(value, scope, context) for value in test.values)
    return context.level(test, scope)


def _in_condition(node: ast.AST) -> bool:
    """Whether `node` is (part of) a condition that the owner statement already reports."""
    child, parent = node, parent_of(node)
    while isinstance(parent, (ast.BoolOp, ast.UnaryOp)) and (not isinstance(parent, ast.UnaryOp) or isinstance(parent.op, ast.Not)):
        child, parent = parent, parent_of(parent)
    if isinstance(parent, _CONDITION_OWNERS) and parent.test is child:
        return True
    return isinstance(parent, ast.comprehension) and child in parent.ifs


RULE = TracerBoolConversion()
