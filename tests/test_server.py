"""`jaxlint server`: a real LSP session over stdio (JSON-RPC framed by Content-Length headers).

The client below is deliberately small: it speaks exactly what an editor would send, so the test
covers pygls's wiring, our handlers and the position arithmetic (0-based, UTF-16 code units).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

pytest.importorskip("pygls")

from jaxlint.diagnostics import Position  # noqa: E402
from jaxlint.server import PositionMapper  # noqa: E402

# JAX301 (a list passed as a static argument) has a safe fix; the emoji before it makes UTF-16
# columns differ from character columns, and the accented name from UTF-8 byte columns.
DOCUMENT = textwrap.dedent(
    """\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames=("axes",))
    def total(x, axes):
        return x.sum(axis=axes)


    def run(x):
        café = ("😀😀", total(x, axes=[0, 1]))
        return café
    """
)
FIXED_LINE = '    café = ("😀😀", total(x, axes=(0, 1)))'
TIMEOUT = 60  # seconds to wait for one message: a hang fails the test instead of blocking CI


def utf16_column(line: str, characters: int) -> int:
    return len(line[:characters].encode("utf-16-le")) // 2


def apply_text_edits(text: str, edits: list[dict]) -> str:
    """Apply LSP TextEdits the way an editor does: positions in UTF-16 units, from the end backwards."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: dict) -> int:
        line = lines[position["line"]]
        units = 0
        for index, character in enumerate(line):
            if units >= position["character"]:
                return starts[position["line"]] + index
            units += len(character.encode("utf-16-le")) // 2
        return starts[position["line"]] + len(line)

    spans = sorted(((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits), reverse=True)
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


class Client:
    """A minimal LSP client over a subprocess's stdin and stdout."""

    def __init__(self, cwd: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jaxlint", "server"],
            cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.messages: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict | None) -> dict:
        self.next_id += 1
        request_id = self.next_id
        self.send({"id": request_id, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == request_id and "method" not in m)
        assert "error" not in reply, reply
        return reply.get("result")

    def wait(self, predicate) -> dict:
        while True:
            message = self.messages.get(timeout=TIMEOUT)
            assert message is not None, "the server closed its output: " + self.process.stderr.read().decode()
            if "method" in message and "id" in message:  # a request from the server: answer it
                self.send({"id": message["id"], "result": None})
            if predicate(message):
                return message
            if "method" in message:
                self.notifications.append(message)

    def diagnostics(self, uri: str) -> list[dict]:
        message = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
        return message["params"]["diagnostics"]

    def open(self, path: Path, text: str, version: int = 1) -> list[dict]:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}})
        return self.diagnostics(uri)

    def change(self, path: Path, text: str, version: int) -> list[dict]:
        uri = path.as_uri()
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
        return self.diagnostics(uri)

    def code_actions(self, path: Path, range_: dict, diagnostics: list[dict], only: list[str] | None = None) -> list[dict]:
        context = {"diagnostics": diagnostics}
        if only:
            context["only"] = only
        return self.request("textDocument/codeAction", {"textDocument": {"uri": path.as_uri()}, "range": range_, "context": context})

    def close(self) -> int:
        assert self.request("shutdown", None) is None
        self.notify("exit", None)
        try:
            return self.process.wait(timeout=TIMEOUT)
        finally:
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                stream.close()


