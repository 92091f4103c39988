"""Lineage ids, per event: which history each change event belongs to (migration 9).

A lineage is one definition's history across renames and moves. The lineage of an event
is fixed when the event is written:

* a ``moved`` event from ``previous_locator`` P to entity E continues P's lineage; E
  carries it from then on (the lineage's ``holder`` becomes E);
* an ``added`` event of an entity whose lineage is carried by another entity now (the
  name was renamed away, and this is a new definition reusing it) starts a new lineage;
* every other event joins the entity's current lineage.

So after ``f -> g`` and a later, unrelated ``f``, g's timeline and churn never include
the new f's changes, and the new f's never include the old f's. Ids come from the
``lineages`` table only (never from entity ids), so a new lineage can never collide with
an old one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

__all__ = ["Event", "assign", "new_lineage"]

_CHUNK = 500

# (entity id, change kind, entity id of previous_locator when it names another entity)
Event = tuple[int, str, int | None]


def new_lineage(conn: sqlite3.Connection, holder: int) -> int:
    """Allocate a lineage id carried by ``holder``."""
    cur = conn.execute("INSERT INTO lineages (holder) VALUES (?)", (holder,))
    return int(cur.lastrowid or 0)


def assign(conn: sqlite3.Connection, events: Sequence[Event]) -> list[int]:
    """The lineage of each of one commit's events (in order), updating the entities'
    current lineages and the holders. Moves are applied before additions, so a commit
    that renames f to g and adds a new f gives the new f a lineage of its own."""
    ids = sorted({e for e, _, _ in events} | {p for _, _, p in events if p is not None})
    current: dict[int, int] = {}
    holder: dict[int, int | None] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        for entity, lineage, held_by in conn.execute(
                "SELECT e.id, e.lineage, l.holder FROM entities e "
                "LEFT JOIN lineages l ON l.id = e.lineage "
                f"WHERE e.id IN ({','.join('?' * len(chunk))})", chunk):
            current[int(entity)] = int(lineage)
            holder[int(lineage)] = None if held_by is None else int(held_by)
    out: list[int | None] = [None] * len(events)
    order = sorted(range(len(events)), key=lambda i: events[i][1] != "moved")
    for index in order:
        entity, kind, previous = events[index]
        if kind == "moved" and previous is not None and previous != entity:
            lineage = current[previous]
            own = current[entity]
            if own != lineage:
                _join(conn, entity, own, lineage, current)
            conn.execute("UPDATE lineages SET holder = ? WHERE id = ?", (entity, lineage))
            holder[lineage] = entity
        elif kind == "added":
            lineage = current[entity]
            held_by = holder.get(lineage)
            if held_by is not None and held_by != entity:
                lineage = new_lineage(conn, entity)
                conn.execute("UPDATE entities SET lineage = ? WHERE id = ?", (lineage, entity))
                current[entity], holder[lineage] = lineage, entity
        else:
            lineage = current[entity]
        out[index] = lineage
    return [int(x) for x in out if x is not None]


def _join(conn: sqlite3.Connection, entity: int, own: int, lineage: int,
          current: dict[int, int]) -> None:
    """Entity moves into ``lineage``. Its own lineage ``own`` is folded in when it has no
    ``added`` event (its events so far were ingested before the move that begins them);
    a lineage with its own beginning stays separate (an earlier definition of that name)."""
    started = conn.execute("SELECT 1 FROM change_events WHERE lineage = ? AND "
                           "change_kind = 'added' LIMIT 1", (own,)).fetchone()
    if started is None:
        conn.execute("UPDATE change_events SET lineage = ? WHERE lineage = ?", (lineage, own))
        conn.execute("UPDATE entities SET lineage = ? WHERE lineage = ?", (lineage, own))
        for key, value in list(current.items()):
            if value == own:
                current[key] = lineage
    else:
        conn.execute("UPDATE entities SET lineage = ? WHERE id = ?", (lineage, entity))
        current[entity] = lineage
