"""One commit's rows, and the row of a commit recorded as failed.

``CommitWriter.write_in`` writes a commit (its ``commits`` row, entities, change events
and their lineages) inside an open transaction; ``write`` in a transaction of its own.
Which stored commits a commit has in its history (the lineage rule asks) is git's answer,
handed in by the ingest (``Ancestry``): the store never reads git itself. A
commit is recorded by its sha (``INSERT OR IGNORE``), so re-running, resuming after a kill
and several processes ingesting at once all converge on one row per commit. The writer
remembers the ids of the entities it wrote or read (their latest path too) for the rest
of the run.

A failed commit (``warpline.ingest.driver`` says when) leaves its reason in ``ingest_failures`` and,
when the failure is the commit's own, a ``commits`` row without events whose
``limits_hit`` is ``[FAILED]``: every later run skips it until ``reopen_failed``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable

from warpline.git.events import CommitChanges
from warpline.store import lineages
from warpline.store.db import Store, environmental
from warpline.store.metakeys import TIPS_KEY
from warpline.store.relineage import UNORDERED_KEY
from warpline.store.tips import AncestryTips

__all__ = ["FAILED", "Ancestry", "CommitWriter", "FailedRow", "reaching"]

# ``commits.limits_hit`` of a commit recorded as failed (no events; reason in
# ``ingest_failures``).
FAILED = "ingest_failed"
# The events whose facts of what the change means are read later (``store/eventfacts.py``):
# a definition's, outside merges (a merge's events carry none).
_WITH_FACTS = ("modified", "moved")

# ``ancestry(sha, other)``: whether commit ``other`` is ``sha`` or in its history (True
# when git cannot tell).
Ancestry = Callable[[str, str], bool]
# What a failed commit's row records: (author name, author email, authored at, committed
# at, parent count); None when the commit object is missing.
FailedRow = tuple[str, str, int, int, int]


def reaching(conn: sqlite3.Connection, ancestry: Ancestry, sha: str) -> lineages.Reaches:
    """Whether commit ``sha`` has a stored commit (by id) in its history."""
    def reaches(commit_id: int) -> bool:
        row = conn.execute("SELECT sha FROM commits WHERE id = ?", (commit_id,)).fetchone()
        return row is None or ancestry(sha, str(row[0]))
    return reaches


class CommitWriter:
    """Writes commits' rows for one ingest run, with its cache of entity ids."""

    def __init__(self, store: Store, tips: AncestryTips, ancestry: Ancestry) -> None:
        self.store = store
        self.tips = tips
        self.ancestry = ancestry
        # locator -> (id, path) of entities this process has written or read.
        self._entities: dict[str, tuple[int, str]] = {}

    def learn(self, entities: dict[str, tuple[int, str]]) -> None:
        """Entities a committed transaction wrote or read (``write_in``'s ``fresh``)."""
        self._entities.update(entities)

    def forget_entities(self) -> None:
        """Their paths may have changed (lineages and paths replayed)."""
        self._entities.clear()

    def write(self, changes: CommitChanges) -> int | None:
        fresh: dict[str, tuple[int, str]] = {}
        with self.store.transaction() as conn:
            written = self.write_in(conn, changes, fresh, {})
        self._entities.update(fresh)
        return written

    def write_in(self, conn: sqlite3.Connection, changes: CommitChanges,
                  fresh: dict[str, tuple[int, str]],
                  learned: dict[str, tuple[int, str]]) -> int | None:
        """One commit's rows, inside an open transaction. ``fresh`` collects the entities
        this commit wrote or read; ``learned``, those of earlier commits of the same
        (uncommitted) transaction."""
        info = changes.commit
        tips = self.tips.get()
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
        if info.parents and not self._parents_stored(conn, info.parents):
            # Written before its history (``ingest-commit`` of a recent commit, a worker
            # that died, a range read newest first): lineages and paths are replayed in
            # history order once the store is complete (``relineage``).
            self.store.meta_set(conn, UNORDERED_KEY, "1")
        rows = []
        parents = len(info.parents)
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
            pending = int(change.facts is None and parents < 2 and change.kind != "file"
                          and change.change_kind in _WITH_FACTS)
            rows.append((commit_id, entity_id, change.change_kind, change.path,
                         change.previous_locator, change.previous_path, info.committed_at,
                         int(change.also_modified), *facts, pending))
        of_events = lineages.assign(conn, events, reaching(conn, self.ancestry, info.sha))
        inserted = conn.executemany(
            "INSERT OR IGNORE INTO change_events (commit_id, entity_id, change_kind, path,"
            " previous_locator, previous_path, changed_at, also_modified, code_same,"
            " docs_changed, signature_changed, facts_pending, lineage)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(*row, lineage) for row, lineage in zip(rows, of_events, strict=True)],
        ).rowcount
        if inserted != len(rows):
            # Two changes with one (commit, entity, kind) are one stored event: count what is
            # stored, so the report and the commit row agree with the store.
            conn.execute("UPDATE commits SET event_count = ? WHERE id = ?",
                         (inserted, commit_id))
        for parent in info.parents:
            if parent in tips:
                self.tips.push(info.sha, conn=conn, replacing=parent)
                break
        return inserted

    def write_saved(self, conn: sqlite3.Connection, changes: CommitChanges,
                    fresh: dict[str, tuple[int, str]],
                    learned: dict[str, tuple[int, str]]) -> int | None:
        """``write_in`` inside a savepoint of its own: the commit is kept whole, or (an
        error that is not the environment's, or a stop signal) rolled back to where it
        began, and the error raised."""
        conn.execute("SAVEPOINT warpline_commit")
        try:
            written = self.write_in(conn, changes, fresh, learned)
        except BaseException as exc:  # a stop signal (not an Exception) rolls back too
            if not isinstance(exc, Exception) or not environmental(exc):
                conn.execute("ROLLBACK TO warpline_commit")
                conn.execute("RELEASE warpline_commit")
            raise
        conn.execute("RELEASE warpline_commit")
        return written

    @staticmethod
    def _parents_stored(conn: sqlite3.Connection, parents: tuple[str, ...]) -> bool:
        unique = sorted(set(parents))
        row = conn.execute(
            f"SELECT count(*) FROM commits WHERE sha IN ({','.join('?' * len(unique))})",
            unique).fetchone()
        return int(row[0]) == len(unique)

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

    def record_failure(self, sha: str, error: str, *, skip: bool,
                       row: FailedRow | None = None) -> None:
        """The reason, and (``skip``: the commit's own failure; ``row``: its author and
        times) a ``commits`` row without events that keeps every later run from reading it
        again."""
        try:
            with self.store.transaction() as conn:
                conn.execute(
                    "INSERT INTO ingest_failures (sha, error, failed_at) VALUES (?, ?, ?)",
                    (sha, error[:2000], int(time.time())),
                )
                if skip and row is not None:
                    self._failed_row(conn, sha, row)
        except Exception:
            if skip:  # the row could not be written: at least keep the reason
                self.record_failure(sha, error, skip=False)

    def _failed_row(self, conn: sqlite3.Connection, sha: str, row: FailedRow) -> None:
        name, email, authored_at, committed_at, parents = row
        conn.execute(
            "INSERT OR IGNORE INTO commits (sha, author_name, author_email, authored_at,"
            " committed_at, parent_count, event_count, unparsed_files, ingested_at,"
            " limits_hit, reachable) VALUES (?, ?, ?, ?, ?, ?, 0, '[]', ?, ?, 0)",
            (sha, name, email, authored_at, committed_at, parents, int(time.time()),
             json.dumps([FAILED])))

    def reopen_failed(self) -> int:
        """Forget the commits recorded as failed, so this run reads them again; how many.
        The ancestry-complete tips go too: the walk for pending work must reach them."""
        with self.store.transaction() as conn:
            gone = conn.execute(
                "DELETE FROM commits WHERE event_count = 0 AND limits_hit = ?",
                (json.dumps([FAILED]),)).rowcount
            if gone:
                self.store.meta_set(conn, TIPS_KEY, json.dumps([]))
        return int(gone)
