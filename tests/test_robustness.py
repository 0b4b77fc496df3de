"""jaxlint never breaks: random and mutated code, bad input, real projects, a read-only `check`.

- Property tests (hypothesis): random valid Python (hypothesmith's grammar and our own JAX-flavoured
  strategy) and mutated fixture files never crash the checker (no exception, no "internal error"),
  and every fix output compiles and is a fixed point of the fixer.
- Bad input through the CLI ends with a clear line or finding, exit 0, 1 or 2, and no traceback.
- A run over real public JAX projects (only where the corpus is present) reports no internal error.
- `check` writes nothing to the user's tree.

The property tests are derandomized so CI sees the same examples every run; set
JAXLINT_HYPOTHESIS_EXAMPLES=500 to explore with fresh random examples locally.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from conftest import FIXTURES, ROOT
from jaxlint.cli import run
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.fixer import fix_source, parses
from jaxlint.rules import ALL_RULES

SETTINGS = Settings(root=ROOT)
EVERY_RULE = list(ALL_RULES)  # preview rules included: they must not crash either
EXPLORE = int(os.environ.get("JAXLINT_HYPOTHESIS_EXAMPLES", "0"))


def examples(count: int):
    return hypothesis_settings(
        max_examples=EXPLORE or count,
        deadline=None,
        derandomize=not EXPLORE,
        database=None,  # no .hypothesis/ directory in the repository
        suppress_health_check=list(HealthCheck),
    )


def assert_never_crashes(text: str) -> None:
    result = check_source(text, "generated.py", SETTINGS, EVERY_RULE)
    internal = [line for line in result.errors if "internal error" in line]
    assert not internal, "\n".join(internal) + "\n--- source ---\n" + text


def assert_fix_is_sound(text: str) -> None:
    """The fixed text compiles, and fixing it again changes nothing."""
    if not parses(text):
        return
    outcome = fix_source(text, "generated.py", SETTINGS, EVERY_RULE, unsafe=True)
    internal = [line for line in outcome.errors if "internal error" in line]
    assert not internal, "\n".join(internal) + "\n--- source ---\n" + text
    assert parses(outcome.text), "the fix does not compile:\n" + outcome.text
    again = fix_source(outcome.text, "generated.py", SETTINGS, EVERY_RULE, unsafe=True)
    assert again.text == outcome.text, "fixing twice changed the text again:\n--- input ---\n" + text + "\n--- once ---\n" + outcome.text + "\n--- twice ---\n" + again.text


# ---------------------------------------------------------------------------------------------
# A small grammar of JAX programs: jitted functions with control flow over their arguments,
# host loops calling them, and the APIs the rules look for. Valid Python by construction.

HEADER = (
    "import functools\nimport time\nfrom functools import partial\n\nimport jax\nimport jax.numpy as jnp\n"
    "import numpy as np\nfrom jax import lax, random\n\n"
)
NAMES = ["x", "y", "n", "key", "state", "params"]
CALLABLES = ["step", "update", "jnp.sum", "jnp.mean", "jnp.log", "jnp.sqrt", "np.sin", "float", "int", "len", "print", "jax.grad(loss)", "jax.vmap(step)", "jax.jit(update)", "random.normal", "random.split", "lax.cond", "lax.fori_loop", "jnp.where", "jnp.zeros", "jnp.arange", "time.time"]

names = st.sampled_from(NAMES)
atoms = st.one_of(names, st.sampled_from(["0", "1", "2.5", "None", "True", "(3, 4)", "[0, 1]", "'s'", "jnp.float64", "x.shape[0]", "self.w"]))


def _expressions(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*", "/", ">", "<", "==", "and", "or", "@", "%"]), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(CALLABLES), st.lists(children, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(children, st.sampled_from([".item()", ".sum()", ".shape", "[0]", "[1:]", ".at[0].set(1)", ".block_until_ready()", ".astype(int)", "[n]", "[:n]"])).map(lambda t: f"({t[0]}){t[1]}"),
        st.tuples(st.sampled_from(["(not {})", "(-{})", "bool({})", "list({})"]), children).map(lambda t: t[0].format(t[1])),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        children.map(lambda e: f"[v * 2 for v in {e}]"),
        children.map(lambda e: f"(lambda v: v + {e})"),
    )


expressions = st.recursive(atoms, _expressions, max_leaves=6)


def _statement(depth: int):
    simple = st.one_of(
        st.tuples(names, expressions).map(lambda t: f"{t[0]} = {t[1]}"),
        st.tuples(names, expressions).map(lambda t: f"{t[0]} += {t[1]}"),
        st.tuples(names, expressions).map(lambda t: f"{t[0]}[0] = {t[1]}"),
        expressions.map(lambda e: f"return {e}"),
        expressions.map(lambda e: f"print({e})"),
        expressions.map(lambda e: f"assert {e}"),
        expressions.map(lambda e: f"results.append({e})"),
        st.sampled_from(["key, sub = random.split(key)", "jax.debug.print('{}', x)", "pass", "break", "continue", "state = step(state, x)", "x = update(x)", "t0 = time.time()"]),
    )
    if depth <= 0:
        return simple
    block = st.lists(_statement(depth - 1), min_size=1, max_size=3)
    compound = st.one_of(
        st.tuples(expressions, block, st.one_of(st.none(), block)).map(lambda t: ("if", t)),
        st.tuples(expressions, block).map(lambda t: ("while", t)),
        st.tuples(names, expressions, block).map(lambda t: ("for", t)),
        st.tuples(block).map(lambda t: ("with", t)),
    )
    return st.one_of(simple, compound)


def render(statement, indent: str, in_loop: bool = False) -> list[str]:
    if isinstance(statement, str):
        if statement in ("break", "continue") and not in_loop:
            statement = "pass"
        return [indent + statement]
    kind, parts = statement
    inner = indent + "    "

    def block(body, loop: bool) -> list[str]:
        return [line for s in body for line in render(s, inner, loop)]

    if kind == "if":
        condition, body, orelse = parts
        lines = [f"{indent}if {condition}:", *block(body, in_loop)]
        if orelse:
            lines += [f"{indent}else:", *block(orelse, in_loop)]
        return lines
    if kind == "while":
        condition, body = parts
        return [f"{indent}while {condition}:", *block(body, True)]
    if kind == "for":
        target, iterable, body = parts
        return [f"{indent}for {target} in {iterable}:", *block(body, True)]
    (body,) = parts
    return [f"{indent}with jax.default_device(None):", *block(body, in_loop)]


DECORATORS = ["@jax.jit", "@partial(jax.jit, static_argnames=('n',))", "@partial(jax.jit, donate_argnums=(0,))", "@jax.vmap", "@functools.partial(jax.jit, static_argnums=(1,))", "@jax.grad", "@staticmethod", ""]


@st.composite
def jax_programs(draw) -> str:
    lines = [HEADER, "results = []", ""]
    functions = draw(st.lists(st.tuples(st.sampled_from(["step", "update", "loss", "train"]), st.sampled_from(DECORATORS), st.lists(_statement(2), min_size=1, max_size=5)), min_size=1, max_size=3))
    for name, decorator, body in functions:
        if decorator:
            lines.append(decorator)
        parameters = draw(st.sampled_from(["x", "x, n", "state, x", "params, x, key", "x, n=3", "*args", "state, x, **kw"]))
        lines.append(f"def {name}({parameters}):")
        lines += [line for statement in body for line in render(statement, "    ")]
        lines.append("")
    host = draw(st.lists(_statement(2), max_size=4))
    if host:
        lines.append("def main(x, n, key, state, params):")
        lines += [line for statement in host for line in render(statement, "    ")]
    return "\n".join(lines) + "\n"


def compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<generated>", "exec", dont_inherit=True)
        return True
    except SyntaxError:
        return False


@examples(150)
@given(jax_programs())
def test_generated_jax_programs_never_crash_and_fix_soundly(text):
    assert_never_crashes(text)
    assert_fix_is_sound(text)


def test_generated_programs_are_mostly_valid_python():
    """Guards the strategy itself: `break` outside a loop and the like must stay the exception."""
    valid = []

    @examples(40)
    @given(jax_programs())
    def collect(text):
        valid.append(compiles(text))

    collect()
    assert sum(valid) >= len(valid) * 3 // 4, valid


try:
    import hypothesmith
except ImportError:  # pragma: no cover - the test extra installs it
    hypothesmith = None


@pytest.mark.skipif(hypothesmith is None, reason="hypothesmith is not installed")
@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith compiles what it generates
def test_random_python_from_the_grammar_never_crashes():
    @examples(40)
    @given(hypothesmith.from_grammar())
    def check(text):
        # The JAX import lets the text pre-filter through, so every rule sees the program.
        program = "import jax\nimport jax.numpy as jnp\n" + text
        assert_never_crashes(program)
        assert_fix_is_sound(program)

    check()


# ---------------------------------------------------------------------------------------------
# Mutated real JAX files: the fixtures, with lines deleted, duplicated, swapped, re-indented, or
# random tokens inserted. Most mutants do not parse (JAX000); those that do must fix soundly.

FIXTURE_FILES = sorted(p for p in FIXTURES.rglob("*.py") if p.is_file())
TOKENS = ["(", ")", "[", "]", ":", ",", "=", "if ", "for ", "jax.jit", "jnp.", "lambda", "return", "yield", "await ", "async ", "\\", "'", '"""', "#", "@jax.jit\n", "\t", "    ", "\n", "é", "😀", "\x0c", ";", "...", "global x", "nonlocal x", "del x"]


