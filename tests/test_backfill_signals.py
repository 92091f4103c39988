"""A backfill killed or told to stop: its ingest workers never outlive it, and
SIGTERM/SIGINT stop it between two commits with the progress kept.

A real synthetic history (``bench/genhistory.py``, deterministic), a real ``warpline
backfill`` process with two real worker processes, real signals; the workers are found
through ``/proc`` by their parent pid."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pygit2
import pytest

from warpline.store.db import store_path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from genhistory import generate_with_stats

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
COMMITS = 900
WAIT_S = 90.0


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("history") / "repo"
    generate_with_stats(path, COMMITS, seed=3, modules=25, pack=False)
    return path


def _clone(history: Path, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(history), str(where)],
                   check=True, timeout=300, capture_output=True)
    return where


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a live process; None when gone (a zombie counts as gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, ppid = text.rsplit(")", 1)[1].split()[:2]
    return None if state in ("Z", "X") else (state, int(ppid))


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            info = _stat(int(entry.name))
            if info is not None and info[1] == pid:
                found.append(int(entry.name))
    return found


def _ingested(root: Path) -> int:
    path = store_path(root)
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT count(*) FROM commits").fetchone()[0])
    except sqlite3.Error:
        return 0


def _start(root: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "WARPLINE_INGEST_WORKERS": "2", "NO_COLOR": "1"}
    return subprocess.Popen([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                             str(root), "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _running_with_workers(proc: subprocess.Popen[str], root: Path, min_ingested: int) -> list[int]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        workers = _children(proc.pid)
        if len(workers) >= 2 and _ingested(root) >= min_ingested:
            return workers
        assert proc.poll() is None, f"the backfill ended before the test: {proc.stderr}"
        time.sleep(0.05)
    raise AssertionError("the backfill never had its two workers running")


def _all_gone(pids: list[int], timeout: float = 20.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = [pid for pid in pids if _stat(pid) is not None]
        if not alive:
            return []
        time.sleep(0.05)
    return [pid for pid in pids if _stat(pid) is not None]


def _reap(pids: list[int]) -> None:
    for pid in pids:  # only the ones this test started, by pid
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_workers_die_with_a_killed_backfill(history: Path, tmp_path: Path) -> None:
    root = _clone(history, tmp_path / "clone")
    proc = _start(root)
    workers = _running_with_workers(proc, root, min_ingested=0)
    try:
        proc.kill()  # SIGKILL: no handler, no finally in the parent
        proc.wait(timeout=30)
        assert _all_gone(workers) == []
    finally:
        _reap(workers)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_backfill_cleanly_with_progress_kept(
        history: Path, tmp_path: Path, signum: int) -> None:
    root = _clone(history, tmp_path / "clone")
    proc = _start(root)
    workers = _running_with_workers(proc, root, min_ingested=20)
    try:
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=WAIT_S)
        assert proc.returncode == 128 + signum, err
        assert _all_gone(workers) == []
    finally:
        _reap(workers)
    summary = json.loads(out)
    assert summary["stopped_by"] == signal.Signals(signum).name
    kept = _ingested(root)
    assert summary["commits_ingested"] == kept > 0 and summary["commits_behind"] > 0
    with sqlite3.connect(f"file:{store_path(root)}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT count(*) FROM ingest_failures").fetchone()[0] == 0

    done = subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                           str(root), "--json"], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "WARPLINE_INGEST_WORKERS": "2"})
    assert done.returncode == 0, done.stderr
    resumed = json.loads(done.stdout)
    assert resumed["complete"] and resumed["commits_ingested"] == COMMITS - kept
    repo = pygit2.Repository(str(root))
    assert _ingested(root) == sum(1 for _ in repo.walk(repo.head.target)) == COMMITS