@pytest.fixture
def session(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    client = Client(tmp_path)
    result = client.request("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
    assert result["serverInfo"]["name"] == "jaxlint"
    assert result["capabilities"]["codeActionProvider"]
    client.notify("initialized", {})
    yield client
    if client.process.poll() is None:
        client.process.kill()
        client.process.wait()


def test_session_publishes_diagnostics_and_applies_a_quick_fix(session, tmp_path):
    path = tmp_path / "model.py"
    diagnostics = session.open(path, DOCUMENT)
    [finding] = diagnostics
    assert finding["code"] == "JAX301" and finding["source"] == "jaxlint"
    assert finding["severity"] == 2  # a warning; syntax errors are errors
    # The finding spans `[0, 1]` on line 12 (0-based 11), in UTF-16 code units.
    line = DOCUMENT.split("\n")[11]
    start = line.index("[0, 1]")
    assert finding["range"] == {
        "start": {"line": 11, "character": utf16_column(line, start)},
        "end": {"line": 11, "character": utf16_column(line, start + len("[0, 1]"))},
    }
    assert finding["range"]["start"]["character"] != start  # the emoji really counts twice

    actions = session.code_actions(path, finding["range"], [finding])
    [quick_fix] = [action for action in actions if action["kind"] == "quickfix"]
    assert quick_fix["title"].startswith("JAX301") and quick_fix["isPreferred"] is True
    assert quick_fix["diagnostics"][0]["code"] == "JAX301"
    fixed = apply_text_edits(DOCUMENT, quick_fix["edit"]["changes"][path.as_uri()])
    assert fixed.split("\n")[11] == FIXED_LINE
    assert fixed == DOCUMENT.replace("[0, 1]", "(0, 1)")

    # The editor applies the edit and sends the new text; the finding goes away.
    assert session.change(path, fixed, version=2) == []
    assert session.code_actions(path, finding["range"], []) == []
    assert session.close() == 0


def test_code_actions_only_where_asked_and_fix_all(session, tmp_path):
    path = tmp_path / "model.py"
    document = DOCUMENT.replace("return café", "other = total(x, axes=[1])\n    return café, other")
    diagnostics = session.open(path, document)
    assert [d["code"] for d in diagnostics] == ["JAX301", "JAX301"]
    first_line = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 4}}
    assert [a for a in session.code_actions(path, first_line, []) if a["kind"] == "quickfix"] == []
    [fix_all] = session.code_actions(path, first_line, [], only=["source.fixAll"])
    assert fix_all["kind"] == "source.fixAll.jaxlint"
    fixed = apply_text_edits(document, fix_all["edit"]["changes"][path.as_uri()])
    assert fixed == document.replace("[0, 1]", "(0, 1)").replace("[1]", "(1,)")
    assert session.close() == 0


def test_crlf_document_gets_crlf_edits(session, tmp_path):
    path = tmp_path / "crlf.py"
    # JAX201's fix inserts a whole line: the inserted line break must be the document's.
    document = (ROOT / "fixtures" / "fixes" / "JAX201" / "accumulate.in.py").read_text().replace("\n", "\r\n")
    diagnostics = session.open(path, document)
    [finding] = [d for d in diagnostics if d["code"] == "JAX201"]
    actions = session.code_actions(path, finding["range"], [finding], only=["quickfix"])
    [action] = [a for a in actions if a["title"].startswith("JAX201")]
    assert action["isPreferred"] is False and "(unsafe)" in action["title"]
    inserted = [e["newText"] for e in action["edit"]["changes"][path.as_uri()] if e["newText"].endswith("\n")]
    assert inserted and all(text.endswith("\r\n") and "\n" not in text.replace("\r\n", "") for text in inserted)
    assert session.close() == 0