@st.composite
def mutants(draw) -> str:
    path = draw(st.sampled_from(FIXTURE_FILES))
    lines = path.read_text(encoding="utf-8").split("\n")
    for _ in range(draw(st.integers(1, 4))):
        operation = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "indent", "dedent", "truncate"]))
        index = draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines:
            break
        if operation == "delete":
            del lines[index]
        elif operation == "duplicate":
            lines.insert(index, lines[index])
        elif operation == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif operation == "insert":
            line = lines[index]
            column = draw(st.integers(0, len(line)))
            lines[index] = line[:column] + draw(st.sampled_from(TOKENS)) + line[column:]
        elif operation == "indent":
            lines[index] = "    " + lines[index]
        elif operation == "dedent":
            lines[index] = lines[index][4:] if lines[index].startswith("    ") else lines[index].lstrip()
        else:
            lines[index] = lines[index][: draw(st.integers(0, len(lines[index])))]
    return "\n".join(lines)


@examples(400)
@given(mutants())
def test_mutated_fixture_files_never_crash_and_fix_soundly(text):
    assert_never_crashes(text)
    assert_fix_is_sound(text)


def test_every_fixture_file_fixes_soundly():
    """The unmutated fixtures, all rules at once: the fixes of different rules must compose."""
    for path in FIXTURE_FILES:
        text = path.read_text(encoding="utf-8")
        assert_never_crashes(text)
        assert_fix_is_sound(text)


