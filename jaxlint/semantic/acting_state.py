"""What an acting step carries: the policy's memory between environment steps.

A compiled policy step answers one observation with an action, `action, state = policy(params, obs,
state)`: the network's parameters are handed in and read, not handed back (no learning happens in
the step), and what the step carries from one call to the next is the policy's own memory for the
environment it acts in: a PRNG key, a recurrent hidden state, the action sequence a planner refines,
a short window of recent observations and actions. All of it is sized by one environment's
observation and action (or a few environments'), bytes to kilobytes, never by the network: donating
it saves nothing that matters (the precision reads judged every such finding false: an actor's key
and extras, a decision transformer's context window, a model-predictive planner's plan, a
recurrent policy's hidden state in evaluation).

The fact is read from the statement that rebinds the state: beside it the step hands back an
action (`action`, `actions`, `act`, or a name ending in `_action`/`_actions`), it is handed the
parameters (`params`, `weights`, `variables`, `self._params`) and does not hand them back (a step
handed no parameters may carry the network inside its state), and every argument
it rebinds is memory, not learning state (not parameters, optimizer or train states: `action,
params = step(params, obs)` learns). An attribute an acting step carries in one method
(`self._state`) is that memory wherever else the class rebinds it (`self._state = observe(self._state,
action, reward)` after the environment answered). A state the source shows large is still large
(a cache of a long context, a hidden state of thousands of environments): the caller checks.
"""
from __future__ import annotations

import ast
import re

from jaxlint.semantic.flow import dotted_name, enclosing_statement, target_elements

_ACTION_NAMES = re.compile(r"^(actions?|act|.+_actions?)$")
_PARAMETER_NAMES = re.compile(r"(^|_)(params|parameters|weights|variables)$", re.IGNORECASE)
# Arguments a step that learns hands back: parameters, optimizer and training states, models.
_LEARNING_NAMES = re.compile(
    r"(^|_)(params|parameters|weights|variables|opt|optim|optimizer|opt_state|optim_state|train_state|"
    r"trainstate|ts|env|environment|model|net|network|learner|agent|critic|actor|policy|q|qf|vf|value|target|buffer|replay|memory|cache|kv|kvc|tree|search|storage|rollout|rollouts|trajectory|trajectories|transitions|data|batch)(_|$)",
    re.IGNORECASE,
)


def _leaf(target: ast.AST) -> str | None:
    name = dotted_name(target)
    return name.rsplit(".", 1)[-1] if name else None


def _hands_back_action(statement: ast.stmt) -> bool:
    """The statement binds an action from a call beside what it rebinds: `action, state = ...`."""
    if not isinstance(statement, ast.Assign) or not isinstance(statement.value, ast.Call):
        return False
    return any(
        isinstance(target, (ast.Tuple, ast.List))
        and any((_leaf(element) or "") and _ACTION_NAMES.match(_leaf(element) or "") for element in target_elements(target))
        for target in statement.targets
    )


def _rebound_arguments(statement: ast.Assign) -> set[str]:
    """The names (dotted too) the statement's call is handed and its targets rebind."""
    call = statement.value
    handed = set()
    for argument in list(call.args) + [keyword.value for keyword in call.keywords]:
        parts = argument.elts if isinstance(argument, ast.Tuple) else [argument]
        handed |= {dotted_name(part) for part in parts} - {None}
    rebound = {dotted_name(element) for target in statement.targets for element in target_elements(target)} - {None}
    return handed & rebound


def _reads_parameters(call: ast.Call, carried: set[str]) -> bool:
    """The call is handed parameters it does not hand back (`policy(params, obs, state)`,
    `self._policy(self._client.params, obs, self._state)`): without them in sight the carried state
    may hold the network itself (`action, state = policy(obs, state)`)."""
    for argument in list(call.args) + [keyword.value for keyword in call.keywords]:
        name = dotted_name(argument)
        if name is not None and name not in carried and _PARAMETER_NAMES.search(name.rsplit(".", 1)[-1].lstrip("_")):
            return True
    return False


def _memory_of_acting_step(statement: ast.stmt, key: str) -> bool:
    """`statement` is an acting step (hands back an action) carrying `key`, reading parameters it
    does not hand back, and carrying nothing that learns."""
    if not _hands_back_action(statement):
        return False
    carried = _rebound_arguments(statement)
    if key not in carried or not _reads_parameters(statement.value, carried):
        return False
    return not any(_LEARNING_NAMES.search(name.rsplit(".", 1)[-1].lstrip("_")) for name in carried)


def policy_memory(key: str, statement: ast.stmt, scope, model) -> bool:
    """`key`, rebound by `statement` from a compiled call, is the memory of a policy acting in an
    environment (see the module docstring): the statement itself is the acting step, or, for an
    attribute of an object (`self._state`), another statement of the class is."""
    if _LEARNING_NAMES.search(key.rsplit(".", 1)[-1].lstrip("_")):
        return False
    from jaxlint.semantic.carried_state import _class_scopes, known_large

    scopes = _class_scopes(scope, model) if key.startswith("self.") else [scope]
    bindings = []
    for candidate in scopes:
        for target, value in candidate.bindings:
            if value is None or key not in {dotted_name(element) for element in target_elements(target)}:
                continue
            inner = value if isinstance(value, ast.stmt) else enclosing_statement(value)
            if inner is not None:
                bindings.append((inner, dotted_name(target) == key, candidate))
    acting = _memory_of_acting_step(statement, key) or (
        key.startswith("self.") and any(inner is not statement and _memory_of_acting_step(inner, key) for inner, _, _ in bindings)
    )
    if not acting:
        return False
    # A state the source shows at 1 MB or more stays large (`hidden = jnp.zeros((4096, 1024))`).
    return not any(
        whole and isinstance(inner, ast.Assign) and known_large(inner.value, owner, model) for inner, whole, owner in bindings
    )
