"""Lineage ids, per event: which history each change event belongs to (migration 9).

A lineage is one definition's history across renames and moves. The lineage of an event
is fixed when the event is written:

* a ``moved`` event from ``previous_locator`` P to entity E continues P's lineage; E
  carries it from then on (the lineage's ``holder`` becomes E);
* an ``added`` event of an entity whose lineage is carried by another entity now (the
  name was renamed away, and this is a new definition reusing it) starts a new lineage,
  unless the rename is not in the adding commit's history (a parallel line added the same
  definition: it joins the lineage), or the carrier was removed since (the definition
  restored under its old name after a move-away: its history goes on, the name carries
  it again);
* a ``removed`` event of such an entity while the carrier lives (a copy left on a parallel
  line) starts a lineage of its own: the copy ends, the carrier's history goes on;
* every other event joins the entity's current lineage.

So after ``f -> g`` and a later, unrelated ``f``, g's timeline and churn never include
the new f's changes, and the new f's never include the old f's. Ids come from the
``lineages`` table only (never from entity ids), so a new lineage can never collide with
an old one.

The per-lineage queries (churn counts, timelines) read events by their own lineage
(``change_events.lineage``), never by the entity row's current one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from warpline.store.db import Store
from warpline.store.events import cosmetic_sql, temp_keys

__all__ = ["Event", "Reaches", "Stat", "assign", "churn_stats", "earlier_definitions",
           "ended_changes", "latest_locator", "lineage_locators", "new_lineage",
           "timeline_rows"]

_CHUNK = 500

# (entity id, change kind, entity id of previous_locator when it names another entity)
Event = tuple[int, str, int | None]
# Whether the commit being written has a stored commit (by id) in its history.
Reaches = Callable[[int], bool]


def new_lineage(conn: sqlite3.Connection, holder: int) -> int:
    """Allocate a lineage id carried by ``holder``."""
    cur = conn.execute("INSERT INTO lineages (holder) VALUES (?)", (holder,))
    return int(cur.lastrowid or 0)


def assign(conn: sqlite3.Connection, events: Sequence[Event],
           reaches: Reaches | None = None) -> list[int]:
    """The lineage of each of one commit's events (in order), updating the entities'
    current lineages and the holders. Moves are applied before additions, so a commit
    that renames f to g and adds a new f gives the new f a lineage of its own.

    ``reaches(commit_id)``: whether the commit being written has that stored commit in
    its history (None: every earlier commit is taken as an ancestor). A name whose
    definition was renamed away only on a parallel line of history (a rebased copy of the
    branch that added it, committed again and merged later: junit4's ``checkThat``) is not
    reused when it is added: it is the same definition, and joins its lineage. A removal
    of such a copy while the carrier lives ends the copy only: a lineage of its own, so the
    carrier's history never shows it."""
    ids = sorted({e for e, _, _ in events} | {p for _, _, p in events if p is not None})
    current = _Current()
    holder: dict[int, int | None] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        for entity, lineage, held_by in conn.execute(
                "SELECT e.id, e.lineage, l.holder FROM entities e "
                "LEFT JOIN lineages l ON l.id = e.lineage "
                f"WHERE e.id IN ({','.join('?' * len(chunk))})", chunk):
            current.set(int(entity), int(lineage))
            holder[int(lineage)] = None if held_by is None else int(held_by)
    out: list[int | None] = [None] * len(events)
    order = sorted(range(len(events)), key=lambda i: (events[i][1] != "moved",
                                                      _after(events, i)))
    moved_here: set[int] = set()
    for index in order:
        entity, kind, previous = events[index]
        lineage = current.of[entity]
        if kind == "moved" and previous is not None and previous != entity:
            lineage = current.of[previous]
            own = current.of[entity]
            if own != lineage:
                _join(conn, entity, own, lineage, current)
            conn.execute("UPDATE lineages SET holder = ? WHERE id = ?", (entity, lineage))
            holder[lineage] = entity
            moved_here.add(lineage)
        elif kind == "added" and holder.get(lineage) not in (None, entity) and (
                lineage not in moved_here and _carrier_gone(conn, holder[lineage], lineage)):
            # Restored: the definition it was moved into is gone, and the name comes back
            # (a move undone in two steps): the history goes on here.
            conn.execute("UPDATE lineages SET holder = ? WHERE id = ?", (entity, lineage))
            holder[lineage] = entity
        elif kind in ("added", "removed") and holder.get(lineage) not in (None, entity) and (
                _copy_ends(conn, entity, lineage, holder[lineage]) if kind == "removed"
                else lineage in moved_here or _renamed_away_here(conn, entity, lineage,
                                                                  reaches)):
            lineage = new_lineage(conn, entity)
            conn.execute("UPDATE entities SET lineage = ? WHERE id = ?", (lineage, entity))
            current.set(entity, lineage)
            holder[lineage] = entity
        out[index] = lineage
    return [int(x) for x in out if x is not None]


def _after(events: Sequence[Event], index: int) -> int:
    """How many moves of one chain read the lineage ``events[index]`` moves into before
    it is taken (``a -> b`` and ``b -> c`` in one commit: ordinals shifted by an insertion,
    ``git/lineage_ordinals.py``): ``b -> c`` must carry b's lineage on first."""
    entity, kind, _ = events[index]
    if kind != "moved":
        return 0
    sources = {p: e for e, k, p in events if k == "moved" and p is not None and p != e}
    steps, seen = 0, {entity}
    while entity in sources and sources[entity] not in seen:
        entity = sources[entity]
        seen.add(entity)
        steps += 1
    return steps


def _copy_ends(conn: sqlite3.Connection, entity: int, lineage: int, held_by: int | None
               ) -> bool:
    """A removal of a definition the lineage was moved out of (renamed away), while the
    one carrying it lives (its latest event there is not a removal): a copy left on a
    parallel line ends. When the carrier is gone too (the rename was undone on the other
    line), or the removed definition was never moved out of (a parallel move took the
    holder: pip's vendored files), the removal is the lineage's own end."""
    if not _moves_out(conn, entity, lineage):
        return False
    row = conn.execute("SELECT change_kind FROM change_events WHERE entity_id = ? AND "
                       "lineage = ? ORDER BY id DESC LIMIT 1", (held_by, lineage)).fetchone()
    return row is None or row[0] != "removed"


def _carrier_gone(conn: sqlite3.Connection, held_by: int | None, lineage: int) -> bool:
    """The entity carrying ``lineage`` was removed (its latest event there is a removal)."""
    if held_by is None:
        return False
    row = conn.execute("SELECT change_kind FROM change_events WHERE entity_id = ? AND "
                       "lineage = ? ORDER BY id DESC LIMIT 1", (held_by, lineage)).fetchone()
    return row is not None and row[0] == "removed"


def _moves_out(conn: sqlite3.Connection, entity: int, lineage: int) -> list[int]:
    """The commits (ids) that moved ``entity`` out of ``lineage``."""
    return [int(r[0]) for r in conn.execute(
        "SELECT DISTINCT ce.commit_id FROM change_events ce WHERE ce.lineage = ? "
        "AND ce.change_kind = 'moved' AND ce.previous_locator = "
        "(SELECT locator FROM entities WHERE id = ?)", (lineage, entity))]


def _renamed_away_here(conn: sqlite3.Connection, entity: int, lineage: int,
                      reaches: Reaches | None) -> bool:
    """Whether a move of ``entity`` out of ``lineage`` is in the history of the commit
    being written (or nothing says which commit moved it)."""
    if reaches is None:
        return True
    commits = _moves_out(conn, entity, lineage)
    return not commits or any(reaches(commit) for commit in commits)


class _Current:
    """The current lineage of each entity one commit touches, and the entities of each
    lineage: folding one lineage into another relabels its own entities only (a commit
    that moves thousands of definitions, a ``src/`` move, is not quadratic)."""

    __slots__ = ("members", "of")

    def __init__(self) -> None:
        self.of: dict[int, int] = {}
        self.members: dict[int, set[int]] = {}

    def set(self, entity: int, lineage: int) -> None:
        before = self.of.get(entity)
        if before is not None:
            self.members[before].discard(entity)
        self.of[entity] = lineage
        self.members.setdefault(lineage, set()).add(entity)

    def fold(self, own: int, lineage: int) -> None:
        moved = self.members.pop(own, set())
        for entity in moved:
            self.of[entity] = lineage
        self.members.setdefault(lineage, set()).update(moved)


def _join(conn: sqlite3.Connection, entity: int, own: int, lineage: int,
          current: _Current) -> None:
    """Entity moves into ``lineage``. Its own lineage ``own`` is folded in when it has no
    ``added`` event (its events so far were ingested before the move that begins them);
    a lineage with its own beginning stays separate (an earlier definition of that name)."""
    started = conn.execute("SELECT 1 FROM change_events WHERE lineage = ? AND "
                           "change_kind = 'added' LIMIT 1", (own,)).fetchone()
    if started is None:
        conn.execute("UPDATE change_events SET lineage = ? WHERE lineage = ?", (lineage, own))
        conn.execute("UPDATE entities SET lineage = ? WHERE lineage = ?", (lineage, own))
        current.fold(own, lineage)
    else:
        conn.execute("UPDATE entities SET lineage = ? WHERE id = ?", (lineage, entity))
        current.set(entity, lineage)


_JOINS_ENTITY = "FROM change_events ce JOIN entities e ON e.id = ce.entity_id"
_JOINS = f"{_JOINS_ENTITY} JOIN commits c ON c.id = ce.commit_id"

# count, first change, last change, last actor ("Name <email>")
Stat = tuple[int, int, int, str]
# An event's order key is topo * _EVENT_SPAN + event id (event ids stay below 2**32).
_EVENT_SPAN = 4_294_967_296


def churn_stats(store: Store, lineages: Iterable[int], since: int | None,
                until: int | None, shas: Sequence[str] | None, skip_cosmetic: bool = False,
                doctests: bool = False,
                ) -> tuple[dict[int, Stat], dict[int, Stat], dict[int, int]]:
    """Counts per lineage and per entity from one grouped query (never one per ref),
    and each lineage's current member (its holder; for a lineage without one, the entity
    of its topologically latest event).
    ``skip_cosmetic``: cosmetic events count nothing (``events.cosmetic_sql``)."""
    conn = store.conn
    wanted = lineages if isinstance(lineages, set | frozenset) else set(lineages)
    clauses = [f"ce.lineage IN {temp_keys(conn, 'q_lineages', wanted, 'INTEGER')}"]
    if skip_cosmetic:
        clauses.append(f"NOT {cosmetic_sql(doctests)}")
    args: list[Any] = []
    if since is not None:
        clauses.append("ce.changed_at >= ?")
        args.append(since)
    if until is not None:
        clauses.append("ce.changed_at <= ?")
        args.append(until)
    if shas is not None:
        clauses.append(f"c.sha IN {temp_keys(conn, 'q_commits', shas)}")
    elif _few(conn, len(wanted)):
        # A few lineages (a small churn call): walk their events by the lineage index.
        # ``+`` keeps the planner (no statistics) from scanning every reachable commit.
        clauses.append("+c.reachable = 1")
    else:  # only history HEAD reaches; an explicit range is its own set of commits
        clauses.append("c.reachable = 1")
    base = f"{_JOINS} WHERE " + " AND ".join(clauses)
    by_lineage: dict[int, Stat] = {}
    by_entity: dict[int, Stat] = {}
    current: dict[int, int] = {}
    # Grouped per (entity, event lineage) only; each lineage's and each entity's figures
    # roll up from those groups (counts sum, the first is the least, the latest is the
    # group with the greatest order key), which halves the scans of the events (the
    # store-wide answer of 50,000 refs). An entity row can hold events of two lineages
    # (a name reused after its definition was renamed away).
    # One grouped scan per (entity, event lineage): count, first change, and the order key
    # of the topologically latest event (never the latest timestamp: equal commit times
    # are normal after a rebase), whose event id is the key's low 32 bits; then that
    # event's time and author by primary key, for the groups only. Each lineage's and
    # each entity's figures roll up from the groups (counts sum, the first is the least,
    # the latest is the group with the greatest order key). An entity row can hold events
    # of two lineages (a name reused after its definition was renamed away).
    groups = conn.execute(
        f"SELECT e.id, ce.lineage, count(*), min(ce.changed_at), "
        f"max(coalesce(c.topo, 0) * {_EVENT_SPAN} + ce.id) {base} "
        "GROUP BY e.id, ce.lineage", args).fetchall()
    latest = {int(r[0]): (int(r[1]), f"{r[2]} <{r[3]}>") for r in conn.execute(
        "SELECT ce.id, ce.changed_at, c.author_name, c.author_email FROM change_events ce "
        "JOIN commits c ON c.id = ce.commit_id WHERE ce.id IN "
        f"{temp_keys(conn, 'q_events', (g[4] % _EVENT_SPAN for g in groups), 'INTEGER')}")}
    lineage_key: dict[int, int] = {}
    entity_key: dict[int, int] = {}
    for entity_id, lineage, count, first, key in groups:
        last, actor = latest[key % _EVENT_SPAN]
        stat = (int(count), int(first), last, actor)
        _roll_up(by_entity, entity_key, entity_id, stat, key)
        if _roll_up(by_lineage, lineage_key, lineage, stat, key):
            current[lineage] = entity_id
    # The holder carries the lineage now; the latest event can be a copy's on a parallel
    # line of history (edited there after the rename was written).
    members = {(int(g[0]), int(g[1])) for g in groups}
    for lineage, held in conn.execute(
            "SELECT id, holder FROM lineages WHERE id IN "
            f"{temp_keys(conn, 'q_holders', current, 'INTEGER')}"):
        if held is not None and (int(held), int(lineage)) in members:
            current[int(lineage)] = int(held)
    return by_lineage, by_entity, current


def _few(conn: sqlite3.Connection, wanted: int) -> bool:
    """Whether ``wanted`` lineages are few enough that reading their events by the lineage
    index beats one scan of the reachable history (measured on requests: 100 refs 5x
    faster by the index, every lineage ~20% faster by the scan)."""
    row = conn.execute("SELECT max(id) FROM lineages").fetchone()
    return wanted * 8 < int(row[0] or 0)


def _roll_up(into: dict[int, Stat], keys: dict[int, int], at: int, stat: Stat,
             key: int) -> bool:
    """Fold one group's figures into ``into[at]``; True when this group is now the latest."""
    held = into.get(at)
    if held is None:
        into[at], keys[at] = stat, key
        return True
    total, earliest = held[0] + stat[0], min(held[1], stat[1])
    if key > keys[at]:
        into[at], keys[at] = (total, earliest, stat[2], stat[3]), key
        return True
    into[at] = (total, earliest, held[2], held[3])
    return False


def latest_locator(store: Store, lineage: int) -> tuple[str, str] | None:
    """``(locator, commit sha)`` of a lineage's topologically latest reachable change."""
    conn = store.conn
    row = conn.execute(
        f"SELECT e.locator, c.sha {_JOINS} WHERE ce.lineage = ? AND c.reachable = 1 "
        "ORDER BY c.topo DESC, ce.id DESC LIMIT 1", (lineage,)).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def timeline_rows(store: Store, lineage: int, change_kinds: Sequence[str],
                  since: int | None, until: int | None, order: str, offset: int,
                  limit: int, nested: Sequence[int] = ()) -> tuple[list[Any], int]:
    """One page of a lineage's reachable change events by ``changed_at`` (the WHEN a
    timeline prints; history order breaks ties, so a merge's resolution follows what it
    merged), and the total: ``(id, change_kind, author_name, author_email, sha,
    changed_at, path, locator, previous_locator, previous_path, also_modified, kind,
    code_same, docs_changed, signature_changed, nested)``; with the events of the
    entities ``nested`` (definitions nested in it: ``nested_entities``), flagged by the
    last column."""
    conn = store.conn
    if nested:
        keys = temp_keys(conn, "q_nested", set(nested), "INTEGER")
        clauses = [f"(ce.lineage = ? OR ce.entity_id IN {keys})", "c.reachable = 1"]
    else:
        clauses = ["ce.lineage = ?", "c.reachable = 1"]
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
        "ce.path, e.locator, ce.previous_locator, ce.previous_path, ce.also_modified, "
        "e.kind, ce.code_same, ce.docs_changed, ce.signature_changed, ce.lineage != ? "
        f"{_JOINS}{scope} ORDER BY ce.changed_at {direction}, c.topo {direction}, "
        f"ce.id {direction} LIMIT ? OFFSET ?",
        [lineage, *args, limit, offset]).fetchall()
    return rows, int(total)


