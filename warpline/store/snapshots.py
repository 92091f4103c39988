"""Edge snapshots in the store: written whole or not at all, read back as a graph.

A snapshot is one ``snapshots`` row plus its ``snapshot_entities`` and ``snapshot_edges``,
written in ONE transaction together with the SEIs it carries and its idempotency record:
a process killed mid-capture leaves no trace of the attempt, and every earlier snapshot
stays whole (SQLite rolls the uncommitted WAL frames back on the next open).

Idempotency records live in ``store_meta`` under ``snapshot_idempotency:<key>`` so that
every outcome (created, already_current, SKIPPED) replays the same way; the snapshot row
also keeps the creating request's fingerprint and result.

Only the ``KEEP_WITH_DATA`` most recent snapshots keep their entities and edges; older
ones are pruned to their row (completeness ``PRUNED``, an internal marker never put on
the wire) so a store does not grow without bound. The snapshot just written and the
best snapshot for queries are never pruned.
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from warpline.graph.graph import graph_from_rows
from warpline.graph.model import EdgeCapture, GraphEdge, GraphEntity
from warpline.store.db import Store, sqlite_errors

KEEP_WITH_DATA = 10
USABLE = ("FULL", "DELTA")
_IDEMPOTENCY_PREFIX = "snapshot_idempotency:"
# What the built-in extractor learnt about the tests of a snapshot (pytest rules, each test
# file's imports): JSON in store_meta, written and pruned with the snapshot's rows.
_DISCOVERY_PREFIX = "snapshot_discovery:"
_COLUMNS = ("id, commit_sha, source, source_version, mode, completeness, entity_count, "
            "edge_count, failed_entities, captured_at, idempotency_key, request_fingerprint")
_GRAPH_CACHE_SIZE = 2  # a 100k-edge graph is ~100 MB of Python objects


@dataclass(frozen=True, slots=True)
class SnapshotRow:
    """A stored edge snapshot: its commit, source, mode and completeness."""
    id: int
    commit_sha: str
    source: str
    source_version: str
    mode: str
    completeness: str
    entity_count: int
    edge_count: int
    failed_entities: tuple[tuple[str, str], ...]
    captured_at: int
    idempotency_key: str | None
    request_fingerprint: str | None


@dataclass(frozen=True, slots=True)
class Replay:
    """A stored answer for an idempotency key."""

    fingerprint: str
    data: dict[str, Any]


def _row(raw: Sequence[Any]) -> SnapshotRow:
    failed = tuple((str(a), str(b)) for a, b in json.loads(raw[8] or "[]"))
    return SnapshotRow(int(raw[0]), str(raw[1]), str(raw[2]), str(raw[3]), str(raw[4]),
                       str(raw[5]), int(raw[6]), int(raw[7]), failed, int(raw[9]),
                       raw[10], raw[11])


def snapshots(store: Store, *, usable_only: bool = True,
              limit: int = 200) -> list[SnapshotRow]:
    """Snapshots, newest capture first."""
    conn = store.conn
    # A changed_only capture that named nothing holds no graph at all: it answers nothing.
    where = (f"WHERE completeness IN ({', '.join(repr(c) for c in USABLE)}) "
             "AND NOT (mode = 'changed_only' AND entity_count = 0)") if usable_only else ""
    with sqlite_errors("reading snapshots"):
        rows = conn.execute(f"SELECT {_COLUMNS} FROM snapshots {where} "
                            "ORDER BY captured_at DESC, id DESC LIMIT ?", (limit,)).fetchall()
    return [_row(r) for r in rows]


def any_snapshot(store: Store) -> bool:
    """Whether the store holds any snapshot row at all (a cheap first question)."""
    conn = store.conn
    return conn.execute("SELECT 1 FROM snapshots LIMIT 1").fetchone() is not None


def replay(store: Store, key: str) -> Replay | None:
    conn = store.conn
    with sqlite_errors("reading an idempotency record"):
        raw = conn.execute("SELECT value FROM store_meta WHERE key = ?",
                           (_IDEMPOTENCY_PREFIX + key,)).fetchone()
    if raw is None:
        return None
    record = json.loads(raw[0])
    return Replay(str(record["fingerprint"]), dict(record["data"]))


def remember(store: Store, key: str, fingerprint: str, data: dict[str, Any]) -> Replay:
    """Record an answer that wrote no snapshot (already_current); the first one wins."""
    with store.transaction() as conn:
        existing = replay(store, key)
        if existing is not None:
            return existing
        _put_record(store, conn, key, fingerprint, data)
    return Replay(fingerprint, data)


def _put_record(store: Store, conn: sqlite3.Connection, key: str, fingerprint: str,
                data: dict[str, Any]) -> None:
    store.meta_set(conn, _IDEMPOTENCY_PREFIX + key,
                   json.dumps({"fingerprint": fingerprint, "data": data}, sort_keys=True))


@dataclass(frozen=True, slots=True)
class NewSnapshot:
    """What to write. ``capture`` is None for a SKIPPED attempt (a row, no graph)."""

    commit_sha: str
    source: str
    source_version: str
    mode: str
    completeness: str
    captured_at: int
    capture: EdgeCapture | None
    failed_entities: tuple[tuple[str, str], ...]
    idempotency_key: str | None = None
    fingerprint: str | None = None


def write_snapshot(
    store: Store, new: NewSnapshot, result_for: Callable[[int], dict[str, Any]],
    protect: Iterable[int] = (), *, twin_since: int | None = None,
    twin_result: Callable[[SnapshotRow], dict[str, Any]] | None = None,
) -> tuple[int, dict[str, Any], Replay | None]:
    """Write one snapshot in one transaction; returns (id, wire data, None).

    When ``new.idempotency_key`` was recorded meanwhile (another process, same key),
    nothing is written and the stored record is returned as the third element. When a
    concurrent call stored the same capture (same commit, source, version, mode and
    counts) at or after ``twin_since``, nothing is written either: its row is answered
    through ``twin_result`` (two racing captures leave one snapshot, not two).
    """
    entities = new.capture.entities if new.capture is not None else ()
    edges = new.capture.edges if new.capture is not None else ()
    with store.transaction() as conn:
        if new.idempotency_key is not None:
            raced = replay(store, new.idempotency_key)
            if raced is not None:
                return -1, raced.data, raced
        twin = _twin(conn, new, twin_since) if twin_result is not None else None
        if twin is not None and twin_result is not None:
            data = twin_result(twin)
            if new.idempotency_key is not None and new.fingerprint is not None:
                _put_record(store, conn, new.idempotency_key, new.fingerprint, data)
            return twin.id, data, None
        cur = conn.execute(
            "INSERT INTO snapshots (commit_sha, source, source_version, mode, completeness,"
            " entity_count, edge_count, failed_entities, captured_at, idempotency_key,"
            " request_fingerprint, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (new.commit_sha, new.source, new.source_version, new.mode, new.completeness,
             len(entities), len(edges), json.dumps([list(f) for f in new.failed_entities]),
             new.captured_at, new.idempotency_key, new.fingerprint))
        snapshot_id = int(cur.lastrowid or 0)
        conn.executemany(
            "INSERT INTO snapshot_entities (snapshot_id, locator, kind, path, sei, start_line,"
            " end_line) VALUES (?, ?, ?, ?, ?, ?, ?)",
            ((snapshot_id, e.locator, e.kind, e.path, e.sei, e.start_line, e.end_line)
             for e in entities))
        conn.executemany(
            "INSERT INTO snapshot_edges (snapshot_id, source, target, kind, confidence)"
            " VALUES (?, ?, ?, ?, ?)",
            ((snapshot_id, e.source_locator, e.target_locator, e.kind, e.confidence)
             for e in edges))
        _write_seis(conn, ((e.locator, e.sei) for e in entities if e.sei))
        if new.capture is not None and new.capture.discovery is not None:
            store.meta_set(conn, f"{_DISCOVERY_PREFIX}{snapshot_id}",
                           json.dumps(new.capture.discovery, sort_keys=True))
        data = result_for(snapshot_id)
        conn.execute("UPDATE snapshots SET result = ? WHERE id = ?",
                     (json.dumps(data, sort_keys=True), snapshot_id))
        if new.idempotency_key is not None and new.fingerprint is not None:
            _put_record(store, conn, new.idempotency_key, new.fingerprint, data)
        _prune(conn, {snapshot_id, *protect})
    return snapshot_id, data, None


def _twin(conn: sqlite3.Connection, new: NewSnapshot, since: int | None) -> SnapshotRow | None:
    if since is None or new.capture is None or new.completeness == "SKIPPED":
        return None
    raw = conn.execute(
        f"SELECT {_COLUMNS} FROM snapshots WHERE commit_sha = ? AND source = ? AND "
        "source_version = ? AND mode = ? AND completeness = ? AND entity_count = ? AND "
        "edge_count = ? AND failed_entities = ? AND captured_at >= ? ORDER BY id DESC LIMIT 1",
        (new.commit_sha, new.source, new.source_version, new.mode, new.completeness,
         len(new.capture.entities), len(new.capture.edges),
         json.dumps([list(f) for f in new.failed_entities]), since)).fetchone()
    return None if raw is None else _row(raw)


def _write_seis(conn: sqlite3.Connection, pairs: Iterable[tuple[str, str | None]]) -> None:
    """loomweave's alive bindings onto the store's entities (so churn and timeline resolve
    SEIs locally). An SEI now bound elsewhere is cleared from its old locator first."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS q_seis (locator TEXT PRIMARY KEY, sei TEXT)")
    conn.execute("DELETE FROM q_seis")
    conn.executemany("INSERT OR REPLACE INTO q_seis (locator, sei) VALUES (?, ?)", pairs)
    conn.execute(
        "UPDATE entities SET sei = NULL WHERE sei IN (SELECT sei FROM q_seis) AND NOT EXISTS "
        "(SELECT 1 FROM q_seis q WHERE q.locator = entities.locator AND q.sei = entities.sei)")
    conn.execute(
        "UPDATE entities SET sei = (SELECT q.sei FROM q_seis q WHERE q.locator = "
        "entities.locator) WHERE locator IN (SELECT locator FROM q_seis)")
    conn.execute("DELETE FROM q_seis")


