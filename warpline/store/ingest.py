"""Writing the walker's facts into the store: each commit whole in a transaction, never twice.

``backfill`` ingests everything reachable from HEAD, oldest first; ``catch_up`` does the
same within a time budget for interactive read tools (newest first on a long backlog:
``NEWEST_FIRST_OVER``), then refreshes which stored commits HEAD reaches
(``warpline.store.reach``); ``ingest_one`` is the hook's entry point. A commit is recorded
by its sha (``INSERT OR IGNORE``), so re-running, resuming after a kill, and several
processes ingesting at once all converge on one row per commit.

A commit whose reading fails, or takes longer than ``WARPLINE_COMMIT_TIMEOUT_S``
(``warpline.store.bounded``), or whose rows cannot be written, is recorded as failed: its
reason in ``ingest_failures`` and a ``commits`` row without events whose ``limits_hit``
says ``ingest_failed`` (answers covering it name it). It is skipped from then on, by
reads, hooks and backfills alike, until ``warpline backfill --retry-failed`` (or
``catch_up(retry_failed=True)``) tries it again. A failure that is not the commit's own
(a worker process that died, a stop) records only the reason: the next run retries it. A
read tool's budget running out in the middle of a commit is no failure either: the answer
says how far behind it is.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import TYPE_CHECKING

import pygit2

from warpline import settings
from warpline.git import shallow
from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.events import CommitChanges
from warpline.git.paths import shown
from warpline.git.repo import release_caches, walk_all
from warpline.store import lineages, relineage, shallow_ingest
from warpline.store.bounded import CommitTimeout, bounded, timeout_reason
from warpline.store.caughtup import ingested_among
from warpline.store.db import Store, environmental
from warpline.store.metakeys import TIPS_KEY
from warpline.store.reach import refresh_reachability
from warpline.store.relineage import UNORDERED_KEY
from warpline.store.report import WORKER_LOST, IngestReport, Progress
from warpline.store.stopping import StopNow, StopRequest

if TYPE_CHECKING:
    from warpline.store import pipeline

# Ancestry-complete tips: every ancestor of each of these commits is ingested, so a walk
# for pending work may hide them. Kept short; stale entries only cost walk time.
_TIPS_KEY = TIPS_KEY
# ``commits.limits_hit`` of a commit recorded as failed (no events; reason in
# ``ingest_failures``).
FAILED = "ingest_failed"
_MAX_TIPS = 16
# How a long (worker) backfill groups commits into transactions: a transaction ends after
# WRITE_BATCH commits or once WRITE_INTERVAL_S has passed since the last one ended,
# whichever comes first. Each commit sits in its own savepoint inside it, so a commit is
# stored whole or not at all and readers never see half of one. The policy is asked as
# each commit arrives from the workers (they send 50 at a time), so other processes see
# the progress in steps of at most WRITE_BATCH commits, the last step once the next
# commits arrive; a kill loses at most the open transaction, which the next run redoes
# (a stop writes it first). Against one transaction per commit it cut the writer's CPU
# by a quarter or more (pip 13.8 / 15.2 -> 8.4 / 11.2 s, requests 2.7 / 3.1 -> 2.0 /
# 2.2 s; bench/README, "Eleventh session").
WRITE_BATCH = 64
WRITE_INTERVAL_S = 0.25
# A catch-up with a budget (a read tool answering now) facing more pending commits than
# this ingests the newest first: they are what its answer is about (a recent range, the
# newest history), and the background backfill fills in the older ones; lineages and
# paths are settled in history order once all are in (``relineage``). A short backlog
# (after a pull) is ingested in history order.
NEWEST_FIRST_OVER = 500


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


def _until_failure(batch: list[pipeline.Outcome]) -> list[pipeline.Outcome]:
    """The outcomes before the first that failed."""
    for index, (_sha, changes, _error) in enumerate(batch):
        if changes is None:
            return batch[:index]
    return batch


def _release_memory(repo: pygit2.Repository) -> None:
    """Give back what the walk for pending commits left: libgit2's object cache and pack
    handles (``release_caches``: not on a shallow clone), Python's garbage and glibc's free
    heap (``pipeline.trim_heap``, what each worker also does between slices)."""
    release_caches(repo)
    _pipeline().trim_heap()


class Ingestor:
    """Holds the per-process caches of one ingest run (parsed blobs, entity ids)."""

    def __init__(self, store: Store, repo: pygit2.Repository) -> None:
        self.store = store
        self.repo = repo
        self.cache = DefinitionCache()
        # locator -> (id, path) of entities this process has written or read.
        self._entities: dict[str, tuple[int, str]] = {}
        self._tip_cache: list[str] | None = None

    # -- what is left to do -------------------------------------------------------
    def pending(self, head: pygit2.Commit | None) -> list[pygit2.Commit]:
        """Commits reachable from ``head`` that are not ingested, oldest first."""
        if head is None:
            return []
        walker = self.repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL
                                | pygit2.enums.SortMode.REVERSE)
        for tip in self._tips():
            try:
                walker.hide(pygit2.Oid(hex=tip))
            except (KeyError, ValueError, pygit2.GitError):
                continue  # a tip rewritten away (gc'd); hiding is only an optimisation
        candidates = walk_all(self.repo, walker)
        done = self.ingested_among([str(c.id) for c in candidates])
        return [c for c in candidates if str(c.id) not in done]

    def run(
        self,
        commits: Iterable[pygit2.Commit],
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
            and len(todo) >= _pipeline().MIN_COMMITS
        workers = settings.ingest_workers() if long_run else 0
        if workers:
            return self._run_in_workers(todo, workers, report, progress, total, stop)
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

    def _without_boundary(self, todo: list[pygit2.Commit],
                          report: IngestReport) -> list[pygit2.Commit]:
        """Record a shallow clone's boundary commits as placeholders (no events)."""
        edge = shallow.boundary(self.repo)
        if not edge:
            return todo
        rest: list[pygit2.Commit] = []
        for commit in todo:
            if str(commit.id) not in edge:
                rest.append(commit)
            elif shallow_ingest.write_placeholder(self.store, commit):
                report.placeholders += 1
        return rest

    def _run_in_workers(self, todo: list[pygit2.Commit], workers: int, report: IngestReport,
                        progress: Progress | None, total: int,
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
        _release_memory(self.repo)
        stream = _pipeline().changes_in_workers(self.repo.path, shas, workers, stop)
        done = 0
        batch: list[pipeline.Outcome] = []
        policy = FlushPolicy()

        def flush(outcomes: list[pipeline.Outcome]) -> None:
            nonlocal done
            self._write_batch(outcomes, report)
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
                    kept = _until_failure(batch)
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
                kept = _until_failure(batch)
                if kept:
                    flush(kept)
                report.commits_behind, report.stopped_by = len(shas) - done, stop.name
                return report
            if batch:  # the stream ended early (it does not, but never drop outcomes)
                flush(batch)
        finally:
            stream.close()  # terminates and joins the workers now, not at collection
        return report

    def _write_batch(self, batch: list[pipeline.Outcome], report: IngestReport) -> None:
        """Outcomes in history order, the successful ones in one transaction."""
        results: list[tuple[str, CommitChanges | None, int | None, str | None]] = []
        learned: dict[str, tuple[int, str]] = {}
        try:
            with self.store.transaction() as conn:
                for sha, changes, error in batch:
                    if changes is None:
                        results.append((sha, None, None, error or "unknown error"))
                        continue
                    conn.execute("SAVEPOINT warpline_commit")
                    fresh: dict[str, tuple[int, str]] = {}
                    try:
                        written = self._write_in(conn, changes, fresh, learned)
                    except Exception as exc:  # recorded as failed, reported, skipped from now on
                        if environmental(exc):
                            raise  # not the commit's fault: the run stops, nothing recorded
                        conn.execute("ROLLBACK TO warpline_commit")
                        conn.execute("RELEASE warpline_commit")
                        self._tip_cache = None
                        results.append((sha, changes, None, f"{type(exc).__name__}: {exc}"))
                        continue
                    conn.execute("RELEASE warpline_commit")
                    learned.update(fresh)
                    results.append((sha, changes, written, None))
        except Exception as exc:
            if environmental(exc) and len(batch) == 1:
                raise
            # The batch as a whole failed (at COMMIT, say, or on a full disk): written
            # again commit by commit, one transaction each, so every commit up to the one
            # that fails again is kept, and an environmental error (``_store`` raises
            # it) still stops the run with nothing recorded as the commit's fault.
            self._tip_cache = None
            for sha, changes, error in batch:
                if changes is None:
                    self._fail(sha, error or "unknown error", report)
                else:
                    self._store(changes, report)
            return
        self._entities.update(learned)
        for sha, changes, written, error in results:
            if error is not None:
                self._fail(sha, error, report)
            elif written is None:
                report.commits_skipped += 1
            else:
                assert changes is not None
                report.commits_ingested += 1
                report.events_written += written
                report.note_unparsed(changes.unparsed_files)

    def catch_up(
        self,
        head: pygit2.Commit | None,
        *,
        budget_s: float | None = None,
        progress: Progress | None = None,
        stop: StopRequest | None = None,
        retry_failed: bool = False,
    ) -> IngestReport:
        if retry_failed and self.reopen_failed():
            self._tip_cache = None
        reopened = shallow_ingest.reopen_deepened(self.store, shallow.boundary(self.repo))
        if reopened:
            self._tip_cache = None  # the deepened history is walked from HEAD again
        # (No name keeps the pending commits: a worker backfill drops them before forking.)
        report = self.run(self._ordered(self.pending(head), budget_s), budget_s=budget_s,
                          progress=progress, stop=stop)
        report.reopened = reopened
        if head is not None and report.complete:
            self._push_tip(str(head.id))
        # Commits are written unreachable; this flags what HEAD reaches (cheap when HEAD
        # has not moved) and retires what a rewrite left behind.
        refresh_reachability(self.store, self.repo, head, complete=report.complete)
        if head is not None and report.complete and self.store.meta_get(UNORDERED_KEY):
            with self.store.transaction() as conn:
                relineage.settle(conn)
                self.store.meta_set(conn, UNORDERED_KEY, "")
            self._entities.clear()  # their paths may have changed
        return report

    def _ordered(self, todo: list[pygit2.Commit],
                 budget_s: float | None) -> list[pygit2.Commit]:
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
    def _ingest(self, commit: pygit2.Commit, report: IngestReport,
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
            self._fail(str(commit.id), timeout_reason(limit), report)
            return None
        except StopNow:
            self.cache = DefinitionCache()
            return "stopped"
        except Exception as exc:  # recorded as failed, reported, skipped from now on
            self._fail(str(commit.id), f"{type(exc).__name__}: {exc}", report)
            return None
        self._store(changes, report)
        return None

    def _fail(self, sha: str, error: str, report: IngestReport) -> None:
        error = shown(error)  # a message may quote a name that is not UTF-8
        self._tip_cache = None
        self._record_failure(sha, error, skip=not error.startswith(WORKER_LOST))
        report.failures.append((sha, error))

    def _store(self, changes: CommitChanges, report: IngestReport) -> None:
        try:
            written = self._write(changes)
        except Exception as exc:  # recorded as failed, reported, skipped from now on
            if environmental(exc):
                raise  # a full disk or read-only store: store_unwritable, nothing recorded
            self._fail(changes.commit.sha, f"{type(exc).__name__}: {exc}", report)
            return
        if written is None:
            report.commits_skipped += 1
            return
        report.commits_ingested += 1
        report.events_written += written
        report.note_unparsed(changes.unparsed_files)

    def _write(self, changes: CommitChanges) -> int | None:
        fresh: dict[str, tuple[int, str]] = {}
        with self.store.transaction() as conn:
            written = self._write_in(conn, changes, fresh, {})
        self._entities.update(fresh)
        return written

    def _write_in(self, conn: sqlite3.Connection, changes: CommitChanges,
                  fresh: dict[str, tuple[int, str]],
                  learned: dict[str, tuple[int, str]]) -> int | None:
        """One commit's rows, inside an open transaction. ``fresh`` collects the entities
        this commit wrote or read; ``learned``, those of earlier commits of the same
        (uncommitted) transaction."""
        info = changes.commit
        tips = self._tips()
        cur = conn.execute(
            "INSERT OR IGNORE INTO commits (sha, author_name, author_email, authored_at,"
            " committed_at, parent_count, event_count, unparsed_files, ingested_at,"
            " limits_hit, reachable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
            (info.sha, info.author_name, info.author_email, info.authored_at,
             info.committed_at, len(info.parents), len(changes.changes),
             json.dumps(list(changes.unparsed_files)), int(time.time()),
             json.dumps(list(changes.limits_hit))),
        )
        if cur.rowcount == 0:
            return None  # another run (or process) ingested it already
        commit_id = cur.lastrowid
        rows = []
        events: list[lineages.Event] = []
        for change in changes.changes:
            entity_id = self._entity_id(conn, change.locator, change.kind, change.path, fresh,
                                        learned)
            previous_id = None
            if (change.change_kind == "moved" and change.previous_locator
                    and change.previous_locator != change.locator):
                previous_id = self._entity_id(conn, change.previous_locator, change.kind,
                                              change.previous_path or change.path, fresh,
                                              learned)
            events.append((entity_id, change.change_kind, previous_id))
            facts = change.facts or (None, None, None)
            rows.append((commit_id, entity_id, change.change_kind, change.path,
                         change.previous_locator, change.previous_path, info.committed_at,
                         int(change.also_modified), *facts))
        of_events = lineages.assign(conn, events)
        inserted = conn.executemany(
            "INSERT OR IGNORE INTO change_events (commit_id, entity_id, change_kind, path,"
            " previous_locator, previous_path, changed_at, also_modified, code_same,"
            " docs_changed, signature_changed, lineage)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(*row, lineage) for row, lineage in zip(rows, of_events, strict=True)],
        ).rowcount
        if inserted != len(rows):
            # Two changes with one (commit, entity, kind) are one stored event: count what is
            # stored, so the report and the commit row agree with the store.
            conn.execute("UPDATE commits SET event_count = ? WHERE id = ?",
                         (inserted, commit_id))
        for parent in info.parents:
            if parent in tips:
                self._push_tip(info.sha, conn=conn, replacing=parent)
                break
        return inserted

    def _entity_id(self, conn: sqlite3.Connection, locator: str, kind: str, path: str,
                   fresh: dict[str, tuple[int, str]],
                   learned: dict[str, tuple[int, str]]) -> int:
        known = fresh.get(locator) or learned.get(locator) or self._entities.get(locator)
        if known is not None:
            entity_id, known_path = known
            if known_path != path:  # the entity's latest path follows the history
                conn.execute("UPDATE entities SET path = ? WHERE id = ?", (path, entity_id))
                fresh[locator] = (entity_id, path)
            return entity_id
        row = conn.execute("SELECT id FROM entities WHERE locator = ?", (locator,)).fetchone()
        if row is None:
            cur = conn.execute(
                "INSERT INTO entities (locator, kind, path, lineage) VALUES (?, ?, ?, 0)",
                (locator, kind, path),
            )
            entity_id = int(cur.lastrowid or 0)
            conn.execute("UPDATE entities SET lineage = ? WHERE id = ?",
                         (lineages.new_lineage(conn, entity_id), entity_id))
        else:
            entity_id = int(row[0])
            conn.execute("UPDATE entities SET path = ? WHERE id = ?", (path, entity_id))
        fresh[locator] = (entity_id, path)
        return entity_id

    # -- bookkeeping --------------------------------------------------------------
    def _record_failure(self, sha: str, error: str, *, skip: bool) -> None:
        """The reason, and (``skip``: the commit's own failure) a ``commits`` row without
        events that keeps every later run from reading it again."""
        try:
            with self.store.transaction() as conn:
                conn.execute(
                    "INSERT INTO ingest_failures (sha, error, failed_at) VALUES (?, ?, ?)",
                    (sha, error[:2000], int(time.time())),
                )
                if skip:
                    self._failed_row(conn, sha)
        except Exception:
            if skip:  # the row could not be written: at least keep the reason
                self._record_failure(sha, error, skip=False)

    def _failed_row(self, conn: sqlite3.Connection, sha: str) -> None:
        commit = self.repo.get(sha)
        if not isinstance(commit, pygit2.Commit):
            return
        author = commit.author
        conn.execute(
            "INSERT OR IGNORE INTO commits (sha, author_name, author_email, authored_at,"
            " committed_at, parent_count, event_count, unparsed_files, ingested_at,"
            " limits_hit, reachable) VALUES (?, ?, ?, ?, ?, ?, 0, '[]', ?, ?, 0)",
            (sha, _text(author.raw_name), _text(author.raw_email), int(author.time),
             int(commit.commit_time), len(commit.parent_ids), int(time.time()),
             json.dumps([FAILED])))

    def reopen_failed(self) -> int:
        """Forget the commits recorded as failed, so this run reads them again; how many.
        The ancestry-complete tips go too: the walk for pending work must reach them."""
        with self.store.transaction() as conn:
            gone = conn.execute(
                "DELETE FROM commits WHERE event_count = 0 AND limits_hit = ?",
                (json.dumps([FAILED]),)).rowcount
            if gone:
                self.store.meta_set(conn, _TIPS_KEY, json.dumps([]))
        return int(gone)

    def ingested_among(self, shas: list[str]) -> set[str]:
        return ingested_among(self.store, shas)

    def _tips(self) -> list[str]:
        if self._tip_cache is None:
            raw = self.store.meta_get(_TIPS_KEY)
            self._tip_cache = list(json.loads(raw)) if raw else []
        return self._tip_cache

    def _push_tip(self, sha: str, *, conn: sqlite3.Connection | None = None,
                  replacing: str | None = None) -> None:
        current = self._tips()
        if conn is None and replacing is None and current[:1] == [sha]:
            return  # already the newest tip: a caught-up read takes no write lock
        tips = [t for t in current if t not in (sha, replacing)]
        tips = [sha, *tips][:_MAX_TIPS]
        self._tip_cache = tips
        if conn is not None:
            self.store.meta_set(conn, _TIPS_KEY, json.dumps(tips))
            return
        with self.store.transaction() as own:
            self.store.meta_set(own, _TIPS_KEY, json.dumps(tips))


def _text(raw: bytes) -> str:
    """An author's name or address as stored: UTF-8, anything else escaped, never lost."""
    return raw.decode("utf-8", "backslashreplace")


def _pipeline() -> ModuleType:
    """The worker pipeline (multiprocessing, ctypes), loaded only for a long backfill."""
    from warpline.store import pipeline

    return pipeline
