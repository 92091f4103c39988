"""A damaged store says so (issue 29, item 7): SQLite's quick_check on open, once per change
of the file, surfaced by ``status``, warned on every answer, and every write refused with
``store_corrupt`` and the repair command. The damage is real: bytes of one page of the
store file overwritten on disk, after a real backfill; CLI and MCP are real processes."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from warpline.cli.smoke import McpProcess
from warpline.contracts_io import validate_envelope
from warpline.store import integrity
from warpline.store.db import Store, store_path

SERVER = [sys.executable, "-m", "warpline.mcp"]
INIT = {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "integrity-test", "version": "1"}}


def _cli(*args: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run([sys.executable, "-m", "warpline.cli", *args, "--json"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_COLOR": "1"})
    answer: dict[str, Any] = json.loads(done.stdout)
    if "schema" in answer:  # backfill prints a report, not an envelope
        validate_envelope(answer)
    return done.returncode, answer


def _page_of(path: Path, index: str) -> int:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                                (index,)).fetchone()[0])


def _scribble(path: Path, page: int) -> None:
    """Overwrite one whole page in place: a real fault on disk (no tool call reads the
    test-map index this test damages, so reads alone would never notice)."""
    with path.open("r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(bytes(range(256)) * 16)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def damaged(tmp_path: Path) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    for i in range(12):
        repo.commit({f"pkg/m{i % 4}.py": "".join(f"def f{j}_{i}():\n    return {j}\n"
                                                  for j in range(20))}, f"c{i}")
    code, answer = _cli("backfill", "--repo", str(repo.path))
    assert code == 0, answer
    code, answer = _cli("status", "--repo", str(repo.path))  # a healthy verdict, remembered
    assert answer["data"]["store_status"] == "ok"
    assert answer["data"]["store"]["integrity"] == "ok"
    path = store_path(repo.path)
    _scribble(path, _page_of(path, "test_maps_by_commit"))
    return repo


def _repair_named(answer: dict[str, Any], root: Path) -> bool:
    return any(integrity.repair_command(root) in w for w in answer["warnings"])


def test_status_a_read_and_a_write_over_the_cli(damaged: FixtureRepo) -> None:
    root = damaged.path.resolve()
    path = store_path(damaged.path)
    before = _digest(path)
    _, status = _cli("status", "--repo", str(root))
    assert status["data"]["store_status"] == "store_damaged"
    assert status["data"]["binding_ok"] is False
    assert status["data"]["store"]["integrity"] == "damaged"
    assert integrity.repair_command(root) in [
        c["command"] for c in status["next_actions"]["commands"]]
    code, read = _cli("changed", "HEAD~2..HEAD", "--repo", str(root))
    assert code == 0 and read["ok"] and read["data"]["items"]
    assert _repair_named(read, root)
    code, write = _cli("verify-record", "--commit", "HEAD", "--kind", "test_pass",
                       "--repo", str(root))
    assert code != 0 and write["error_code"] == "store_corrupt"
    assert write["details"]["repair"] == integrity.repair_command(root)
    assert _digest(path) == before  # nothing written into the damaged file
    notes = subprocess.run(["git", "-C", str(root), "notes", "--ref", "warpline", "list"],
                           capture_output=True, text=True)
    assert notes.stdout == ""  # the refusal came before the git note too


def test_status_a_read_and_a_write_over_mcp(damaged: FixtureRepo, tmp_path: Path) -> None:
    root = damaged.path.resolve()
    with McpProcess(SERVER, cwd=tmp_path, timeout=120) as server:
        assert "result" in server.request("initialize", INIT)
        server.notify("notifications/initialized")

        def call(tool: str, **arguments: Any) -> dict[str, Any]:
            reply = server.request("tools/call", {"name": tool, "arguments":
                                                  {"repo": str(root), **arguments}})
            if "error" in reply:
                data: dict[str, Any] = reply["error"]["data"]
                validate_envelope(data)
                return data
            envelope: dict[str, Any] = json.loads(reply["result"]["content"][0]["text"])
            validate_envelope(envelope)
            return envelope

        status = call("warpline_project_status_get")
        assert status["data"]["store_status"] == "store_damaged"
        read = call("warpline_change_list", rev_range="HEAD~2..HEAD")
        assert read["ok"] and _repair_named(read, root)
        churn = call("warpline_entity_churn_count_get", entity_refs=["pkg.m0.f1_0"])
        assert churn["ok"] and _repair_named(churn, root)
        write = call("warpline_verification_record", commit="HEAD", kind="test_pass")
        assert write["error_code"] == "store_corrupt"
        capture = call("warpline_edge_snapshot_capture")
        assert capture["error_code"] == "store_corrupt"


def test_the_repair_command_moves_the_store_aside_and_rebuilds_it(
        damaged: FixtureRepo) -> None:
    root = damaged.path.resolve()
    path = store_path(root)
    broken = _digest(path)
    done = subprocess.run(integrity.repair_command(root).split(), capture_output=True,
                          text=True, timeout=300)
    kept = [p for p in path.parent.iterdir() if p.name.startswith("warpline.db.broken-")]
    assert len(kept) == 1 and _digest(kept[0]) == broken, done.stdout + done.stderr
    _, status = _cli("status", "--repo", str(root))
    assert status["data"]["store_status"] == "ok"
    assert status["data"]["store"]["integrity"] == "ok"
    code, write = _cli("verify-record", "--commit", "HEAD", "--kind", "test_pass",
                       "--repo", str(root))
    assert code == 0 and write["ok"]


def test_the_verdict_is_taken_once_per_change_of_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/mod.py": "def f():\n    return 1\n"}, "add f")
    with Store.open(repo.path) as store:
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = store_path(repo.path)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # long ago: not "racy"
    integrity._MEMO.clear()
    checks = []
    real = integrity._quick_check

    def counting(conn: sqlite3.Connection) -> integrity.Verdict | None:
        checks.append(1)  # a spy: the real check still runs
        return real(conn)

    monkeypatch.setattr(integrity, "_quick_check", counting)
    for _ in range(3):
        with Store.open(repo.path, prefer_read_only=True) as store:
            assert store.integrity.state == "ok"
    assert len(checks) == 1
    integrity._MEMO.clear()  # a new process: the verdict file answers
    with Store.open(repo.path, prefer_read_only=True) as store:
        assert store.integrity.state == "ok"
    assert len(checks) == 1
    os.utime(path, ns=(2_000_000_000, 2_000_000_000))  # the file changed
    with Store.open(repo.path, prefer_read_only=True) as store:
        assert store.integrity.state == "ok"
    assert len(checks) == 2


def test_a_verdict_taken_while_the_file_is_fresh_is_not_remembered(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/mod.py": "def f():\n    return 1\n"}, "add f")
    with Store.open(repo.path) as store:
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    os.utime(store_path(repo.path))  # modified now: a write in this tick would not show
    (store_path(repo.path).parent / integrity.CACHE_FILE).unlink()  # carried by the writes
    integrity._MEMO.clear()
    with Store.open(repo.path, prefer_read_only=True) as store:
        assert store.integrity.state == "ok"
    assert not (store_path(repo.path).parent / integrity.CACHE_FILE).exists()
    assert store_path(repo.path) not in integrity._MEMO


def test_behind_head_a_read_answers_from_what_is_stored_and_says_why(
        damaged: FixtureRepo) -> None:
    root = damaged.path.resolve()
    path = store_path(root)
    before = _digest(path)
    damaged.commit({"pkg/m0.py": "def late():\n    return 0\n"}, "after the damage")
    code, read = _cli("changed", "--repo", str(root), "HEAD~3..HEAD")
    assert code == 0 and read["ok"]
    assert read["data"]["ingest"]["commits_behind"] == 1
    assert read["data"]["ingest"]["complete"] is False
    assert _repair_named(read, root)
    assert _digest(path) == before


def test_warplines_own_writes_keep_the_verdict(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/mod.py": "def f():\n    return 1\n"}, "add f")
    with Store.open(repo.path) as store:
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    os.utime(store_path(repo.path), ns=(1_000_000_000, 1_000_000_000))
    integrity._MEMO.clear()
    checks = []
    real = integrity._quick_check

    def counting(conn: sqlite3.Connection) -> integrity.Verdict | None:
        checks.append(1)  # a spy: the real check still runs
        return real(conn)

    monkeypatch.setattr(integrity, "_quick_check", counting)
    with Store.open(repo.path) as store, store.transaction() as conn:
        store.meta_set(conn, "probe", "1")
    assert len(checks) == 1
    integrity._MEMO.clear()  # a new process: the carried verdict is on disk
    with Store.open(repo.path, prefer_read_only=True) as reader:
        assert reader.integrity.state == "ok"
    assert len(checks) == 1
    _scribble(store_path(repo.path), _page_of(store_path(repo.path), "test_maps_by_commit"))
    with Store.open(repo.path, prefer_read_only=True) as reader:
        assert reader.integrity.state == "damaged"  # anything else's change: checked again
    assert len(checks) == 2


def test_session_context_never_calls_a_damaged_store_ok(damaged: FixtureRepo) -> None:
    """Issue 38 item 7: the session line said "N change events tracked, up to date" over a
    store with damaged pages."""
    from warpline.setup.session import session_context

    root = damaged.path.resolve()
    context = session_context(str(root))
    assert context["store"]["status"] == "store_damaged"
    assert context["next"]["command"] == integrity.repair_command(root)
    assert "damaged" in context["line"]
