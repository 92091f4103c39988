"""``warpline session-context``: one line, always exit 0, never writes."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path

from tests.gitfixture import FixtureRepo
from tests.hookrepo import cli
from warpline.store.db import store_path

SRC = "def alpha():\n    return 1\n"


def _context(*args: str, cwd: Path | None = None) -> tuple[str, dict[str, object]]:
    text = cli("session-context", *args, cwd=cwd)
    assert text.returncode == 0, text.stderr
    assert len(text.stdout.splitlines()) == 1, text.stdout
    as_json = cli("session-context", *args, "--json", cwd=cwd)
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert data["line"] == text.stdout.strip()
    return text.stdout.strip(), data


def _repo(tmp_path: Path, commits: int = 2) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    for n in range(commits):
        repo.commit({"app/core.py": SRC.replace("1", str(n))}, message=f"c{n}")
    return repo


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_outside_a_repository_it_says_so_and_exits_0(tmp_path: Path) -> None:
    line, data = _context("--repo", str(tmp_path))
    assert "is not a git work tree" in line
    assert data["in_repo"] is False and data["next"] is None
    assert not (tmp_path / ".weft").exists()


def test_the_repo_defaults_to_the_current_directory(tmp_path: Path) -> None:
    line, data = _context(cwd=tmp_path)
    assert data["in_repo"] is False and "not a git work tree" in line


def test_a_repository_without_a_store_is_told_to_install_and_nothing_is_created(
        tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    line, data = _context("--repo", str(repo.path))
    assert "no history recorded yet" in line
    assert data["next"] == {"command": f"warpline install --repo {repo.path}",
                            "why": "wires the hooks and the MCP server and records the history"}
    assert not (repo.path / ".weft").exists()


def test_after_install_it_counts_events_and_asks_for_a_snapshot(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert cli("install", "--repo", str(repo.path), "--no-backfill", "--config").returncode == 0
    assert cli("backfill", "--repo", str(repo.path)).returncode == 0
    line, data = _context("--repo", str(repo.path))
    assert "change events tracked, up to date with HEAD" in line
    assert "no dependency-graph snapshot" in line
    assert "Next: warpline capture-snapshot" in line
    assert data["store"]["commits_behind_head"] == 0  # type: ignore[index]


def test_a_store_behind_head_names_the_backfill(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert cli("backfill", "--repo", str(repo.path)).returncode == 0
    repo.commit({"app/core.py": SRC.replace("1", "9")}, message="late")
    repo.commit({"app/core.py": SRC.replace("1", "10")}, message="later")
    line, data = _context("--repo", str(repo.path))
    assert "2 commits behind HEAD" in line
    assert data["next"]["command"].startswith("warpline backfill")  # type: ignore[index]


def test_it_reports_the_snapshot_source_and_freshness(tmp_path: Path) -> None:
    repo = _repo(tmp_path, commits=3)
    assert cli("install", "--repo", str(repo.path), "--config").returncode == 0
    head = repo.head
    assert head is not None
    with sqlite3.connect(store_path(repo.path)) as conn:
        conn.execute(
            "INSERT INTO snapshots (commit_sha, source, source_version, mode, completeness,"
            " entity_count, edge_count, failed_entities, captured_at) VALUES "
            "(?, 'builtin', 'builtin-0.1.0', 'full', 'FULL', 3, 2, '[]', ?)",
            (head, int(time.time()) - 7200))
        # It holds the repository's code (python): nothing is unknown (issue 34).
        conn.execute("INSERT INTO snapshot_entities (snapshot_id, locator, kind, path) "
                     "SELECT max(id), 'python:function:app.core.alpha', 'function', "
                     "'app/core.py' FROM snapshots")
    line, data = _context("--repo", str(repo.path))
    assert "graph: builtin FULL snapshot of" in line and "at HEAD, captured 2 h ago" in line
    assert line.endswith("Nothing missing.")
    repo.commit({"app/core.py": SRC.replace("1", "7")}, message="after the snapshot")
    assert cli("backfill", "--repo", str(repo.path)).returncode == 0
    line, data = _context("--repo", str(repo.path))
    assert "1 commit behind HEAD" in line
    assert data["snapshot"]["commits_behind_head"] == 1  # type: ignore[index]


def test_it_never_writes_the_store(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert cli("backfill", "--repo", str(repo.path)).returncode == 0
    repo.commit({"app/core.py": SRC.replace("1", "5")}, message="new")
    before = _digest(store_path(repo.path))
    _context("--repo", str(repo.path))
    assert _digest(store_path(repo.path)) == before


def test_a_corrupt_store_still_gets_one_line_and_the_doctor(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    path = store_path(repo.path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a sqlite database" * 100)
    line, data = _context("--repo", str(repo.path))
    assert "cannot be read" in line
    assert data["next"]["command"].startswith("warpline doctor --fix")  # type: ignore[index]
