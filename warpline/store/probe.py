"""Reading a store without touching it: the ``project_status`` probe's half of the store.

``Store.open`` creates and migrates; this module never does. It opens
``.weft/warpline/warpline.db`` through a ``file:…?mode=ro`` URI, so SQLite refuses every
write to the database file. It is *not* ``immutable=1``: that would skip the WAL and miss
committed transactions that are not checkpointed yet. A read-only connection to a WAL
database may create the ``-shm``/``-wal`` sidecars, which are coordination files, not
store content (the directory's ``.gitignore`` covers them); ``warpline.db`` keeps its bytes.

Every ``sqlite3.Error`` here becomes ``store_unreadable`` with the reason, at this seam.
"""

from __future__ import annotations

import json
import sqlite3
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from warpline.errors import InternalError, StoreUnsafe
from warpline.git import shallow
from warpline.git.walks import Commit, Repository, head_or_missing, peel_commit
from warpline.store import guard, integrity, readonly
from warpline.store.db import Store, store_path
from warpline.store.migrations import SCHEMA_VERSION

# Bounded work for commits_behind_head: past this many un-ingested commits the probe stops
# counting and reports "at least" this many.
BEHIND_SCAN_LIMIT = 10_000
_LOOKUP_BATCH = 500


@dataclass(frozen=True, slots=True)
class StoreProbe:
    """What a look at the store found without changing it."""
    status: str  # ok | store_absent | store_unreadable | schema_ahead
    path: Path
    present: bool
    readable: bool
    schema_version: int | None = None  # the on-disk version, also when not served
    snapshot_rev: str | None = None
    change_event_count: int | None = None
    commits_behind_head: int | None = None
    behind_is_lower_bound: bool = False
    has_snapshot_table: bool = False
    reason: str | None = None
    # A commit the walk from HEAD needs but the object database lacks, where no shallow
    # boundary explains it: the repository is damaged (read tools answer invalid_repo).
    missing_object: str | None = None
    # SQLite's quick_check of a readable store: ok | damaged | unchecked (``integrity``).
    integrity: str | None = None
    damage: str | None = None


