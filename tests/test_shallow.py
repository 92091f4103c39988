"""Shallow clones (real ``git clone --depth 1`` and ``--depth 20``): the boundary is not a
root, every answer says the history is partial, rev ranges past the boundary name the cause,
and ``git fetch --deepen`` / ``--unshallow`` backfills the gap with the facts a full clone
has."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo, run_git
from warpline.errors import WarplineError
from warpline.ingest.pipeline import MIN_COMMITS
from warpline.registry import call_tool
from warpline.store.db import store_path

COMMITS = 30


def _module(n: int) -> str:
    funcs = [f"def f{k}():\n    return {n if k == n % 5 else 0}\n" for k in range(5)]
    funcs += [f"def g{k}():\n    return {k}\n" for k in range(n + 1)]
    return "\n\n".join(funcs)



@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = FixtureRepo(tmp_path_factory.mktemp("shallow") / "origin")
    for n in range(COMMITS):
        repo.commit({"pkg/mod.py": _module(n), "pkg/__init__.py": ""}, message=f"c{n}",
                    author=("Early", "early@example.com") if n < 25 else
                    ("Last", "last@example.com"))
    return repo.path


def _clone(origin: Path, dest: Path, *depth: str) -> Path:
    run_git(dest.parent, "clone", "-q", *depth, f"file://{origin}", str(dest))
    run_git(dest, "config", "user.name", "CI")
    run_git(dest, "config", "user.email", "ci@example.com")
    return dest


def _events(root: Path) -> set[tuple[str, str, str]]:
    with sqlite3.connect(store_path(root)) as conn:
        rows = conn.execute(
            "SELECT c.sha, e.locator, ce.change_kind FROM change_events ce "
            "JOIN commits c ON c.id = ce.commit_id JOIN entities e ON e.id = ce.entity_id")
        return {(str(a), str(b), str(c)) for a, b, c in rows}


def _changed(root: Path, **args: Any) -> dict[str, Any]:
    env = call_tool("changed", {"repo": str(root), "limit": 500, **args})
    assert_valid_envelope(env)
    return env


def test_depth_1_adds_nothing_at_the_boundary_and_says_the_history_is_partial(
        origin: Path, tmp_path: Path) -> None:
    clone = _clone(origin, tmp_path / "d1", "--depth", "1")
    env = _changed(clone)
    assert env["data"]["items"] == []  # not 30+ entities "added" by the last committer
    ingest = env["data"]["ingest"]
    assert (ingest["shallow"], ingest["complete"]) == (True, False)
    assert ingest["shallow_boundary"] == [run_git(clone, "rev-parse", "HEAD").strip()]
    assert any("--unshallow" in w for w in env["warnings"])
    timeline = call_tool("timeline", {"repo": str(clone), "entity": "pkg.mod.f0"})
    assert timeline["data"]["ingest"]["complete"] is False
    churn = call_tool("churn", {"repo": str(clone), "entity_refs": ["pkg.mod.f0"]})
    assert churn["data"]["ingest"]["shallow"] is True


def test_depth_1_still_records_verifications_and_reverifies_the_work_tree(
        origin: Path, tmp_path: Path) -> None:
    clone = _clone(origin, tmp_path / "d1", "--depth", "1")
    recorded = call_tool("verify_record", {"repo": str(clone), "commit": "HEAD",
                                           "kind": "test_pass"})
    assert recorded["data"]["idempotency"] == "recorded"
    (clone / "pkg" / "mod.py").write_text(_module(COMMITS - 1).replace("return 3", "return 7"))
    env = call_tool("reverify", {"repo": str(clone), "include_worktree": True})
    assert_valid_envelope(env)
    assert "python:function:pkg.mod.g3" in {i["entity"]["locator"] for i in env["data"]["items"]}
    assert env["data"]["ingest"]["complete"] is False


def test_a_range_past_the_boundary_names_the_shallow_clone(origin: Path, tmp_path: Path) -> None:
    clone = _clone(origin, tmp_path / "d1", "--depth", "1")
    with pytest.raises(WarplineError) as caught:
        call_tool("changed", {"repo": str(clone), "rev_range": "HEAD~1..HEAD"})
    assert (caught.value.code, caught.value.field) == ("invalid_rev_range", "rev_range")
    assert caught.value.details["shallow"] is True
    done = subprocess.run([sys.executable, "-m", "warpline.cli", "changed", "HEAD~1..HEAD"],
                          cwd=clone, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 1
    assert "fetch-depth: 0" in done.stderr and "--unshallow" in done.stderr


def test_depth_20_answers_inside_the_window_like_a_full_clone(
        origin: Path, tmp_path: Path) -> None:
    full = _clone(origin, tmp_path / "full")
    clone = _clone(origin, tmp_path / "d20", "--depth", "20")
    inside = _changed(clone, rev_range="HEAD~5..HEAD")
    reference = _changed(full, rev_range="HEAD~5..HEAD")
    _changed(clone)
    key = [(i["commit"], i["entity"]["locator"], i["change_kind"])
           for i in inside["data"]["items"]]
    assert key == [(i["commit"], i["entity"]["locator"], i["change_kind"])
                   for i in reference["data"]["items"]]
    assert key
    assert inside["data"]["ingest"]["shallow"] is True
    # The boundary (the 20th commit back) carries no facts; everything after it is exact.
    edge = run_git(clone, "rev-parse", "HEAD~19").strip()
    assert not {e for e in _events(clone) if e[0] == edge}
    assert _events(clone) == {e for e in _events(full) if e[0] != edge and e[0] in
                              set(run_git(clone, "rev-list", "HEAD").split())}
    worklist = call_tool("reverify", {"repo": str(clone), "rev_range": "HEAD~1..HEAD"})
    assert_valid_envelope(worklist)
    assert worklist["data"]["items"]
    with pytest.raises(WarplineError) as caught:
        call_tool("changed", {"repo": str(clone), "rev_range": "HEAD~25..HEAD"})
    assert caught.value.details.get("shallow") is True


def _status(root: Path) -> dict[str, Any]:
    env = call_tool("project_status", {"repo": str(root)})
    assert_valid_envelope(env)
    return env


def test_deepen_and_unshallow_backfill_the_gap_and_replace_the_placeholder(
        origin: Path, tmp_path: Path) -> None:
    full = _clone(origin, tmp_path / "full")
    _changed(full)
    clone = _clone(origin, tmp_path / "d20", "--depth", "20")
    _changed(clone)
    assert _status(clone)["data"]["shallow"] is True
    old_edge = run_git(clone, "rev-parse", "HEAD~19").strip()

    run_git(clone, "fetch", "-q", "--deepen=5")
    deepened = _status(clone)
    assert deepened["data"]["store"]["commits_behind_head"] == 6  # 5 new + old edge
    # The walk reached the new boundary, whose parents are missing by design, not damage.
    assert not any("fsck" in c["command"]
                   for c in deepened["next_actions"].get("commands", []))
    after = _changed(clone)
    # 4 fetched commits and the old boundary, now with its parent; the new boundary is a
    # placeholder (no events), not an ingested commit.
    assert after["data"]["ingest"]["ingested_now"] == 5
    shas = set(run_git(clone, "rev-list", "HEAD").split())
    new_edge = run_git(clone, "rev-parse", "HEAD~24").strip()
    expected = {e for e in _events(full) if e[0] in shas and e[0] != new_edge}
    assert _events(clone) == expected
    assert {e for e in _events(clone) if e[0] == old_edge}  # real facts now, not "added" all
    assert all(kind != "added" or "g" in loc.rsplit(".", 1)[-1]
               for sha, loc, kind in _events(clone) if sha == old_edge)

    run_git(clone, "fetch", "-q", "--unshallow")
    final = _changed(clone)
    assert (final["data"]["ingest"]["shallow"], final["data"]["ingest"]["complete"]) == (
        False, True)
    assert _events(clone) == _events(full)
    assert _status(clone)["data"]["store"]["commits_behind_head"] == 0


def test_status_doctor_and_session_context_show_a_shallow_clone(
        origin: Path, tmp_path: Path) -> None:
    clone = _clone(origin, tmp_path / "d1", "--depth", "1")
    _changed(clone)
    status = _status(clone)
    assert status["data"]["shallow"] is True
    assert any("--unshallow" in w for w in status["warnings"])
    doctor = subprocess.run([sys.executable, "-m", "warpline.cli", "doctor", "--json"],
                            cwd=clone, capture_output=True, text=True, timeout=120)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["history"]["status"] == "warn"
    from warpline.setup.session import session_context

    assert "shallow clone" in session_context(str(clone))["line"]


def test_a_long_shallow_backfill_in_workers_stops_at_the_boundary(tmp_path: Path) -> None:
    """Past ``MIN_COMMITS`` the backfill forks workers and, before forking, releases
    libgit2's caches. ``Repository.free()`` also drops the clone's shallow grafts (libgit2
    does not reload ``.git/shallow`` afterwards), and the walks after it crossed the
    boundary into commits the clone does not have: ``internal_error`` on every shallow
    clone deep enough for workers. The same facts as an in-process backfill, both with the
    boundary empty."""
    long_origin = FixtureRepo(tmp_path / "origin")
    for n in range(MIN_COMMITS + 40):
        long_origin.commit({"pkg/mod.py": _module(n % 60), "pkg/__init__.py": ""},
                           message=f"c{n}")
    depth = MIN_COMMITS + 20
    done: dict[str, set[tuple[str, str, str]]] = {}
    for workers in ("2", "0"):
        clone = _clone(long_origin.path, tmp_path / f"w{workers}", "--depth", str(depth))
        ran = subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                              str(clone)], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "WARPLINE_INGEST_WORKERS": workers})
        assert ran.returncode == 0, ran.stderr
        done[workers] = _events(clone)
        edge = run_git(clone, "rev-parse", f"HEAD~{depth - 1}").strip()
        assert not {e for e in done[workers] if e[0] == edge}
        assert _status(clone)["data"]["store"]["commits_behind_head"] == 0
    assert done["2"] == done["0"]
    assert len({e[0] for e in done["0"]}) == depth - 1
