"""The store: created only in real repositories, migrated once, safe under concurrency."""

from __future__ import annotations

import multiprocessing
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from warpline.errors import InvalidRepo, StoreIncompatible, WarplineError
from warpline.registry import call_tool
from warpline.store.db import Store, store_path
from warpline.store.migrations import MIGRATIONS, SCHEMA_VERSION

MODULE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"


def _repo(tmp_path: Path) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/mod.py": MODULE}, message="first")
    return repo


def test_store_is_created_in_wal_mode_at_the_current_schema(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with Store.open(repo.path) as store:
        assert store.schema_version() == SCHEMA_VERSION
        mode = store.conn.execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"
        recorded = [r[0] for r in store.conn.execute("SELECT version FROM migrations")]
        assert recorded == [m.version for m in MIGRATIONS]
    assert store_path(repo.path).is_file()


def test_store_directory_ignores_itself_so_the_worktree_stays_clean(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    Store.open(repo.path).close()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo.path,
                            capture_output=True, text=True, check=True).stdout
    assert status == ""


def test_reopening_a_migrated_store_applies_nothing_again(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    Store.open(repo.path).close()
    with Store.open(repo.path) as store:
        count = store.conn.execute("SELECT count(*) FROM migrations").fetchone()[0]
    assert count == len(MIGRATIONS)


def test_a_store_from_a_newer_schema_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    Store.open(repo.path).close()
    conn = sqlite3.connect(store_path(repo.path))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreIncompatible) as err:
        Store.open(repo.path)
    assert err.value.code == "store_incompatible"


@pytest.mark.parametrize("kind", ["missing", "plain_dir", "file"])
def test_invalid_repo_leaves_nothing_behind(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "target"
    if kind == "plain_dir":
        target.mkdir()
    elif kind == "file":
        target.write_text("not a repo")
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(InvalidRepo) as err:
        call_tool("changed", {"repo": str(target)})
    assert err.value.code == "invalid_repo"
    assert err.value.field == "repo"
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    if kind == "plain_dir":
        assert list(target.iterdir()) == []


def test_identity_survives_moving_the_repository(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    repo.commit({"pkg/mod.py": MODULE.replace("return 2", "return 3")}, message="edit b")
    first = call_tool("changed", {"repo": str(repo.path)})
    moved = tmp_path / "moved"
    shutil.move(str(repo.path), moved)
    second = call_tool("changed", {"repo": str(moved)})
    strip = [(i["change_id"], i["entity"]["locator"], i["commit"]) for i in first["data"]["items"]]
    again = [(i["change_id"], i["entity"]["locator"], i["commit"])
             for i in second["data"]["items"]]
    assert strip == again
    with Store.open(moved) as store:  # nothing was re-ingested under a new identity
        assert store.conn.execute("SELECT count(*) FROM commits").fetchone()[0] == 2


def test_concurrent_backfills_converge_on_one_row_per_commit(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    for n in range(40):
        repo.commit({f"pkg/m{n % 5}.py": f"def f{n}():\n    return {n}\n"}, message=f"c{n}")
    cmd = [sys.executable, "-m", "warpline.cli", "backfill", "--repo", str(repo.path), "--json"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(3)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    # Row uniqueness is the schema's (UNIQUE constraints); what can go wrong is content:
    # the three racing writers must leave exactly what one clean run leaves.
    clean = tmp_path / "clean"
    shutil.copytree(repo.path, clean, ignore=shutil.ignore_patterns(".weft"))
    single = subprocess.run([*cmd[:-2], str(clean)], capture_output=True, timeout=120)
    assert single.returncode == 0, single.stderr.decode()
    assert _events(repo.path) == _events(clean)
    with Store.open(repo.path) as store:
        assert store.conn.execute("SELECT count(*) FROM commits").fetchone()[0] == 40


def _events(root: Path) -> list[tuple[str, str, str]]:
    with Store.open(root) as store:
        return sorted(store.conn.execute(
            "SELECT c.sha, e.locator, ce.change_kind FROM change_events ce "
            "JOIN commits c ON c.id = ce.commit_id JOIN entities e ON e.id = ce.entity_id"))


def test_the_foreign_file_check_accepts_a_store_another_opener_just_migrated(
        tmp_path: Path) -> None:
    # The race it closes: an opener reads user_version 0, another process migrates and
    # commits, then the first looks at the tables. It now reads both in one snapshot; here
    # the check runs on a connection that saw version 0 before the other process migrated.
    repo = _repo(tmp_path)
    path = store_path(repo.path)
    path.parent.mkdir(parents=True)
    sqlite3.connect(path).close()  # the brand-new empty file both openers see
    late = Store(sqlite3.connect(str(path), isolation_level=None), path, root=repo.path)
    try:
        assert late.schema_version() == 0
        with Store.open(repo.path) as first:  # the other opener wins the race
            assert first.schema_version() == SCHEMA_VERSION
        late._refuse_foreign()  # version and tables read together: a warpline store
    finally:
        late.close()


def test_many_processes_opening_a_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    script = ("import sys; from pathlib import Path; from warpline.store.db import Store\n"
              "with Store.open(Path(sys.argv[1])) as s: print(s.schema_version())\n")
    for round_ in range(4):
        repo = FixtureRepo(tmp_path / f"r{round_}")
        repo.commit({"pkg/mod.py": MODULE}, message="first")
        procs = [subprocess.Popen([sys.executable, "-c", script, str(repo.path)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(6)]
        outcomes = [proc.communicate(timeout=120) for proc in procs]
        results = [(p.returncode, out.strip())
                   for p, (out, _) in zip(procs, outcomes, strict=True)]
        assert results == [(0, str(SCHEMA_VERSION))] * 6, [err for _, err in outcomes]


def _open_at_the_barrier(repo_root: str, barrier: Any, results: Any) -> None:
    barrier.wait()
    try:
        with Store.open(Path(repo_root)) as store:
            results.put(("ok", store.schema_version()))
    except WarplineError as exc:
        results.put((exc.code, str(exc.__cause__)))


def test_openers_released_together_on_a_new_store_all_succeed(tmp_path: Path) -> None:
    """Six forked processes released by one barrier, 40 new stores: switching a new file
    to WAL mode returned SQLITE_BUSY to about one opener in a hundred before it was
    retried (the busy timeout does not cover it)."""
    context: Any = multiprocessing.get_context("fork")
    template = _repo(tmp_path)
    for round_ in range(40):
        copy = tmp_path / f"r{round_}"
        shutil.copytree(template.path, copy)
        barrier, results = context.Barrier(6), context.Queue()
        procs = [context.Process(target=_open_at_the_barrier, args=(str(copy), barrier, results))
                 for _ in range(6)]
        for proc in procs:
            proc.start()
        outcomes = [results.get(timeout=120) for _ in procs]
        for proc in procs:
            proc.join(timeout=120)
        assert outcomes == [("ok", SCHEMA_VERSION)] * 6, (round_, outcomes)
        shutil.rmtree(copy)


def _count_opens(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Spies on the guard and on every SQLite connection a store makes (the real ones
    still run)."""
    from warpline.store import guard

    counts = {"guard": 0, "connections": 0}
    check, connect = guard.check_state, sqlite3.connect

    def checked(*args: Any, **kwargs: Any) -> Any:
        counts["guard"] += 1
        return check(*args, **kwargs)

    def connected(*args: Any, **kwargs: Any) -> Any:
        counts["connections"] += 1
        return connect(*args, **kwargs)

    monkeypatch.setattr(guard, "check_state", checked)
    monkeypatch.setattr(sqlite3, "connect", connected)
    return counts


def test_ingest_commit_opens_the_store_once(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from warpline.cli import main

    repo = _repo(tmp_path)
    Store.open(repo.path).close()  # the store exists, at the served schema
    repo.commit({"pkg/mod.py": MODULE + "\n\ndef c():\n    return 3\n"}, message="c")
    counts = _count_opens(monkeypatch)
    assert main(["ingest-commit", "HEAD", "--repo", str(repo.path), "--json"]) == 0
    assert counts == {"guard": 1, "connections": 1}


def test_a_read_checks_the_state_directory_once_even_when_it_creates_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from warpline.service.shared.context import open_context

    repo = _repo(tmp_path)
    counts = _count_opens(monkeypatch)
    with open_context(str(repo.path)) as ctx:
        assert not ctx.store.read_only  # created, migrated: writable
    assert counts == {"guard": 1, "connections": 1}
    with open_context(str(repo.path)) as ctx:
        assert ctx.store.read_only  # it exists at the served schema: read-only
    assert counts == {"guard": 2, "connections": 2}
