"""The MCP stdio server's protocol behaviour, driven as a subprocess with raw JSON lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from warpline.mcp.client import McpProcess, initialize

SERVER = [sys.executable, "-m", "warpline.mcp"]
HEAVY_MODULES = ("pygit2", "pydantic", "networkx", "jsonschema")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[McpProcess]:
    with McpProcess(SERVER, cwd=tmp_path, timeout=60) as proc:
        yield proc


def _wrapped(script: str, tmp_path: Path) -> McpProcess:
    """A server started from ``script`` (which patches the server, then runs ``main``)."""
    return McpProcess([sys.executable, "-c", textwrap.dedent(script)], cwd=tmp_path, timeout=60)


def _error(reply: dict[str, Any]) -> dict[str, Any]:
    assert "result" not in reply, reply
    error: dict[str, Any] = reply["error"]
    return error


def _all_stdout_is_jsonrpc(proc: McpProcess, replies: int = 0) -> list[Any]:
    """Wait for ``replies`` messages (each line checked as it comes), then close the server
    and check every stdout line left is a JSON-RPC message.

    Waiting for the replies before closing makes the test independent of the machine's
    load: closing first gave the server a fixed time to answer everything queued, which a
    loaded machine exceeded (the server was killed mid-answer)."""
    messages = [_jsonrpc(proc.read_line()) for _ in range(replies)]
    assert proc.close(timeout=proc.timeout) == 0
    while (line := proc.read_line(timeout=proc.timeout)) is not None:
        messages.append(_jsonrpc(line))
    return messages


def _jsonrpc(line: bytes | None) -> Any:
    assert line is not None, "the server closed stdout before answering"
    message = json.loads(line)
    assert isinstance(message, dict) and message["jsonrpc"] == "2.0"
    return message


# -- initialize ---------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18"])
def test_initialize_echoes_a_supported_protocol_version(server: McpProcess, version: str) -> None:
    result = initialize(server, version)["result"]
    assert result["protocolVersion"] == version
    assert result["serverInfo"]["name"] == "warpline"
    assert isinstance(result["serverInfo"]["version"], str) and result["serverInfo"]["version"]
    assert result["capabilities"] == {"tools": {}}
    assert "changed" in result["instructions"] and "next_actions" in result["instructions"]


@pytest.mark.parametrize("params", [{"protocolVersion": "2099-01-01"},
                                    {"protocolVersion": "2025-11-25"}, {}])
def test_initialize_answers_the_newest_version_for_an_unsupported_one(
        server: McpProcess, params: dict[str, Any]) -> None:
    reply = server.request("initialize", params)
    assert reply["result"]["protocolVersion"] == "2025-06-18"


# -- notifications, ping, unknown methods -------------------------------------------------

def test_notifications_are_never_answered(server: McpProcess) -> None:
    server.notify("notifications/initialized")
    server.notify("notifications/cancelled", {"requestId": 7})
    server.notify("no/such/notification")
    server.notify("tools/call", {"name": "no_such_tool"})
    server.notify("ping", "params that are not an object")
    reply = server.request("ping")
    assert reply == {"jsonrpc": "2.0", "id": reply["id"], "result": {}}


@pytest.mark.parametrize("message", [
    {}, {"jsonrpc": "2.0"}, {"jsonrpc": "1.0", "method": "initialize"}, {"method": "ping"},
    {"jsonrpc": "2.0", "method": 1, "params": "bar"}, {"params": {}},
])
def test_an_object_that_is_no_request_is_answered_invalid_request_with_id_null(
        server: McpProcess, message: dict[str, Any]) -> None:
    # Without an id but not a valid request either: no notification, so JSON-RPC 2.0
    # answers -32600 with id null (it used to be dropped silently).
    server.send(message)
    reply = server.read_message()
    assert reply["id"] is None and reply["error"]["code"] == -32600, reply
    assert server.request("ping")["result"] == {}


def test_a_batch_answers_each_non_request_and_stays_silent_for_notifications(
        server: McpProcess) -> None:
    server.send([{}])
    reply = server.read_message()
    assert isinstance(reply, list) and len(reply) == 1
    assert reply[0]["id"] is None and reply[0]["error"]["code"] == -32600
    server.send([{"jsonrpc": "2.0", "method": "notifications/initialized"}, {"id": 3},
                 {"jsonrpc": "2.0", "id": 4, "method": "ping"}])
    replies = server.read_message()
    assert [(r.get("id"), r.get("error", {}).get("code")) for r in replies] == [
        (3, -32600), (4, None)]


def test_ping_returns_an_empty_result(server: McpProcess) -> None:
    assert server.request("ping")["result"] == {}


def test_an_unknown_method_is_method_not_found(server: McpProcess) -> None:
    assert _error(server.request("resources/list"))["code"] == -32601


def test_requests_answer_before_initialize(server: McpProcess) -> None:
    assert server.request("ping")["result"] == {}
    assert server.request("tools/list")["result"]["tools"]


def test_string_ids_are_echoed(server: McpProcess) -> None:
    server.send({"jsonrpc": "2.0", "id": "abc-1", "method": "ping"})
    assert server.read_message() == {"jsonrpc": "2.0", "id": "abc-1", "result": {}}


# -- malformed input ----------------------------------------------------------------------

@pytest.mark.parametrize("line", [b"{not json\n", b"\xff\xfe\n", b'{"jsonrpc": "2.0", "id": 1,\n',
                                  b'{"jsonrpc":"2.0","id":1,"method":"ping","x":NaN}\n',
                                  b"[" * 100_000 + b"\n"],
                         ids=["not-json", "not-utf8", "truncated", "nan", "deep-nesting"])
def test_a_malformed_line_is_a_parse_error_and_the_loop_goes_on(
        server: McpProcess, line: bytes) -> None:
    server.send_raw(line)
    reply = server.read_message()
    assert reply["id"] is None and _error(reply)["code"] == -32700
    assert server.request("ping")["result"] == {}


@pytest.mark.parametrize("value", [42, "ping", None, True, [1]])
def test_a_non_object_is_an_invalid_request(server: McpProcess, value: object) -> None:
    server.send(value)
    reply = server.read_message()
    if isinstance(value, list):  # a batch: one reply per (invalid) element
        assert [_error(r)["code"] for r in reply] == [-32600]
    else:
        assert reply["id"] is None and _error(reply)["code"] == -32600
    assert server.request("ping")["result"] == {}


@pytest.mark.parametrize("message", [
    {"id": 5, "method": "ping"},                       # no jsonrpc
    {"jsonrpc": "2.0", "id": 5},                       # no method
    {"jsonrpc": "2.0", "id": 5, "method": 3},          # non-string method
])
def test_an_object_that_is_not_a_request_is_an_invalid_request(
        server: McpProcess, message: dict[str, Any]) -> None:
    server.send(message)
    reply = server.read_message()
    assert reply["id"] == 5 and _error(reply)["code"] == -32600


def test_a_bad_id_is_an_invalid_request_with_a_null_id(server: McpProcess) -> None:
    server.send({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"})
    reply = server.read_message()
    assert reply["id"] is None and _error(reply)["code"] == -32600


def test_non_object_params_are_invalid_params(server: McpProcess) -> None:
    assert _error(server.request("ping", [1, 2]))["code"] == -32602


def test_blank_lines_and_stray_responses_are_ignored(server: McpProcess) -> None:
    server.send_raw(b"\n   \r\n")
    server.send({"jsonrpc": "2.0", "id": 99, "result": {}})
    server.send({"jsonrpc": "2.0", "id": 98, "error": {"code": 1, "message": "x"}})
    reply = server.request("ping")
    assert reply["result"] == {}


# -- batches ------------------------------------------------------------------------------

def test_a_batch_is_answered_with_one_array_line(server: McpProcess) -> None:
    server.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"},
                 {"jsonrpc": "2.0", "method": "notifications/initialized"},
                 {"jsonrpc": "2.0", "id": 2, "method": "nope"}])
    replies = server.read_message()
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[0]["result"] == {} and _error(replies[1])["code"] == -32601


def test_an_empty_batch_is_an_invalid_request(server: McpProcess) -> None:
    server.send([])
    reply = server.read_message()
    assert reply["id"] is None and _error(reply)["code"] == -32600


def test_a_batch_of_notifications_gets_no_reply(server: McpProcess) -> None:
    server.send([{"jsonrpc": "2.0", "method": "notifications/initialized"}])
    assert server.request("ping")["result"] == {}


# -- tools/call protocol-level errors -----------------------------------------------------

def test_tools_call_without_a_name_names_the_field(server: McpProcess) -> None:
    error = _error(server.request("tools/call", {"arguments": {}}))
    assert error["code"] == -32602
    assert error["data"]["schema"] == "warpline.error.v1"
    assert error["data"]["error_code"] == "missing_required_field"
    assert error["data"]["rejected_field"] == "name"


@pytest.mark.parametrize("name", [3, None, ["changed"]])
def test_tools_call_with_a_non_string_name_names_the_field(server: McpProcess,
                                                          name: object) -> None:
    error = _error(server.request("tools/call", {"name": name}))
    assert error["code"] == -32602
    assert (error["data"]["error_code"], error["data"]["rejected_field"]) == (
        "invalid_argument", "name")


@pytest.mark.parametrize("arguments", [[], "repo=.", 3, True])
def test_tools_call_with_non_object_arguments_names_the_field(server: McpProcess,
                                                             arguments: object) -> None:
    error = _error(server.request("tools/call", {"name": "changed", "arguments": arguments}))
    assert error["code"] == -32602
    assert (error["data"]["error_code"], error["data"]["rejected_field"]) == (
        "invalid_argument", "arguments")


def test_an_unknown_tool_is_method_not_found(server: McpProcess) -> None:
    error = _error(server.request("tools/call", {"name": "no_such_tool", "arguments": {}}))
    assert error["code"] == -32601
    assert error["data"]["rejected_field"] == "name"


@pytest.mark.parametrize(("arguments", "code", "field"), [
    ({}, "missing_required_field", "repo"),
    ({"repo": 7}, "invalid_repo", "repo"),
    ({"repo": ".", "limit": "5"}, "invalid_argument", "limit"),
    ({"repo": ".", "limit": 5.0}, "invalid_argument", "limit"),
    ({"repo": ".", "limit": True}, "invalid_argument", "limit"),
    ({"repo": ".", "bogus": 1}, "invalid_argument", "bogus"),
    ({"repo": ".", "sort_order": "sideways"}, "invalid_sort", "sort_order"),
    ({"repo": ".", "filters": {"nope": 1}}, "invalid_filter", "filters.nope"),
])
def test_bad_arguments_are_invalid_params_naming_the_field(
        server: McpProcess, arguments: dict[str, Any], code: str, field: str) -> None:
    error = _error(server.request("tools/call", {"name": "changed", "arguments": arguments}))
    assert error["code"] == -32602
    data = error["data"]
    assert (data["error_code"], data["rejected_field"]) == (code, field)
    assert set(data) == {"schema", "ok", "error_code", "rejected_field", "retryability",
                         "hint", "details"}
    assert data["retryability"] == "retry_with_changes"


def test_a_repo_that_is_not_a_git_repository_is_invalid_repo(server: McpProcess,
                                                             tmp_path: Path) -> None:
    error = _error(server.request("tools/call", {"name": "churn", "arguments": {
        "repo": str(tmp_path), "entity_refs": []}}))
    assert error["code"] == -32602
    assert (error["data"]["error_code"], error["data"]["rejected_field"]) == (
        "invalid_repo", "repo")


# -- lifecycle and stdout discipline ------------------------------------------------------

def test_eof_exits_cleanly(server: McpProcess) -> None:
    initialize(server)
    assert server.close() == 0
    assert server.read_line(timeout=5) is None


def test_eof_with_no_input_at_all_exits_cleanly(tmp_path: Path) -> None:
    done = subprocess.run(SERVER, input=b"", capture_output=True, timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, b"")


def test_importing_the_server_loads_no_heavy_dependency() -> None:
    probe = textwrap.dedent(f"""
        import sys
        from warpline.mcp import main
        from warpline.mcp.server import handle
        handle({{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {{}}}})
        handle({{"jsonrpc": "2.0", "id": 2, "method": "ping"}})
        print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"


