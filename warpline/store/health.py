"""Read-only health questions about a store file (``warpline doctor``): page damage and
commits that could not be ingested. Never raises for a broken store: the answer says so."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from warpline.store.probe import open_read_only

# ``commits.limits_hit`` of a commit recorded as failed (``warpline.store.commit_rows.FAILED``):
# its row keeps it from being read again, its failure stays unresolved.
FAILED_LIMITS = '["ingest_failed"]'


def damage(path: Path) -> str | None:
    """SQLite's own page-level check, read-only; None when it finds nothing wrong."""
    try:
        with open_read_only(path) as conn:
            rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.Error as exc:
        return str(exc)
    return None if rows == ["ok"] else "; ".join(rows)


def unresolved_failures(path: Path, limit: int = 20) -> list[tuple[str, str]]:
    """``(sha, error)`` of commits whose ingest failed and never succeeded later, newest
    first; one ``("????????????", why)`` row when the table cannot be read."""
    try:
        with open_read_only(path) as conn:
            return [(str(r[0]), str(r[1])) for r in conn.execute(
                "SELECT f.sha, f.error FROM ingest_failures f WHERE NOT EXISTS "
                "(SELECT 1 FROM commits c WHERE c.sha = f.sha AND c.limits_hit != ?) "
                "GROUP BY f.sha "
                "ORDER BY max(f.failed_at) DESC LIMIT ?", (FAILED_LIMITS, limit))]
    except sqlite3.Error as exc:
        return [("?" * 12, f"the failures table cannot be read: {exc}")]



def misplaced(path: Path, reached: set[str]) -> int | None:
    """How many stored commits carry a ``reachable`` flag that ``reached`` (one walk from
    HEAD) contradicts: 0 on a healthy store (a deepened clone's store before issue 38 had
    them all wrong); None when the store cannot be read."""
    try:
        with open_read_only(path) as conn:
            rows = conn.execute("SELECT sha, reachable FROM commits").fetchall()
    except sqlite3.Error:
        return None
    return sum((str(sha) in reached) != bool(flag) for sha, flag in rows)
