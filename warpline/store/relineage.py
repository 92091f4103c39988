"""Lineages and entity paths settled in history order, after commits were ingested out of it.

Both are fixed as commits are written (``lineages.assign``, ``Ingestor._entity_id``), and
both depend on the order: a name renamed away and added again, ingested newest first,
lands in the wrong lineage; an entity's path ends as its oldest one. A read tool's
catch-up on a long backlog ingests the newest commits first (and a range off HEAD is
ingested on demand, newest first), so such a store is marked (``UNORDERED_KEY``) and,
once every commit HEAD reaches is stored and ordered (``commits.topo``), ``settle``
replays what an ingest in history order would have decided: every entity starts with a
lineage of its own, each commit's events go through ``lineages.assign`` again in
topological order, and each entity's path is the one its last change in that order gave
it. The events themselves (which commit changed what) never depend on the order.

Measured on requests (6,489 commits, 1,000 newest ingested first): 107 of 3,637 lineage
groups and 297 of 4,394 entity paths differed from an in-order backfill before ``settle``,
none after (bench/README, "First answers on a long history").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from itertools import groupby

from warpline.store import lineages

__all__ = ["UNORDERED_KEY", "settle"]

UNORDERED_KEY = "ingested_out_of_order"


def settle(conn: sqlite3.Connection,
           reaching: Callable[[str], lineages.Reaches] | None = None) -> None:
    """Reassign every event's lineage and every entity's path in history order, inside
    the caller's transaction. ``reaching(sha)``: which stored commits that commit has in
    its history (``lineages.assign``)."""
    ids = {str(loc): int(eid) for eid, loc in conn.execute("SELECT id, locator FROM entities")}
    conn.execute("DELETE FROM lineages")
    conn.execute("INSERT INTO lineages (id, holder) SELECT id, id FROM entities")
    conn.execute("UPDATE entities SET lineage = id")
    conn.execute("UPDATE change_events SET lineage = NULL")
    paths: dict[int, str] = {}
    # Commits HEAD reaches in topological order, then any others (rewritten away) in the
    # order they were stored; within a commit, events in the order they were written.
    shas = {int(i): str(sha) for i, sha in conn.execute("SELECT id, sha FROM commits")}
    rows = conn.execute(
        "SELECT ce.commit_id, ce.id, ce.entity_id, ce.change_kind, ce.path, "
        "ce.previous_locator, ce.previous_path, e.locator FROM change_events ce "
        "JOIN commits c ON c.id = ce.commit_id JOIN entities e ON e.id = ce.entity_id "
        "ORDER BY c.topo IS NULL, c.topo, c.id, ce.id").fetchall()
    for commit, group in groupby(rows, key=lambda row: row[0]):
        events: list[lineages.Event] = []
        event_ids: list[int] = []
        for _, event_id, entity, kind, path, previous, previous_path, locator in group:
            paths[int(entity)] = str(path)
            before = None
            if kind == "moved" and previous and previous != locator:
                before = ids.get(str(previous))
                if before is not None:
                    paths[before] = str(previous_path or path)
            events.append((int(entity), str(kind), before))
            event_ids.append(int(event_id))
        assigned = lineages.assign(
            conn, events, None if reaching is None else reaching(shas[int(commit)]))
        conn.executemany("UPDATE change_events SET lineage = ? WHERE id = ?",
                         zip(assigned, event_ids, strict=True))
    conn.executemany("UPDATE entities SET path = ? WHERE id = ? AND path != ?",
                     ((path, entity, path) for entity, path in paths.items()))