NOISY = """
    import logging, os, subprocess, sys, warnings
    from warpline import registry
    from warpline.mcp import server

    def noise():
        print("print-noise")
        sys.stdout.write("write-noise\\n")
        sys.stdout.flush()
        os.write(1, b"fd-noise\\n")
        subprocess.run([sys.executable, "-c", "print('child-noise')"], check=True)
        warnings.warn("warning-noise")
        logging.getLogger("warpline.anything").error("log-noise")

    real_call_tool = registry.call_tool

    def noisy_call_tool(name, arguments, *, cwd=None):
        noise()
        return real_call_tool(name, arguments, cwd=cwd)

    def noisy_ping(params):
        noise()
        return {}

    registry.call_tool = noisy_call_tool
    server._METHODS["ping"] = noisy_ping
    sys.exit(server.main())
"""


def test_nothing_but_jsonrpc_reaches_stdout(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/core.py": "def alpha():\n    return 1\n"}, message="one")
    requests = [
        ("ping", {}),
        ("tools/call", {"name": "changed", "arguments": {"repo": "repo"}}),
        ("tools/call", {"name": "churn", "arguments": {"repo": "repo", "entity_refs": ["x"]}}),
        ("tools/call", {"name": "changed", "arguments": {"repo": 5}}),
        ("tools/call", {"name": "changed", "arguments": {"repo": str(tmp_path / "nowhere")}}),
    ]
    env = {**os.environ, "WARPLINE_LOG_LEVEL": "DEBUG", "PYTHONWARNINGS": "always"}
    with McpProcess([sys.executable, "-c", textwrap.dedent(NOISY)], cwd=tmp_path, env=env,
                    timeout=60) as proc:
        initialize(proc)
        for i, (method, params) in enumerate(requests):
            proc.send({"jsonrpc": "2.0", "id": f"r{i}", "method": method, "params": params})
        messages = _all_stdout_is_jsonrpc(proc, replies=len(requests))
        stderr = proc.stderr_text()
    assert [m["id"] for m in messages] == [f"r{i}" for i in range(len(requests))]
    assert [("result" in m) for m in messages] == [True, True, True, False, False]
    for noise in ("print-noise", "write-noise", "fd-noise", "child-noise", "warning-noise",
                  "log-noise"):
        assert stderr.count(noise) >= len(requests), noise  # ping + every tools/call


CRASHING = """
    import sys
    from warpline import registry
    from warpline.mcp import server, tools

    def boom(name, arguments, *, cwd=None):
        raise RuntimeError("kaboom-secret-detail")

    def boom_list():
        raise KeyError("kaboom-list")

    registry.call_tool = boom
    tools.list_tools = boom_list
    sys.exit(server.main())
"""


def test_an_unexpected_exception_is_internal_error_without_a_traceback_on_stdout(
        tmp_path: Path) -> None:
    with _wrapped(CRASHING, tmp_path) as proc:
        reply = proc.request("tools/call", {"name": "changed", "arguments": {"repo": "."}})
        error = _error(reply)
        assert error["code"] == -32603
        assert error["data"]["error_code"] == "internal_error"
        assert error["data"]["retryability"] == "fatal"
        assert "Traceback" not in json.dumps(reply) and "kaboom" not in json.dumps(reply)
        listing = _error(proc.request("tools/list"))
        assert listing["code"] == -32603 and listing["data"]["error_code"] == "internal_error"
        assert proc.request("ping")["result"] == {}  # still serving
        assert _all_stdout_is_jsonrpc(proc) == []
        stderr = proc.stderr_text()
    assert "Traceback" in stderr and "kaboom-secret-detail" in stderr and "kaboom-list" in stderr
