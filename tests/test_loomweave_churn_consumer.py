"""loomweave's own churn consumer, end to end: ``loomweave serve`` spawns the real
``warpline-mcp`` per call and ranks entities by what warpline reports.

Real parts only: the real loomweave (+ its Python plugin, node for call edges), a real
git history, the installed ``warpline-mcp`` found on the PATH given to ``loomweave serve``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo

pytestmark = pytest.mark.loomweave

AUTH = "def login(user):\n    return user{}\n\n\ndef logout(user):\n    return None{}\n"
UTIL = "def helper(x):\n    return x{}\n"
# The true counts this history produces (added + edits), per entity.
EXPECTED = {
    "python:function:demo.auth.login": 5,
    "python:function:demo.util.helper": 3,
    "python:function:demo.auth.logout": 2,
}


def _loomweave() -> str:
    # The real binary, not a pyenv shim: a shim re-execs with its version's bin directory
    # first on PATH, so loomweave would spawn that directory's warpline-mcp (another
    # checkout's) instead of the one this test puts first.
    for prefix in (sys.prefix, sys.base_prefix):
        real = Path(prefix) / "bin" / "loomweave"
        if real.is_file() and os.access(real, os.X_OK):
            return str(real)
    found = shutil.which("loomweave")
    if found is None:
        pytest.skip("the loomweave executable is not installed")
    return found


def _warpline_mcp_dir() -> str:
    found = shutil.which("warpline-mcp")
    assert found is not None, "warpline-mcp must be installed (pip install -e .)"
    # pyenv shims re-exec into the real bin directory; use the interpreter's own bin.
    own = Path(sys.executable).parent / "warpline-mcp"
    return str(own.parent if own.exists() else Path(found).parent)


def _search_path() -> str:
    """This checkout's warpline-mcp first, then the real loomweave plugins' directory
    (before any pyenv shims, which loomweave cannot read a plugin.toml beside)."""
    base = str(Path(sys.base_prefix) / "bin")
    return os.pathsep.join([_warpline_mcp_dir(), base, os.environ.get("PATH", "")])


def _history(root: Path) -> FixtureRepo:
    repo = FixtureRepo(root)
    repo.commit({"demo/__init__.py": "", "demo/auth.py": AUTH.format("", ""),
                 "demo/util.py": UTIL.format("")}, message="init")
    for i in range(4):
        repo.commit({"demo/auth.py": AUTH.format(f" or {i}", "")}, message=f"login {i}")
    repo.commit({"demo/auth.py": AUTH.format(" or 3", " or 1")}, message="logout")
    for i in range(2):
        repo.commit({"demo/util.py": UTIL.format(f" + {i}")}, message=f"helper {i}")
    return repo


def _enable_warpline(config: Path) -> None:
    text = config.read_text(encoding="utf-8")
    block = "integrations:\n  warpline:\n    enabled: true\n    timeout_seconds: 10\n"
    if "\nintegrations:\n" in "\n" + text:
        text = text.replace("integrations:\n", block, 1)
    else:
        text = block + text
    config.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    base = tmp_path_factory.mktemp("lw")
    yield from serve(base, _history(base / "repo"))


def serve(base: Path, repo: FixtureRepo) -> Iterator[Any]:
    """``loomweave serve`` over ``repo`` (installed and analyzed first), with warpline's
    integration on: a client until the generator is closed."""
    loomweave = _loomweave()
    home = base / "home"  # loomweave install writes agent config under $HOME
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "LOOMWEAVE_PYTHON_INTERPRETER": sys.executable,
           "PATH": _search_path()}
    env.pop("LOOMWEAVE_WARPLINE_MCP_COMMAND", None)
    for args in (["install", "--path", str(repo.path)], ["analyze"]):
        done = subprocess.run([loomweave, *args], cwd=repo.path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    _enable_warpline(repo.path / "loomweave.yaml")
    server = subprocess.Popen([loomweave, "serve", "--path", str(repo.path)], cwd=repo.path,
                              env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    client = _Client(server)
    client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "warpline-tests", "version": "0"}})
    client.notify("notifications/initialized")
    try:
        yield client
    finally:
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


class _Client:
    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.next_id = 0

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "loomweave serve closed its stdout"
            message = json.loads(line)
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                result: dict[str, Any] = message["result"]
                return result

    def tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        payload: dict[str, Any] = json.loads(result["content"][0]["text"])
        assert payload["ok"] is True, payload
        inner: dict[str, Any] = payload["result"]
        return inner

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()


def _healthy(result: dict[str, Any]) -> None:
    assert result["churn_source"] == "warpline"
    assert "reason" not in result
    assert not result.get("churn_unresolved")
    assert not result.get("churn_truncated")


def test_high_churn_ranks_what_really_changed_most_with_true_counts(served: _Client) -> None:
    result = served.tool("entity_high_churn_list", {"limit": 50})
    _healthy(result)
    counts = {e["id"]: e["churn_count"] for e in result["entities"]}
    for locator, count in EXPECTED.items():
        assert counts[locator] == count
    functions = [e["id"] for e in result["entities"] if e["kind"] == "function"]
    assert functions[:3] == list(EXPECTED)
    ranked = [e["churn_count"] for e in result["entities"]]
    assert ranked == sorted(ranked, reverse=True)
    assert all(e["sei"] and e["sei"].startswith("loomweave:eid:")
               for e in result["entities"] if e["id"] in EXPECTED)


def test_recent_changes_come_from_warpline_newest_first(served: _Client) -> None:
    result = served.tool("entity_recent_change_list", {"limit": 50})
    _healthy(result)
    stamps = [e["last_changed_at"] for e in result["entities"]]
    assert stamps == sorted(stamps, reverse=True)
    assert result["entities"][0]["id"] in ("python:function:demo.util.helper",
                                           "core:file:demo/util.py")
    assert all(e["last_actor"] == "Alice <alice@example.com>" for e in result["entities"])


def test_recent_changes_honour_since_through_warpline_window(served: _Client) -> None:
    everything = served.tool("entity_recent_change_list", {"limit": 50})
    newest = everything["entities"][0]["last_changed_at"]
    result = served.tool("entity_recent_change_list", {"limit": 50, "since": newest})
    _healthy(result)
    helper = next(e for e in result["entities"] if e["id"] == "python:function:demo.util.helper")
    assert helper["churn_count"] == 1
    assert "python:function:demo.auth.logout" not in {e["id"] for e in result["entities"]}
