"""Entity rows: the store's one lookup of entities by locator, SEI, path or key id.

Every way a tool turns a ref into entities ends here (``service/shared/resolve.py`` parses
refs and composes these); no other module selects from ``entities``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from warpline.store.db import Store

Column = Literal["locator", "sei", "path", "id"]
_COLUMNS = "id, locator, kind, path, sei, lineage"
_CHUNK = 900
_SCAN_RATIO = 4  # keys * ratio > rows: read the whole table instead of probing the index
_SQL_INT_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class EntityRow:
    """A stored entity: its id, locator, kind, path, loomweave SEI and lineage."""
    id: int
    locator: str
    kind: str
    path: str
    sei: str | None
    lineage: int


def entity_row(raw: Sequence[Any]) -> EntityRow:
    return EntityRow(int(raw[0]), str(raw[1]), str(raw[2]), str(raw[3]),
                     None if raw[4] is None else str(raw[4]), int(raw[5]))


def sql_id(value: int) -> int:
    """A key id as an SQLite integer: one past SQLite's range (no row has it) becomes -1,
    which matches nothing, instead of an ``OverflowError`` in the driver."""
    return value if -_SQL_INT_MAX <= value <= _SQL_INT_MAX else -1


def rows_by(store: Store, column: Column,
            keys: Iterable[object]) -> dict[object, list[EntityRow]]:
    """Entity rows whose ``column`` is one of ``keys``, grouped by that key (rows in id
    order; one query per 900 keys)."""
    conn = store.conn
    wanted = list(dict.fromkeys(sql_id(int(str(k))) if column == "id" else k for k in keys))
    hits: dict[object, list[EntityRow]] = {}
    if len(wanted) > _CHUNK and len(wanted) * _SCAN_RATIO > _row_bound(conn):
        # Keys about as many as the rows (a store-wide churn call): one pass over the
        # table beats tens of thousands of index probes (measured on requests: 50,000
        # locators ~5x faster).
        keep = set(wanted)
        for raw in conn.execute(f"SELECT {_COLUMNS} FROM entities ORDER BY id"):
            row = entity_row(raw)
            key = getattr(row, column)
            if key in keep:
                hits.setdefault(key, []).append(row)
        return hits
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for raw in conn.execute(
                f"SELECT {_COLUMNS} FROM entities WHERE {column} IN ({marks}) ORDER BY id",
                chunk):
            row = entity_row(raw)
            hits.setdefault(getattr(row, column), []).append(row)
    return hits


def _row_bound(conn: sqlite3.Connection) -> int:
    """An upper bound on the entity rows (the largest rowid: no scan)."""
    row = conn.execute("SELECT max(id) FROM entities").fetchone()
    return int(row[0] or 0)


def known_seis(store: Store, seis: Iterable[str]) -> set[str]:
    return {str(k) for k in rows_by(store, "sei", seis)}


def bind_seis(store: Store, pairs: Mapping[str, str]) -> None:
    """Record loomweave's SEI -> locator pairs: an SEI names one entity, so a pair moves it."""
    with store.transaction() as tx:
        for sei, locator in pairs.items():
            tx.execute("UPDATE entities SET sei = NULL WHERE sei = ? AND locator != ?",
                       (sei, locator))
            tx.execute("UPDATE entities SET sei = ? WHERE locator = ?", (sei, locator))


def some_locators(store: Store, limit: int) -> list[str]:
    """Up to ``limit`` distinct locators (names to suggest for an unknown ref)."""
    conn = store.conn
    return [str(r[0]) for r in conn.execute(
        "SELECT DISTINCT locator FROM entities LIMIT ?", (limit,))]




def has_locator_prefix(store: Store, prefix: str) -> bool:
    """Whether any entity's locator starts with ``prefix:`` (one index probe)."""
    return store.conn.execute(
        "SELECT 1 FROM entities WHERE locator >= ? AND locator < ? LIMIT 1",
        (f"{prefix}:", f"{prefix};")).fetchone() is not None