# ---------------------------------------------------------------------------------------------
# Bad input through the CLI. Each case writes a file, runs `jaxlint check` in a subprocess (a
# native crash must fail the test, not kill pytest) and names the line the user must see.


def jaxlint(*args, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAXLINT_CACHE_DIR": str(cwd / ".cache-outside")}
    env.pop("JAXLINT_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "jaxlint", *args], cwd=cwd, env=env, input=stdin or b"", capture_output=True, timeout=300
    )


def assert_clean_exit(completed: subprocess.CompletedProcess, codes=(0, 1, 2)) -> str:
    output = completed.stdout.decode("utf-8", "replace") + completed.stderr.decode("utf-8", "replace")
    assert completed.returncode in codes, output
    assert "Traceback" not in output and "internal error" not in output, output
    return output


BAD_FILES = {
    # name: (bytes, what the user sees, exit code)
    # Syntax a newer Python parses is a finding (exit 1) naming that Python, never a silent skip;
    # so is a file that could not be read, decoded or parsed (JAX000, exit 1: never a pass).
    "newer_type.py": (b"type Vector = list[float]\nimport jax\n", "JAX000 SyntaxError under Python", 1),
    "newer_generic.py": (b"import jax\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n", "JAX000 SyntaxError under Python", 1),
    "latin1_no_cookie.py": (b"import jax\nname = 'caf\xe9'\n", "JAX000 not checked: cannot decode as utf-8 (UnicodeDecodeError); add a coding cookie", 1),
    "latin1_cookie.py": (b"# -*- coding: latin-1 -*-\nimport jax\nname = 'caf\xe9'\n", None, 0),
    "wrong_cookie.py": (b"# -*- coding: utf-8 -*-\nname = 'caf\xe9'\n", "JAX000 not checked: cannot decode as utf-8", 1),
    "unknown_codec.py": (b"# coding: klingon\nimport jax\n", "JAX000 not checked: unknown encoding: klingon", 1),
    "binary.py": (bytes(range(256)) * 4, "JAX000 not checked: binary file (contains NUL bytes)", 1),
    "empty.py": (b"", None, 0),
    "bom.py": (b"\xef\xbb\xbfimport jax\n", None, 0),
    "long_line.py": (b"import jax\nx = '" + b"a" * 200_000 + b"'\n", None, 0),
    "deep_parens.py": (b"import jax\nx = " + b"(" * 1000 + b"1" + b")" * 1000 + b"\n", "JAX000 SyntaxError: cannot parse: too many nested parentheses", 1),
    "long_sum.py": (b"import jax\nx = 1" + b" + 1" * 100_000 + b"\n", "JAX000 not checked: too deeply nested or too large to parse", 1),
    "deep_unary.py": (b"import jax\nx = " + b"-" * 100_000 + b"1\n", "JAX000 not checked: too deeply nested or too large to parse", 1),
    # A syntax error behind deep nesting: libcst (consulted for newer syntax) must not be handed it.
    "deep_and_broken.py": (b"import jax\nx = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\ns = f'{1'\n", "JAX000", 1),
    "long_and_broken.py": (b"import jax\nx = 1" + b"+1" * 20_000 + b"\ntype X = int\ndef f(:\n", "JAX000", 1),
    "syntax_error.py": (b"import jax\ndef f(:\n", "JAX000 SyntaxError", 1),
    "nul_late.py": (b"import jax\n" + b"x = 1\n" * 3000 + b"\x00\n", None, None),
    "crlf_only_cr.py": (b"import jax\r@jax.jit\rdef f(x):\r    return x\r", None, 0),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_file_ends_with_a_clear_line(tmp_path, name):
    data, expected, code = BAD_FILES[name]
    (tmp_path / name).write_bytes(data)
    completed = jaxlint("check", name, cwd=tmp_path)
    output = assert_clean_exit(completed)
    if code is not None:
        assert completed.returncode == code, output
    if expected:
        assert expected in output and name in output, output
    assert len(output.splitlines()) <= 3, output  # one finding or one error line, and the summary


def test_bad_tree_is_walked_to_the_end(tmp_path):
    """All the bad files at once, with symlink loops, a dangling link and a FIFO in the walk."""
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    for name, (data, _, _) in BAD_FILES.items():
        (tree / name).write_bytes(data)
    (tree / "sub" / "ok.py").write_text("import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n")
    (tree / "sub" / "up").symlink_to("..")  # a loop back to the root
    (tree / "loop_a").symlink_to("loop_b")
    (tree / "loop_b").symlink_to("loop_a")
    (tree / "loop.py").symlink_to("loop.py")  # a link to itself: skipped in a walk
    (tree / "dangling.py").symlink_to("nowhere.py")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tree / "pipe.py")  # reading it would block forever
    completed = jaxlint("check", "tree", cwd=tmp_path)
    output = assert_clean_exit(completed, codes=(1,))
    assert "tree/sub/ok.py:5:8: JAX101" in output
    assert "tree/binary.py:1:1: JAX000 not checked: binary file" in output and "tree/newer_type.py:1:6: JAX000 SyntaxError under Python" in output
    assert "pipe.py" not in output and "dangling.py" not in output and "loop.py" not in output
    # The loop back to the root is not followed: the finding is reported once.
    assert output.count("JAX101") == 1


def test_unreadable_file_and_directory(tmp_path):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root reads every file")
    (tmp_path / "secret.py").write_text("import jax\n")
    (tmp_path / "secret.py").chmod(0)
    closed = tmp_path / "closed"
    closed.mkdir()
    (closed / "a.py").write_text("import jax\n")
    closed.chmod(0)
    try:
        output = assert_clean_exit(jaxlint("check", ".", cwd=tmp_path))
        assert "secret.py: permission denied" in output
        assert "closed" in output and "Permission denied" in output
    finally:
        closed.chmod(0o755)


def test_symlink_loop_named_on_the_command_line(tmp_path):
    (tmp_path / "loop.py").symlink_to("loop.py")
    output = assert_clean_exit(jaxlint("check", "loop.py", cwd=tmp_path), codes=(1,))
    assert "loop.py:1:1: JAX000 not checked: Too many levels of symbolic links" in output


def test_missing_paths_exit_2(tmp_path, capsys):
    (tmp_path / "ok.py").write_text("import jax\n")
    assert run(["check", "--no-cache", str(tmp_path / "missing.py")]) == 2
    assert run(["check", "--no-cache", str(tmp_path / "ok.py"), str(tmp_path / "gone")]) == 2
    err = capsys.readouterr().err
    assert "missing.py: no such file or directory" in err and "gone: no such file or directory" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "pyproject, expected",
    [
        ("[tool.jaxlint\nselect = [", "pyproject.toml: invalid TOML"),
        ("[tool.jaxlint]\nselect = 3\n", "pyproject.toml: [tool.jaxlint] select must be a list of strings"),
        ("[tool.jaxlint]\nselct = ['JAX1']\n", "pyproject.toml: [tool.jaxlint] unknown key 'selct'"),
        ("[tool.jaxlint]\nselect = ['JAX999']\n", "pyproject.toml: unknown rule selector 'JAX999'"),
        ("[tool]\njaxlint = 3\n", "pyproject.toml: [tool.jaxlint] must be a table"),
        ("[tool.jaxlint]\npython-loop-threshold = -1\n", "python-loop-threshold must be a positive integer"),
        ("tool = 3\n", "pyproject.toml: `tool` must be a table"),
        ("[tool.jaxlint]\nselect = ['JAX1']\n# caf\xe9\n", "pyproject.toml: invalid TOML: not UTF-8 text"),
    ],
    ids=["invalid-toml", "wrong-type", "unknown-key", "unknown-code", "not-a-table", "bad-threshold", "tool-not-a-table", "not-utf8"],
)
def test_broken_pyproject_names_the_file_and_the_key(tmp_path, pyproject, expected):
    data = pyproject.encode("latin-1")
    (tmp_path / "pyproject.toml").write_bytes(data)
    (tmp_path / "a.py").write_text("import jax\n")
    completed = jaxlint("check", "a.py", cwd=tmp_path)
    output = assert_clean_exit(completed, codes=(2,))
    assert expected in output
    assert len(output.strip().splitlines()) == 1, output


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_unknown_codes_in_options(tmp_path, option, capsys):
    (tmp_path / "a.py").write_text("import jax\n")
    assert run(["check", "--no-cache", option, "JAX101,NOPE42", str(tmp_path / "a.py")]) == 2
    err = capsys.readouterr().err
    assert f"{option}: unknown rule selector 'NOPE42'" in err and err.count("\n") == 1


