"""A long backfill's writes: worker processes diff and parse (``pipeline``), this process
writes their outcomes in history order, in transactions ``FlushPolicy`` bounds.

A transaction ends after ``WRITE_BATCH`` commits or once ``WRITE_INTERVAL_S`` has passed
since the last one ended, whichever comes first: other processes see the progress in
steps of at most ``WRITE_BATCH`` commits, and a kill loses at most the open transaction,
which the next run redoes (a stop writes it first). Each commit sits in its own savepoint
inside it, so a commit is stored whole or not at all and readers never see half of one.
Against one transaction per commit, this cuts the writer's CPU by a quarter or more
(bench/README).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from warpline.git.events import CommitChanges
from warpline.git.repo import release_caches
from warpline.git.walks import Commit, Repository
from warpline.ingest.report import IngestReport, Progress
from warpline.ingest.stopping import StopNow, StopRequest
from warpline.store.db import environmental

if TYPE_CHECKING:
    from warpline.ingest import pipeline
    from warpline.ingest.driver import Ingestor

__all__ = ["WRITE_BATCH", "WRITE_INTERVAL_S", "FlushPolicy", "pipeline_module",
           "release_memory", "run_in_workers", "until_failure", "write_batch"]

# The policy is asked as each commit arrives from the workers (they send 50 at a time).
WRITE_BATCH = 64
WRITE_INTERVAL_S = 0.25


class FlushPolicy:
    """When the writer ends its open transaction: at ``size`` commits, or at the first
    commit that arrives ``interval_s`` or more after the last transaction ended."""

    def __init__(self, size: int = WRITE_BATCH, interval_s: float = WRITE_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.size = max(1, size)
        self.interval_s = interval_s
        self.clock = clock
        self._since = clock()

    def due(self, pending: int) -> bool:
        return pending >= self.size or self.clock() - self._since >= self.interval_s

    def flushed(self) -> None:
        self._since = self.clock()


def until_failure(batch: list[pipeline.Outcome]) -> list[pipeline.Outcome]:
    """The outcomes before the first that failed."""
    for index, (_sha, changes, _error) in enumerate(batch):
        if changes is None:
            return batch[:index]
    return batch



def release_memory(repo: Repository) -> None:
    """Give back what the walk for pending commits left: libgit2's object cache and pack
    handles (``release_caches``: not on a shallow clone), Python's garbage and glibc's free
    heap (``pipeline.trim_heap``, what each worker also does between slices)."""
    release_caches(repo)
    pipeline_module().trim_heap()


def pipeline_module() -> ModuleType:
    """The worker pipeline (multiprocessing, ctypes), loaded only for a long backfill."""
    from warpline.ingest import pipeline

    return pipeline


def run_in_workers(ingestor: Ingestor, todo: list[Commit], workers: int,
                   report: IngestReport, progress: Progress | None, total: int,
                   stop: StopRequest | None = None) -> IngestReport:
    """A long backfill: workers diff and parse, this process writes, in order.

    Commits are written in transactions that ``FlushPolicy`` bounds (by count and by
    time), each commit inside its own savepoint, so a commit is recorded whole or not
    at all."""
    shas = [str(c.id) for c in todo]
    count = len(todo)
    # Forked workers start with this process's memory: the walk's commit objects and
    # libgit2's caches (tens of MB on a long history) would be held once per process.
    todo.clear()
    release_memory(ingestor.repo)
    stream = pipeline_module().changes_in_workers(ingestor.repo.path, shas, workers, stop)
    done = 0
    batch: list[pipeline.Outcome] = []
    policy = FlushPolicy()

    def flush(outcomes: list[pipeline.Outcome]) -> None:
        nonlocal done
        write_batch(ingestor, outcomes, report, stop)
        policy.flushed()
        if progress is not None:
            for number in range(done + 1, done + len(outcomes) + 1):
                progress(number, total or count)
        done += len(outcomes)

    try:
        for index, outcome in enumerate(stream):
            if stop is not None and stop.requested:
                # Checked before writing: a worker the same signal killed reports
                # failures that are not the commits' fault; they are not recorded.
                # The open batch's commits up to its first failure were walked
                # before the stop and are kept (a failure is retried next run).
                kept = until_failure(batch)
                if kept:
                    flush(kept)
                report.commits_behind, report.stopped_by = len(shas) - done, stop.name
                return report
            batch.append(outcome)
            if index + 1 < len(shas) and not policy.due(len(batch)):
                continue
            flush(batch)
            batch = []
        if stop is not None and stop.requested:  # the stream ended for the stop
            kept = until_failure(batch)
            if kept:
                flush(kept)
            report.commits_behind, report.stopped_by = len(shas) - done, stop.name
            return report
        if batch:  # the stream ended early (it does not, but never drop outcomes)
            flush(batch)
    except StopNow:  # a stop during a commit's write: that commit is redone next run
        assert stop is not None
        report.commits_behind, report.stopped_by = len(shas) - done, stop.name
        return report
    finally:
        stream.close()  # terminates and joins the workers now, not at collection
    return report

def write_batch(ingestor: Ingestor, batch: list[pipeline.Outcome],
                report: IngestReport, stop: StopRequest | None = None) -> None:
    """Outcomes in history order, the successful ones in one transaction. A stop signal
    during a commit's write rolls that commit back (its savepoint), keeps the ones before
    it and raises ``StopNow`` once they are committed."""
    results: list[tuple[str, CommitChanges | None, int | None, str | None]] = []
    learned: dict[str, tuple[int, str]] = {}
    stopped = False
    try:
        with ingestor.store.transaction() as conn:
            for sha, changes, error in batch:
                if changes is None:
                    results.append((sha, None, None, error or "unknown error"))
                    continue
                fresh: dict[str, tuple[int, str]] = {}
                try:
                    if stop is not None:
                        stop.interruptible = True
                    try:
                        written = ingestor.rows.write_saved(conn, changes, fresh, learned)
                    finally:
                        if stop is not None:
                            stop.interruptible = False
                except StopNow:  # write_saved rolled the commit back to its savepoint
                    stopped = True
                    break
                except Exception as exc:  # recorded as failed, reported, skipped from now on
                    if environmental(exc):
                        raise  # not the commit's fault: the run stops, nothing recorded
                    ingestor.tips.forget()
                    results.append((sha, changes, None, f"{type(exc).__name__}: {exc}"))
                    continue
                learned.update(fresh)
                results.append((sha, changes, written, None))
    except Exception as exc:
        if environmental(exc) and len(batch) == 1:
            raise
        # The batch as a whole failed (at COMMIT, say, or on a full disk): written
        # again commit by commit, one transaction each, so every commit up to the one
        # that fails again is kept, and an environmental error (``store_changes`` raises
        # it) still stops the run with nothing recorded as the commit's fault.
        ingestor.tips.forget()
        for sha, changes, error in batch:
            if changes is None:
                ingestor.fail(sha, error or "unknown error", report)
            else:
                ingestor.store_changes(changes, report)
        return
    ingestor.rows.learn(learned)
    for sha, changes, written, error in results:
        if error is not None:
            ingestor.fail(sha, error, report)
        elif written is None:
            report.commits_skipped += 1
        else:
            assert changes is not None
            report.commits_ingested += 1
            report.events_written += written
            report.note_unparsed(changes.unparsed_files)
    if stopped:
        raise StopNow()