def _prune(conn: sqlite3.Connection, protect: set[int]) -> None:
    rows = conn.execute(
        f"SELECT id FROM snapshots WHERE completeness IN ({', '.join(repr(c) for c in USABLE)})"
        " ORDER BY captured_at DESC, id DESC").fetchall()
    for (snapshot_id,) in rows[KEEP_WITH_DATA:]:
        if snapshot_id in protect:
            continue
        conn.execute("DELETE FROM snapshot_entities WHERE snapshot_id = ?", (snapshot_id,))
        conn.execute("DELETE FROM snapshot_edges WHERE snapshot_id = ?", (snapshot_id,))
        conn.execute("DELETE FROM store_meta WHERE key = ?",
                     (f"{_DISCOVERY_PREFIX}{snapshot_id}",))
        conn.execute("UPDATE snapshots SET completeness = 'PRUNED' WHERE id = ?",
                     (snapshot_id,))


def load_capture(conn: sqlite3.Connection,
                 snapshot_id: int) -> tuple[list[GraphEntity], list[GraphEdge]]:
    with sqlite_errors("reading a snapshot"):
        entities = [GraphEntity(r[0], r[1], r[2] or "", r[3], r[4], r[5]) for r in conn.execute(
            "SELECT locator, kind, path, sei, start_line, end_line FROM snapshot_entities "
            "WHERE snapshot_id = ?", (snapshot_id,))]
        edges = [GraphEdge(r[0], r[1], r[2], r[3]) for r in conn.execute(
            "SELECT source, target, kind, confidence FROM snapshot_edges WHERE snapshot_id = ?",
            (snapshot_id,))]
    return entities, edges


