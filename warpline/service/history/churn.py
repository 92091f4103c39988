"""``warpline_entity_churn_count_get`` / ``churn``: change-event counts per entity ref.

Every ref gets an item in band: a never-observed ref answers ``churn_count: 0`` with the
ref echoed. Built for loomweave's consumer, which sends one ref per entity in scope
(tens of thousands per call): refs resolve in batches and counts come from two grouped
queries over a temporary table, never one query per ref.

The common input shape arrives as ``ChurnArgs`` (checked by hand, ``churn_input.py``) and
its answer is built and checked without pydantic (``churn_wire.py``); any other input
arrives as the pydantic model and its answer goes through the envelope model, as every
other tool's does. Both give the same bytes (``tests/test_churn_fast.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warpline.errors import InvalidEntityRef
from warpline.models.wire import language_fields
from warpline.service.history.churn_input import ChurnArgs
from warpline.service.history.churn_wire import churn_envelope
from warpline.service.shared.closest import NameIndex, unknown_entity_warning
from warpline.service.shared.context import (
    behind_warning,
    catch_up,
    failed_warning,
    ingest_status,
    open_context,
)
from warpline.service.shared.envelope import envelope, iso_z, parse_instant
from warpline.service.shared.nature import runs_doctests
from warpline.service.shared.nested import nested_prefixes
from warpline.service.shared.paging import Pager
from warpline.service.shared.resolve import Ref, parse_refs, resolve
from warpline.service.shared.sei import backfill_seis
from warpline.store.db import Store
from warpline.store.entities import EntityRow
from warpline.store.lineages import Stat, churn_stats, nested_counts, nested_entities

if TYPE_CHECKING:
    from warpline.models.inputs import EntityChurnCountInput

TOOL = "warpline_entity_churn_count_get"
MAX_UNKNOWN_WARNINGS = 5  # closest-name hints for the first unknown refs only


def churn_count(params: EntityChurnCountInput | ChurnArgs, cwd: Path | None) -> dict[str, Any]:
    refs = parse_refs(params.entity_refs, field="entity_refs", error=InvalidEntityRef)
    with open_context(params.repo, cwd) as ctx:
        report = catch_up(ctx)
        warnings = behind_warning(ctx, report) + failed_warning(ctx)
        sei_locators = backfill_seis(ctx, refs)
        store = ctx.store
        resolved = _files_for_paths(refs, resolve(store, refs), warnings)
        window = params.window.model_dump(mode="json") if params.window is not None else {}
        since = parse_instant(window["since"], "window.since") if window.get("since") else None
        until = parse_instant(window["until"], "window.until") if window.get("until") else None
        shas = None
        if window.get("rev_range"):
            from warpline.git.repo import range_commits

            _, _, commits = range_commits(ctx.repo, window["rev_range"])
            shas = [str(c.id) for c in commits]
        lineages = {row.lineage for rows in resolved for row in rows}
        if params.skip_cosmetic:  # what their changes mean, read if not yet
            from warpline.service.shared.facts import read_facts

            warnings.extend(read_facts(ctx, shas=shas, lineages=lineages)[1])
        doctests = params.skip_cosmetic and runs_doctests(ctx.root)
        counts = _stats(store, lineages, since, until, shas, params.skip_cosmetic, doctests)
        # One light row per answer item (sort keys first); only the page's items are built
        # as wire objects: 50,000 refs answer 100 items a page.
        entries: list[_Entry] = []
        names: NameIndex | None = None
        hinted = 0
        for ref, rows in zip(refs, resolved, strict=True):
            if not rows:
                sei_locator = sei_locators.get(ref.value)
                locator = ref.value if ref.kind == "locator" else sei_locator
                sei = ref.value if ref.kind == "sei" else None
                entries.append((locator or sei or "", 0, sei or "", ref, None, None, sei_locator))
                if ref.kind != "sei" and hinted < MAX_UNKNOWN_WARNINGS:
                    names = names or NameIndex(store)
                    warnings.append(unknown_entity_warning(names, ref.kind, str(ref.value))[0])
                    hinted += 1
                continue
            for row in rows:
                stat = counts.for_entity(row)
                sei = ref.value if ref.kind == "sei" else row.sei
                entries.append((row.locator or sei or "", stat[0] if stat else 0, sei or "",
                                ref, row, stat, None))
        _sort(entries, params.sort_by, params.sort_order == "desc")
        pager = Pager.of(params)
        cut = pager.cut(entries)
        page = [_built(entry) for entry in cut]
        nested = _nested(store, cut, since, until, shas)
        for item, entry in zip(page, cut, strict=True):
            held = entry[4]
            if held is not None and held.id in nested:
                item["nested_churn_count"] = nested[held.id]
        if nested:
            warnings.append(
                f"{len(nested)} function(s) of this page have nested definitions (nested "
                "functions, local classes) that changed: their changes are counted apart "
                "(nested_churn_count), not in churn_count, whose rule is the entity's own "
                "lines; the function's timeline lists them, marked nested.")
        data = {
            "items": page,
            "window": {"since": iso_z(since), "until": iso_z(until),
                       "rev_range": window.get("rev_range")},
            "ingest": ingest_status(ctx, report),
            "total": len(entries),  # every item counts, built or not
            "page": pager.wire(len(entries)),
        }
        any_sei = any(it["entity"]["sei"] for it in page)
        sort = {"by": params.sort_by, "order": params.sort_order}
        page_echo = {"limit": params.limit, "cursor": params.cursor}
        enrichment = {"sei": "present" if any_sei else "absent"}
        if isinstance(params, ChurnArgs):
            answer = churn_envelope(tool=TOOL, repo=ctx.root, params=params, data=data,
                                    sort=sort, page=page_echo, warnings=warnings,
                                    enrichment=enrichment)
            if answer is not None:
                return answer
        from warpline.models import EntityChurnCountEnvelope

        return envelope(
            model=EntityChurnCountEnvelope, tool=TOOL, repo=ctx.root, params=params, data=data,
            filters={}, sort=sort, page=page_echo, warnings=warnings, enrichment=enrichment,
        )


def _files_for_paths(refs: list[Ref], resolved: list[list[EntityRow]],
                     warnings: list[str]) -> list[list[EntityRow]]:
    """A path counts its file (``core:file:<path>``: the commits that changed it, across
    renames), never every entity the file ever held; said once. A path naming no file
    warpline has seen answers unknown, like any unknown ref."""
    out: list[list[EntityRow]] = []
    said = False
    for ref, rows in zip(refs, resolved, strict=True):
        if ref.kind != "path":
            out.append(rows)
            continue
        files = [row for row in rows if row.kind == "file"]
        out.append(files)
        if not said and len(rows) > len(files):
            warnings.append(
                f"A path counts the file's own changes (core:file:{ref.value}), not each "
                "entity defined in it; name an entity (its locator or dotted name) to count "
                "that entity.")
            said = True
    return out


# (sort locator, churn count, sort sei, ref, row or None, stat, SEI-bound locator)
_Entry = tuple[str, int, str, Ref, EntityRow | None, Stat | None, str | None]


def _sort(entries: list[_Entry], by: str, descending: bool) -> None:
    """Order ``entries`` by ``by`` (stable sorts: ties keep locator order, so pages are
    deterministic). ``last_changed_at``: entities with no change in the window have no
    time and come last in either order (a missing time is not the oldest one)."""
    entries.sort(key=itemgetter(0))
    if by == "locator":
        if descending:
            entries.reverse()
        return
    if by == "last_changed_at":
        timed = [e for e in entries if e[5] is not None]
        untimed = [e for e in entries if e[5] is None]
        timed.sort(key=_last_changed, reverse=descending)
        entries[:] = timed + untimed
        return
    entries.sort(key=itemgetter(2 if by == "sei" else 1), reverse=descending)


def _last_changed(entry: _Entry) -> int:
    stat = entry[5]
    return stat[2] if stat is not None else 0


def _built(entry: _Entry) -> dict[str, Any]:
    ref, row, stat, sei_locator = entry[3], entry[4], entry[5], entry[6]
    return _unknown(ref, sei_locator) if row is None else _item(ref, row, stat)


@dataclass(slots=True)
class Counts:
    """Counts per lineage and per entity, and each lineage's current member.

    The current member of a rename chain (its holder, else the one with the
    topologically latest event) carries the whole chain's history; a locator renamed
    away keeps only its own events, so a stale locator and its successor are never both
    credited with the same changes.
    """

    by_lineage: dict[int, Stat] = field(default_factory=dict)
    by_entity: dict[int, Stat] = field(default_factory=dict)
    current: dict[int, int] = field(default_factory=dict)

    def for_entity(self, row: EntityRow) -> Stat | None:
        if self.current.get(row.lineage, row.id) == row.id:
            return self.by_lineage.get(row.lineage)
        return self.by_entity.get(row.id)


def _stats(store: Store, lineages: set[int], since: int | None, until: int | None,
           shas: list[str] | None, skip_cosmetic: bool = False,
           doctests: bool = False) -> Counts:
    """Counts per lineage and per entity, in a few grouped queries (never one per ref)."""
    if not lineages:
        return Counts()
    by_lineage, by_entity, current = churn_stats(store, lineages, since, until, shas,
                                                 skip_cosmetic, doctests)
    return Counts(by_lineage, by_entity, current)


def _nested(store: Store, entries: list[_Entry], since: int | None, until: int | None,
            shas: list[str] | None) -> dict[int, int]:
    """Per function row of a page (by entity id): its nested definitions' change count."""
    wanted: dict[int, list[int]] = {}
    for entry in entries:
        row = entry[4]
        if row is not None and row.kind == "function" and row.locator:
            ids = nested_entities(store, nested_prefixes([row.locator]))
            if ids:
                wanted[row.id] = ids
    return nested_counts(store, wanted, since, until, shas) if wanted else {}


