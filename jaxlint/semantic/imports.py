"""Resolve local names to qualified names from a module's own imports.

We do this ourselves, once per module, instead of using libcst's metadata providers:
those cost several times the parse (Fixit issues #457 and #458).
"""

from __future__ import annotations

import ast
import builtins

# Public aliases that point at one implementation; rules ask for the canonical name.
CANONICAL = {
    "jax.experimental.pjit.pjit": "jax.jit",
    "jax.pjit": "jax.jit",
    "jax.api.jit": "jax.jit",
    "jax.tree_util.Partial": "jax.tree_util.Partial",
    "jax.ad_checkpoint.checkpoint": "jax.checkpoint",
    "jax.remat": "jax.checkpoint",
    "jax.experimental.shard_map.shard_map": "jax.shard_map",
    "flax.nnx.jit": "flax.nnx.jit",
    "eqx": "equinox",
    "jax.core.concrete_or_error": "jax.core.concrete_or_error",
    # `from jax import partial` (jax < 0.2.21) was `functools.partial` re-exported: `@partial(jit, ...)`
    # compiles the same way (the removed-API rule reads the name as spelled).
    "jax.partial": "functools.partial",
}
BUILTIN_NAMES = frozenset(dir(builtins))
# The names a module conventionally gives these libraries: what they mean in a module that gets them
# only from a star import jaxlint cannot read (`from mypkg.imports import *` of a module not in the project).
CONVENTIONAL_ALIASES = {"jnp": "jax.numpy", "np": "numpy", "jax": "jax", "lax": "jax.lax", "optax": "optax"}


class ImportMap:
    """Maps names bound by imports to what they import; flow-insensitive and precise.

    A name that is also bound some other way (assignment, def, class, parameter) anywhere in
    the module is ambiguous and resolves to nothing: when we cannot tell, we do not guess.
    """

    def __init__(self, import_nodes: list[ast.AST], locally_bound: set[str], project=None, module_bound: set[str] | None = None) -> None:
        """`import_nodes`: every Import/ImportFrom in the module; `locally_bound`: names bound otherwise
        anywhere in it (a generated import must not take one); `module_bound`: those bound at module
        level, which hide an import of the same name (the model hides it per function otherwise);
        None: `locally_bound`.

        With a project view (semantic/project.py), relative imports resolve to absolute module names
        and `from m import *` of a project module binds the names that module defines."""
        self.aliases: dict[str, str] = {}
        ambiguous: set[str] = set()
        self.locally_bound = set(locally_bound)
        star_bound: dict[str, str] = {}
        self._unread_star = False  # a star import whose module jaxlint cannot read
        if project is not None:
            import_nodes, star_bound = self._bind_project_imports(import_nodes, project, ambiguous)
        for node in import_nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self._bind(alias.asname, alias.name, ambiguous)
                    else:
                        # `import jax.numpy` binds `jax`; `jax.numpy.x` then resolves through it.
                        top = alias.name.split(".")[0]
                        self._bind(top, top, ambiguous)
            elif node.level or not node.module:
                for alias in node.names:
                    self.locally_bound.add(alias.asname or alias.name)
            else:
                for alias in node.names:
                    if alias.name != "*":
                        self._bind(alias.asname or alias.name, f"{node.module}.{alias.name}", ambiguous)
                    else:
                        self._unread_star = True
        # Names a star import brings in count only where nothing else in the module binds them.
        for name, target in star_bound.items():
            if name not in self.aliases and name not in ambiguous and name not in self.locally_bound:
                self.aliases[name] = target
        if self._unread_star:
            # A name the module never binds can only come from the star import jaxlint cannot read: the
            # conventional aliases mean their libraries (`jnp.zeros`, `np.zeros`, `optax.adam`), no other name.
            for name, target in CONVENTIONAL_ALIASES.items():
                if name not in self.aliases and name not in ambiguous and name not in self.locally_bound \
                        and (module_bound is None or name not in module_bound):
                    self.aliases[name] = target
        hiding = self.locally_bound if module_bound is None else set(module_bound) | (self.locally_bound - set(locally_bound))
        for name in ambiguous | (hiding & set(self.aliases)):
            self.aliases.pop(name, None)

    def bind_module_alias(self, name: str, value: ast.AST) -> None:
        """`partial = functools.partial` at module level, the one binding of `partial` anywhere in the
        module: the name then means what the imported value means."""
        target = self.spelled_name(value) if isinstance(value, (ast.Attribute, ast.Name)) else None
        if target is not None and name not in self.aliases:
            self.aliases[name] = target
            self.locally_bound.discard(name)

    def _bind_project_imports(self, import_nodes: list[ast.AST], project, ambiguous: set[str]):
        """Binds relative and star imports through the project; returns the nodes left to bind."""
        remaining = []
        star_bound: dict[str, str] = {}
        for node in import_nodes:
            if not isinstance(node, ast.ImportFrom) or not (node.level or any(alias.name == "*" for alias in node.names)):
                remaining.append(node)
                continue
            module = absolute_module(node, project.package)
            if module is None:
                remaining.append(node)
                continue
            for alias in node.names:
                if alias.name == "*":
                    if project.module(module) is None:
                        self._unread_star = True
                    star_bound.update(project.star_bindings(module))
                else:
                    self._bind(alias.asname or alias.name, f"{module}.{alias.name}", ambiguous)
        return remaining, star_bound

    def _bind(self, name: str, target: str, ambiguous: set[str]) -> None:
        previous = self.aliases.get(name)
        if previous is not None and previous != target:
            ambiguous.add(name)
        self.aliases[name] = target

    def qualified_name(self, node: ast.AST) -> str | None:
        """`jnp.where` -> `jax.numpy.where`; `J` (from jax import jit as J) -> `jax.jit`."""
        qualified = self.spelled_name(node)
        return canonical(qualified) if qualified is not None else None

    def spelled_name(self, node: ast.AST) -> str | None:
        """The qualified name as the module's imports spell it, before canonical aliases
        (`pjit` from jax.experimental.pjit stays `jax.experimental.pjit.pjit`)."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.aliases.get(node.id)
        if base is None:
            if node.id in BUILTIN_NAMES and node.id not in self.locally_bound and not parts:
                return f"builtins.{node.id}"
            return None
        parts.append(base)
        return ".".join(reversed(parts))

    def local_name_for(self, qualified: str) -> str | None:
        """The expression this module already uses for `qualified`, e.g. `jnp` for jax.numpy."""
        best = None
        for name, target in self.aliases.items():
            if qualified == target:
                return name
            if qualified.startswith(target + "."):
                candidate = name + qualified[len(target):]
                if best is None or len(candidate) < len(best):
                    best = candidate
        return best


def canonical(qualified: str) -> str:
    if qualified.startswith("equinox.") or qualified.startswith("flax."):
        return qualified
    return CANONICAL.get(qualified, qualified)


def absolute_module(node: ast.ImportFrom, package: str) -> str | None:
    """The absolute module an ImportFrom reads from; None when a relative one climbs out of the package."""
    if not node.level:
        return node.module
    parts = package.split(".") if package else []
    if (parts and node.level - 1 >= len(parts)) or (not parts and node.level > 1):
        return None
    # A script's `from .x import y` has no package: it reads as its sibling `x`.
    base = parts[: len(parts) - (node.level - 1)]
    if node.module:
        base.append(node.module)
    return ".".join(base) if base else None