# A built graph per snapshot, kept in the process: reading and building it is a large part
# of a cold query (~0.2 s per 100k edges); a long-lived MCP server answers the next query
# from memory.
_GRAPHS: OrderedDict[tuple[Any, ...], nx.DiGraph] = OrderedDict()


def graph_for(store: Store, snapshot: SnapshotRow,
              edge_kinds: frozenset[str] | None = None) -> nx.DiGraph:
    """The networkx graph of a snapshot, over ``edge_kinds`` only (None: all kinds)."""
    key = (str(Path(store.path).resolve()), snapshot.id, snapshot.commit_sha,
           snapshot.captured_at, snapshot.entity_count, snapshot.edge_count,
           tuple(sorted(edge_kinds)) if edge_kinds is not None else None)
    cached = _GRAPHS.get(key)
    if cached is not None:
        _GRAPHS.move_to_end(key)
        return cached
    graph = _read_graph(store.conn, snapshot.id, edge_kinds)
    graph.graph["discovery"] = discovery(store.conn, snapshot.id)
    graph.graph["basis"] = basis(store, snapshot.id)
    _GRAPHS[key] = graph
    while len(_GRAPHS) > _GRAPH_CACHE_SIZE:
        _GRAPHS.popitem(last=False)
    return graph


def _read_graph(conn: sqlite3.Connection, snapshot_id: int,
                edge_kinds: frozenset[str] | None) -> nx.DiGraph:
    """The graph straight from the rows (no ``GraphEntity``/``GraphEdge`` objects): the
    WITHOUT ROWID primary keys already give them in the order ``graph_from_rows`` wants,
    so the ``ORDER BY`` costs no sort."""
    kinds = sorted(edge_kinds) if edge_kinds is not None else None
    kind_filter = f" AND kind IN ({', '.join('?' * len(kinds))})" if kinds is not None else ""
    with sqlite_errors("reading a snapshot"):
        entities = conn.execute(
            "SELECT locator, kind, coalesce(path, ''), sei FROM snapshot_entities "
            "WHERE snapshot_id = ? ORDER BY locator", (snapshot_id,))
        edges = conn.execute(
            "SELECT source, target, kind, confidence FROM snapshot_edges WHERE snapshot_id = ?"
            f"{kind_filter} ORDER BY source, target, kind", (snapshot_id, *(kinds or ())))
        return graph_from_rows(entities, edges)


