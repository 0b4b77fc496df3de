"""JAX305 on a network's weights: "a later value is not seen" is said only where one can exist.

Weights bound once before the compiled function is built (trained, restored or handed in, then
frozen into an inference function) have no later value: the finding names the cost of the constants
alone. Weights the enclosing code binds again after the function is built (a training loop after a
`predict` defined on the initial parameters), stores into, or rebinds from another function
(`global`) can change: the compiled function keeps the first ones."""

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

HEADER = '''
import haiku as hk
import jax
import jax.numpy as jnp


def forward(x):
    return hk.nets.MLP([300, 300, 10])(x)


network = hk.without_apply_rng(hk.transform(forward))
'''


def _messages(body: str) -> list[str]:
    result = check_source(HEADER + body, "model.py", Settings(), [RULES_BY_CODE["JAX305"]])
    assert not result.errors, result.errors
    return [d.message for d in result.diagnostics]


STALE = "is not seen"
FROZEN = "compiled again for every other set of weights"


def test_weights_trained_then_frozen_are_not_called_stale():
    messages = _messages('''
def train_and_freeze(data, steps):
    params = network.init(jax.random.PRNGKey(0), data)
    for _ in range(steps):
        params = jax.tree_util.tree_map(lambda p: p * 0.9, params)
    final = params

    def predict(x):
        return network.apply(final, x)

    return jax.jit(predict)
''')
    assert len(messages) == 1 and FROZEN in messages[0] and STALE not in messages[0]


def test_weights_handed_in_are_not_called_stale():
    messages = _messages('''
def make_predictor(params):
    @jax.jit
    def predict(x):
        return network.apply(params, x)

    return predict
''')
    assert len(messages) == 1 and FROZEN in messages[0]


def test_module_level_weights_bound_once_are_not_called_stale():
    messages = _messages('''
trained = load_weights("model.pkl")
predict = jax.jit(lambda x: network.apply(trained, x))
''')
    assert len(messages) == 1 and FROZEN in messages[0]


def test_weights_rebound_after_the_function_are_stale():
    messages = _messages('''
def train(data, steps):
    params = network.init(jax.random.PRNGKey(0), data)

    @jax.jit
    def predict(x):
        return network.apply(params, x)

    for _ in range(steps):
        params = jax.tree_util.tree_map(lambda p: p * 0.9, params)
        print(predict(data))
''')
    assert len(messages) == 1 and STALE in messages[0]


def test_weights_stored_into_after_the_function_are_stale():
    messages = _messages('''
def adjust(data, params):
    predict = jax.jit(lambda x: network.apply(params, x))
    params["mlp/~/linear_0"] = {"w": jnp.zeros((3, 300)), "b": jnp.zeros(300)}
    return predict(data)
''')
    assert len(messages) == 1 and STALE in messages[0]


def test_module_weights_rebound_by_a_function_are_stale():
    messages = _messages('''
weights = load_weights("model.pkl")
predict = jax.jit(lambda x: network.apply(weights, x))


def reload():
    global weights
    weights = load_weights("model.pkl")
''')
    assert len(messages) == 1 and STALE in messages[0]
