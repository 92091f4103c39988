"""The store's failures, each in its own class of the closed error vocabulary, through one
real ``warpline-mcp`` process per test (and the real CLI), on a real repository and store
(``warpline.store.db``: ``translate``, the integrity check, one snapshot per commit)."""

from __future__ import annotations

import json
import os
import sqlite3
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
from warpline.cli.smoke import McpProcess
from warpline.store.db import store_path

SERVER = [sys.executable, "-m", "warpline.mcp"]


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
        for number in range(2, pages + 1):
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