def _unknown(ref: Ref, sei_locator: str | None) -> dict[str, Any]:
    """A ref warpline never saw change: count 0, the ref echoed (and, for an SEI that
    loomweave binds, its locator, so federation peers can key-match it)."""
    locator = ref.value if ref.kind == "locator" else sei_locator
    return {
        "ref": ref.as_wire(),
        "entity": {"locator": locator, "sei": ref.value if ref.kind == "sei" else None,
                   "warpline_entity_key_id": None, "path": None, "kind": None,
                   **language_fields(locator)},
        "observed": False, "churn_count": 0, "first_changed_at": None,
        "last_changed_at": None, "last_actor": None, "nested_churn_count": 0,
    }


def _item(ref: Ref, row: EntityRow, stat: Stat | None) -> dict[str, Any]:
    # Keys in the model's field order: a page past the envelope's sample is passed through
    # as built, and reads the same as a page the model wrote.
    return {
        "ref": ref.as_wire(),
        "entity": {"locator": row.locator, "sei": ref.value if ref.kind == "sei" else row.sei,
                   "warpline_entity_key_id": row.id, "path": row.path, "kind": row.kind,
                   **language_fields(row.locator, row.path)},
        "observed": True,
        "churn_count": stat[0] if stat else 0,
        "first_changed_at": iso_z(stat[1]) if stat else None,
        "last_changed_at": iso_z(stat[2]) if stat else None,
        "last_actor": stat[3] if stat else None,
        "nested_churn_count": 0,
    }
