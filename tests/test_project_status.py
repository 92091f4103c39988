"""``project_status``: the read-only probe. It never creates, migrates, catches up or
rewrites the store, and says exactly why a store cannot be served."""

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

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.errors import WarplineError
from warpline.registry import call_tool, lookup
from warpline.store import probe as probe_module
from warpline.store.db import Store, store_path
from warpline.store.migrations import SCHEMA_VERSION

SRC = "def alpha():\n    return 1\n"


def _repo(tmp_path: Path, commits: int = 2) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    for n in range(commits):
        repo.commit({"app/core.py": SRC.replace("1", str(n))}, message=f"c{n}")
    return repo


def _status(repo: Path | FixtureRepo) -> dict[str, Any]:
    path = repo.path if isinstance(repo, FixtureRepo) else repo
    envelope = call_tool("project_status", {"repo": str(path)})
    assert_valid_envelope(envelope)
    return envelope


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _backfill(repo: FixtureRepo) -> None:
    call_tool("changed", {"repo": str(repo.path)})  # opens, migrates and catches up


def test_the_inventory_says_it_writes_nothing() -> None:
    spec = lookup("project_status")
    assert spec is not None
    assert (spec.writes_local_state, spec.mutates_paths, spec.mutating) == (False, (), False)


def test_an_absent_store_is_reported_absent_and_nothing_is_created(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    envelope = _status(repo)
    data = envelope["data"]
    assert (data["store_status"], data["binding_ok"]) == ("store_absent", False)
    assert data["store"] == {"present": False, "readable": False, "schema_version": None,
                             "snapshot_rev": None, "change_event_count": None,
                             "commits_behind_head": None, "integrity": None}
    assert data["resolved_root"] == str(repo.path.resolve())
    assert data["served_schema_version"] == SCHEMA_VERSION
    assert "warpline backfill" in envelope["warnings"][0]
    commands = [action["command"] for action in envelope["next_actions"]["commands"]]
    assert f"warpline backfill --repo {repo.path.resolve()}" in commands
    assert not (repo.path / ".weft").exists()


def test_a_path_that_is_not_a_repository_is_invalid_repo_and_nothing_is_created(
        tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(WarplineError) as caught:
        call_tool("project_status", {"repo": str(plain)})
    assert caught.value.code == "invalid_repo"
    assert list(plain.iterdir()) == []
    with pytest.raises(WarplineError) as missing:
        call_tool("project_status", {"repo": str(tmp_path / "nope")})
    assert missing.value.code == "invalid_repo"
    assert not (tmp_path / "nope").exists()


def test_a_served_store_reports_its_facts_and_its_bytes_stay_unchanged(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _backfill(repo)
    db = store_path(repo.path)
    before = _sha256(db)
    data = _status(repo)["data"]
    assert (data["store_status"], data["binding_ok"]) == ("ok", True)
    store = data["store"]
    assert (store["present"], store["readable"], store["schema_version"]) == (
        True, True, SCHEMA_VERSION)
    assert store["change_event_count"] > 0
    assert store["commits_behind_head"] == 0
    assert store["snapshot_rev"] is None
    _status(repo)
    assert _sha256(db) == before


def test_the_probe_does_not_catch_up_and_counts_commits_behind_head(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _backfill(repo)
    for n in range(3):
        repo.commit({"app/more.py": f"X = {n}\n"}, message=f"more {n}")
    db = store_path(repo.path)
    before = _sha256(db)
    envelope = _status(repo)
    assert envelope["data"]["store"]["commits_behind_head"] == 3
    assert envelope["data"]["binding_ok"] is True
    assert any("3 commits behind" in w for w in envelope["warnings"])
    assert _status(repo)["data"]["store"]["commits_behind_head"] == 3  # still not caught up
    assert _sha256(db) == before


def test_commits_behind_head_is_a_bounded_lower_bound(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path, commits=1)
    _backfill(repo)
    for n in range(6):
        repo.commit({"app/more.py": f"X = {n}\n"}, message=f"more {n}")
    monkeypatch.setattr(probe_module, "BEHIND_SCAN_LIMIT", 4)
    envelope = _status(repo)
    assert envelope["data"]["store"]["commits_behind_head"] == 4
    assert any("at least 4 commits behind" in w for w in envelope["warnings"])


def test_commits_behind_head_walks_both_sides_of_a_merge(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _backfill(repo)
    base = str(repo.head)
    left = repo.commit({"a.py": "A = 1\n"}, message="left")
    right = repo.commit({"b.py": "B = 1\n"}, message="right", parents=[base],
                        update_head=False)
    repo.merge_commit(left, right, {"b.py": "B = 1\n"}, message="merge")
    assert _status(repo)["data"]["store"]["commits_behind_head"] == 3


def _drop_commit_object(repo: FixtureRepo, sha: str) -> None:
    """Damage for real: delete the commit's loose object (the fixture never packs)."""
    loose = repo.path / ".git" / "objects" / sha[:2] / sha[2:]
    os.chmod(loose, 0o644)
    loose.unlink()
    assert sha not in repo.repo.odb


def _fsck_commands(envelope: dict[str, Any]) -> list[str]:
    return [c["command"] for c in envelope["next_actions"].get("commands", [])
            if "fsck" in c["command"]]


def test_a_missing_commit_in_the_unread_history_is_named_not_counted_as_behind(
        tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _backfill(repo)
    lost = repo.commit({"app/more.py": "X = 1\n"}, message="lost")
    repo.commit({"app/more.py": "X = 2\n"}, message="after")
    _drop_commit_object(repo, lost)
    envelope = _status(repo)
    store = envelope["data"]["store"]
    assert store["commits_behind_head"] == 1  # HEAD itself; what lies past `lost` is unknown
    assert any(lost in w for w in envelope["warnings"])
    assert _fsck_commands(envelope)
    # The read tools agree that this history cannot be read.
    with pytest.raises(WarplineError) as caught:
        call_tool("changed", {"repo": str(repo.path)})
    assert (caught.value.code, caught.value.details["missing_object"]) == ("invalid_repo", lost)


def test_a_missing_head_commit_is_named_and_behind_is_unknown(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _backfill(repo)
    head = repo.commit({"app/more.py": "X = 1\n"}, message="head")
    _drop_commit_object(repo, head)
    envelope = _status(repo)
    assert envelope["data"]["store"]["commits_behind_head"] is None
    assert any(head in w for w in envelope["warnings"])
    assert _fsck_commands(envelope)
    # The read tools name the same object, not a bad range they were never given.
    calls: list[tuple[str, dict[str, Any]]] = [
        ("churn", {"entity_refs": ["app.core.alpha"]}),
        ("timeline", {"entity_ref": "app.core.alpha"}), ("changed", {}),
        ("capture_snapshot", {}), ("verify_record", {"commit": "HEAD", "kind": "tests"})]
    for tool, arguments in calls:
        with pytest.raises(WarplineError) as caught:
            call_tool(tool, {"repo": str(repo.path), **arguments})
        assert (tool, caught.value.code, caught.value.details.get("missing_object")) == (
            tool, "invalid_repo", head)


def test_a_complete_history_asks_for_no_fsck(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _backfill(repo)
    repo.commit({"app/more.py": "X = 1\n"}, message="more")
    envelope = _status(repo)
    assert envelope["data"]["store"]["commits_behind_head"] == 1
    assert not _fsck_commands(envelope)


def test_a_corrupt_store_is_unreadable(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    db = store_path(repo.path)
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a sqlite database" * 200)
    before = _sha256(db)
    envelope = _status(repo)
    data = envelope["data"]
    assert (data["store_status"], data["binding_ok"]) == ("store_unreadable", False)
    assert (data["store"]["present"], data["store"]["readable"]) == (True, False)
    assert data["store"]["schema_version"] is None
    assert envelope["warnings"][0]
    assert _sha256(db) == before


def test_an_empty_file_or_a_foreign_database_is_unreadable(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    db = store_path(repo.path)
    db.parent.mkdir(parents=True)
    db.write_bytes(b"")
    assert _status(repo)["data"]["store_status"] == "store_unreadable"
    db.unlink()
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE other (x)")
    assert _status(repo)["data"]["store_status"] == "store_unreadable"


def test_a_store_from_a_newer_schema_is_schema_ahead(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _backfill(repo)
    db = store_path(repo.path)
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = _sha256(db)
    envelope = _status(repo)
    data = envelope["data"]
    assert (data["store_status"], data["binding_ok"]) == ("schema_ahead", False)
    assert (data["store"]["present"], data["store"]["readable"]) == (True, False)
    assert data["store"]["schema_version"] is None
    assert str(SCHEMA_VERSION + 1) in envelope["warnings"][0]
    assert _sha256(db) == before


def test_a_wal_store_with_uncheckpointed_writes_is_read_correctly(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _backfill(repo)
    db = store_path(repo.path)
    counted = _status(repo)["data"]["store"]["change_event_count"]
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        assert writer.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        writer.execute("BEGIN IMMEDIATE")
        commit_id, entity_id = writer.execute(
            "SELECT commit_id, entity_id FROM change_events LIMIT 1").fetchone()
        entity_ids = [row[0] for row in writer.execute(
            "SELECT id FROM entities WHERE id != ?", (entity_id,))]
        other_commit = writer.execute("SELECT max(id) FROM commits").fetchone()[0]
        writer.executemany(
            "INSERT OR IGNORE INTO change_events (commit_id, entity_id, change_kind, path, "
            "changed_at) VALUES (?, ?, 'modified', 'x', 0)",
            [(c, e) for c in (commit_id, other_commit) for e in entity_ids])
        writer.execute("COMMIT")
        main_file = _sha256(db)
        wal = db.with_name(db.name + "-wal")
        assert wal.stat().st_size > 0  # the new rows live only in the WAL
        data = _status(repo)["data"]
        total = writer.execute("SELECT count(*) FROM change_events").fetchone()[0]
        assert data["store"]["change_event_count"] == total > counted
        assert _sha256(db) == main_file
    finally:
        writer.close()


def test_a_served_older_schema_store_is_ok(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _backfill(repo)
    db = store_path(repo.path)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE verifications")
        conn.execute("DROP TABLE snapshot_edges")
        conn.execute("DROP TABLE snapshot_entities")
        conn.execute("DROP TABLE snapshots")
        conn.execute("PRAGMA user_version = 1")
    data = _status(repo)["data"]
    assert (data["store_status"], data["store"]["schema_version"]) == ("ok", 1)
    assert data["store"]["snapshot_rev"] is None


def _add_snapshot(repo: FixtureRepo, commit: str, completeness: str, captured_at: int) -> None:
    with Store.open(repo.path) as store, store.transaction() as conn:
        conn.execute(
            "INSERT INTO snapshots (commit_sha, source, source_version, mode, completeness, "
            "entity_count, edge_count, failed_entities, captured_at) "
            "VALUES (?, 'builtin', 'test', 'full', ?, 0, 0, '[]', ?)",
            (commit, completeness, captured_at))


def test_snapshot_rev_is_the_usable_snapshot_a_query_would_use(tmp_path: Path) -> None:
    repo = _repo(tmp_path, commits=3)
    _backfill(repo)
    head, parent, root = (str(repo.repo.revparse_single(r).id)
                          for r in ("HEAD", "HEAD~1", "HEAD~2"))
    _add_snapshot(repo, head, "SKIPPED", 300)  # captured nothing: never used
    assert _status(repo)["data"]["store"]["snapshot_rev"] is None
    _add_snapshot(repo, root, "FULL", 100)
    _add_snapshot(repo, parent, "DELTA", 200)
    assert _status(repo)["data"]["store"]["snapshot_rev"] == root  # most complete first
    _add_snapshot(repo, parent, "FULL", 150)
    assert _status(repo)["data"]["store"]["snapshot_rev"] == parent  # then nearest to HEAD


# -- the CLI ------------------------------------------------------------------------------

def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})


def test_cli_status_prints_json_and_text_without_creating_a_store(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    result = _cli("status", "--repo", str(repo.path), "--json")
    assert result.returncode == 0, result.stderr
    envelope = json.loads(result.stdout)
    assert_valid_envelope(envelope)
    assert envelope["data"]["store_status"] == "store_absent"
    text = _cli("status", "--repo", str(repo.path))
    assert text.returncode == 0
    assert "store_absent" in text.stdout
    assert "warpline backfill" in text.stdout
    assert not (repo.path / ".weft").exists()


def test_cli_status_on_a_non_repository_exits_1(tmp_path: Path) -> None:
    result = _cli("status", "--repo", str(tmp_path), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error_code"] == "invalid_repo"
    assert not (tmp_path / ".weft").exists()
