"""Ingesting: which commits are left, in which order, each read (bounded) and written
whole, never twice.

``Ingestor.catch_up`` ingests everything reachable from HEAD, oldest first, or within a
time budget for interactive read tools (newest first on a long backlog:
``NEWEST_FIRST_OVER``), then refreshes which stored commits HEAD reaches
(``warpline.store.reach``); ``run`` ingests the commits given (the hook's one commit). A
long backfill reads in worker processes (``batches.py``); the rows are
``commit_rows.py``'s, the ancestry-complete tips that shorten the walk ``tips.py``'s.

A commit whose reading fails, or takes longer than ``WARPLINE_COMMIT_TIMEOUT_S``
(``warpline.ingest.bounded``), or whose rows cannot be written, is recorded as failed: its
reason in ``ingest_failures`` and a ``commits`` row without events whose ``limits_hit``
says ``ingest_failed`` (answers covering it name it). It is skipped from then on, by
reads, hooks and backfills alike, until ``warpline backfill --retry-failed`` (or
``catch_up(retry_failed=True)``) tries it again. A failure that is not the commit's own
(a worker process that died, a stop) records only the reason: the next run retries it. A
read tool's budget running out in the middle of a commit is no failure either: the answer
says how far behind it is.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from functools import partial

from warpline import settings
from warpline.git import shallow
from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.events import CommitChanges
from warpline.git.paths import shown
from warpline.git.walks import Commit, Repository, has_in_history, peel_commit, pending_commits
from warpline.ingest.batches import pipeline_module, run_in_workers
from warpline.ingest.bounded import CommitTimeout, bounded, timeout_reason
from warpline.ingest.report import WORKER_LOST, IngestReport, Progress
from warpline.ingest.stopping import StopNow, StopRequest
from warpline.store import relineage, shallow_ingest
from warpline.store.caughtup import ingested_among
from warpline.store.commit_rows import CommitWriter, FailedRow, reaching
from warpline.store.db import Store, environmental
from warpline.store.reach import refresh_reachability
from warpline.store.relineage import UNORDERED_KEY
from warpline.store.tips import AncestryTips

# A catch-up with a budget (a read tool answering now) facing more pending commits than
# this ingests the newest first: they are what its answer is about (a recent range, the
# newest history), and the background backfill fills in the older ones; lineages and
# paths are settled in history order once all are in (``relineage``). A short backlog
# (after a pull) is ingested in history order.
NEWEST_FIRST_OVER = 500


class Ingestor:
    """Holds the per-process caches of one ingest run (parsed blobs, entity ids)."""

    def __init__(self, store: Store, repo: Repository) -> None:
        self.store = store
        self.repo = repo
        self.cache = DefinitionCache()
        self.tips = AncestryTips(store)
        self.rows = CommitWriter(store, self.tips, partial(has_in_history, repo))

    # -- what is left to do -------------------------------------------------------
    def pending(self, head: Commit | None) -> list[Commit]:
        """Commits reachable from ``head`` that are not ingested, oldest first."""
        if head is None:
            return []
        candidates = pending_commits(self.repo, head, self.tips.get())
        done = self.ingested_among([str(c.id) for c in candidates])
        return [c for c in candidates if str(c.id) not in done]

    def run(
        self,
        commits: Iterable[Commit],
        *,
        budget_s: float | None = None,
        progress: Progress | None = None,
        total: int = 0,
        stop: StopRequest | None = None,
    ) -> IngestReport:
        report = IngestReport()
        deadline = None if budget_s is None else time.monotonic() + budget_s
        todo = self._without_boundary(list(commits), report)
        del commits  # a worker backfill lets the commit objects go before it forks
        # Only a long backfill asks (reading the machine's load takes a few milliseconds).
        # One commit (the hooks, ingest-commit) never needs the workers: do not load them.
        long_run = budget_s is None and len(todo) > 1 \
            and len(todo) >= pipeline_module().MIN_COMMITS
        workers = settings.ingest_workers() if long_run else 0
        if workers:
            return run_in_workers(self, todo, workers, report, progress, total, stop)
        for index, commit in enumerate(todo):
            if stop is not None and stop.requested:
                report.commits_behind, report.stopped_by = len(todo) - index, stop.name
                break
            if deadline is not None and time.monotonic() > deadline:
                report.commits_behind = len(todo) - index
                break
            cut = self._ingest(commit, report, deadline, stop)
            if cut is not None:  # the answer's budget ran out, or a stop, mid-commit
                report.commits_behind = len(todo) - index
                if stop is not None and stop.requested:
                    report.stopped_by = stop.name
                break
            if progress is not None:
                progress(index + 1, total or len(todo))
        return report

    def _without_boundary(self, todo: list[Commit],
                          report: IngestReport) -> list[Commit]:
        """Record a shallow clone's boundary commits as placeholders (no events)."""
        edge = shallow.boundary(self.repo)
        if not edge:
            return todo
        rest: list[Commit] = []
        for commit in todo:
            if str(commit.id) not in edge:
                rest.append(commit)
            elif shallow_ingest.write_placeholder(self.store, commit):
                report.placeholders += 1
        return rest

    def catch_up(
        self,
        head: Commit | None,
        *,
        budget_s: float | None = None,
        progress: Progress | None = None,
        stop: StopRequest | None = None,
        retry_failed: bool = False,
    ) -> IngestReport:
        if retry_failed and self.reopen_failed():
            self.tips.forget()
        reopened = shallow_ingest.reopen_deepened(self.store, shallow.boundary(self.repo))
        if reopened:
            self.tips.forget()  # the deepened history is walked from HEAD again
            self.mark_unordered()  # older commits land after newer ones: settle lineages
        # (No name keeps the pending commits: a worker backfill drops them before forking.)
        report = self.run(self._ordered(self.pending(head), budget_s), budget_s=budget_s,
                          progress=progress, stop=stop)
        report.reopened = reopened
        if head is not None and report.complete:
            self.tips.push(str(head.id))
        # Commits are written unreachable; this flags what HEAD reaches (cheap when HEAD
        # has not moved) and retires what a rewrite left behind.
        refresh_reachability(self.store, self.repo, head, complete=report.complete)
        if head is not None and report.complete and self.store.meta_get(UNORDERED_KEY):
            with self.store.transaction() as conn:
                relineage.settle(conn, lambda sha: reaching(conn, self.rows.ancestry, sha))
                self.store.meta_set(conn, UNORDERED_KEY, "")
            self.rows.forget_entities()  # their paths may have changed
        return report

    def _ordered(self, todo: list[Commit],
                 budget_s: float | None) -> list[Commit]:
        """History order, or newest first for a budgeted catch-up on a long backlog."""
        if budget_s is not None and len(todo) > NEWEST_FIRST_OVER:
            self.mark_unordered()
            todo.reverse()
        return todo

    def mark_unordered(self) -> None:
        """Commits are about to be ingested out of history order: lineages and paths are
        settled once the store is complete (``relineage``)."""
        if not self.store.meta_get(UNORDERED_KEY):
            with self.store.transaction() as conn:
                self.store.meta_set(conn, UNORDERED_KEY, "1")

    # -- one commit ---------------------------------------------------------------
    def _ingest(self, commit: Commit, report: IngestReport,
                deadline: float | None = None, stop: StopRequest | None = None) -> str | None:
        """Read and write one commit; ``"budget"`` or ``"stopped"`` when the answer's
        deadline or a stop cut its reading short (nothing recorded: it is still to do)."""
        if self.ingested_among([str(commit.id)]):
            report.commits_skipped += 1  # no need to diff and parse what is stored
            return None
        limit = settings.commit_timeout_s()
        left = None if deadline is None else deadline - time.monotonic()
        try:
            with bounded(limit if left is None else min(limit, left), stop):
                changes = commit_changes(self.repo, commit, cache=self.cache)
        except CommitTimeout:
            self.cache = DefinitionCache()  # a walk cut short may leave it half-updated
            if left is not None and left < limit:
                return "budget"
            self.fail(str(commit.id), timeout_reason(limit), report)
            return None
        except StopNow:
            self.cache = DefinitionCache()
            return "stopped"
        except Exception as exc:  # recorded as failed, reported, skipped from now on
            self.fail(str(commit.id), f"{type(exc).__name__}: {exc}", report)
            return None
        return self.store_interruptible(changes, report, stop)

    def store_interruptible(self, changes: CommitChanges, report: IngestReport,
                            stop: StopRequest | None) -> str | None:
        """``store_changes``; a stop signal during the write (80,000 events take seconds)
        rolls the commit back at once: ``"stopped"``, and the next run reads it again."""
        if stop is None:
            self.store_changes(changes, report)
            return None
        stop.interruptible = True
        try:
            self.store_changes(changes, report)
        except StopNow:
            return "stopped"
        finally:
            stop.interruptible = False
        return None

    def fail(self, sha: str, error: str, report: IngestReport) -> None:
        error = shown(error)  # a message may quote a name that is not UTF-8
        self.tips.forget()
        skip = not error.startswith(WORKER_LOST)
        self.rows.record_failure(sha, error, skip=skip,
                                 row=failed_row(self.repo, sha) if skip else None)
        report.failures.append((sha, error))

    def store_changes(self, changes: CommitChanges, report: IngestReport) -> None:
        try:
            written = self.rows.write(changes)
        except Exception as exc:  # recorded as failed, reported, skipped from now on
            if environmental(exc):
                raise  # a full disk or read-only store: store_unwritable, nothing recorded
            self.fail(changes.commit.sha, f"{type(exc).__name__}: {exc}", report)
            return
        if written is None:
            report.commits_skipped += 1
            return
        report.commits_ingested += 1
        report.events_written += written
        report.note_unparsed(changes.unparsed_files)

    def reopen_failed(self) -> int:
        """Forget the commits recorded as failed, so this run reads them again; how many.
        The ancestry-complete tips go too: the walk for pending work must reach them."""
        return self.rows.reopen_failed()

    def ingested_among(self, shas: list[str]) -> set[str]:
        return ingested_among(self.store, shas)


def failed_row(repo: Repository, sha: str) -> FailedRow | None:
    """What a failed commit's row records of it (None: the commit object is missing)."""
    commit = peel_commit(repo, sha)
    if commit is None:
        return None
    author = commit.author
    return (_text(author.raw_name), _text(author.raw_email), int(author.time),
            int(commit.commit_time), len(commit.parent_ids))


def _text(raw: bytes) -> str:
    """An author's name or address as stored: UTF-8, anything else escaped, never lost."""
    return raw.decode("utf-8", "backslashreplace")

