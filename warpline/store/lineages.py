"""Per-lineage queries (an entity across renames and moves): churn counts and timelines."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from warpline.store.events import temp_keys

_JOINS = ("FROM change_events ce JOIN entities e ON e.id = ce.entity_id "
          "JOIN commits c ON c.id = ce.commit_id")

# count, first change, last change, last actor ("Name <email>")
Stat = tuple[int, int, int, str]


def churn_stats(conn: sqlite3.Connection, lineages: Iterable[int], since: int | None,
                until: int | None, shas: Sequence[str] | None,
                ) -> tuple[dict[int, Stat], dict[int, Stat], dict[int, int]]:
    """Counts per lineage and per entity in two grouped queries (never one per ref),
    and each lineage's current member (the entity of its topologically latest event)."""
    clauses = [f"e.lineage IN {temp_keys(conn, 'q_lineages', lineages, 'INTEGER')}"]
    args: list[Any] = []
    if since is not None:
        clauses.append("ce.changed_at >= ?")
        args.append(since)
    if until is not None:
        clauses.append("ce.changed_at <= ?")
        args.append(until)
    if shas is not None:
        clauses.append(f"c.sha IN {temp_keys(conn, 'q_commits', shas)}")
    else:  # only history HEAD reaches; an explicit range is its own set of commits
        clauses.append("c.reachable = 1")
    base = f"{_JOINS} WHERE " + " AND ".join(clauses)
    by_lineage: dict[int, Stat] = {}
    by_entity: dict[int, Stat] = {}
    current: dict[int, int] = {}
    # Grouped per entity only; a lineage's figures roll up from its members' (the count
    # sums, the first is the least, the latest is the member row with the greatest order
    # key), which halves the scans of the events (the store-wide answer of 50,000 refs).
    firsts = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(
        f"SELECT e.id, count(*), min(ce.changed_at) {base} GROUP BY e.id", args)}
    # SQLite returns the bare columns of the row holding max() when max() is the only
    # min/max aggregate: that is the topologically latest event (never the latest
    # timestamp: equal commit times are normal after a rebase) and its author.
    latest: dict[int, int] = {}
    for entity_id, lineage, key, last, name, email in conn.execute(
            "SELECT e.id, e.lineage, max(coalesce(c.topo, 0) * 4294967296 + ce.id), "
            f"ce.changed_at, c.author_name, c.author_email {base} GROUP BY e.id", args):
        count, first = firsts[entity_id]
        stat = (count, first, int(last), f"{name} <{email}>")
        by_entity[entity_id] = stat
        held = by_lineage.get(lineage)
        if held is None:
            by_lineage[lineage], latest[lineage] = stat, key
            current[lineage] = entity_id
            continue
        total, earliest = held[0] + count, min(held[1], first)
        if key > latest[lineage]:
            by_lineage[lineage] = (total, earliest, stat[2], stat[3])
            latest[lineage], current[lineage] = key, entity_id
        else:
            by_lineage[lineage] = (total, earliest, held[2], held[3])
    return by_lineage, by_entity, current


def latest_locator(conn: sqlite3.Connection, lineage: int) -> tuple[str, str] | None:
    """``(locator, commit sha)`` of a lineage's topologically latest reachable change."""
    row = conn.execute(
        f"SELECT e.locator, c.sha {_JOINS} WHERE e.lineage = ? AND c.reachable = 1 "
        "ORDER BY c.topo DESC, ce.id DESC LIMIT 1", (lineage,)).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def timeline_rows(conn: sqlite3.Connection, lineage: int, change_kinds: Sequence[str],
                  since: int | None, until: int | None, order: str, offset: int,
                  limit: int) -> tuple[list[Any], int]:
    """One page of a lineage's reachable change events in topological order, and the
    total: ``(id, change_kind, author_name, author_email, sha, changed_at, path, locator,
    previous_locator, previous_path, also_modified)``."""
    clauses = ["e.lineage = ?", "c.reachable = 1"]
    args: list[Any] = [lineage]
    if change_kinds:
        clauses.append(f"ce.change_kind IN ({','.join('?' * len(change_kinds))})")
        args.extend(change_kinds)
    for value, op in ((since, ">="), (until, "<=")):
        if value is not None:
            clauses.append(f"ce.changed_at {op} ?")
            args.append(value)
    scope = " WHERE " + " AND ".join(clauses)
    total = conn.execute(f"SELECT count(*) {_JOINS}{scope}", args).fetchone()[0]
    direction = "DESC" if order == "desc" else "ASC"
    rows = conn.execute(
        "SELECT ce.id, ce.change_kind, c.author_name, c.author_email, c.sha, ce.changed_at, "
        "ce.path, e.locator, ce.previous_locator, ce.previous_path, ce.also_modified "
        f"{_JOINS}{scope} ORDER BY c.topo {direction}, ce.id {direction} LIMIT ? OFFSET ?",
        [*args, limit, offset]).fetchall()
    return rows, int(total)
