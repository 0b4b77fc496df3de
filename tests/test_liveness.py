"""semantic/liveness.py: may `name` be read after a statement, before it is rebound? The statement
asked about is the one marked `# <-`."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jaxlint.semantic.liveness import read_after
from jaxlint.semantic.model import PARENT


def _live(source: str, name: str, **options) -> bool:
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            setattr(child, PARENT, node)
    row = next(number for number, line in enumerate(source.splitlines(), 1) if line.rstrip().endswith("# <-"))
    statement = next(node for node in ast.walk(tree) if isinstance(node, ast.stmt) and node.lineno == row)
    return read_after(name, statement, **options)


def test_read_later_in_the_block():
    assert _live("""
        def f(x):
            y = g(x)  # <-
            z = 1
            return x + y
    """, "x")


def test_nothing_reads_it_afterwards():
    assert not _live("""
        def f(x):
            y = g(x)  # <-
            return y
    """, "x")


def test_rebound_before_the_read():
    assert not _live("""
        def f(x):
            y = g(x)  # <-
            x = h(y)
            return x
    """, "x")


def test_rebound_in_an_enclosing_block_before_the_read():
    assert not _live("""
        def f(x, c):
            if c:
                y = g(x)  # <-
            x = 0
            return x
    """, "x")


def test_rebound_in_only_one_branch_stays_live():
    assert _live("""
        def f(x, c):
            y = g(x)  # <-
            if c:
                x = 0
            return x
    """, "x")


def test_rebound_in_every_path_of_a_branch_then_read_there_is_not_a_read():
    # The read inside the branch sees the new value; nothing after the `if` reads `x`.
    assert not _live("""
        def f(x, c):
            y = g(x)  # <-
            if c:
                x = 0
                print(x)
            return y
    """, "x")


def test_read_in_a_later_branch_counts():
    assert _live("""
        def f(x, c):
            y = g(x)  # <-
            if c:
                print(x)
            return y
    """, "x")


def test_read_at_the_top_of_an_enclosing_loop():
    assert _live("""
        def f(x, batches):
            for batch in batches:
                log(x)
                y = g(x, batch)  # <-
            return y
    """, "x")


def test_rebound_at_the_top_of_an_enclosing_loop():
    assert not _live("""
        def f(batches):
            for batch in batches:
                x = load(batch)
                y = g(x)  # <-
            return y
    """, "x")


def test_read_on_the_way_back_into_a_nested_loop():
    assert _live("""
        def f(epochs, batches, x):
            for epoch in epochs:
                log(x)
                for batch in batches:
                    y = g(batch)  # <-
            return y
    """, "x")


def test_outer_loop_way_in_stops_at_a_rebinding():
    assert not _live("""
        def f(epochs, batches):
            for epoch in epochs:
                p = load(epoch)
                while True:
                    a = use(p)
                    y = g(a)  # <-
            return y
    """, "a")


def test_read_in_the_while_test():
    assert _live("""
        def f(x):
            while x.running:
                y = g(x)  # <-
            return y
    """, "x")


def test_the_for_target_rebinds_on_the_next_iteration():
    assert not _live("""
        def f(xs):
            for x in xs:
                y = g(x)  # <-
            return y
    """, "x")


def test_augmented_assignment_reads_first():
    assert _live("""
        def f(x):
            y = g(x)  # <-
            x += 1
    """, "x")


def test_assignment_reads_its_value_before_it_stores():
    assert _live("""
        def f(x):
            y = g(x)  # <-
            x = x + 1
    """, "x")


def test_subscript_target_reads_its_container():
    assert _live("""
        def f(x):
            y = g(x)  # <-
            x[0] = 1
    """, "x")


def test_read_in_a_nested_function_counts():
    assert _live("""
        def f(x):
            y = g(x)  # <-
            def later():
                return x
            return later
    """, "x")


def test_read_in_a_lambda_counts():
    assert _live("""
        def f(x):
            y = g(x)  # <-
            return lambda: x
    """, "x")


def test_reads_in_another_scope_after_this_one_do_not_count():
    assert not _live("""
        def f(x):
            y = g(x)  # <-
            return y

        print(x)
    """, "x")


def test_read_in_a_try_handler_counts():
    assert _live("""
        def f(x):
            try:
                y = g(x)  # <-
                z = h(y)
            except ValueError:
                print(x)
            return z
    """, "x")


def test_until_rebound_false_sees_reads_of_a_new_value():
    source = """
        def f(x):
            y = g(x)  # <-
            x = h(y)
            return x
    """
    assert not _live(source, "x")
    assert _live(source, "x", until_rebound=False)


@pytest.mark.parametrize("rerun_reads", [True, False])
def test_rerun_reads_decides_whether_the_statement_itself_reads_on_the_next_iteration(rerun_reads):
    source = """
        def f(state, batches, lr):
            for batch in batches:
                state = step(state, batch, lr)  # <-
            return state
    """
    assert _live(source, "lr", rerun_reads=rerun_reads) is rerun_reads
