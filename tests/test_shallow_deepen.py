"""A deepened shallow clone keeps its history (issue 38 item 1): after ``git fetch
--deepen`` or ``--unshallow`` the same HEAD reaches more commits, and every one of them is
flagged reachable, placed in history order and put in the lineage a full clone gives it.
Before, the fetched commits were stored unreachable (HEAD had not moved, so the flags were
not recomputed): a timeline gave 0 items with ``complete: true``."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo, run_git
from warpline.registry import call_tool
from warpline.store.db import store_path

COMMITS = 24


def _body(n: int, name: str) -> str:
    factor = 7 % 3 + 2 if n == 8 else n % 3 + 2  # c8 renames without editing the body
    return (f"def {name}(value):\n    total = value * {factor}\n"
            "    return total + 1\n\n\n"
            f"def helper_{n % 4}():\n    return {n}\n")


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A history with a rename (c8) and a move into ``src/`` (c14): what a deepened clone
    must place in the right lineage."""
    repo = FixtureRepo(tmp_path_factory.mktemp("deepen") / "origin")
    for n in range(COMMITS):
        name = "scale" if n < 8 else "rescale"
        path = "pkg/mod.py" if n < 14 else "src/pkg/mod.py"
        renames = {"pkg/mod.py": "src/pkg/mod.py"} if n == 14 else None
        repo.commit({path: _body(n, name), path.replace("mod.py", "__init__.py"): ""},
                    message=f"c{n}", renames=renames)
    return repo.path


def _clone(origin: Path, dest: Path, *depth: str) -> Path:
    run_git(dest.parent, "clone", "-q", *depth, f"file://{origin}", str(dest))
    return dest


def _answer(root: Path) -> dict[str, Any]:
    env = call_tool("timeline", {"repo": str(root), "entity": "pkg.mod.rescale",
                                 "limit": 100})
    assert_valid_envelope(env)
    return env


def _timeline(root: Path) -> list[tuple[str, str, str]]:
    return [(i["commit"], i["change_kind"], i["locator"])
            for i in _answer(root)["data"]["items"]]


def _unflagged(root: Path) -> set[str]:
    """Commits HEAD reaches that the store holds and does not flag reachable."""
    reached = set(run_git(root, "rev-list", "HEAD").split())
    with sqlite3.connect(store_path(root)) as conn:
        rows = conn.execute("SELECT sha, reachable, topo FROM commits").fetchall()
    return {sha for sha, flag, topo in rows if sha in reached and (not flag or topo is None)}


def _lineages(root: Path) -> set[frozenset[tuple[str, str, str]]]:
    """The events grouped by the lineage they are stored under (ids left out)."""
    with sqlite3.connect(store_path(root)) as conn:
        rows = conn.execute(
            "SELECT ce.lineage, c.sha, e.locator, ce.change_kind FROM change_events ce "
            "JOIN commits c ON c.id = ce.commit_id JOIN entities e ON e.id = ce.entity_id")
        groups: dict[int, set[tuple[str, str, str]]] = {}
        for lineage, *event in rows:
            groups.setdefault(int(lineage), set()).add((event[0], event[1], event[2]))
        paths = dict(conn.execute("SELECT locator, path FROM entities"))
    return {frozenset(g) for g in groups.values()} | {frozenset({("path", k, v)})
                                                       for k, v in paths.items()}


@pytest.mark.parametrize("depth", ["1", "6"])
def test_a_deepened_then_unshallowed_clone_answers_like_a_full_clone(
        origin: Path, tmp_path: Path, depth: str) -> None:
    full = _clone(origin, tmp_path / "full")
    reference = _timeline(full)
    assert len(reference) >= 3  # added, renamed, moved at least
    clone = _clone(origin, tmp_path / "shallow", "--depth", depth)
    _answer(clone)
    assert not _unflagged(clone)

    run_git(clone, "fetch", "-q", "--deepen=5")
    deepened = _answer(clone)
    assert not _unflagged(clone)
    assert deepened["data"]["ingest"]["complete"] is False  # still shallow: partial, said so
    assert deepened["data"]["items"]

    run_git(clone, "fetch", "-q", "--unshallow")
    final = _answer(clone)
    assert not _unflagged(clone)
    assert final["data"]["ingest"]["complete"] is True
    assert _timeline(clone) == reference
    assert _lineages(clone) == _lineages(full)


def test_doctor_fix_repairs_a_store_a_deepened_clone_left_unflagged(
        origin: Path, tmp_path: Path) -> None:
    """A store written by an older warpline after ``--unshallow``: every commit but HEAD
    stored unreachable while the meta rows say it is caught up (reproduced with SQL, the
    state the old catch-up left). Doctor names it and ``--fix`` recomputes the flags."""
    full = _clone(origin, tmp_path / "full")
    reference = _timeline(full)
    head = run_git(full, "rev-parse", "HEAD").strip()
    with sqlite3.connect(store_path(full)) as conn:
        conn.execute("UPDATE commits SET reachable = 0, topo = NULL WHERE sha != ?", (head,))
    assert _unflagged(full)

    def doctor(*fix: str) -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-m", "warpline.cli", "doctor", "--json",
                               *fix], cwd=full, capture_output=True, text=True, timeout=300)
        return dict(json.loads(done.stdout))

    checks = {c["name"]: c for c in doctor()["checks"]}
    assert checks["reach"]["status"] == "fail"
    repaired = {c["name"]: c for c in doctor("--fix")["checks"]}
    assert repaired["reach"]["status"] == "ok"
    assert not _unflagged(full)
    assert _timeline(full) == reference