def test_bad_stdin_and_bad_output_file(tmp_path):
    output = assert_clean_exit(jaxlint("check", "-", cwd=tmp_path, stdin=b"import jax\nx = '\xff'\n"), codes=(1,))
    assert "-:1:1: JAX000 not checked: cannot decode as utf-8" in output
    output = assert_clean_exit(jaxlint("check", "-", cwd=tmp_path, stdin=bytes(range(256))), codes=(1,))
    assert "-:1:1: JAX000 not checked: binary file" in output
    (tmp_path / "a.py").write_text("import jax\n")
    output = assert_clean_exit(jaxlint("check", "a.py", "--output-file", str(tmp_path / "no" / "such" / "dir.txt"), cwd=tmp_path), codes=(2,))
    assert "dir.txt: cannot write the report" in output


# ---------------------------------------------------------------------------------------------
# Real public JAX projects (several hundred thousand lines, about a minute): run it with
# JAXLINT_CORPUS=/work/corpus where that checkout of 15 projects exists. Read-only: --no-cache.

CORPUS = Path(os.environ.get("JAXLINT_CORPUS", "/nonexistent"))


# Shapes real code crashed on once, kept so they stay fixed.
REGRESSIONS = {
    # A key split into a count no constant names (`jax.local_device_count()`), inside state carried
    # through a pmapped step: the element count of the state is unknown, not an error.
    "split_count_from_a_call": (
        "import jax\nfrom flax.jax_utils import replicate\n\n\n@jax.pmap\ndef train_step(carry):\n"
        "    keys, state = carry\n    return (keys, state * 2), state.sum()\n\n\ndef main(state):\n"
        "    carry = (jax.random.split(state[-1], jax.local_device_count()), replicate(state, jax.local_devices()))\n"
        "    for _ in range(10):\n        carry, _ = train_step(carry)\n    return carry\n"
    ),
    # A bare `@jit` (a decorator name, no call and so no options) on a def in a loop that captures a
    # name the loop rebinds: JAX302 asked the decorator for the `jit` call's arguments.
    "bare_decorator_capturing_a_loop_name": (
        "import jax.numpy as jnp\nfrom jax import jit\n\n\ndef by_width(xs, widths):\n    out = []\n"
        "    for w in widths:\n        @jit\n        def padded(v):\n            return jnp.pad(v, w)\n"
        "        out.append(padded(xs))\n    return out\n"
    ),
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_shapes_that_crashed_once_do_not(name):
    assert_never_crashes(REGRESSIONS[name])
    assert_fix_is_sound(REGRESSIONS[name])


@pytest.mark.skipif(not CORPUS.is_dir(), reason="set JAXLINT_CORPUS to a directory of real JAX projects")
def test_corpus_run_has_no_internal_error():
    every_code = ",".join(rule.code for rule in ALL_RULES)  # preview rules too
    completed = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--no-cache", "-q", "--select", every_code, str(CORPUS)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, timeout=600,
    )
    output = assert_clean_exit(completed, codes=(0, 1))
    assert completed.stdout.count(b"\n") > 100, output[-2000:]