def test_settings_come_from_the_nearest_pyproject(session, tmp_path):
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    (quiet / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX301"]\n')
    assert session.open(quiet / "model.py", DOCUMENT) == []
    excluded = tmp_path / "generated"
    excluded.mkdir()
    (excluded / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["skip_*.py"]\n')
    assert session.open(excluded / "skip_me.py", DOCUMENT) == []
    assert [d["code"] for d in session.open(excluded / "keep_me.py", DOCUMENT)] == ["JAX301"]
    assert session.close() == 0


def test_broken_pyproject_is_reported_and_defaults_apply(session, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "pyproject.toml").write_text("[tool.jaxlint]\nselect = [\n")
    diagnostics = session.open(broken / "model.py", DOCUMENT)
    assert [d["code"] for d in diagnostics] == ["JAX301"]
    shown = [m for m in session.notifications if m["method"] == "window/showMessage"]
    assert shown and "pyproject.toml" in shown[0]["params"]["message"] and "invalid TOML" in shown[0]["params"]["message"]
    assert session.close() == 0


@pytest.mark.parametrize(
    "text",
    [
        "",
        "def f(:\n",  # a syntax error: JAX000
        "import jax\n" + "(" * 1000 + "x" + ")" * 1000 + "\n",
        "import jax\nx = 1" + " + 1" * 20000 + "\n",
        "import jax\nx = '\x00'\n\x00\x00",
        "type X = int\nimport jax\n",  # newer syntax than Python 3.11's ast
        "import jax\n\udcff = 1\n",  # a lone surrogate, as a broken editor buffer might hold
        "import jax\n" + "x = 1\n" * 20 + "\r\r\n\r",
    ],
    ids=["empty", "syntax-error", "deep-nesting", "long-sum", "nul", "newer-syntax", "surrogate", "odd-newlines"],
)
def test_bad_documents_never_stop_the_server(session, tmp_path, text):
    path = tmp_path / "bad.py"
    diagnostics = session.open(path, text)
    assert all(d["source"] == "jaxlint" for d in diagnostics)
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 10**6, "character": 0}}
    assert isinstance(session.code_actions(path, whole, diagnostics), list)
    # Still serving: a good document is linted as usual afterwards.
    assert [d["code"] for d in session.open(tmp_path / "good.py", DOCUMENT)] == ["JAX301"]
    logged = [m["params"]["message"] for m in session.notifications if m["method"].startswith("window/")]
    assert not [line for line in logged if "internal error" in line], logged
    assert session.close() == 0


def test_syntax_error_is_published_as_an_error(session, tmp_path):
    [finding] = session.open(tmp_path / "broken.py", "import jax\ndef f(:\n    pass\n")
    assert finding["code"] == "JAX000" and finding["severity"] == 1
    assert finding["range"]["start"]["line"] == 1
    assert session.close() == 0


def test_check_never_imports_pygls(tmp_path):
    script = (
        "import sys\nfrom jaxlint.cli import run\n"
        f"code = run(['check', '--no-cache', {str(tmp_path / 'm.py')!r}])\n"
        "assert code == 0, code\nassert 'pygls' not in sys.modules and 'lsprotocol' not in sys.modules\n"
    )
    (tmp_path / "m.py").write_text("import jax\n")
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True)


def test_position_mapper_counts_utf16_units():
    text = "a😀b\r\nx = 'é'\nlast"
    mapper = PositionMapper(text)
    assert mapper.to_lsp(Position(1, 3)).character == 3  # after "a😀": 1 + 2 units
    assert mapper.to_lsp(Position(2, 7)).character == 6
    assert mapper.to_lsp(Position(9, 1)).line == 2  # past the end: clamped to the document's end
    assert mapper.to_jaxlint(mapper.to_lsp(Position(1, 3))) == Position(1, 3)
    assert PositionMapper(text, "utf-8").to_lsp(Position(1, 3)).character == 5
    assert PositionMapper(text, "utf-32").to_lsp(Position(1, 3)).character == 2


def test_notebook_cells_are_linted_and_raw_notebooks_skipped(session, tmp_path):
    quiet = tmp_path / "nb"
    quiet.mkdir()
    (quiet / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX301"]\n')
    cell_uri = (quiet / "analysis.ipynb").as_uri().replace("file:", "vscode-notebook-cell:") + "#W1sZmlsZQ%3D%3D"
    cell = DOCUMENT + "\n\n@jax.jit\ndef g(x):\n    if x > 0:\n        return x\n    return -x\n"
    session.notify("textDocument/didOpen", {"textDocument": {"uri": cell_uri, "languageId": "python", "version": 1, "text": cell}})
    assert [d["code"] for d in session.diagnostics(cell_uri)] == ["JAX101"]  # JAX301 ignored by the notebook's pyproject
    assert session.open(tmp_path / "raw.ipynb", '{"cells": []}') == []
    assert session.close() == 0
