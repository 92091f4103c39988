"""Selecting change events: filters, sort and paging pushed into SQL where they belong."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from warpline.service.shared.envelope import iso_z, parse_instant

_SORT_SQL = {
    "changed_at": "ce.changed_at",
    "locator": "e.locator",
    "path": "ce.path",
    "change_kind": "ce.change_kind",
    "actor": "c.author_name",
}
_SELECT = (
    "SELECT ce.id, ce.change_kind, ce.path, ce.previous_locator, ce.changed_at, e.id, "
    "e.locator, e.kind, e.sei, c.sha, c.author_name, c.author_email, ce.previous_path, "
    "ce.also_modified "
    "FROM change_events ce JOIN entities e ON e.id = ce.entity_id "
    "JOIN commits c ON c.id = ce.commit_id"
)


@dataclass(slots=True)
class Where:
    change_kinds: list[str] = field(default_factory=list)
    entity_kinds: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    actors: list[str] = field(default_factory=list)
    since: int | None = None
    until: int | None = None
    _echo: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_filters(cls, filters: Any) -> Where:
        if filters is None:
            return cls()
        raw: dict[str, Any] = filters.model_dump(mode="json", exclude_none=True)
        where = cls(
            change_kinds=list(raw.get("change_kinds") or []),
            entity_kinds=list(raw.get("entity_kinds") or []),
            paths=[p.replace("\\", "/").strip("/") for p in raw.get("paths") or []],
            actors=list(raw.get("actors") or []),
            since=parse_instant(raw["since"], "filters.since") if raw.get("since") else None,
            until=parse_instant(raw["until"], "filters.until") if raw.get("until") else None,
        )
        where._echo = raw
        return where

    def echo(self) -> dict[str, Any]:
        return dict(self._echo)

    def sql(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        args: list[Any] = []
        for column, values in (("ce.change_kind", self.change_kinds),
                               ("e.kind", self.entity_kinds)):
            if values:
                clauses.append(f"{column} IN ({','.join('?' * len(values))})")
                args.extend(values)
        if self.paths:
            # One JSON array parameter, not one OR per prefix: 1,000 prefixes (the schema's
            # maximum) would pass SQLite's expression depth limit.
            clauses.append("EXISTS (SELECT 1 FROM json_each(?) p WHERE ce.path = p.value "
                           "OR substr(ce.path, 1, length(p.value) + 1) = p.value || '/')")
            args.append(json.dumps(self.paths))
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
        return " AND ".join(clauses), args

    def matches(self, item: dict[str, Any]) -> bool:
        """The same filters, for items that never touch SQL (uncommitted changes)."""
        entity = item["entity"]
        if self.change_kinds and item["change_kind"] not in self.change_kinds:
            return False
        if self.entity_kinds and entity["kind"] not in self.entity_kinds:
            return False
        if self.paths and not any(entity["path"] == p or entity["path"].startswith(p + "/")
                                  for p in self.paths):
            return False
        # Uncommitted changes have no author and happen "now".
        return not self.actors and self.until is None


def _load_commits(conn: sqlite3.Connection, shas: Sequence[str]) -> None:
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS q_commits (sha TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM q_commits")
    conn.executemany("INSERT OR IGNORE INTO q_commits (sha) VALUES (?)", ((s,) for s in shas))


def _scope(conn: sqlite3.Connection, shas: Sequence[str] | None,
           where: Where) -> tuple[str, list[Any]]:
    clause, args = where.sql()
    parts = [clause] if clause else []
    if shas is not None:
        _load_commits(conn, shas)
        parts.append("c.sha IN (SELECT sha FROM q_commits)")
    else:  # every recorded commit HEAD reaches; rewritten-away commits never count
        parts.append("c.reachable = 1")
    return (" WHERE " + " AND ".join(parts)) if parts else "", args


def select_events(conn: sqlite3.Connection, shas: Sequence[str] | None, where: Where,
                  sort_by: str, order: str, fetch: int) -> tuple[list[Any], int]:
    """The first ``fetch`` matching rows in sort order, and the total count."""
    scope, args = _scope(conn, shas, where)
    direction = "DESC" if order == "desc" else "ASC"
    total = conn.execute(
        "SELECT count(*) FROM change_events ce JOIN entities e ON e.id = ce.entity_id "
        f"JOIN commits c ON c.id = ce.commit_id{scope}", args).fetchone()[0]
    rows = conn.execute(
        f"{_SELECT}{scope} ORDER BY {_SORT_SQL[sort_by]} {direction}, ce.id {direction} "
        "LIMIT ?", [*args, fetch]).fetchall()
    return rows, int(total)


def item_from_row(row: Sequence[Any]) -> dict[str, Any]:
    return {
        "change_id": f"warpline:change:{row[0]}",
        "entity": {"locator": row[6], "sei": row[8], "warpline_entity_key_id": row[5],
                   "path": row[2], "kind": row[7]},
        "change_kind": row[1],
        "actor": f"{row[10]} <{row[11]}>",
        "commit": row[9],
        "changed_at": iso_z(row[4]),
        "previous_locator": row[3],
        "previous_path": row[12],
        "also_modified": bool(row[13]) if row[1] == "moved" else None,
        "origin": "commit",
    }


def _sort_key(sort_by: str, item: dict[str, Any]) -> Any:
    value = {
        # Uncommitted changes are the newest of all.
        "changed_at": item["changed_at"] or "9999",
        "locator": item["entity"]["locator"],
        "path": item["entity"]["path"],
        "change_kind": item["change_kind"],
        "actor": item["actor"] or "",
    }[sort_by]
    return value or ""


def sort_items(items: list[dict[str, Any]], sort_by: str, order: str) -> list[dict[str, Any]]:
    return sorted(items, key=lambda item: _sort_key(sort_by, item), reverse=order == "desc")


def distinct_refs(
    conn: sqlite3.Connection, shas: Sequence[str] | None, where: Where,
    items: list[dict[str, Any]], bound: int,
) -> tuple[list[dict[str, str]], list[int], bool]:
    """Refs (SEI when known) and key ids of the distinct changed entities, at most
    ``bound`` of each, and whether that bound cut the list."""
    scope, args = _scope(conn, shas, where)
    rows = conn.execute(
        "SELECT e.locator, e.sei, e.id, max(ce.changed_at) AS last FROM change_events ce "
        "JOIN entities e ON e.id = ce.entity_id JOIN commits c ON c.id = ce.commit_id"
        f"{scope} GROUP BY e.id ORDER BY last DESC, e.locator LIMIT ?",
        [*args, bound + 1]).fetchall()
    refs: list[dict[str, str]] = [
        {"kind": "locator", "value": i["entity"]["locator"]}
        for i in items if i["origin"] == "worktree"
    ]
    seen = {r["value"] for r in refs}
    key_ids: list[int] = []
    for locator, sei, entity_id, _ in rows:
        if locator in seen:
            continue
        seen.add(locator)
        key_ids.append(int(entity_id))
        refs.append({"kind": "sei", "value": sei} if sei else {"kind": "locator", "value": locator})
    return refs[:bound], key_ids[:bound], len(refs) > bound


_NOTE_LIMIT = 5
_LIMIT_WORDS = {
    "rename_limit": ("changed more files than rename detection examines "
                     "(WARPLINE_RENAME_LIMIT): some renames there are recorded as removed "
                     "plus added. Raise the limit and re-ingest to pair them"),
    "lineage_limit": ("had more removed and added definitions than lineage pairing compares: "
                      "some renamed or moved definitions there are recorded as removed plus "
                      "added"),
}


def range_notes(conn: sqlite3.Connection, shas: Sequence[str] | None) -> list[str]:
    """What the answer's commits could not fully read, in words: Python file versions no
    parser could read (only their file events are recorded) and limits attribution hit."""
    if shas is not None:
        _load_commits(conn, shas)
        scope = "c.sha IN (SELECT sha FROM q_commits)"
    else:
        scope = "c.reachable = 1"
    rows = conn.execute(
        "SELECT c.sha, c.unparsed_files, c.limits_hit FROM commits c WHERE "
        f"(c.unparsed_files != '[]' OR c.limits_hit != '[]') AND {scope} "
        "ORDER BY c.topo DESC, c.id DESC").fetchall()
    unread: list[str] = []
    limited: dict[str, list[str]] = {}
    for sha, unparsed, limits in rows:
        unread.extend(f"{path}@{sha[:12]}" for path in json.loads(unparsed))
        for name in json.loads(limits):
            limited.setdefault(name, []).append(sha[:12])
    notes: list[str] = []
    if unread:
        more = f" and {len(unread) - _NOTE_LIMIT} more" if len(unread) > _NOTE_LIMIT else ""
        notes.append(f"{len(unread)} Python file versions in this range could not be read for "
                     "definitions (only their file events are recorded, entity changes there "
                     f"are unknown): {', '.join(unread[:_NOTE_LIMIT])}{more}.")
    for name, commits in sorted(limited.items()):
        words = _LIMIT_WORDS.get(name, f"hit the limit {name!r}")
        notes.append(f"{len(commits)} commits in this range {words}: "
                     f"{', '.join(commits[:_NOTE_LIMIT])}.")
    return notes
