"""A capture killed mid-write (a real SIGKILL) leaves the previous snapshot whole."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from tests.graphfixture import CHANGE_PONG, EXPECTED_EDGES, PONG, call, edit, make_repo
from warpline.store.db import store_path

# The child runs the real capture; a SQLite trace callback on the store's connection
# SIGKILLs the process while it inserts the snapshot's edges, inside the transaction.
CHILD = r"""
import os, signal, sys
from warpline.store import db

original = db.Store.open.__func__
seen = {"edges": 0}

def open_and_arm(cls, root, **options):
    store = original(cls, root, **options)
    def trace(statement):
        if statement.lstrip().startswith("INSERT INTO snapshot_edges"):
            seen["edges"] += 1
            if seen["edges"] == 2:
                os.kill(os.getpid(), signal.SIGKILL)
    store.conn.set_trace_callback(trace)
    return store

db.Store.open = classmethod(open_and_arm)
from warpline.registry import call_tool
call_tool("capture_snapshot", {"repo": sys.argv[1]})
print("capture finished: the kill never happened")
"""


def _rows(repo: FixtureRepo, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(store_path(repo.path))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_capture_killed_mid_write_leaves_the_previous_snapshot_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0")
    repo = make_repo(tmp_path / "repo")
    first = call("capture_snapshot", repo=str(repo.path))["data"]
    edit(repo, *CHANGE_PONG)

    child = subprocess.run([sys.executable, "-c", CHILD, str(repo.path)],
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "WARPLINE_AUTO_CAPTURE_BUDGET_S": "0"})
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr

    assert _rows(repo, "PRAGMA integrity_check") == [("ok",)]
    assert _rows(repo, "SELECT id, completeness FROM snapshots") == [
        (first["snapshot_id"], "FULL")]
    assert set(_rows(repo, "SELECT source, target, kind FROM snapshot_edges")) == EXPECTED_EDGES
    assert _rows(repo, "SELECT DISTINCT snapshot_id FROM snapshot_entities") == [
        (first["snapshot_id"],)]
    answer = call("blast_radius", repo=str(repo.path), changed_refs=[PONG])["data"]
    assert (answer["staleness"]["snapshot_id"], answer["staleness"]["commits_behind"]) == (
        first["snapshot_id"], 1)
    assert answer["affected"]

    again = call("capture_snapshot", repo=str(repo.path))["data"]
    assert (again["idempotency"], again["commit_sha"]) == ("created", repo.head)
