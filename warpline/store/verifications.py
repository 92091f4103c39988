"""The ``verifications`` table: records that a commit was verified (kind, source, actor),
and what the run behind each proved (``scope``, ``run``: see ``warpline.scope``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from warpline import scope as scopes
from warpline.store.db import Store


def _decoded(extent: Any, run: Any) -> tuple[str, dict[str, Any] | None]:
    try:
        facts = json.loads(run) if isinstance(run, str) else None
    except ValueError:
        facts = None
    return scopes.parse(extent if extent is not None else "unknown", facts)


def insert_once(store: Store, sha: str, kind: str, source: str, actor: str | None,
                at: int, extent: str = "attested",
                run: dict[str, Any] | None = None) -> tuple[bool, tuple[Any, ...]]:
    """Insert the record unless one exists; whether it was written, and the stored
    ``(actor, verified_at, scope, run)``.

    A record of a stronger scope than the stored one (a whole-suite pass after a selection
    passed) replaces it: it is new evidence, not a repeat."""
    text = json.dumps(run, sort_keys=True, separators=(",", ":")) if run else None
    with store.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO verifications (commit_sha, kind, source, actor, verified_at, scope, "
            "run) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (commit_sha, kind, source) DO NOTHING",
            (sha, kind, source, actor, at, extent, text),
        )
        inserted = cursor.rowcount == 1
        row = conn.execute(
            "SELECT actor, verified_at, scope, run FROM verifications "
            "WHERE commit_sha = ? AND kind = ? AND source = ?",
            (sha, kind, source),
        ).fetchone()
        old_extent, old_run = _decoded(row[2], row[3])
        if not inserted and scopes.rank(extent, scopes.basis_of(run)) > scopes.rank(
                old_extent, scopes.basis_of(old_run)):
            conn.execute(
                "UPDATE verifications SET actor = ?, verified_at = ?, scope = ?, run = ? "
                "WHERE commit_sha = ? AND kind = ? AND source = ?",
                (actor, at, extent, text, sha, kind, source))
            return True, (actor, at, extent, run)
    return inserted, (row[0], row[1], old_extent, old_run)


def records(store: Store, source: str,
            kinds: Sequence[str] | None) -> list[tuple[Any, ...]]:
    """``(commit_sha, kind, verified_at, row id, scope, run facts)`` of ``source``'s records
    of ``kinds`` (every kind when None)."""
    conn = store.conn
    sql = ("SELECT commit_sha, kind, verified_at, id, scope, run FROM verifications "
           "WHERE source = ?")
    args: list[Any] = [source]
    if kinds is not None:
        allowed = sorted(set(kinds))
        sql += f" AND kind IN ({', '.join('?' * len(allowed))})"
        args.extend(allowed)
    out: list[tuple[Any, ...]] = []
    for sha, kind, at, row_id, extent, run in conn.execute(sql, args):
        out.append((sha, kind, at, row_id, *_decoded(extent, run)))
    return out
