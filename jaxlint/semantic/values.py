"""Device values outside traced code: which names, expressions, attributes and call results hold JAX
arrays on a device (as opposed to host values), the value kind rules ask about host syncs, transfers
and eager work (JAX201, JAX203, JAX204, JAX205, ...).

`DeviceValues` is a part of the semantic model (SemanticModel inherits it): its methods read the
model's scopes, bindings, jitted functions and library models, and cache per scope on the model.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.semantic import jaxapi, library_models, returned_kinds
from jaxlint.semantic.bindings import FUNCTION_NODES
from jaxlint.semantic.constants import ConstantEvaluator
from jaxlint.semantic.reaching import reaching_binding
from jaxlint.semantic.syntax import bound_names, child_nodes, parent_of, returned_positions

if TYPE_CHECKING:
    from jaxlint.semantic.model import Scope


class DeviceValues:
    """The device-value questions of the semantic model (see the module docstring)."""

    def device_names(self, scope: Scope) -> dict[str, bool]:
        """Names in a non-traced scope bound only to device values (True) or ever to host ones (False)."""
        cached = self._device_cache.get(scope)
        if cached is not None:
            return cached
        kinds: dict[str, set[str]] = {}
        result: dict[str, bool] = {}
        self._device_cache[scope] = result
        for _ in range(3):
            # Each pass reads the previous pass's answer afresh: a rebinding through the name itself
            # (`loss, (aux, grads) = loss` after `state, loss = step(...)`) is unknown only at first.
            kinds = {}
            for target, value in scope.bindings:
                if value is None:
                    continue
                if isinstance(value, ast.AugAssign):
                    kind = self.device_kind(value.value, scope)
                    kind = "device" if kind == "device" else None
                else:
                    kind = self.device_kind(value, scope)
                    if kind is None and _rebinds_itself(target, value):
                        continue  # (known from the name's other bindings on a later pass)
                for name, element_kind in _target_kinds(target, value, kind, self, scope):
                    kinds.setdefault(name, set()).add(element_kind or "unknown")
            for target, _ in scope.loops:
                for name in bound_names(target):
                    kinds.setdefault(name, set()).add("unknown")
            result.clear()
            result.update({name: found == {"device"} or found == {"device", "none"} for name, found in kinds.items()})
        # A parameter's incoming value is unknown; it counts as a device value only if every
        # assignment to it in this scope is one (`x = step(x)` in a loop).
        for name in scope.params:
            if name not in kinds:
                result.pop(name, None)
        return result

    def device_kind(self, node: ast.AST, scope: Scope) -> str | None:
        """'device' for values known to live on the accelerator, 'host' for host values, else None."""
        if isinstance(node, ast.Constant):
            return "none" if node.value is None else "host"
        if isinstance(node, ast.Name):
            names = self._device_cache.get(scope)
            if names is None:
                names = self.device_names(scope)
            found = names.get(node.id)
            if found is False:
                return self._reaching_device_kind(node, scope)  # bound to several kinds: which reaches here
            return "device" if found else None
        if isinstance(node, ast.Attribute):
            if node.attr in jaxapi.STATIC_ATTRIBUTES:
                return "host"
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                return self.attribute_device_kind(node, scope)
            return "device" if self.device_kind(node.value, scope) == "device" else None
        if isinstance(node, ast.Subscript):
            return "device" if self.device_kind(node.value, scope) == "device" else None
        if isinstance(node, (ast.BinOp, ast.Compare)):
            operands = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.left, *node.comparators]
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                return "host"
            kinds = [self.device_kind(operand, scope) for operand in operands]
            return "device" if "device" in kinds else ("host" if all(kind == "host" for kind in kinds) else None)
        if isinstance(node, ast.UnaryOp):
            return "host" if isinstance(node.op, ast.Not) else self.device_kind(node.operand, scope)
        if isinstance(node, ast.BoolOp):
            # `a and b` returns one of its operands (semantic/held_values.py): of device arrays, one of them
            kinds = [self.device_kind(operand, scope) for operand in node.values]
            return "device" if all(kind == "device" for kind in kinds) else ("host" if all(kind == "host" for kind in kinds) else None)
        if isinstance(node, ast.Call):
            qualified = self.qualified_name(node.func)
            if qualified is not None:
                if qualified in jaxapi.HOST_SCALAR_CALLS or qualified in jaxapi.STATIC_CALLS or qualified == "jax.device_get":
                    return "host"
                if qualified.startswith("numpy.") or qualified.startswith("builtins."):
                    return "host"
                if qualified == "jax.device_put" or qualified.startswith(jaxapi.ARRAY_NAMESPACES):
                    return "device"
                # An imported name: a jitted function or device-returning helper of the project.
                if self.jit_binding_for_call(node) is not None or self._call_returns_device(node, scope):
                    return "device"
                return library_models.device_kind(self, node, scope)  # what the library models say
            if isinstance(node.func, ast.Attribute):
                owner = self.device_kind(node.func.value, scope)
                if owner == "device":
                    if node.func.attr in jaxapi.HOST_METHODS:
                        return "host"
                    if node.func.attr in jaxapi.ARRAY_METHODS or node.func.attr in ("block_until_ready", "copy"):
                        return "device"
                    return None
            if self.jit_binding_for_call(node) is not None:
                return "device"
            if self._call_returns_device(node, scope):
                return "device"
            if isinstance(node.func, ast.Call) and self.qualified_name(node.func.func) in jaxapi.ARRAY_RESULT_TRANSFORMS:
                return "device"  # `jax.value_and_grad(f)(p, b)`, `jax.vmap(f)(xs)`: a transformed call returns arrays
            if isinstance(node.func, (ast.Attribute, ast.Name)):
                return library_models.device_kind(self, node, scope)  # `env.step(...)` of a modelled class
        return None

    def _reaching_device_kind(self, name: ast.Name, scope: Scope) -> str | None:
        """'device' when the one binding of a name that surely reaches this read (semantic/reaching.py)
        is a device value: a script that binds `x = jnp.arange(n)`, times `x ** 2`, then rebinds
        `x = np.arange(n)` for the NumPy comparison; `stats = {"e": 0.0}` then `x, stats =
        lax.fori_loop(...)` (the element of an unpacking, as device_names reads it)."""
        cache = self.__dict__.setdefault("_reaching_kind_cache", {})
        key = id(name)
        if key in cache:
            return cache[key]
        cache[key] = None
        reached = reaching_binding(name, scope.bindings, scope.loops)
        if reached is None:
            return None
        target, value = reached
        whole = self.device_kind(value, scope)
        kinds = [kind for bound, kind in _target_kinds(target, value, whole, self, scope) if bound == name.id]
        kind = "device" if kinds and all(kind == "device" for kind in kinds) else None
        cache[key] = kind
        return kind

    def device_operation(self, node: ast.AST, scope: Scope) -> bool:
        """Whether evaluating `node` itself (not its operands) outside `jit` dispatches one operation on
        the device: an arithmetic or comparison operator with a device operand (`gamma * values[t]`,
        `x > 0`), an augmented assignment of one (`total += loss`), a negation of one, an array method
        on one (`x.sum()`, `x.reshape(n, -1)`), or an indexing of a device array whose result is an
        operand of such an operator (`values[t] - baseline`: arithmetic says the element is an array, not
        a leaf of a tree). Each is a kernel of its own outside `jit`, as a `jnp` call is."""
        if isinstance(node, ast.BinOp):
            return self.device_kind(node.left, scope) == "device" or self.device_kind(node.right, scope) == "device"
        if isinstance(node, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                return False
            return any(self.device_kind(operand, scope) == "device" for operand in (node.left, *node.comparators))
        if isinstance(node, ast.AugAssign):
            return self.device_kind(node.value, scope) == "device" or (
                isinstance(node.target, ast.Name) and self.device_kind(node.target, scope) == "device")
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self.device_kind(node.operand, scope) == "device"
        if isinstance(node, ast.Call):
            function = node.func
            return (isinstance(function, ast.Attribute) and function.attr in _DISPATCHING_METHODS
                    and self.device_kind(function.value, scope) == "device")
        if isinstance(node, ast.Subscript):
            parent = parent_of(node)
            if not isinstance(node.ctx, ast.Load) or not isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.AugAssign)):
                return False
            if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
                return False
            if isinstance(node.value, ast.Attribute) and node.value.attr == "at":
                return False
            if isinstance(node.slice, ast.Constant):
                return False  # (`metrics["loss"]`, `pair[1]`: a field of a tree or a tuple, as likely as an array)
            return self.device_kind(node.value, scope) == "device"
        return False

    def walks_device_array(self, loop: ast.AST, scope: Scope) -> bool:
        """Whether the loop reads a device array element by element: on every iteration it indexes a
        device value with a name the iteration changes (`values[t]` in `for t in range(n)`, `x[i]` in a
        `while` that rebinds `i`), not under a branch. Such a loop is as long as the data, and each
        element it reads is a dispatch of its own outside `jit` (the arithmetic on it too), where one
        vectorised expression or a `lax.scan` is one."""
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            moving = set(bound_names(loop.target))
        elif isinstance(loop, ast.While):
            moving = {name for node in ast.walk(loop) if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                      for target in (node.targets if isinstance(node, ast.Assign) else [node.target]) for name in bound_names(target)}
        else:
            return False
        for node in ast.walk(loop):
            if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                    and not (isinstance(node.value, ast.Attribute) and node.value.attr == "at")
                    and any(isinstance(n, ast.Name) and n.id in moving for n in ast.walk(node.slice))
                    and not _under_branch(node, loop) and self.device_kind(node.value, scope) == "device"):
                return True
        return False

    def advances_by_arithmetic(self, loop: ast.AST, scope: Scope) -> bool:
        """Whether every iteration advances a device value by operators on itself with an increment
        that depends on the state the loop advances (`a = -sin(x); v = v + dt * a; x = x + dt * v`),
        not under a branch: an explicit integrator or iterative update written in arithmetic, whose
        operators are the computation the loop repeats (each a dispatch outside `jit`), not glue
        around a step. An accumulator (`acc += mean(pred == y)`, an increment the loop's state does
        not feed) is not one."""
        updates: list[tuple[str, ast.AST, ast.expr]] = []
        reads: dict[str, set[str]] = {}
        for node in ast.walk(loop):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                reads.setdefault(node.targets[0].id, set()).update(n.id for n in ast.walk(node.value) if isinstance(n, ast.Name))
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                name, value, operation = node.target.id, node.value, node
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.BinOp):
                name, value = node.targets[0].id, node.value
                operands = [value.left, value.right]
                if not any(isinstance(o, ast.Name) and o.id == name for o in operands):
                    continue
                value, operation = next(o for o in operands if not (isinstance(o, ast.Name) and o.id == name)), node.value
            else:
                continue
            if _under_branch(node, loop) or _in_nested_function(node, loop):
                continue
            if self.device_operation(operation, scope):
                updates.append((name, operation, value))
        advanced = {name for name, _, _ in updates}
        for name, _, increment in updates:
            seen: set[str] = set()
            frontier = {n.id for n in ast.walk(increment) if isinstance(n, ast.Name)}
            for _ in range(4):
                if frontier & advanced:
                    return True
                seen |= frontier
                frontier = {r for f in frontier for r in reads.get(f, ())} - seen
        return False

    def numpy_buffer(self, node: ast.AST, scope: Scope) -> bool:
        """Whether `node` names a NumPy array made outside traced code: every value bound to the name in
        its scope is the result of a NumPy function (`trace = np.zeros((n, d))`, `np.full(...)`,
        `np.empty_like(x)`). Storing into it (`trace[i] = x`) converts what is stored on the host."""
        if not isinstance(node, ast.Name):
            return False
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(self, node.id, scope)
        return found is not None and bool(found[1]) and self.numpy_constructions(found[1])

    def numpy_constructions(self, values) -> bool:
        """Whether every value is the result of a NumPy function that makes an array (not a scalar)."""
        for value in values:
            if not isinstance(value, ast.Call):
                return False
            qualified = self.qualified_name(value.func) or ""
            if not qualified.startswith("numpy.") or qualified in jaxapi.HOST_SCALAR_CALLS:
                return False
        return True

    def constant_evaluator(self):
        """Constant propagation over this module (semantic/constants.py), built on first use."""
        if self._constants is None:

            self._constants = ConstantEvaluator(self)
        return self._constants

    def returns_device(self, scope: Scope) -> bool:
        """Whether every `return` of a (host) function yields a device array or a tuple of them:
        `return jnp.array(state), jnp.array(done)`, or the result of a jitted call."""
        cache = self.__dict__.setdefault("_returns_device_cache", {})
        if scope in cache:
            return cache[scope]
        cache[scope] = False  # recursion: not known while being computed
        if scope.is_function and self.decorated_for_arrays(scope.node):
            cache[scope] = True  # `@jax.value_and_grad def loss_and_grad(...)`: called, the transform returns arrays
            return True
        # A function traced somewhere (`jax.grad(loss)`, a helper of a jitted step) still runs op by op
        # on device arrays where host code calls it by name (`val = loss(params, batch)`): undecorated,
        # its direct calls are host calls, and its returns are read like any host function's.
        result = bool(scope.returns) and scope.is_function and not (scope.in_traced and scope.node.decorator_list)
        if result:
            for value in scope.returns:
                elements = value.elts if isinstance(value, ast.Tuple) else [value]
                if not elements or any(self.device_kind(element, scope) != "device" for element in elements):
                    result = False
                    break
        result = result and not _is_generator(scope.node)
        cache[scope] = result
        return result

    def returned_device_positions(self, scope: Scope, width: int) -> tuple[bool, ...] | None:
        """For a (host) function every `return` of which is a tuple of `width` elements: at each
        position, whether every return gives a device value there (`return loss, params, step + 1`:
        device, device, host). A kind known where the helper computes a value is known at that position
        wherever the tuple is unpacked, whatever the other positions hold. None where the returns are
        not such tuples (see returns_device for the whole return)."""
        cache = self.__dict__.setdefault("_device_positions_cache", {})
        key = (scope, width)
        if key in cache:
            return cache[key]
        cache[key] = None  # recursion: not known while being computed
        if not scope.is_function or not scope.returns or (scope.in_traced and scope.node.decorator_list) or _is_generator(scope.node):
            return None
        lined_up = returned_positions(scope.returns)
        if lined_up is None or len(lined_up) != width or lined_up[0][0] < 0:
            return None
        if self.decorated_for_arrays(scope.node):
            result = (True,) * width
        else:
            result = tuple(all(self.device_kind(value, scope) == "device" for value in values) for _, values in lined_up)
        cache[key] = result
        return result

    def call_device_positions(self, call: ast.Call, scope: Scope, width: int) -> tuple[bool, ...] | None:
        """returned_device_positions of the function of this module a call runs (by name, or a method
        on an instance of a class of the module), called outside traced code."""
        resolved = self.resolve_function(call.func, scope)
        if resolved is not None and resolved[0] is not None:
            return None if resolved[1] else self.returned_device_positions(resolved[0], width)
        function = call.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id not in ("self", "cls"):
            owner = self.instance_class(function.value)
            if isinstance(owner, ast.ClassDef):
                method = self.class_methods.get(owner, {}).get(function.attr)
                return self.returned_device_positions(method, width) if method is not None else None
        return None

    def decorated_for_arrays(self, function: ast.AST) -> bool:
        """Whether a decorator of `function` is a transform that, called outside jit, computes its result
        on the device op by op and returns it as arrays, whatever the body returns (jaxapi.EAGER_ARRAY_DECORATORS:
        `@jax.value_and_grad`, `@partial(jax.grad, argnums=1)`, `@eqx.filter_value_and_grad`, `@jax.vmap`)."""
        for decorator in getattr(function, "decorator_list", ()):
            use = self.decorator_transform(decorator)
            if use is not None and use.qualified in jaxapi.EAGER_ARRAY_DECORATORS:
                return True
        return False

    def _call_returns_device(self, call: ast.Call, scope: Scope) -> bool:
        resolved = self.resolve_function(call.func, scope)
        if resolved is not None and resolved[0] is not None:
            return self.returns_device(resolved[0])
        function = call.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id not in ("self", "cls"):
            owner = self.instance_class(function.value)
            if isinstance(owner, ast.ClassDef):
                method = self.class_methods.get(owner, {}).get(function.attr)
                return method is not None and self.returns_device(method)
            if owner is not None:
                summary = self.project.method_of(owner, function.attr) if self.project is not None else owner.methods.get(function.attr)
                return summary is not None and summary.returns_device
        if self.project is not None:
            qualified = self.qualified_name(function)
            if qualified is not None and not qualified.startswith(("jax.", "numpy.", "builtins.", "flax.", "equinox.")):
                # a function, or a static method called on its class (`Loader.scan(...)`)
                found = returned_kinds.located_function(self.project, qualified) if "." in qualified else None
                return found is not None and found[0].returns_device
        return False

    def attribute_device_kind(self, node: ast.Attribute, scope: Scope) -> str | None:
        """'device' for `self.v` when every assignment to `self.v` in its class stores a device array."""
        method = scope.enclosing_method()
        if method is None or not isinstance(node.value, ast.Name) or node.value.id != "self":
            return None
        cache = self.__dict__.setdefault("_attribute_kind_cache", {})
        key = (method.class_node, node.attr)
        if key in cache:
            return cache[key]
        cache[key] = None
        kinds = []
        for other in self.class_methods.get(method.class_node, {}).values():
            for target, value in other.bindings:
                if isinstance(target, ast.Attribute) and target.attr == node.attr and isinstance(target.value, ast.Name) and target.value.id == "self":
                    if value is None or isinstance(value, ast.AugAssign):
                        kinds.append(None if value is None else self.device_kind(value.value, other))
                    else:
                        kinds.append(self.device_kind(value, other))
                elif isinstance(target, (ast.Tuple, ast.List)) and any(
                    isinstance(e, ast.Attribute) and e.attr == node.attr and isinstance(e.value, ast.Name) and e.value.id == "self"
                    for e in target.elts
                ):
                    kinds.append(self.device_kind(value, other) if value is not None and not isinstance(value, (ast.Tuple, ast.AugAssign)) else None)
        result = "device" if kinds and all(kind == "device" for kind in kinds) else None
        cache[key] = result
        return result


# Array methods that compute (a reduction, a reshape, a cast): one dispatch each on a device array.
# (Not `.set`/`.add`/`.get`/`.apply`: `.at[]` updates are counted apart, and a tree's `.get` is a lookup.)
_DISPATCHING_METHODS = jaxapi.ARRAY_METHODS - {"set", "add", "multiply", "divide", "power", "get", "apply"}


def may_dispatch(node: ast.AST) -> bool:
    """Syntax only, cheap: `node` is of a form `DeviceValues.device_operation` may count (an arithmetic or
    comparison operator, an augmented assignment, a negation, an indexing that is an operand of one, a
    computing array method)."""
    if isinstance(node, (ast.BinOp, ast.AugAssign)):
        return True
    if isinstance(node, ast.UnaryOp):
        return not isinstance(node.op, ast.Not)
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.Subscript):
        return isinstance(parent_of(node), (ast.BinOp, ast.UnaryOp, ast.Compare, ast.AugAssign))
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _DISPATCHING_METHODS


def _under_branch(node: ast.AST, loop: ast.AST) -> bool:
    """Inside an `if`, a conditional expression, a boolean operator or an exception handler of the loop's
    body: it may not run on every iteration."""
    parent = parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, (ast.If, ast.IfExp, ast.ExceptHandler, ast.BoolOp)):
            return True
        parent = parent_of(parent)
    return False


def _in_nested_function(node: ast.AST, loop: ast.AST) -> bool:
    parent = parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, (*FUNCTION_NODES, ast.ClassDef)):
            return True
        parent = parent_of(parent)
    return False


def _is_generator(node: ast.AST) -> bool:
    stack = list(getattr(node, "body", []))
    while stack:
        child = stack.pop()
        if isinstance(child, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(child, (*FUNCTION_NODES, ast.ClassDef)):
            continue
        stack.extend(child_nodes(child))
    return False
def _rebinds_itself(target: ast.AST, value: ast.AST) -> bool:
    """`loss, (aux, grads) = loss`, `metrics = metrics["train"]`: the value is (a part of) a name the
    statement binds, so its kind is that name's kind from its other bindings."""
    while isinstance(value, (ast.Subscript, ast.Attribute)):
        value = value.value
    return isinstance(value, ast.Name) and value.id in set(bound_names(target))
def _target_kinds(target, value, kind, model: DeviceValues, scope: Scope):
    if isinstance(target, ast.Name):
        yield target.id, kind
    elif isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
            for element, element_value in zip(target.elts, value.elts):
                yield from _target_kinds(element, element_value, model.device_kind(element_value, scope), model, scope)
        else:
            positions = None
            if kind is None and value.__class__ is ast.Call and not any(e.__class__ is ast.Starred for e in target.elts):
                # `loss, params, count = helper(...)`: each name takes the kind of its position.
                positions = model.call_device_positions(value, scope, len(target.elts))
            for index, element in enumerate(target.elts):
                element_kind = kind if positions is None else ("device" if positions[index] else None)
                yield from _target_kinds(element, None, element_kind, model, scope)
    elif isinstance(target, ast.Starred):
        yield from _target_kinds(target.value, None, kind, model, scope)
