"""The server's bounds on what it reads (``warpline.mcp.limits``, ``warpline.limits``): every
reply strict JSON, every bad input a closed error code (never ``internal_error``), bounded
cost for huge requests. Driven through one real ``warpline-mcp`` process per test, on a
real repository and store."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from tests.mcpreply import call as _call
from tests.mcpreply import code as _code
from tests.mcpreply import strict as _strict
from warpline.cli.smoke import McpProcess
from warpline.limits import MAX_STRING_CHARS
from warpline.mcp import limits

SERVER = [sys.executable, "-m", "warpline.mcp"]
BIG = "x" * (7 * 1024 * 1024)


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    fixture = FixtureRepo(tmp_path / "repo")
    fixture.commit({"pkg/mod.py": "def f():\n    return 1\n"}, "add f")
    fixture.commit({"pkg/mod.py": "def f():\n    return 2\n"}, "change f")
    return fixture


@pytest.fixture
def server(tmp_path: Path) -> Iterator[McpProcess]:
    with McpProcess(SERVER, cwd=tmp_path, timeout=120) as proc:
        yield proc


def test_a_number_that_overflows_is_a_parse_error_never_echoed(server: McpProcess,
                                                               repo: FixtureRepo) -> None:
    line = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"changed",'
            f'"arguments":{{"repo":"{repo.path}","limit":1e400}}}}}}\n')
    server.send_raw(line.encode())
    reply = _strict(server.read_line())
    assert reply["error"]["code"] == -32700 and reply["id"] is None
    for token in (b"NaN", b"Infinity", b"-Infinity"):
        server.send_raw(b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":' + token
                        + b"}}\n")
        assert _strict(server.read_line())["error"]["code"] == -32700


def test_a_million_refs_answer_at_once_with_the_field(server: McpProcess,
                                                      repo: FixtureRepo) -> None:
    started = time.perf_counter()
    reply = _call(server, "churn", {"repo": str(repo.path), "entity_refs": [1] * 1_000_000})
    assert _code(reply) == "invalid_entity_ref"
    assert reply["error"]["data"]["rejected_field"] == "entity_refs"
    # Bounded, not timed: a second ping must follow it on the same server.
    server.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    assert _strict(server.read_line())["result"] == {}
    assert time.perf_counter() - started < 120  # the old cost was minutes and gigabytes


@pytest.mark.parametrize(("arguments", "field", "code"), [
    ({"rev_range": BIG}, "rev_range", "invalid_rev_range"),
    ({"filters": {"actors": ["ann", BIG]}}, "filters.actors.1", "invalid_filter"),
    ({"entity": BIG}, "entity", "invalid_entity_ref"),
    ({"cursor": BIG}, "cursor", "invalid_cursor"),
    ({"bogus": BIG}, "bogus", "invalid_argument"),
])
def test_a_huge_string_argument_is_refused_naming_field_and_bound(
        server: McpProcess, repo: FixtureRepo, arguments: dict[str, Any], field: str,
        code: str) -> None:
    tool = "timeline" if "entity" in arguments else "changed"
    reply = _call(server, tool, {"repo": str(repo.path), **arguments})
    # -32602 (invalid params), with the field's own code from the closed vocabulary.
    assert reply["error"]["code"] == -32602 and _code(reply) == code
    data = reply["error"]["data"]
    assert data["rejected_field"] == field
    assert data["details"]["limit"] == MAX_STRING_CHARS
    assert data["details"]["length"] == len(BIG)
    # The 7 MB value is never echoed (it came back four times, 29 MB, before).
    assert len(json.dumps(reply)) < 10_000


def test_a_huge_repo_or_tool_name_is_refused_the_same_way(server: McpProcess) -> None:
    reply = _call(server, "changed", {"repo": BIG})
    assert _code(reply) == "invalid_repo"
    assert reply["error"]["data"]["rejected_field"] == "repo"
    server.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                 "params": {"name": BIG, "arguments": {}}})
    reply = _strict(server.read_line())
    assert _code(reply) == "invalid_argument" and len(json.dumps(reply)) < 10_000


def test_a_string_at_the_bound_is_served(server: McpProcess, repo: FixtureRepo) -> None:
    reply = _call(server, "changed", {"repo": str(repo.path),
                                      "filters": {"actors": ["a" * MAX_STRING_CHARS]}})
    assert json.loads(reply["result"]["content"][0]["text"])["data"]["items"] == []


def test_the_cli_refuses_a_huge_argument_too(repo: FixtureRepo) -> None:
    done = subprocess.run([sys.executable, "-m", "warpline.cli", "changed", "x" * 100_000,
                           "--repo", str(repo.path), "--json"], capture_output=True,
                          text=True, timeout=120)
    answer = json.loads(done.stdout)
    assert done.returncode != 0 and answer["error_code"] == "invalid_rev_range"
    assert answer["rejected_field"] == "rev_range"


def test_an_oversized_line_and_a_long_batch_are_refused_up_front(server: McpProcess) -> None:
    big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + \
        b"x" * (limits.MAX_LINE_BYTES + 10) + b'"}}\n'
    server.send_raw(big)
    reply = _strict(server.read_line())
    assert reply["error"]["code"] == -32600 and _code(reply) == "invalid_argument"
    batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(limits.MAX_BATCH + 1)]
    server.send(batch)
    reply = _strict(server.read_line())
    assert isinstance(reply, dict) and reply["error"]["code"] == -32600
    assert reply["error"]["data"]["details"]["limit"] == limits.MAX_BATCH
    server.send(batch[:3])
    assert [r["id"] for r in _strict(server.read_line())] == [0, 1, 2]


def test_params_that_is_not_an_object_carries_an_error_object(server: McpProcess) -> None:
    for params in ([1, 2], "x", 5):
        server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        reply = _strict(server.read_line())
        assert reply["error"]["code"] == -32602 and _code(reply) == "invalid_argument"


def test_a_deeply_nested_cursor_is_invalid_cursor(server: McpProcess, repo: FixtureRepo) -> None:
    nested = base64.urlsafe_b64encode(b"[" * 100_000 + b"]" * 100_000).decode()
    for cursor in (nested, base64.urlsafe_b64encode(b'{"o": 99999999999999999999999, '
                                                    b'"q": "x"}').decode()):
        reply = _call(server, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD",
                                          "cursor": cursor})
        assert _code(reply) == "invalid_cursor"


def test_a_key_id_past_sqlite_integers_is_not_found_not_a_crash(server: McpProcess,
                                                                repo: FixtureRepo) -> None:
    huge = 2**64
    reply = _call(server, "churn", {"repo": str(repo.path),
                                    "entity_refs": [{"kind": "warpline_entity_key_id",
                                                     "value": str(huge)}]})
    assert "result" in reply, reply
    reply = _call(server, "blast_radius", {"repo": str(repo.path),
                                           "changed_entity_key_ids": [huge]})
    assert "result" in reply or _code(reply) != "internal_error", reply


def test_a_thousand_path_filters_answer(server: McpProcess, repo: FixtureRepo) -> None:
    paths = [f"dir{i}/sub" for i in range(999)] + ["pkg"]
    reply = _call(server, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD",
                                      "filters": {"paths": paths}})
    assert "result" in reply, reply
    items = json.loads(reply["result"]["content"][0]["text"])["data"]["items"]
    assert items and all(i["entity"]["path"].startswith("pkg/") for i in items)
    reply = _call(server, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD",
                                      "filters": {"paths": paths[:999]}})
    assert json.loads(reply["result"]["content"][0]["text"])["data"]["items"] == []


def test_a_deleted_server_cwd_still_serves_absolute_paths(tmp_path: Path,
                                                          repo: FixtureRepo) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    with McpProcess(SERVER, cwd=gone, timeout=120) as proc:
        shutil.rmtree(gone)
        reply = _call(proc, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD"})
        assert "result" in reply, reply
        reply = _call(proc, "changed", {"repo": "relative/repo", "rev_range": "HEAD~1..HEAD"})
        assert _code(reply) == "invalid_repo"
