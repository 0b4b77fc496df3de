"""What an acting step carries (semantic/acting_state.py): a compiled policy step that answers an
observation with an action, reading the parameters it is handed and not handing them back, carries the
policy's memory for one environment (a key, a hidden state, a plan, a window of recent steps): small
whatever its size shows. A step that also hands back what it learns, a memory the source shows large,
and a step handing back no action (a decoder's token and cache) are not that memory. The rule's
fixture is fixtures/rules/JAX401_policy_memory.py."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic.acting_state import policy_memory
from jaxlint.semantic.model import SemanticModel

SOURCE = textwrap.dedent("""
    import jax
    import jax.numpy as jnp

    policy = jax.jit(lambda p, o, s: (o, s))

    def rollout(env, params, state, opt_state, cache, n):
        obs = env.reset()
        for _ in range(n):
            action, state = policy(params, obs, state)
            actions, (state, key) = policy(params, obs, (state, key))
            action, params = policy(params, obs, params)
            token, cache = policy(params, obs, cache)
            big = jnp.zeros((4096, 1024))
            action, big = policy(params, obs, big)
            action, params, opt_state = policy(params, opt_state, obs)
            act, own = policy(obs, own)

    class Actor:
        def select(self, obs):
            action, self._state = self._policy(self._params, obs, self._state)
            return action

        def observe(self, action, reward):
            self._state = self._observe(self._state, action, reward)
            self._other = self._observe(self._other, action, reward)
""")


def _statements():
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree)
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)]
    return model, found


def _memory(model, statements, index, key):
    statement = statements[index]
    return policy_memory(key, statement, model.scope_for(statement), model)


def test_the_memory_an_acting_step_carries_is_small():
    model, statements = _statements()
    texts = [ast.unparse(s) for s in statements]
    assert _memory(model, statements, texts.index("action, state = policy(params, obs, state)"), "state")
    assert _memory(model, statements, texts.index("actions, (state, key) = policy(params, obs, (state, key))"), "state")
    assert _memory(model, statements, texts.index("action, self._state = self._policy(self._params, obs, self._state)"), "self._state")


def test_an_attribute_an_acting_step_carries_is_memory_elsewhere_in_its_class():
    model, statements = _statements()
    texts = [ast.unparse(s) for s in statements]
    assert _memory(model, statements, texts.index("self._state = self._observe(self._state, action, reward)"), "self._state")
    assert not _memory(model, statements, texts.index("self._other = self._observe(self._other, action, reward)"), "self._other")


def test_learning_steps_large_memories_and_decoders_are_not():
    model, statements = _statements()
    texts = [ast.unparse(s) for s in statements]
    assert not _memory(model, statements, texts.index("action, params = policy(params, obs, params)"), "params")
    assert not _memory(model, statements, texts.index("token, cache = policy(params, obs, cache)"), "cache")
    assert not _memory(model, statements, texts.index("action, big = policy(params, obs, big)"), "big")
    assert not _memory(model, statements, texts.index("action, params, opt_state = policy(params, opt_state, obs)"), "opt_state")
    # handed no parameters, the state may hold the network itself
    assert not _memory(model, statements, texts.index("act, own = policy(obs, own)"), "own")
