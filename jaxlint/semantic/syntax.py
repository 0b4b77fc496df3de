"""Small syntax helpers shared by the model and the analyses it asks: fast iteration over ast child
nodes, and the name a chain of attributes and subscripts starts from."""

from __future__ import annotations

import ast
import re

# Fields that never hold nodes a rule looks at: `ctx` (Load/Store markers) and type-ignore comments.
_SKIPPED_FIELDS = frozenset({"ctx", "type_ignores"})
# Field types of Python's ASDL grammar whose values are never nodes.
_NOT_NODE_TYPES = frozenset({"identifier", "string", "constant", "int"})
# How a field holds nodes: one (or None), a list (whose items may be None: `Dict.keys` of `**x`,
# `arguments.kw_defaults`), or not known (tested value by value).
_ONE, _LIST, _UNKNOWN = 1, 2, 3
_CHILD_FIELDS: dict[type, tuple[tuple[str, int], ...]] = {}


def _child_fields(kind: type) -> tuple[tuple[str, int], ...]:
    """The fields of an ast class that can hold child nodes, in field order, with how they hold them,
    read from the ASDL signature that is the class's docstring (`Attribute(expr value, identifier
    attr, expr_context ctx)`): identifiers, strings, constants and ints are never looked at. A class
    whose docstring does not match its fields keeps every field, tested value by value."""
    signature = re.fullmatch(r"(\w+)\((.*)\)", (kind.__doc__ or "").split("\n", 1)[0].strip())
    declared = [part.split() for part in signature.group(2).split(",")] if signature and signature.group(1) == kind.__name__ else []
    if [pair[-1] for pair in declared] != list(kind._fields) or any(len(pair) != 2 for pair in declared):
        return tuple((name, _UNKNOWN) for name in kind._fields if name not in _SKIPPED_FIELDS)
    fields = []
    for field_type, name in declared:
        if name in _SKIPPED_FIELDS or field_type.rstrip("?*") in _NOT_NODE_TYPES:
            continue
        fields.append((name, _LIST if field_type.endswith("*") else _ONE))
    return tuple(fields)


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """Like ast.iter_child_nodes (the same order), minus context markers, as a list: measurably
    faster, and called for nearly every node of every file."""
    kind = node.__class__
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = _child_fields(kind)
    children: list[ast.AST] = []
    for name, shape in fields:
        value = getattr(node, name, None)
        if value is None:
            continue
        if shape == _ONE:
            children.append(value)
        elif shape == _LIST:
            if None in value:
                children.extend([item for item in value if item is not None])
            else:
                children.extend(value)
        elif value.__class__ is list:
            children.extend([item for item in value if isinstance(item, ast.AST)])
        elif isinstance(value, ast.AST):
            children.append(value)
    return children


def walk(node: ast.AST) -> list[ast.AST]:
    """Like ast.walk (the same breadth-first order), minus context markers, as a list: several times
    faster for the many small subtrees analyses read whole."""
    nodes = [node]
    for current in nodes:  # the list grows while it is read: breadth first
        nodes.extend(child_nodes(current))
    return nodes


def chain_root(node: ast.AST) -> ast.AST:
    """The expression an attribute or subscript chain starts from: `config` for `config["lr"].x`,
    the call for `make()["x"]`."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node


def root_name(node: ast.AST) -> str | None:
    """The name an attribute or subscript chain starts from: `config` for `config["lr"].x`."""
    node = chain_root(node)
    return node.id if isinstance(node, ast.Name) else None