def nested_entities(store: Store, prefixes: Iterable[str]) -> list[int]:
    """The entities whose locator starts with one of ``prefixes`` (the definitions nested
    in a function: ``python:function:m.f.``, ``rust:function:c.f.~fn.``), by the locator
    index, one range each."""
    out: list[int] = []
    for prefix in prefixes:
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        out.extend(int(r[0]) for r in store.conn.execute(
            "SELECT id FROM entities WHERE locator >= ? AND locator < ?", (prefix, upper)))
    return out


def nested_counts(store: Store, nested: dict[int, list[int]], since: int | None,
                  until: int | None, shas: Sequence[str] | None) -> dict[int, int]:
    """For each key, how many change events (HEAD-reachable, or of ``shas``, in the time
    window) its nested entities have: one grouped query over all of them."""
    wanted = {i for ids in nested.values() for i in ids}
    if not wanted:
        return {}
    conn = store.conn
    clauses = [f"ce.entity_id IN {temp_keys(conn, 'q_nested', wanted, 'INTEGER')}"]
    args: list[Any] = []
    for value, op in ((since, ">="), (until, "<=")):
        if value is not None:
            clauses.append(f"ce.changed_at {op} ?")
            args.append(value)
    if shas is not None:
        clauses.append(f"c.sha IN {temp_keys(conn, 'q_commits', shas)}")
    else:
        clauses.append("c.reachable = 1")
    per_entity = {int(r[0]): int(r[1]) for r in conn.execute(
        f"SELECT ce.entity_id, count(*) {_JOINS} WHERE " + " AND ".join(clauses)
        + " GROUP BY ce.entity_id", args)}
    out = {key: sum(per_entity.get(i, 0) for i in ids) for key, ids in nested.items()}
    return {key: count for key, count in out.items() if count}