def discovery(conn: sqlite3.Connection, snapshot_id: int) -> dict[str, Any] | None:
    """The snapshot's test discovery facts (None: captured without them)."""
    with sqlite_errors("reading a snapshot"):
        row = conn.execute("SELECT value FROM store_meta WHERE key = ?",
                           (f"{_DISCOVERY_PREFIX}{snapshot_id}",)).fetchone()
    if row is None:
        return None
    try:
        value = json.loads(row[0])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def basis(store: Store, snapshot_id: int) -> dict[str, Any]:
    """What the snapshot's creating answer said about its edges: ``unresolved_calls``
    (None when it predates the count) and ``edge_sources``."""
    conn = store.conn
    with sqlite_errors("reading a snapshot"):
        row = conn.execute("SELECT result FROM snapshots WHERE id = ?",
                           (snapshot_id,)).fetchone()
    try:
        result = json.loads(row[0]) if row is not None and row[0] else {}
    except ValueError:
        result = {}
    if not isinstance(result, dict):
        result = {}
    unresolved = result.get("unresolved_calls")
    sources = result.get("edge_sources")
    return {"unresolved_calls": unresolved if isinstance(unresolved, int) else None,
            "edge_sources": sources if isinstance(sources, list) else []}


def holds_locator_prefix(store: Store, snapshot_id: int, prefix: str) -> bool:
    """Whether the snapshot holds an entity whose locator starts with ``prefix:`` (one
    probe of its primary key)."""
    with sqlite_errors("reading a snapshot"):
        return store.conn.execute(
            "SELECT 1 FROM snapshot_entities WHERE snapshot_id = ? AND locator >= ? "
            "AND locator < ? LIMIT 1", (snapshot_id, f"{prefix}:", f"{prefix};"),
        ).fetchone() is not None
