"""Test maps travel with git (``warpline.service.admin.mapsync``, ``warpline.git.mapref``,
``warpline.testmap.wire``): CI records a whole-suite map and pushes it with the
repository's own remote; a developer's clone fetches it and selects map-first from the
nearest mapped ancestor. Real pytest runs with the plugin, a bare remote on the local file
system, real ``git clone``/``fetch``/``push``; what a remote holds is untrusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.dispatchproject import make_project, run_pytest
from tests.gitfixture import run_git
from warpline.git import mapref
from warpline.registry import call_tool
from warpline.store.db import Store
from warpline.store.testmaps import RecordedMap, maps, read_map, write_map
from warpline.testmap import wire


@pytest.fixture(autouse=True)
def _builtin_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_EDGE_SOURCES", "builtin")
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "30")


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_COLOR": "1", "WARPLINE_EDGE_SOURCES": "builtin",
                               "WARPLINE_INTERACTIVE_BUDGET_S": "30"},
                          stdin=subprocess.DEVNULL)


def _sync(cwd: Path, *args: str) -> dict[str, Any]:
    done = _cli(cwd, "sync", *args, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.fixture()
def mapped(tmp_path: Path) -> tuple[Path, Path]:
    """(bare remote, the CI clone that recorded a whole-suite map at the remote's tip)."""
    origin = tmp_path / "origin"
    make_project(origin)
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(origin), str(remote))
    ci = tmp_path / "ci"
    run_git(tmp_path, "clone", "-q", str(remote), str(ci))
    recorded = run_pytest(ci, "--warpline-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    return remote, ci


def test_a_map_recorded_in_ci_selects_on_a_developer_clone_after_sync(
        mapped: tuple[Path, Path], tmp_path: Path) -> None:
    remote, ci = mapped
    pushed = _sync(ci)
    assert pushed["maps"]["pushed"] == 1
    assert run_git(remote, "for-each-ref", mapref.MAP_REF).strip()

    dev = tmp_path / "dev"
    run_git(tmp_path, "clone", "-q", str(remote), str(dev))
    edit_greet(dev)

    before = call_tool("reverify", {"repo": str(dev), "rev_range": "HEAD~1..HEAD"})
    assert before["data"]["selection"]["basis"] in ("static", "none")

    fetched = _sync(dev, "--no-push")
    assert fetched["maps"]["imported"] == 1 and fetched["maps"]["skipped"] == []
    after = call_tool("reverify", {"repo": str(dev), "rev_range": "HEAD~1..HEAD"})
    selection = after["data"]["selection"]
    ci_head = run_git(ci, "rev-parse", "HEAD").strip()
    assert selection["basis"] == "map"
    assert selection["map_commit"] == ci_head and selection["map_commits_behind"] == 1
    # The map knows which tests run greet through the dispatcher (no static edge does).
    command = after["next_actions"]["commands"][0]["command"]
    assert "tests/test_dispatch.py::test_greet" in command, command
    assert "test_account" not in command, command

    again = _sync(dev, "--no-push")  # idempotent: the same map is not imported twice
    assert again["maps"]["imported"] == 0


def test_a_dirty_map_stays_local_and_a_partial_one_travels_flagged(
        mapped: tuple[Path, Path], tmp_path: Path) -> None:
    remote, ci = mapped
    with Store.open(ci) as store:
        row = maps(store)[0]
        whole = read_map(store, row)
        whole.partial = ["-k"]
        write_map(store, whole, now=row.recorded_at + 1)
        dirty = read_map(store, row)
        dirty.dirty_paths = ["app/views.py"]
        write_map(store, dirty, now=row.recorded_at + 2)
        with store.transaction() as conn:  # only the partial and the dirty one remain
            conn.execute("DELETE FROM test_map_hits WHERE map_id = ?", (row.id,))
            conn.execute("DELETE FROM test_map_entities WHERE map_id = ?", (row.id,))
            conn.execute("DELETE FROM test_map_tests WHERE map_id = ?", (row.id,))
            conn.execute("DELETE FROM test_maps WHERE id = ?", (row.id,))
    report = _sync(ci)
    assert report["maps"]["pushed"] == 1  # the partial one, not the dirty one
    dev = tmp_path / "dev"
    run_git(tmp_path, "clone", "-q", str(remote), str(dev))
    assert _sync(dev, "--no-push")["maps"]["imported"] == 1
    with Store.open(dev) as store:
        rows = maps(store)
    assert [(r.partial, r.dirty_paths, r.recorded_at) for r in rows] == [
        (["-k"], [], row.recorded_at + 1)]


def edit_greet(dev: Path) -> None:
    """A developer's commit changing ``greet`` (which only the map links to its test)."""
    run_git(dev, "config", "user.name", "Dev")
    run_git(dev, "config", "user.email", "dev@example.com")
    views = dev / "app" / "views.py"
    views.write_text(views.read_text().replace('return "hello " + who',
                                               'who = str(who)\n    return "hello " + who'))
    run_git(dev, "commit", "-qam", "greet: str")


def _plant(remote: Path, tmp_path: Path, blobs: dict[str, bytes]) -> None:
    """Put ``blobs`` (tree entry name -> bytes) under the remote's map ref, as a hostile
    remote could."""
    scratch = pygit2.init_repository(str(tmp_path / "scratch"), bare=True)
    builder = scratch.TreeBuilder()
    for name, data in blobs.items():
        builder.insert(name, scratch.create_blob(data), pygit2.enums.FileMode.BLOB)
    signature = pygit2.Signature("x", "x@example.com", 0, 0)
    oid = scratch.create_commit(None, signature, signature, "x", builder.write(), [])
    scratch.references.create(mapref.MAP_REF, oid, force=True)
    run_git(tmp_path / "scratch", "push", "-q", "--force", str(remote),
            f"{mapref.MAP_REF}:{mapref.MAP_REF}")


def test_hostile_maps_are_skipped_and_named_never_imported(
        mapped: tuple[Path, Path], tmp_path: Path) -> None:
    remote, ci = mapped
    head = run_git(ci, "rev-parse", "HEAD").strip()
    with Store.open(ci) as store:
        good = read_map(store, maps(store)[0])
    other = "0" * 40
    bomb = zlib.compress(b"[" * (wire.MAX_INFLATED + 10), 9)
    lying = wire.encode(good, 1)  # says HEAD, stored under another commit's name
    wrong_hit = json.loads(zlib.decompress(wire.encode(good, 1)))
    wrong_hit["hits"][0] = [10**9]
    blobs = {
        f"{'1' * 40}.zlib": bomb,
        f"{other}.zlib": lying,
        f"{'2' * 40}.zlib": zlib.compress(b"{not json"),
        f"{'3' * 40}.zlib": zlib.compress(json.dumps(wrong_hit).encode()),
        "README": b"hello",
        f"{head}.zlib": wire.encode(good, 7),
    }
    _plant(remote, tmp_path, blobs)
    dev = tmp_path / "dev"
    run_git(tmp_path, "clone", "-q", str(remote), str(dev))
    report = _sync(dev, "--no-push")["maps"]
    assert report["fetched"] == 5 and report["imported"] == 1
    assert len(report["skipped"]) == 5, report["skipped"]
    with Store.open(dev) as store:
        rows = maps(store)
    assert [(r.commit_sha, r.recorded_at) for r in rows] == [(head, 7)]


def test_the_ref_keeps_the_newest_maps_only(mapped: tuple[Path, Path]) -> None:
    remote, ci = mapped
    with Store.open(ci) as store:
        base = read_map(store, maps(store)[0])
    repo = pygit2.Repository(str(ci))
    history = [str(c.id) for c in repo.walk(repo.head.target)]
    assert len(history) >= 1
    # Maps of six distinct commits: the ref keeps the newest KEEP.
    shas = [history[0]] + [_extra_commit(ci, n) for n in range(5)]
    run_git(ci, "push", "-q", "origin", "HEAD:main")
    with Store.open(ci) as store:
        for n, sha in enumerate(shas):
            copy = RecordedMap(sha, base.source, base.tracer_version, base.rootdir,
                               tests=dict(base.tests), entity_paths=dict(base.entity_paths),
                               at_import=set(base.at_import), hits=dict(base.hits))
            write_map(store, copy, now=2_000_000_000 + n)  # newer than the recording
    _sync(ci)
    names = run_git(remote, "ls-tree", "--name-only", mapref.MAP_REF).split()
    assert sorted(names) == sorted(f"{sha}.zlib" for sha in shas[-4:])
    # No history: the ref is one parentless commit however often it is pushed.
    assert run_git(remote, "rev-list", "--count", mapref.MAP_REF).strip() == "1"


def _extra_commit(path: Path, n: int) -> str:
    (path / f"note{n}.txt").write_text(f"{n}\n")
    run_git(path, "add", f"note{n}.txt")
    run_git(path, "-c", "user.name=CI", "-c", "user.email=ci@example.com", "commit", "-qm",
            f"note {n}")
    return run_git(path, "rev-parse", "HEAD").strip()
