"""Resource bounds (``warpline.git.filecaps``): a FIFO or a huge file in the work tree, a
huge or definition-stuffed Python file in history. Each is a real repository (real ``git``), a
real store and, for the work tree, one real ``warpline-mcp`` process."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.hookrepo import GitRepo, cli
from warpline.cli.smoke import McpProcess
from warpline.git.filecaps import MAX_ENTITIES, MAX_PARSE_BYTES
from warpline.graph.builtin import capture_builtin
from warpline.lang.pyentities import parse_entities
from warpline.store.db import store_path

SERVER = [sys.executable, "-m", "warpline.mcp"]
# Valid Python just past the byte cap: one long module-level string.
HUGE_PY = b"x = '" + b"a" * MAX_PARSE_BYTES + b"'\n"
CROWDED_PY = "".join(f"def f{i}():\n    pass\n" for i in range(MAX_ENTITIES + 1))


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    git_repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    git_repo.commit({"pkg/mod.py": "def f():\n    return 1\n"}, "one")
    git_repo.commit({"pkg/mod.py": "def f():\n    return 2\n"}, "two")
    return git_repo


@pytest.fixture
def server(tmp_path: Path) -> Iterator[McpProcess]:
    with McpProcess(SERVER, cwd=tmp_path, timeout=90) as proc:
        yield proc


def _worktree_items(server: McpProcess, repo: GitRepo) -> list[dict[str, Any]]:
    server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "changed", "arguments": {
                     "repo": str(repo.path), "rev_range": "HEAD..HEAD",
                     "include_worktree": True}}})
    reply = server.read_message()  # TimeoutError (a failure) if the server hangs
    assert "result" in reply, reply
    items: list[dict[str, Any]] = json.loads(reply["result"]["content"][0]["text"])["data"]["items"]
    return items


def _by_path(items: list[dict[str, Any]]) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for item in items:
        kinds.setdefault(item["entity"]["path"], set()).add(item["entity"]["kind"])
    return kinds


def test_a_fifo_in_the_work_tree_never_blocks_the_server(server: McpProcess,
                                                         repo: GitRepo) -> None:
    """Untracked FIFOs git status does not list; a tracked file replaced by a FIFO it does,
    and opening that one would block the server for good."""
    os.mkfifo(repo.path / "pipe.py")
    (repo.path / "pkg" / "mod.py").unlink()
    os.mkfifo(repo.path / "pkg" / "mod.py")
    kinds = _by_path(_worktree_items(server, repo))
    assert kinds["pkg/mod.py"] == {"file"}  # changed, content unknowable: the file event
    server.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert server.read_message()["result"] == {}


def test_huge_work_tree_files_are_file_events_and_unchanged_ones_stay_quiet(
        server: McpProcess, repo: GitRepo) -> None:
    (repo.path / "huge.py").write_bytes(HUGE_PY)
    (repo.path / "blob.bin").write_bytes(os.urandom(1024) * 8 * 1024)  # 8 MiB, not Python
    repo.commit({"tracked.bin": "same bytes\n" * 1000}, "a tracked data file")
    kinds = _by_path(_worktree_items(server, repo))
    assert kinds["huge.py"] == {"file"}  # past the parse cap: no entities, no parse
    assert kinds["blob.bin"] == {"file"}
    assert "tracked.bin" not in kinds  # hashed, equal to HEAD's blob: no event
    (repo.path / "tracked.bin").write_text("other bytes\n")
    assert "tracked.bin" in _by_path(_worktree_items(server, repo))


def _unparsed(root: Path, sha: str) -> list[str]:
    with sqlite3.connect(f"file:{store_path(root)}?mode=ro", uri=True) as conn:
        row = conn.execute("SELECT unparsed_files FROM commits WHERE sha = ?", (sha,)).fetchone()
    assert row is not None
    return list(json.loads(row[0]))


def _kinds_in(root: Path, sha: str) -> dict[str, set[str]]:
    with sqlite3.connect(f"file:{store_path(root)}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT ce.path, e.kind FROM change_events ce JOIN entities e ON e.id = ce.entity_id "
            "JOIN commits c ON c.id = ce.commit_id WHERE c.sha = ?", (sha,)).fetchall()
    kinds: dict[str, set[str]] = {}
    for path, kind in rows:
        kinds.setdefault(str(path), set()).add(str(kind))
    return kinds


def test_a_huge_or_crowded_python_file_in_history_falls_back_to_its_file_event(
        repo: GitRepo) -> None:
    (repo.path / "gen").mkdir()
    (repo.path / "gen" / "table.py").write_bytes(HUGE_PY)
    repo.git("add", "gen/table.py")
    repo.git("commit", "-q", "-m", "a generated table")
    huge = repo.head()
    crowded = repo.commit({"gen/many.py": CROWDED_PY}, "twenty thousand defs")
    edited = repo.commit({"gen/many.py": CROWDED_PY + "def g():\n    pass\n"}, "one more")
    done = cli("backfill", "--repo", str(repo.path), "--json", env=repo.env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert _unparsed(repo.path, huge) == ["gen/table.py"]
    assert _kinds_in(repo.path, huge)["gen/table.py"] == {"file"}
    for sha in (crowded, edited):  # a whole parse and an incremental one, both capped
        assert _unparsed(repo.path, sha) == ["gen/many.py"]
        assert _kinds_in(repo.path, sha)["gen/many.py"] == {"file"}


def test_the_entity_cap_is_exact() -> None:
    just_fits = "".join(f"def f{i}():\n    pass\n" for i in range(MAX_ENTITIES))
    assert parse_entities(just_fits.encode()) is not None
    assert parse_entities(CROWDED_PY.encode()) is None


def test_a_snapshot_reports_a_huge_module_as_failed_too_large(repo: GitRepo) -> None:
    (repo.path / "table.py").write_bytes(HUGE_PY)
    repo.git("add", "table.py")
    repo.git("commit", "-q", "-m", "a generated table")
    handle = pygit2.Repository(str(repo.path))
    capture = capture_builtin(handle, handle.head.peel(pygit2.Commit))
    assert ("python:module:table", "too_large") in capture.failed_entities
