"""Backfill, resume, ingest-commit and the read tools' catch-up."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.git.repo import head_commit, open_repo
from warpline.ingest.batches import WRITE_BATCH, FlushPolicy, run_in_workers
from warpline.ingest.driver import Ingestor
from warpline.ingest.report import IngestReport
from warpline.ingest.stopping import StopRequest
from warpline.registry import call_tool
from warpline.store.db import Store, store_path


def _history(tmp_path: Path, commits: int = 30) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    for n in range(commits):
        body = "\n\n".join(f"def f{k}():\n    return {k * n}\n" for k in range(6))
        repo.commit({f"pkg/m{n % 4}.py": body, "README.md": f"rev {n}\n"}, message=f"c{n}")
    return repo


def _state(root: Path) -> list[tuple[str, str, str]]:
    with Store.open(root) as store:
        return sorted(store.conn.execute(
            "SELECT c.sha, e.locator, ce.change_kind FROM change_events ce "
            "JOIN commits c ON c.id = ce.commit_id JOIN entities e ON e.id = ce.entity_id"))


def _facts(root: Path) -> list[tuple[Any, ...]]:
    with Store.open(root) as store:
        return sorted(store.conn.execute(
            "SELECT c.sha, e.locator, ce.change_kind, ce.code_same, ce.docs_changed, "
            "ce.signature_changed, ce.facts_pending FROM change_events ce "
            "JOIN commits c ON c.id = ce.commit_id JOIN entities e ON e.id = ce.entity_id"))


def _clean_copy(src: Path, dst: Path) -> Path:
    """The same repository without any warpline state."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".weft"))
    return dst


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], capture_output=True,
                          text=True, timeout=300, env=env)


def test_backfill_ingests_every_commit_and_a_rerun_ingests_nothing(tmp_path: Path) -> None:
    repo = _history(tmp_path)
    first = _cli("backfill", "--repo", str(repo.path), "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["commits_ingested"] == 30
    state = _state(repo.path)
    again = _cli("backfill", "--repo", str(repo.path), "--json")
    assert json.loads(again.stdout)["commits_ingested"] == 0
    assert _state(repo.path) == state


def test_backfill_prints_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=3)
    result = _cli("backfill", "--repo", str(repo.path))
    assert "[" not in result.stderr
    assert "ingested 3 commits" in result.stdout


def test_an_interrupted_backfill_resumes_without_duplicates(tmp_path: Path) -> None:
    repo = _history(tmp_path)
    handle = open_repo(repo.path)
    with Store.open(repo.path) as store:
        ingestor = Ingestor(store, handle)
        pending = ingestor.pending(head_commit(handle))
        ingestor.run(pending[:11])  # the first eleven commits, then "the process dies"
    with Store.open(repo.path) as store:
        report = Ingestor(store, handle).catch_up(head_commit(handle))
    assert report.commits_ingested == 19
    clean = _clean_copy(repo.path, tmp_path / "clean")
    _cli("backfill", "--repo", str(clean))
    assert _state(repo.path) == _state(clean)


class _StopAfter(StopRequest):
    """A stop request that is set once the writer has asked ``reads`` times: it asks once
    per outcome the workers hand over, so the stop lands after exactly that many (a real
    signal cannot be timed to one outcome)."""

    def __init__(self, reads: int) -> None:
        super().__init__()
        self.reads = reads

    @property
    def requested(self) -> bool:
        self.reads -= 1
        if self.reads < 0:
            self.signum = signal.SIGTERM
        return self.signum is not None


def test_a_stopped_worker_backfill_keeps_the_commits_it_had_walked(tmp_path: Path) -> None:
    """The workers' outcomes wait in an open batch (FlushPolicy); a stop writes them
    before it returns instead of dropping them."""
    repo = _history(tmp_path, commits=40)
    handle = open_repo(repo.path)
    with Store.open(repo.path) as store:
        ingestor = Ingestor(store, handle)
        todo = ingestor.pending(head_commit(handle))
        order = [str(c.id) for c in todo]
        report = run_in_workers(ingestor, todo, 2, IngestReport(), None, 0, _StopAfter(12))
    assert report.stopped_by == "SIGTERM"
    assert (report.commits_ingested, report.commits_behind) == (12, 28)
    conn = sqlite3.connect(store_path(repo.path))
    try:
        assert {row[0] for row in conn.execute("SELECT sha FROM commits")} == set(order[:12])
    finally:
        conn.close()


def test_the_flush_policy_ends_a_transaction_by_count_or_by_time() -> None:
    now = [100.0]
    policy = FlushPolicy(size=3, interval_s=0.25, clock=lambda: now[0])
    assert not policy.due(1) and not policy.due(2)
    assert policy.due(3)  # full
    policy.flushed()
    now[0] += 0.2
    assert not policy.due(1)
    now[0] += 0.05  # a quarter of a second since the last transaction ended
    assert policy.due(1)
    policy.flushed()
    assert not policy.due(2)
    assert FlushPolicy(size=0).due(1)  # at least one commit a transaction


