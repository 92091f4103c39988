"""Change-event queries: filters, sort and paging pushed into SQL where they belong.

The service composes answers from these rows; it never writes SQL itself.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from warpline.store.db import Store
from warpline.store.entities import EntityRow, entity_row
from warpline.store.pathprefixes import PathPrefixes, matching_event_paths

_SORT_SQL = {
    "changed_at": "ce.changed_at",
    "locator": "e.locator",
    "path": "ce.path",
    "change_kind": "ce.change_kind",
    "actor": "c.author_name",
}
_JOINS = ("FROM change_events ce JOIN entities e ON e.id = ce.entity_id "
          "JOIN commits c ON c.id = ce.commit_id")
_SELECT = (
    "SELECT ce.id, ce.change_kind, ce.path, ce.previous_locator, ce.changed_at, e.id, "
    "e.locator, e.kind, e.sei, c.sha, c.author_name, c.author_email, ce.previous_path, "
    "ce.also_modified, ce.code_same, ce.docs_changed, ce.signature_changed "
    f"{_JOINS}"
)


def cosmetic_sql(doctests: bool) -> str:
    """True for a cosmetic event of ``change_events ce`` (unknown facts are not): its code
    unchanged apart from comments, layout and docstrings — a docstring only when the
    project runs no doctests."""
    docs = " AND ce.docs_changed IS 0" if doctests else ""
    return ("(ce.code_same IS 1 AND ce.signature_changed IS 0 "
            f"AND ce.change_kind IN ('modified', 'moved'){docs})")


def temp_keys(conn: sqlite3.Connection, table: str, values: Iterable[object],
              column_type: str = "TEXT") -> str:
    """Fill the temporary one-column table ``table`` with ``values``; a subquery over it."""
    column = "sha" if column_type == "TEXT" else "lineage"
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table} ({column} {column_type} PRIMARY KEY)")
    conn.execute(f"DELETE FROM {table}")
    conn.executemany(f"INSERT OR IGNORE INTO {table} ({column}) VALUES (?)",
                     ((v,) for v in values))
    return f"(SELECT {column} FROM {table})"


@dataclass(slots=True)
class Where:
    """Filters over change events (parsed by the service from a tool's ``filters``)."""

    change_kinds: list[str] = field(default_factory=list)
    entity_kinds: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    actors: list[str] = field(default_factory=list)
    since: int | None = None
    until: int | None = None
    echoed: dict[str, Any] = field(default_factory=dict)
    # Leave cosmetic events out (``doctests``: the project runs doctests, so a docstring
    # change is not cosmetic).
    skip_cosmetic: bool = False
    doctests: bool = False
    _prefixes: PathPrefixes | None = field(default=None, init=False, repr=False,
                                           compare=False)
    # The event paths the prefixes match, resolved once per call (an answer runs several
    # queries with the same filter).
    _matching: list[str] | None = field(default=None, init=False, repr=False, compare=False)

    def prefixes(self) -> PathPrefixes:
        if self._prefixes is None:
            self._prefixes = PathPrefixes(self.paths)
        return self._prefixes

    def echo(self) -> dict[str, Any]:
        return dict(self.echoed)

    def sql(self, conn: sqlite3.Connection) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        args: list[Any] = []
        for column, values in (("ce.change_kind", self.change_kinds),
                               ("e.kind", self.entity_kinds)):
            if values:
                clauses.append(f"{column} IN ({','.join('?' * len(values))})")
                args.extend(values)
        if self.paths:
            # The matching paths resolved once, then one indexed lookup per row (a prefix
            # list tested per row was quadratic: 1,000 prefixes took 15 s on requests).
            if self._matching is None:
                self._matching = matching_event_paths(conn, self.prefixes())
            clauses.append(f"ce.path IN {temp_keys(conn, 'q_paths', self._matching)}")
        if self.actors:
            ors = []
            for actor in self.actors:
                # Case-insensitive substring of "Name <email>", as the schema says.
                ors.append("instr(lower(c.author_name || ' <' || c.author_email || '>'), "
                           "lower(?)) > 0")
                args.append(actor)
            clauses.append("(" + " OR ".join(ors) + ")")
        if self.since is not None:
            clauses.append("ce.changed_at >= ?")
            args.append(self.since)
        if self.until is not None:
            clauses.append("ce.changed_at <= ?")
            args.append(self.until)
        if self.skip_cosmetic:
            clauses.append(f"NOT {cosmetic_sql(self.doctests)}")
        return " AND ".join(clauses), args

    def matches(self, item: dict[str, Any]) -> bool:
        """The same filters, for items that never touch SQL (uncommitted changes)."""
        entity = item["entity"]
        if self.change_kinds and item["change_kind"] not in self.change_kinds:
            return False
        if self.entity_kinds and entity["kind"] not in self.entity_kinds:
            return False
        if self.paths and not self.prefixes().matches(entity["path"]):
            return False
        if self.skip_cosmetic and item.get("nature") == "cosmetic":
            return False
        # Uncommitted changes have no author and happen "now".
        return not self.actors and self.until is None


def _commit_scope(conn: sqlite3.Connection, shas: Sequence[str] | None) -> str:
    if shas is not None:
        return f"c.sha IN {temp_keys(conn, 'q_commits', shas)}"
    return "c.reachable = 1"  # every recorded commit HEAD reaches; rewritten-away never count


def _scope(conn: sqlite3.Connection, shas: Sequence[str] | None,
           where: Where) -> tuple[str, list[Any]]:
    clause, args = where.sql(conn)
    parts = [clause] if clause else []
    parts.append(_commit_scope(conn, shas))
    return " WHERE " + " AND ".join(parts), args


def select_events(store: Store, shas: Sequence[str] | None, where: Where,
                  sort_by: str, order: str, fetch: int) -> tuple[list[Any], int]:
    """The first ``fetch`` matching rows in sort order, and the total count."""
    conn = store.conn
    scope, args = _scope(conn, shas, where)
    direction = "DESC" if order == "desc" else "ASC"
    total = conn.execute(f"SELECT count(*) {_JOINS}{scope}", args).fetchone()[0]
    rows = conn.execute(
        f"{_SELECT}{scope} ORDER BY {_SORT_SQL[sort_by]} {direction}, ce.id {direction} "
        "LIMIT ?", [*args, fetch]).fetchall()
    return rows, int(total)


def changed_entities_latest_first(store: Store, shas: Sequence[str] | None,
                                  where: Where, fetch: int) -> list[tuple[str, str | None, int]]:
    """``(locator, sei, key id)`` of the distinct changed entities, latest change first."""
    conn = store.conn
    scope, args = _scope(conn, shas, where)
    rows = conn.execute(
        f"SELECT e.locator, e.sei, e.id, max(ce.changed_at) AS last {_JOINS}{scope} "
        "GROUP BY e.id ORDER BY last DESC, e.locator LIMIT ?", [*args, fetch]).fetchall()
    return [(str(r[0]), r[1], int(r[2])) for r in rows]


def unread_commits(store: Store,
                   shas: Sequence[str] | None) -> list[tuple[str, list[str], list[str]]]:
    """``(sha, unparsed paths, limits hit)`` of the commits in scope that attribution could
    not fully read, newest first."""
    conn = store.conn
    rows = conn.execute(
        "SELECT c.sha, c.unparsed_files, c.limits_hit FROM commits c WHERE "
        f"(c.unparsed_files != '[]' OR c.limits_hit != '[]') AND {_commit_scope(conn, shas)} "
        "ORDER BY c.topo DESC, c.id DESC").fetchall()
    return [(str(sha), json.loads(unparsed), json.loads(limits))
            for sha, unparsed, limits in rows]


def failed_commits(store: Store, limit: int) -> tuple[int, list[str]]:
    """How many commits HEAD reaches are recorded as failed (``commit_rows.FAILED``: no
    events), and the first ``limit`` of their shas, newest first."""
    conn = store.conn
    rows = [str(r[0]) for r in conn.execute(
        "SELECT sha FROM commits WHERE limits_hit = '[\"ingest_failed\"]' AND reachable = 1 "
        "ORDER BY topo DESC, id DESC")]
    return len(rows), rows[:limit]


def reachable_commit_count(store: Store) -> int:
    conn = store.conn
    return int(conn.execute("SELECT count(*) FROM commits WHERE reachable = 1").fetchone()[0])


def changed_in(store: Store, shas: Iterable[str]) -> list[EntityRow]:
    """The distinct entities that changed in the commits ``shas``."""
    conn = store.conn
    scope = temp_keys(conn, "q_seed_commits", shas)
    rows = conn.execute(
        f"SELECT DISTINCT e.id, e.locator, e.kind, e.path, e.sei, e.lineage {_JOINS} "
        f"WHERE c.sha IN {scope} ORDER BY e.locator").fetchall()
    return [entity_row(r) for r in rows]


def facts_in(store: Store, shas: Iterable[str]
             ) -> dict[int, list[tuple[str, str, Any, Any, Any]]]:
    """Entity id -> ``(kind, change_kind, code_same, docs_changed, signature_changed)`` of
    each of its events in the commits ``shas``."""
    conn = store.conn
    scope = temp_keys(conn, "q_fact_commits", shas)
    out: dict[int, list[tuple[str, str, Any, Any, Any]]] = {}
    for entity_id, *event in conn.execute(
            "SELECT e.id, e.kind, ce.change_kind, ce.code_same, ce.docs_changed, "
            f"ce.signature_changed {_JOINS} WHERE c.sha IN {scope}"):
        out.setdefault(int(entity_id), []).append(
            (str(event[0]), str(event[1]), event[2], event[3], event[4]))
    return out


def count_changed_entities(store: Store, shas: Sequence[str]) -> int:
    """How many distinct entities changed in the commits ``shas``."""
    conn = store.conn
    if not shas:
        return 0
    scope = temp_keys(conn, "q_map_since", shas)
    row = conn.execute("SELECT count(DISTINCT ce.entity_id) FROM change_events ce "
                       f"JOIN commits c ON c.id = ce.commit_id WHERE c.sha IN {scope}"
                       ).fetchone()
    return int(row[0])


def latest_change_per_lineage(store: Store,
                              lineages: Iterable[int]) -> dict[int, str]:
    """The newest commit in which each lineage (an entity across renames) changed."""
    conn = store.conn
    scope = temp_keys(conn, "q_lineages", lineages, "INTEGER")
    # SQLite takes the bare columns from the row holding max(): the newest change.
    return {int(lineage): str(sha) for lineage, sha, _ in conn.execute(
        f"SELECT ce.lineage, c.sha, max(ce.changed_at * 1000000000 + c.id) {_JOINS} "
        f"WHERE ce.lineage IN {scope} GROUP BY ce.lineage")}
