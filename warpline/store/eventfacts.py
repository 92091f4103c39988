"""The facts of what a change means, read after the event was stored (migration 12).

An event of a definition that a change could have modified (``modified``, ``moved``; not a
merge's) is written with ``facts_pending = 1`` and NULL facts; the ingest reads its facts
when an answer reads the event, or in a background pass (``warpline.ingest.facts``), and
writes them here, clearing the flag. A pending event's nature is unknown until then: the
three columns are NULL, as for events no reader could parse.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from warpline.store.db import Store
from warpline.store.events import temp_keys

__all__ = ["PendingEvent", "count_pending", "pending_events", "record_facts"]

# (event id, commit sha, locator, kind, change kind, path, previous locator, previous
# path, also modified)
PendingEvent = tuple[int, str, str, str, str, str, str | None, str | None, bool]

_JOINS = ("FROM change_events ce JOIN commits c ON c.id = ce.commit_id "
          "JOIN entities e ON e.id = ce.entity_id")


def _scope(store: Store, shas: Sequence[str] | None, lineages: Iterable[int] | None,
           events: Iterable[int] | None) -> str:
    conn = store.conn
    clauses = ["ce.facts_pending = 1"]
    if shas is not None:
        clauses.append(f"c.sha IN {temp_keys(conn, 'q_fact_shas', shas)}")
    if lineages is not None:
        clauses.append(f"ce.lineage IN {temp_keys(conn, 'q_fact_lineages', lineages, 'INTEGER')}")
    if events is not None:
        clauses.append(f"ce.id IN {temp_keys(conn, 'q_fact_events', events, 'INTEGER')}")
    return " WHERE " + " AND ".join(clauses)


def pending_events(store: Store, *, shas: Sequence[str] | None = None,
                   lineages: Iterable[int] | None = None,
                   events: Iterable[int] | None = None) -> list[PendingEvent]:
    """The events in scope (all of them, or of the commits ``shas``, the ``lineages``, the
    event ids ``events``) whose facts are still to read: newest commit first (history
    order, then the order they were stored), the events of one commit together."""
    scope = _scope(store, shas, lineages, events)
    rows = store.conn.execute(
        "SELECT ce.id, c.sha, e.locator, e.kind, ce.change_kind, ce.path, "
        f"ce.previous_locator, ce.previous_path, ce.also_modified {_JOINS}{scope} "
        "ORDER BY c.topo IS NULL, c.topo DESC, c.id DESC, ce.id").fetchall()
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), r[6], r[7],
             bool(r[8])) for r in rows]


def count_pending(store: Store, *, shas: Sequence[str] | None = None,
                  lineages: Iterable[int] | None = None,
                  events: Iterable[int] | None = None) -> int:
    """How many events in scope still wait for their facts (the partial index answers
    an empty scope at once)."""
    if shas is None and lineages is None and events is None:
        row = store.conn.execute(
            "SELECT count(*) FROM change_events ce WHERE ce.facts_pending = 1").fetchone()
        return int(row[0])
    scope = _scope(store, shas, lineages, events)
    return int(store.conn.execute(f"SELECT count(*) {_JOINS}{scope}").fetchone()[0])


def record_facts(store: Store, found: Sequence[tuple[int, Any]]) -> int:
    """Write each event's facts (``(event id, (code_same, docs_changed,
    signature_changed) or None)``: None is an unknown nature, read and final) in one
    transaction; how many were still pending."""
    if not found:
        return 0
    rows = [(None, None, None, event_id) if facts is None
            else (int(facts[0]), int(facts[1]), int(facts[2]), event_id)
            for event_id, facts in found]
    with store.transaction() as conn:
        return int(conn.executemany(
            "UPDATE change_events SET code_same = ?, docs_changed = ?, signature_changed = ?,"
            " facts_pending = 0 WHERE id = ? AND facts_pending = 1", rows).rowcount)