# The child runs the real backfill; a SQLite trace callback on the store's connection
# SIGKILLs the process inside the transaction of commit KILL_AT, after that commit's row
# is written and while its change events are being inserted.
KILL_AT = 40
CHILD = r"""
import os, signal, sys
from warpline.ingest import pipeline
from warpline.store import db

# 120 commits are below the worker threshold: lowered so that WARPLINE_INGEST_WORKERS=2
# really runs the worker pipeline (and its batched writer); announced for the test.
pipeline.MIN_COMMITS = 100
forking = pipeline.changes_in_workers
def announced(*args):
    print("worker pipeline", flush=True)
    return forking(*args)
pipeline.changes_in_workers = announced

original = db.Store.open.__func__
seen = {"commits": 0}

def open_and_arm(cls, root, **options):
    store = original(cls, root, **options)
    def trace(statement):
        text = statement.lstrip()
        if text.startswith("INSERT OR IGNORE INTO commits"):
            seen["commits"] += 1
        elif text.startswith("INSERT OR IGNORE INTO change_events") \
                and seen["commits"] == int(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)
    store.conn.set_trace_callback(trace)
    return store

db.Store.open = classmethod(open_and_arm)
from warpline.cli import main
main(["backfill", "--repo", sys.argv[1]])
print("backfill finished: the kill never happened")
"""


def _count(root: Path, sql: str) -> int:
    conn = sqlite3.connect(store_path(root))
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("workers", ["0", "2"], ids=["in-process", "workers"])
def test_a_backfill_killed_mid_transaction_resumes_to_a_clean_runs_state(
        tmp_path: Path, workers: str) -> None:
    repo = _history(tmp_path, commits=120)
    env = {**os.environ, "WARPLINE_INGEST_WORKERS": workers}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(repo.path), str(KILL_AT)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             start_new_session=True)
    try:
        out, err = child.communicate(timeout=300)
    finally:  # walker processes the killed writer leaves behind go with their group
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == -signal.SIGKILL, (out + err).decode(errors="replace")
    assert (b"worker pipeline" in out) == (workers != "0")

    # The kill landed inside the transaction holding commit KILL_AT: it left no trace of
    # that commit or of the others in that transaction (in-process: one commit each; with
    # workers: up to WRITE_BATCH, see FlushPolicy), and the commits before them are whole:
    # the store holds exactly the first `kept` commits of the history, each with events.
    conn = sqlite3.connect(store_path(repo.path))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        stored = {row[0] for row in conn.execute("SELECT sha FROM commits")}
        assert conn.execute("SELECT count(*) FROM commits c WHERE NOT EXISTS (SELECT 1 FROM "
                            "change_events ce WHERE ce.commit_id = c.id)").fetchone()[0] == 0
    finally:
        conn.close()
    kept = len(stored)
    if workers == "0":
        assert kept == KILL_AT - 1
    else:
        assert KILL_AT - WRITE_BATCH <= kept <= KILL_AT - 1
    order = subprocess.run(["git", "rev-list", "--reverse", "--topo-order", "HEAD"],
                           cwd=repo.path, capture_output=True, text=True, check=True)
    assert stored == set(order.stdout.split()[:kept])

    resumed = _cli("backfill", "--facts", "--repo", str(repo.path), "--json", env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["commits_ingested"] == 120 - kept
    assert json.loads(resumed.stdout)["facts_pending"] == 0
    clean = _clean_copy(repo.path, tmp_path / "clean")
    assert _cli("backfill", "--facts", "--repo", str(clean), env=env).returncode == 0
    assert _state(repo.path) == _state(clean)
    # What each change means does not depend on the kill either (issue 38 item 6).
    assert _facts(repo.path) == _facts(clean)
    assert _count(repo.path, "SELECT count(*) FROM commits") == 120


def test_ingest_commit_ingests_exactly_one_commit(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=3)
    result = _cli("ingest-commit", "HEAD", "--repo", str(repo.path), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["commits_ingested"] == 1
    twice = _cli("ingest-commit", "HEAD", "--repo", str(repo.path), "--json")
    assert json.loads(twice.stdout)["commits_ingested"] == 0


def test_ingest_commit_with_a_bad_ref_is_invalid_rev_range(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=1)
    result = _cli("ingest-commit", "no-such-ref", "--repo", str(repo.path), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error_code"] == "invalid_rev_range"


def test_read_tools_catch_up_with_new_commits(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=2)
    call_tool("changed", {"repo": str(repo.path), "all_history": True})
    sha = repo.commit({"pkg/new.py": "def fresh():\n    return 0\n"}, message="new")
    env = call_tool("changed", {"repo": str(repo.path), "rev_range": sha})
    assert_valid_envelope(env)
    assert "python:function:pkg.new.fresh" in {i["entity"]["locator"]
                                                for i in env["data"]["items"]}


def test_a_backlog_beyond_the_budget_answers_partially_and_says_how_to_finish(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _history(tmp_path, commits=10)
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "0")
    env = call_tool("changed", {"repo": str(repo.path), "all_history": True})
    assert_valid_envelope(env)
    assert env["warnings"], "a partial answer must say so"
    commands = [c["command"] for c in env["next_actions"].get("commands", [])]
    assert any(c.startswith("warpline backfill") for c in commands)


def test_unparsable_python_files_are_counted_and_still_get_a_file_event(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/broken.py": "def oops(:\n"}, message="broken")
    result = _cli("backfill", "--repo", str(repo.path), "--json")
    assert json.loads(result.stdout)["unparsed_files"] == 1
    env = call_tool("changed", {"repo": str(repo.path), "all_history": True})
    assert {i["entity"]["locator"] for i in env["data"]["items"]} == {"core:file:pkg/broken.py"}
