"""Migration 11 (change_nature) on a store written before it: old events keep an unknown
nature (null, and the answer says so), never a guess; events recorded after it have one."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.registry import call_tool

SRC = "def f(x):\n    # one\n    return x + 1\n"


def _changed(repo: FixtureRepo, rev_range: str) -> dict[str, Any]:
    env = call_tool("changed", {"repo": str(repo.path), "rev_range": rev_range})
    assert_valid_envelope(env)
    return env


def _as_version_10(db: Path) -> None:
    """The store as warpline wrote it before migration 11: its columns gone, its record
    and user_version back at 10."""
    conn = sqlite3.connect(str(db), isolation_level=None)
    try:
        conn.execute("DROP INDEX IF EXISTS change_events_facts_pending")
        for column in ("code_same", "docs_changed", "signature_changed", "facts_pending"):
            conn.execute(f"ALTER TABLE change_events DROP COLUMN {column}")
        conn.execute("DELETE FROM migrations WHERE version >= 11")
        conn.execute("PRAGMA user_version = 10")
    finally:
        conn.close()


def test_events_recorded_before_the_migration_have_an_unknown_nature(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"m.py": SRC}, "one")
    repo.commit({"m.py": SRC.replace("# one", "# uno")}, "comment")
    assert [i["nature"] for i in _changed(repo, "HEAD~1..HEAD")["data"]["items"]
            if i["entity"]["kind"] == "function"] == ["cosmetic"]
    db = repo.path / ".weft" / "warpline" / "warpline.db"
    _as_version_10(db)
    repo.commit({"m.py": SRC.replace("# one", "# eins")}, "another comment")
    env = _changed(repo, "HEAD~2..HEAD")
    natures = [(i["commit"], i["nature"]) for i in env["data"]["items"]
               if i["entity"]["kind"] == "function"]
    head = str(repo.repo.head.target)
    assert natures == [(head, "cosmetic"), (natures[1][0], None)]
    assert any("unknown nature" in w for w in env["warnings"])
    conn = sqlite3.connect(str(db))
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] >= 11
        assert conn.execute("SELECT count(*) FROM change_events WHERE code_same IS NULL "
                            "AND change_kind = 'modified'").fetchone()[0] >= 1
    finally:
        conn.close()
    skipped = call_tool("changed", {"repo": str(repo.path), "rev_range": "HEAD~2..HEAD",
                                    "skip_cosmetic": True})
    assert [i["commit"] for i in skipped["data"]["items"]
            if i["entity"]["kind"] == "function"] == [natures[1][0]]  # unknown stays
