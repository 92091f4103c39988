"""The store's files under attack: a foreign or empty store file refused by EVERY tool, the
ingest lock as a committed link, and a write-ahead log removed under a live reader. Real
repositories, stores and processes in temp dirs."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from tests.hookrepo import GitRepo
from warpline.errors import StoreUnsafe
from warpline.mcp.client import McpProcess, initialize
from warpline.store.db import store_path

SERVER = [sys.executable, "-m", "warpline.mcp"]
LOCATOR = "python:function:pkg.mod.f"


def _all_tools(repo: str) -> list[tuple[str, dict[str, Any]]]:
    return [("changed", {"repo": repo, "rev_range": "HEAD~1..HEAD"}),
            ("timeline", {"repo": repo, "entity": LOCATOR}),
            ("churn", {"repo": repo, "entity_refs": [LOCATOR]}),
            ("blast_radius", {"repo": repo, "rev_range": "HEAD~1..HEAD"}),
            ("reverify", {"repo": repo, "rev_range": "HEAD~1..HEAD"}),
            ("capture_snapshot", {"repo": repo}),
            ("verify_record", {"repo": repo, "commit": "HEAD", "kind": "test_pass"}),
            ("project_status", {"repo": repo})]


def _repo(tmp_path: Path) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/mod.py": "def f():\n    return 1\n"}, "add f")
    repo.commit({"pkg/mod.py": "def f():\n    return 2\n"}, "change f")
    return repo


def _code(reply: dict[str, Any]) -> str | None:
    if "error" in reply:
        return str(reply["error"]["data"]["error_code"])
    return None


@pytest.mark.parametrize("content", ["empty", "foreign"])
def test_every_tool_refuses_a_foreign_or_empty_store_file_untouched(
        tmp_path: Path, content: str) -> None:
    repo = _repo(tmp_path)
    path = store_path(repo.path)
    path.parent.mkdir(parents=True)
    if content == "foreign":
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE notes (body TEXT)")
            conn.execute("INSERT INTO notes VALUES ('keep me')")
    else:
        path.write_bytes(b"")
        old = time.time() - 3600
        os.utime(path, (old, old))
    before = path.read_bytes()
    with McpProcess(SERVER, cwd=tmp_path, timeout=120) as server:
        initialize(server)
        for tool, arguments in _all_tools(str(repo.path)):
            reply = server.request("tools/call", {"name": tool, "arguments": arguments})
            if tool == "project_status":
                data = json.loads(reply["result"]["content"][0]["text"])["data"]
                assert data["store_status"] == "store_unreadable", data
            else:
                assert _code(reply) == "store_unreadable", (tool, reply)
            assert path.read_bytes() == before, tool
        assert "result" in server.request("ping")
    # No WAL sidecars: nothing was written into the file (the ignore rule is ours).
    assert {p.name for p in path.parent.iterdir()} <= {"warpline.db", ".gitignore"}


def test_a_committed_lock_link_is_never_followed(tmp_path: Path) -> None:
    """S2, the lock file: committed (tracked, so ignored) and then left untracked in the
    work tree (refused). The hook's lock never creates the link's target."""
    from warpline.ingest.lock import LOCK_NAME, exclusive

    target = tmp_path / "evil-lock"
    upstream = GitRepo(tmp_path / "upstream", tmp_path / "home")
    upstream.commit({"app/core.py": "def alpha():\n    return 1\n"}, "one")
    link = upstream.path / ".weft" / "warpline" / LOCK_NAME
    link.parent.mkdir(parents=True)
    os.symlink(target, link)
    upstream.git("add", "-f", f".weft/warpline/{LOCK_NAME}")
    upstream.git("commit", "-q", "-m", "lock link")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(upstream.path), str(clone)], check=True,
                   timeout=120, env=upstream.env())
    with exclusive(clone, 0) as locked:  # tracked: this clone's state lives in .git/warpline
        assert locked
    assert not target.exists()
    subprocess.run(["git", "-C", str(clone), "rm", "-q", "--cached",
                    f".weft/warpline/{LOCK_NAME}"], check=True, timeout=60)
    assert (clone / ".weft" / "warpline" / LOCK_NAME).is_symlink()
    with pytest.raises(StoreUnsafe) as refused, exclusive(clone, 0):
        pass
    assert refused.value.code == "store_unsafe"
    assert not target.exists()


def test_a_removed_wal_gets_closed_answers_and_history_is_rebuilt(tmp_path: Path) -> None:
    """``-wal``/``-shm`` deleted while a reader pins committed frames in the log: every
    call answers with a closed code (never ``internal_error``), and the commits that were
    only in the removed log are ingested again from git."""
    repo = _repo(tmp_path)
    with McpProcess(SERVER, cwd=tmp_path, timeout=120) as server:
        initialize(server)
        tools = _all_tools(str(repo.path))
        assert "result" in server.request("tools/call", {"name": "changed",
                                                         "arguments": tools[0][1]})
        newest = repo.commit({"pkg/mod.py": "def f():\n    return 3\n"}, "only in the log")
        db = store_path(repo.path)
        holder = sqlite3.connect(db, isolation_level=None)
        try:
            holder.execute("BEGIN")
            holder.execute("SELECT count(*) FROM commits").fetchone()
            first = server.request("tools/call", {"name": "changed", "arguments": tools[0][1]})
            assert "result" in first, first
            for name in ("warpline.db-wal", "warpline.db-shm"):
                (db.parent / name).unlink()
            for tool, arguments in tools:
                reply = server.request("tools/call", {"name": tool, "arguments": arguments})
                assert _code(reply) in (None, "store_unwritable", "store_unreadable"), reply
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        again = server.request("tools/call", {"name": "changed", "arguments": tools[0][1]})
        envelope = json.loads(again["result"]["content"][0]["text"])
        assert envelope["data"]["ingest"]["complete"] is True
        assert newest in {item["commit"] for item in envelope["data"]["items"]}
        assert "result" in server.request("ping")
