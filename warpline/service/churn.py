"""``warpline_entity_churn_count_get`` / ``churn``: change-event counts per entity ref.

Every ref gets an item in band: a never-observed ref answers ``churn_count: 0`` with the
ref echoed. Built for loomweave's consumer, which sends one ref per entity in scope
(tens of thousands per call): refs resolve in batches and counts come from two grouped
queries over a temporary table, never one query per ref.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warpline.errors import InvalidEntityRef
from warpline.git.repo import range_commits
from warpline.models import EntityChurnCountEnvelope
from warpline.models.inputs import EntityChurnCountInput
from warpline.service.closest import NameIndex, unknown_entity_warning
from warpline.service.context import behind_warning, catch_up, ingest_status, open_context
from warpline.service.envelope import envelope, iso_z, parse_instant
from warpline.service.paging import Pager
from warpline.service.resolve import EntityRow, Ref, parse_ref, resolve
from warpline.service.sei import backfill_seis

TOOL = "warpline_entity_churn_count_get"
MAX_UNKNOWN_WARNINGS = 5  # closest-name hints for the first unknown refs only


def churn_count(params: EntityChurnCountInput, cwd: Path | None) -> dict[str, Any]:
    refs = [parse_ref(r, field=f"entity_refs[{i}]", error=InvalidEntityRef)
            for i, r in enumerate(params.entity_refs)]
    with open_context(params.repo, cwd) as ctx:
        report = catch_up(ctx)
        warnings = behind_warning(ctx, report)
        sei_locators = backfill_seis(ctx, refs)
        conn = ctx.store.conn
        resolved = resolve(conn, refs)
        window = params.window.model_dump(mode="json") if params.window is not None else {}
        since = parse_instant(window["since"], "window.since") if window.get("since") else None
        until = parse_instant(window["until"], "window.until") if window.get("until") else None
        shas = None
        if window.get("rev_range"):
            _, _, commits = range_commits(ctx.repo, window["rev_range"])
            shas = [str(c.id) for c in commits]
        lineages = {row.lineage for rows in resolved for row in rows}
        counts = _stats(conn, lineages, since, until, shas)
        items = []
        names: NameIndex | None = None
        hinted = 0
        for ref, rows in zip(refs, resolved, strict=True):
            if not rows:
                items.append(_unknown(ref, sei_locators.get(ref.value)))
                if ref.kind != "sei" and hinted < MAX_UNKNOWN_WARNINGS:
                    names = names or NameIndex(conn)
                    warnings.append(unknown_entity_warning(names, ref.kind, str(ref.value))[0])
                    hinted += 1
                continue
            for row in rows:
                items.append(_item(ref, row, counts.for_entity(row)))
        # Stable sorts: ties keep locator order, so pages are deterministic.
        items.sort(key=lambda it: (it["entity"]["locator"] or it["entity"]["sei"] or ""))
        descending = params.sort_order == "desc"
        if params.sort_by == "sei":
            items.sort(key=lambda it: it["entity"]["sei"] or "", reverse=descending)
        else:
            items.sort(key=lambda it: it["churn_count"], reverse=descending)
        pager = Pager.of(params)
        page = pager.cut(items)
        data = {
            "items": page,
            "window": {"since": iso_z(since), "until": iso_z(until),
                       "rev_range": window.get("rev_range")},
            "ingest": ingest_status(ctx, report),
            "total": len(items),
            "page": pager.wire(len(items)),
        }
        any_sei = any(it["entity"]["sei"] for it in page)
        return envelope(
            model=EntityChurnCountEnvelope, tool=TOOL, repo=ctx.root, params=params, data=data,
            filters={}, sort={"by": params.sort_by, "order": params.sort_order},
            page={"limit": params.limit, "cursor": params.cursor}, warnings=warnings,
            enrichment={"sei": "present" if any_sei else "absent"},
        )




Stat = tuple[int, int, int, str]  # count, first, last, last actor


@dataclass(slots=True)
class Counts:
    """Counts per lineage and per entity, and each lineage's current member.

    The current member of a rename chain (the one with the topologically latest event)
    carries the
    whole chain's history; a locator renamed away keeps only its own events, so a stale
    locator and its successor are never both credited with the same changes.
    """

    by_lineage: dict[int, Stat] = field(default_factory=dict)
    by_entity: dict[int, Stat] = field(default_factory=dict)
    current: dict[int, int] = field(default_factory=dict)

    def for_entity(self, row: EntityRow) -> Stat | None:
        if self.current.get(row.lineage, row.id) == row.id:
            return self.by_lineage.get(row.lineage)
        return self.by_entity.get(row.id)


def _stats(conn: sqlite3.Connection, lineages: set[int], since: int | None, until: int | None,
           shas: list[str] | None) -> Counts:
    """Counts per lineage and per entity, in a few grouped queries (never one per ref)."""
    if not lineages:
        return Counts()
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS q_lineages (lineage INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM q_lineages")
    conn.executemany("INSERT INTO q_lineages (lineage) VALUES (?)", ((x,) for x in lineages))
    clauses = ["ce.lineage IN (SELECT lineage FROM q_lineages)"]
    args: list[Any] = []
    if since is not None:
        clauses.append("ce.changed_at >= ?")
        args.append(since)
    if until is not None:
        clauses.append("ce.changed_at <= ?")
        args.append(until)
    if shas is not None:
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS q_commits (sha TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM q_commits")
        conn.executemany("INSERT OR IGNORE INTO q_commits (sha) VALUES (?)", ((s,) for s in shas))
        clauses.append("c.sha IN (SELECT sha FROM q_commits)")
    else:  # only history HEAD reaches; an explicit range is its own set of commits
        clauses.append("c.reachable = 1")
    base = ("FROM change_events ce JOIN entities e ON e.id = ce.entity_id "
            "JOIN commits c ON c.id = ce.commit_id WHERE " + " AND ".join(clauses))
    out = Counts()
    for group, target in (("ce.lineage", out.by_lineage), ("e.id", out.by_entity)):
        counts = {r[0]: (int(r[1]), int(r[2])) for r in conn.execute(
            f"SELECT {group}, count(*), min(ce.changed_at) {base} GROUP BY {group}", args)}
        # SQLite returns the bare columns of the row holding max() when max() is the only
        # aggregate: that is the topologically latest event (never the latest timestamp:
        # equal commit times are normal after a rebase), its author and, per lineage, its
        # entity (the lineage's current member).
        for key, _, last, name, email, entity_id in conn.execute(
                f"SELECT {group}, max(coalesce(c.topo, 0) * 4294967296 + ce.id), ce.changed_at, "
                f"c.author_name, c.author_email, e.id {base} GROUP BY {group}", args):
            count, first = counts[key]
            target[key] = (count, first, int(last), f"{name} <{email}>")
            if group == "ce.lineage":
                out.current[key] = int(entity_id)
    return out


def _unknown(ref: Ref, sei_locator: str | None) -> dict[str, Any]:
    """A ref warpline never saw change: count 0, the ref echoed (and, for an SEI that
    loomweave binds, its locator, so federation peers can key-match it)."""
    return {
        "ref": ref.as_wire(),
        "entity": {"sei": ref.value if ref.kind == "sei" else None,
                   "locator": ref.value if ref.kind == "locator" else sei_locator,
                   "warpline_entity_key_id": None, "path": None, "kind": None},
        "churn_count": 0, "first_changed_at": None, "last_changed_at": None,
        "last_actor": None, "observed": False,
    }


def _item(ref: Ref, row: EntityRow, stat: Stat | None) -> dict[str, Any]:
    return {
        "ref": ref.as_wire(),
        "entity": {"sei": ref.value if ref.kind == "sei" else row.sei, "locator": row.locator,
                   "warpline_entity_key_id": row.id, "path": row.path, "kind": row.kind},
        "churn_count": stat[0] if stat else 0,
        "first_changed_at": iso_z(stat[1]) if stat else None,
        "last_changed_at": iso_z(stat[2]) if stat else None,
        "last_actor": stat[3] if stat else None,
        "observed": True,
    }
