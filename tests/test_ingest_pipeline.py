"""The worker pipeline writes exactly what the in-process walk writes."""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

from warpline.git.repo import head_commit, open_repo
from warpline.ingest import pipeline
from warpline.ingest.driver import Ingestor
from warpline.store.db import Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from genhistory import generate

from tests.gitfixture import pending_shas


def _backfill(repo_dir: Path, workers: int,
              monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    monkeypatch.setenv("WARPLINE_INGEST_WORKERS", str(workers))
    handle = open_repo(repo_dir)
    with Store.open(repo_dir) as store:
        report = Ingestor(store, handle).catch_up(head_commit(handle))
        assert report.complete and not report.failures
        rows = store.conn.execute(
            "SELECT c.sha, e.locator, ce.change_kind, ce.path, coalesce(ce.previous_locator, ''),"
            " e.path, (SELECT locator FROM entities WHERE id = e.lineage) "
            "FROM change_events ce JOIN commits c ON c.id = ce.commit_id "
            "JOIN entities e ON e.id = ce.entity_id ORDER BY 1, 2, 3").fetchall()
    return [tuple(str(v) for v in row) for row in rows]


def test_worker_pipeline_and_in_process_walk_store_the_same_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate(tmp_path / "a", pipeline.MIN_COMMITS + 60, seed=3)
    generate(tmp_path / "b", pipeline.MIN_COMMITS + 60, seed=3)
    generate(tmp_path / "c", pipeline.MIN_COMMITS + 60, seed=3)
    in_process = _backfill(tmp_path / "a", 0, monkeypatch)
    in_workers = _backfill(tmp_path / "b", 2, monkeypatch)
    assert len(in_process) > 1000
    assert in_workers == in_process
    # One worker beside the writer: what a machine short of memory gets.
    assert _backfill(tmp_path / "c", 1, monkeypatch) == in_process


def _kill_all_and_read_the_rest(workers: list[Any], stream: Iterator[pipeline.Outcome],
                                first: pipeline.Outcome, shas: list[str]) -> None:
    """SIGKILL every worker; the stream still yields every sha once, in order, the lost
    ones as failures, the others with their changes."""
    for proc in workers:
        assert proc.pid is not None
        os.kill(proc.pid, signal.SIGKILL)
    rest = list(stream)
    assert [sha for sha, _, _ in [first, *rest]] == shas
    assert any(error is not None for _, _, error in rest)
    assert all(changes is not None for _, changes, error in rest if error is None)


def test_a_killed_worker_reports_its_remaining_commits_as_failed_instead_of_hanging(
        tmp_path: Path) -> None:
    # Long enough that neither worker can finish its slice before the kill.
    generate(tmp_path / "r", 600, seed=5)
    shas = pending_shas(tmp_path / "r")
    stream = pipeline.changes_in_workers(str(tmp_path / "r"), shas, 2)
    first = next(stream)
    assert first[0] == shas[0]
    victims = multiprocessing.active_children()
    assert victims
    _kill_all_and_read_the_rest(victims, stream, first, shas)


def _blocked_in_send(pid: int) -> bool:
    """The kernel says this process sleeps waiting for room in a socket's send buffer."""
    try:
        with open(f"/proc/{pid}/wchan") as handle:
            return handle.read().strip() == "sock_alloc_send_pskb"
    except OSError:
        return False


@pytest.mark.timeout(180)
def test_a_worker_killed_in_the_middle_of_a_message_does_not_hang_the_writer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A worker killed while its batch is half written into the pipe (an out-of-memory kill
    # does that) once left the writer waiting forever for the rest of the message. The
    # workers' send buffers are shrunk (a real setsockopt on the real pipe, the only thing
    # arranged here) so a batch is always written in parts while the writer is not reading;
    # the kill comes once the kernel reports a worker asleep in the middle of a send.
    real_worker = pipeline._slice_worker

    def small_buffer_worker(repo_path: str, slices: Any, conn: Connection,
                            others: Any, parent: int) -> None:
        sock = socket.socket(fileno=os.dup(conn.fileno()))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        sock.close()
        real_worker(repo_path, slices, conn, others, parent)

    monkeypatch.setattr(pipeline, "_slice_worker", small_buffer_worker)
    generate(tmp_path / "r", 600, seed=5)
    shas = pending_shas(tmp_path / "r")
    stream = pipeline.changes_in_workers(str(tmp_path / "r"), shas, 2)
    first = next(stream)  # then the writer stops reading
    workers = multiprocessing.active_children()
    deadline = time.monotonic() + 120
    while not any(p.pid and _blocked_in_send(p.pid) for p in workers):
        if time.monotonic() > deadline:
            pytest.skip("this kernel never reported a worker blocked in a send (wchan)")
        time.sleep(0.05)
    _kill_all_and_read_the_rest(workers, stream, first, shas)


def test_workers_claiming_many_small_slices_store_the_in_process_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Many slices, three workers and no lookahead: each worker waits for the writer before
    # it starts a slice, and slices are written in history order whoever computed them.
    generate(tmp_path / "a", pipeline.MIN_COMMITS + 60, seed=4)
    generate(tmp_path / "b", pipeline.MIN_COMMITS + 60, seed=4)
    monkeypatch.setattr(pipeline, "MIN_SLICE", 25)
    monkeypatch.setattr(pipeline, "LOOKAHEAD", 0)
    assert len(pipeline._slices(["x"] * (pipeline.MIN_COMMITS + 60), 3)) == 12
    in_process = _backfill(tmp_path / "a", 0, monkeypatch)
    in_workers = _backfill(tmp_path / "b", 3, monkeypatch)
    assert len(in_process) > 1000
    assert in_workers == in_process