# ---------------------------------------------------------------------------------------------
# `check` is read-only.


def snapshot(root: Path) -> dict[str, tuple]:
    state = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        state[str(path.relative_to(root))] = (info.st_mode, info.st_size, info.st_mtime_ns, content)
    return state


def test_check_writes_nothing_to_the_tree(tmp_path):
    project = tmp_path / "project"
    for path in [*FIXTURE_FILES[:20], ROOT / "pyproject.toml"]:
        target = project / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    (project / "pyproject.toml").write_text("[tool.jaxlint]\n")  # the fixtures are not excluded here
    (project / "crlf.py").write_bytes(b"import jax\r\n\r\n@jax.jit\r\ndef f(x):\r\n    if x > 0:\r\n        return x\r\n    return -x\r\n")
    (project / "broken.py").write_bytes(b"import jax\ndef f(:\n")
    (project / "latin.py").write_bytes(b"import jax\nx = '\xe9'\n")
    (project / "readonly.py").write_text("import jax\n")
    (project / "readonly.py").chmod(0o444)
    before = snapshot(project)
    # In a subprocess: the run forks worker processes, which a pytest process holding JAX's threads must not.
    environment = {key: value for key, value in os.environ.items() if key not in ("JAXLINT_CACHE_DIR", "JAXLINT_DEBUG")}
    environment["PYTHONPATH"] = str(ROOT)

    def check(*args: str) -> int:
        command = [sys.executable, "-m", "jaxlint", "check", *args, "."]
        completed = subprocess.run(command, cwd=project, env=environment, capture_output=True, timeout=300)
        assert_clean_exit(completed)
        return completed.returncode

    for args in (["--no-cache"], ["--no-cache", "--format", "json"], ["--no-cache", "--select", "ALL", "--statistics"], ["--no-cache", "-j", "1"]):
        assert check(*args) == 1
    assert snapshot(project) == before
    # With the results cache on, only the cache directory appears; no source file is touched.
    assert check() == 1
    after = snapshot(project)
    added = sorted(set(after) - set(before))
    assert added and all(name.startswith(".jaxlint_cache") for name in added), added
    assert {name: after[name] for name in before} == before
