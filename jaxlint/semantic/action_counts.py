"""An environment's action count, read as a network's width: a bounded number, not an unknown one.

A policy or Q-network ends in a layer with one output per action (`nn.Dense(env.num_actions)`,
`hk.Linear(env.action_space.n)`, `Dense(envs.single_action_space.shape[0])`). The count comes from
the environment at run time, so the source never fixes it; but the action spaces of the
environment libraries JAX code trains on are small: a gym/gymnax `Discrete(n)` has 2 (CartPole) to
18 (the full Atari set) actions, a `Box` action of a control task 1 to 17 coordinates (MuJoCo and
Brax humanoids), a dm_env `action_spec()` alike. `ACTION_BOUND` bounds it with room to spare.

Like `state_size.FEATURE_BOUND` for an observation of unknown shape, the bound is read only to show
a state *small* (carried_state.known_small: a 16-unit policy with its Adam moments stays far under
1 MB whatever its environment), never to show one large.

Recognised reads (the receiver is the environment, or what it returns):
- `<x>.action_space.n`, `<x>.single_action_space.n`, `<x>.action_space(params).n`;
- `<x>.action_space.shape[i]` (the same spaces, an index of their shape), also of a call or item;
- `<x>.num_actions`, `<x>.action_size` (gymnax, Brax), not on `self`;
- `<x>.action_spec().shape[i]`, `<x>.action_spec().num_values` (dm_env);
- a name bound once to one of those (`num_actions = env.num_actions`).
"""

from __future__ import annotations

import ast

ACTION_BOUND = 128

_SPACES = frozenset({"action_space", "single_action_space", "action_spec"})
_COUNTS = frozenset({"num_actions", "action_size"})
_SPACE_COUNTS = frozenset({"n", "num_values"})


def _space(node: ast.AST) -> bool:
    """`env.action_space`, `env.action_space(params)`, `env.action_spec()`, or an item of one."""
    while isinstance(node, (ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Attribute) and node.attr in _SPACES


def reads_action_count(node: ast.AST) -> bool:
    """`node` reads the action count of an environment (see the module docstring)."""
    if isinstance(node, ast.Attribute):
        if node.attr in _COUNTS:
            return not (isinstance(node.value, ast.Name) and node.value.id == "self")
        return node.attr in _SPACE_COUNTS and _space(node.value)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, (ast.Constant, ast.UnaryOp)):
        shape = node.value
        return isinstance(shape, ast.Attribute) and shape.attr == "shape" and _space(shape.value)
    return False
