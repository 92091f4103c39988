"""The ``run_receipts`` table: what each pytest run the plugin saw did (see
``warpline.runners.receipt``). The newest ``KEEP`` are kept."""

from __future__ import annotations

import json
from typing import Any

from warpline.store.db import Store

KEEP = 200


def add(store: Store, commit_sha: str | None, clean: bool, exit_status: int,
        finished_at: int, facts: dict[str, Any]) -> int:
    with store.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO run_receipts (commit_sha, clean, exit_status, finished_at, facts) "
            "VALUES (?, ?, ?, ?, ?)",
            (commit_sha, int(clean), exit_status, finished_at,
             json.dumps(facts, sort_keys=True, separators=(",", ":"))))
        row_id = int(cursor.lastrowid or 0)
        conn.execute("DELETE FROM run_receipts WHERE id <= ?", (row_id - KEEP,))
    return row_id


def for_commit(store: Store, commit_sha: str) -> list[dict[str, Any]]:
    """The receipts of runs at ``commit_sha``, newest first, each with its stored columns
    and its facts (a row whose facts are not a JSON object is skipped)."""
    out: list[dict[str, Any]] = []
    for row_id, clean, status, at, text in store.conn.execute(
            "SELECT id, clean, exit_status, finished_at, facts FROM run_receipts "
            "WHERE commit_sha = ? ORDER BY id DESC", (commit_sha,)):
        try:
            facts = json.loads(text)
        except ValueError:
            continue
        if isinstance(facts, dict):
            out.append({**facts, "id": row_id, "commit": commit_sha, "clean": bool(clean),
                        "exit_status": int(status), "finished_at": int(at)})
    return out


def newest(store: Store) -> dict[str, Any] | None:
    """The newest receipt of any commit (for saying what the last run was)."""
    row = store.conn.execute(
        "SELECT commit_sha FROM run_receipts ORDER BY id DESC LIMIT 1").fetchone()
    if row is None or row[0] is None:
        return None
    found = for_commit(store, str(row[0]))
    return found[0] if found else None
