"""Protocol and error hardening (issue 13): every reply strict JSON, every bad input a
closed error code (never ``internal_error``), bounded cost for huge requests. Driven
through one real ``warpline-mcp`` process per test, on a real repository and store."""

from __future__ import annotations

import base64
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from warpline.cli.smoke import McpProcess
from warpline.contracts_io import validate_envelope
from warpline.limits import MAX_STRING_CHARS
from warpline.mcp import limits
from warpline.store.db import store_path

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


def _strict(line: bytes | None) -> Any:
    assert line is not None, "the server closed stdout"

    def refuse(name: str) -> Any:
        raise AssertionError(f"non-JSON constant {name} in a reply: {line!r}")

    return json.loads(line, parse_constant=refuse)


def _call(server: McpProcess, tool: str, arguments: Any) -> dict[str, Any]:
    server.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                 "params": {"name": tool, "arguments": arguments}})
    reply: dict[str, Any] = _strict(server.read_line())
    return reply


def _code(reply: dict[str, Any]) -> str:
    assert "error" in reply, reply
    data = reply["error"]["data"]
    validate_envelope(data)
    return str(data["error_code"])


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
    assert reply["result"]["structuredContent"]["data"]["items"] == []


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
    items = reply["result"]["structuredContent"]["data"]["items"]
    assert items and all(i["entity"]["path"].startswith("pkg/") for i in items)
    reply = _call(server, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD",
                                      "filters": {"paths": paths[:999]}})
    assert reply["result"]["structuredContent"]["data"]["items"] == []


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


# -- the store's failures, each in its own class ----------------------------------------------

def _ingested(server: McpProcess, repo: FixtureRepo) -> Path:
    reply = _call(server, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD"})
    assert "result" in reply, reply
    return store_path(repo.path)


def test_a_dropped_table_is_store_unreadable(server: McpProcess, repo: FixtureRepo) -> None:
    path = _ingested(server, repo)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("DROP TABLE change_events")
    reply = _call(server, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD"})
    assert _code(reply) == "store_unreadable"


@pytest.mark.parametrize("content", [b"", b"foreign"])
def test_a_foreign_or_empty_file_at_the_store_path_is_refused_untouched(
        server: McpProcess, repo: FixtureRepo, content: bytes) -> None:
    path = store_path(repo.path)
    path.parent.mkdir(parents=True)
    if content:
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE notes (body TEXT)")
    else:
        path.write_bytes(b"")
        old = time.time() - 3600
        os.utime(path, (old, old))
    before = path.read_bytes()
    reply = _call(server, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD"})
    assert _code(reply) == "store_unreadable"
    assert path.read_bytes() == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only permissions")
def test_a_read_only_store_directory_is_store_unwritable(server: McpProcess,
                                                         repo: FixtureRepo) -> None:
    path = _ingested(server, repo)
    repo.commit({"pkg/mod.py": "def f():\n    return 3\n"}, "three")
    path.parent.chmod(0o500)
    path.chmod(0o400)
    try:
        reply = _call(server, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD"})
        assert "result" in reply or _code(reply) == "store_unwritable", reply
    finally:
        path.parent.chmod(0o700)
        path.chmod(0o600)


def test_a_caught_up_read_needs_no_write_lock(server: McpProcess, repo: FixtureRepo) -> None:
    """Another writer holds the store's write lock; a read on a caught-up store answers."""
    path = _ingested(server, repo)
    holder = sqlite3.connect(path, isolation_level=None, timeout=1)
    try:
        holder.execute("BEGIN IMMEDIATE")
        started = time.perf_counter()
        reply = _call(server, "changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD"})
        assert "result" in reply, reply
        assert time.perf_counter() - started < 25  # well under the 30 s busy timeout
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_environment_refusals_are_retry_safe_and_damage_is_unreadable(tmp_path: Path) -> None:
    """Real SQLite failures (a read-only connection's write, a full database, a file that
    is not a database) classified by result code at the store seam."""
    from warpline.store.db import translate

    path = tmp_path / "x.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (v BLOB)")
    failures: list[sqlite3.Error] = []
    ro = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.Error) as readonly:
        ro.execute("INSERT INTO t VALUES (1)")
    ro.close()
    failures.append(readonly.value)
    full = sqlite3.connect(path, isolation_level=None)
    page_count = full.execute("PRAGMA page_count").fetchone()[0]
    full.execute(f"PRAGMA max_page_count = {page_count}")
    with pytest.raises(sqlite3.Error) as disk_full:
        full.execute("INSERT INTO t VALUES (?)", (b"x" * 100_000,))
    full.close()
    failures.append(disk_full.value)
    for exc in failures:
        error = translate(exc, "writing")
        assert (error.code, error.retryability) == ("store_unwritable", "retry_safe"), exc
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 500)
    with pytest.raises(sqlite3.Error) as notadb:
        sqlite3.connect(junk).execute("SELECT * FROM sqlite_master").fetchall()
    assert translate(notadb.value, "reading").code == "store_unreadable"


def test_two_racing_captures_of_one_commit_store_one_snapshot(tmp_path: Path) -> None:
    """Two real ``capture-snapshot`` processes started together for the same commit."""
    repo = FixtureRepo(tmp_path / "race")
    files: dict[str, Any] = {
        f"pkg/m{i}.py": "".join(f"def f{j}(x):\n    return g{j}(x) + {i}\n\n\n"
                                f"def g{j}(x):\n    return x\n\n\n" for j in range(40))
        for i in range(60)}
    repo.commit(files, "many modules")
    env = {**os.environ, "WARPLINE_EDGE_SOURCES": "builtin", "NO_COLOR": "1"}
    first = subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                            str(repo.path)], env=env, capture_output=True, timeout=300)
    assert first.returncode == 0, first.stderr
    argv = [sys.executable, "-m", "warpline.cli", "capture-snapshot", "--repo",
            str(repo.path), "--json"]
    procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    answers = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        answers.append(json.loads(out)["data"])
    with sqlite3.connect(f"file:{store_path(repo.path)}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT id FROM snapshots WHERE commit_sha = ?",
                            (repo.head,)).fetchall()
    assert len(rows) == 1
    assert {a["snapshot_id"] for a in answers} == {rows[0][0]}
    assert sorted(a["idempotency"] for a in answers) == ["already_current", "created"]


def test_corrupted_pages_turn_doctor_red_and_queries_store_unreadable(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "corrupt")
    for i in range(30):
        repo.commit({f"pkg/m{i % 7}.py": "".join(f"def f{j}_{i}():\n    return {j}\n"
                                                  for j in range(30))}, f"c{i}")
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                           str(repo.path)], env=env, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    path = store_path(repo.path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = int(conn.execute("PRAGMA page_size").fetchone()[0])
        pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    assert pages > 8
    with path.open("r+b") as handle:  # scribble over every page but the header page
        for number in range(2, pages, 2):
            handle.seek(number * page - page + 100)
            handle.write(b"\xde\xad\xbe\xef" * 64)
    doctor = subprocess.run([sys.executable, "-m", "warpline.cli", "doctor", "--repo",
                             str(repo.path), "--json"], env=env, capture_output=True,
                            text=True, timeout=300)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert doctor.returncode == 1 and checks["store"]["status"] == "fail", checks["store"]
    changed = subprocess.run([sys.executable, "-m", "warpline.cli", "changed", "HEAD~5..HEAD",
                              "--repo", str(repo.path), "--json"], env=env,
                             capture_output=True, text=True, timeout=300)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert json.loads(changed.stdout)["error_code"] == "store_unreadable"