@contextmanager
def open_read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection that cannot write the database file (``mode=ro``, WAL-aware; on a
    read-only filesystem without sidecars, ``immutable``: ``readonly.connect``)."""
    with closing(readonly.connect(path, 5.0)) as conn:
        conn.execute("PRAGMA query_only = ON")
        yield conn


SnapshotChooser = Callable[[Store, Repository], str | None]


def probe_store(root: Path, repo: Repository, snapshot_rev: SnapshotChooser) -> StoreProbe:
    """What the store of ``root`` holds, read-only. Never raises for a broken store.

    ``snapshot_rev`` names the snapshot commit a graph query would use, given the store
    over the read-only connection (the service layer owns that choice).
    """
    path = store_path(root)
    try:
        guard.check_state(root, create=False)
    except StoreUnsafe as exc:
        return StoreProbe("store_unreadable", path, present=True, readable=False,
                          reason=exc.hint)
    if not path.exists():
        return StoreProbe("store_absent", path, present=False, readable=False)
    try:
        with open_read_only(path) as conn:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                return StoreProbe("schema_ahead", path, present=True, readable=False,
                                  schema_version=version)
            tables = {str(row[0]) for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version < 1 or not {"commits", "change_events"} <= tables:
                return StoreProbe(
                    "store_unreadable", path, present=True, readable=False,
                    schema_version=version,
                    reason="it holds no warpline schema (user_version "
                    f"{version}, tables: {', '.join(sorted(tables)) or 'none'})")
            # First: a damaged page below would otherwise fail a count and hide the finding.
            checked = integrity.verdict(path, conn, persist=False)
            events = int(conn.execute("SELECT count(*) FROM change_events").fetchone()[0])
            has_snapshots = "snapshots" in tables
            snapshot = snapshot_rev(Store(conn, path, read_only=True, root=root), repo) \
                if has_snapshots else None
            missing: list[str] = []
            behind, at_least = commits_behind_head(conn, repo, missing)
    except sqlite3.Error as exc:
        return StoreProbe("store_unreadable", path, present=True, readable=False,
                          reason=f"SQLite: {exc}")
    except InternalError as exc:  # a reader below translated its sqlite3.Error already
        return StoreProbe("store_unreadable", path, present=True, readable=False,
                          reason=exc.hint)
    return StoreProbe("ok", path, present=True, readable=True, schema_version=version,
                      snapshot_rev=snapshot, change_event_count=events,
                      commits_behind_head=behind, behind_is_lower_bound=at_least,
                      has_snapshot_table=has_snapshots,
                      missing_object=missing[0] if missing else None,
                      integrity=checked.state, damage=checked.finding)


def commits_behind_head(conn: sqlite3.Connection, repo: Repository,
                        missing: list[str] | None = None) -> tuple[int | None, bool]:
    """Commits reachable from HEAD that are not in ``commits``: ``(count, at_least)``.

    A breadth-first walk from HEAD that stops at ingested commits (their history was
    ingested before them) and after ``BEHIND_SCAN_LIMIT`` un-ingested ones. A commit the
    walk needs that the object database lacks, outside a shallow boundary, is appended to
    ``missing`` (the count is then a lower bound: history past it cannot be read).
    """
    missing = [] if missing is None else missing
    head, absent = head_or_missing(repo)
    if absent is not None:
        missing.append(absent)
    if head is None:
        return (None, True) if missing else (0, False)
    # A shallow boundary recorded as a placeholder that is no longer a boundary (the clone
    # was deepened) is not ingested: its history waits behind it.
    reopened = _reopened_placeholders(conn, repo)
    # Stored commits stop the walk only when their history was stored before them; after
    # an ingest out of history order (``relineage``) the walk goes on through them.
    through = _unordered(conn)
    seen = {head.id}
    frontier: deque[Commit] = deque([head])
    for sha in reopened:
        commit = peel_commit(repo, sha)
        if commit is None:
            continue
        if commit.id not in seen:
            seen.add(commit.id)
            frontier.append(commit)
    behind = 0
    edge: frozenset[str] | None = None  # read only when a parent is missing
    while frontier:
        batch = [frontier.popleft() for _ in range(min(len(frontier), _LOOKUP_BATCH))]
        shas = [str(c.id) for c in batch]
        ingested = {str(row[0]) for row in conn.execute(
            f"SELECT sha FROM commits WHERE sha IN ({', '.join('?' * len(shas))})", shas)}
        ingested -= reopened
        for commit in batch:
            if str(commit.id) in ingested:
                if not through:
                    continue
            else:
                behind += 1
                if behind >= BEHIND_SCAN_LIMIT:
                    return behind, True
            for parent_id in commit.parent_ids:
                if parent_id not in seen:
                    seen.add(parent_id)
                    parent = peel_commit(repo, parent_id)
                    if parent is not None:
                        frontier.append(parent)
                        continue
                    # A shallow clone's missing parent: nothing to ingest. Otherwise the
                    # repository is damaged.
                    edge = shallow.boundary(repo) if edge is None else edge
                    if str(commit.id) not in edge:
                        missing.append(str(parent_id))
    return behind, bool(missing)


def _unordered(conn: sqlite3.Connection) -> bool:
    from warpline.store.relineage import UNORDERED_KEY

    try:
        row = conn.execute("SELECT value FROM store_meta WHERE key = ?",
                           (UNORDERED_KEY,)).fetchone()
    except sqlite3.Error:
        return False
    return bool(row and row[0])


def _reopened_placeholders(conn: sqlite3.Connection, repo: Repository) -> set[str]:
    from warpline.git.shallow import boundary
    from warpline.store.metakeys import PLACEHOLDER_KEY

    try:
        row = conn.execute("SELECT value FROM store_meta WHERE key = ?",
                           (PLACEHOLDER_KEY,)).fetchone()
        held = json.loads(row[0]) if row and row[0] else []
    except (sqlite3.Error, ValueError):
        return set()
    if not isinstance(held, list):
        return set()
    return {str(sha) for sha in held} - boundary(repo)
