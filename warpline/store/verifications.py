"""The ``verifications`` table: records that a commit was verified (kind, source, actor)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from warpline.store.db import Store


def insert_once(store: Store, sha: str, kind: str, source: str, actor: str | None,
                at: int) -> tuple[bool, tuple[Any, ...]]:
    """Insert the record unless one exists; whether it was inserted, and the stored
    ``(actor, verified_at)``."""
    with store.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO verifications (commit_sha, kind, source, actor, verified_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (commit_sha, kind, source) DO NOTHING",
            (sha, kind, source, actor, at),
        )
        inserted = cursor.rowcount == 1
        row = conn.execute(
            "SELECT actor, verified_at FROM verifications "
            "WHERE commit_sha = ? AND kind = ? AND source = ?",
            (sha, kind, source),
        ).fetchone()
    return inserted, tuple(row)


def records(conn: sqlite3.Connection, source: str,
            kinds: Sequence[str] | None) -> list[tuple[Any, ...]]:
    """``(commit_sha, kind, verified_at, row id)`` of ``source``'s records of ``kinds``
    (every kind when None)."""
    sql = "SELECT commit_sha, kind, verified_at, id FROM verifications WHERE source = ?"
    args: list[Any] = [source]
    if kinds is not None:
        allowed = sorted(set(kinds))
        sql += f" AND kind IN ({', '.join('?' * len(allowed))})"
        args.extend(allowed)
    return [tuple(r) for r in conn.execute(sql, args)]