def earlier_definitions(store: Store, entity_id: int,
                        lineage: int) -> list[str]:
    """Locators now carrying the other lineages an entity row's events belong to (a name
    reused after its earlier definition was renamed away)."""
    conn = store.conn
    return [str(r[1]) for r in conn.execute(
        "SELECT DISTINCT ce.lineage, e.locator FROM change_events ce "
        "JOIN lineages l ON l.id = ce.lineage JOIN entities e ON e.id = l.holder "
        "WHERE ce.entity_id = ? AND ce.lineage != ? AND l.holder != ?",
        (entity_id, lineage, entity_id)).fetchall()]


def ended_changes(store: Store, entity_id: int, lineage: int) -> int:
    """Reachable changes of an entity row in a lineage of its own that it no longer
    carries: an earlier definition under that name whose history ended when a move made the
    name continue another one (a wrapper that took over the body it called, in place)."""
    row = store.conn.execute(
        f"SELECT count(*) {_JOINS} JOIN lineages l ON l.id = ce.lineage "
        "WHERE ce.entity_id = ? AND ce.lineage != ? AND l.holder = ? AND c.reachable = 1",
        (entity_id, lineage, entity_id)).fetchone()
    return int(row[0] or 0)


def lineage_locators(store: Store, lineage: int) -> set[str]:
    """Every locator one lineage (an entity across renames) has had."""
    conn = store.conn
    return {str(r[0]) for r in conn.execute(
        f"SELECT DISTINCT e.locator {_JOINS_ENTITY} WHERE ce.lineage = ?", (lineage,))}
