"""``warpline_entity_timeline_get`` / ``timeline``: one entity's ordered change history.

The history follows the entity's lineage in both directions (file renames, definitions
renamed or moved), in topological order, over commits HEAD reaches only; asking for an
old name says (in a warning) which locator the lineage continues as.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warpline.errors import InvalidEntityRef, MissingRequiredField
from warpline.models import EntityTimelineEnvelope
from warpline.models.inputs import EntityTimelineInput
from warpline.service.shared.closest import unknown_entity_warning
from warpline.service.shared.context import (
    behind_warning,
    catch_up,
    failed_warning,
    ingest_status,
    open_context,
)
from warpline.service.shared.envelope import envelope, iso_z, parse_instant
from warpline.service.shared.facts import read_facts
from warpline.service.shared.nature import nature_of, runs_doctests, unknown_note
from warpline.service.shared.nested import nested_prefixes
from warpline.service.shared.paging import Pager
from warpline.service.shared.resolve import parse_ref, resolve
from warpline.service.shared.sei import backfill_seis
from warpline.store.db import Store
from warpline.store.entities import EntityRow
from warpline.store.lineages import (
    earlier_definitions,
    ended_changes,
    latest_locator,
    lineage_locators,
    nested_entities,
    timeline_rows,
)

TOOL = "warpline_entity_timeline_get"
_KIND_PREFERENCE = {"function": 0, "class": 1, "module": 2, "file": 3}


def entity_timeline(params: EntityTimelineInput, cwd: Path | None) -> dict[str, Any]:
    if params.entity_ref is not None and params.entity is not None:
        raise InvalidEntityRef("Pass `entity_ref` or `entity`, not both.", field="entity")
    raw: str | dict[str, Any]
    if params.entity_ref is not None:
        field = "entity_ref"
        raw = params.entity_ref if isinstance(params.entity_ref, str) \
            else params.entity_ref.model_dump(mode="json")
    elif params.entity is not None:
        field, raw = "entity", params.entity
    else:
        raise MissingRequiredField("Name the entity: pass `entity_ref` {kind, value} or "
                                   "`entity` (a bare string).", field="entity_ref")
    ref = parse_ref(raw, field=field)
    with open_context(params.repo, cwd) as ctx:
        report = catch_up(ctx)
        warnings = behind_warning(ctx, report) + failed_warning(ctx)
        backfill_seis(ctx, [ref])
        rows = resolve(ctx.store, [ref])[0]
        entity = _choose(rows, ref.kind, ref.value)
        filters = params.filters.model_dump(mode="json", exclude_none=True) \
            if params.filters is not None else {}
        pager = Pager.of(params)
        items, total, locators, nested = ([], 0, set(), 0) if entity is None else _events(
            ctx.store, entity, filters, params.sort_order, pager.offset, pager.limit,
            ctx.root)
        unread = [int(str(i["change_id"]).rpartition(":")[2]) for i in items
                  if i["nature"] is None]
        if entity is not None and unread:  # what the changes shown mean, read if not yet
            read, more = read_facts(ctx, events=unread)
            warnings.extend(more)
            if read:
                items, total, locators, nested = _events(
                    ctx.store, entity, filters, params.sort_order, pager.offset,
                    pager.limit, ctx.root)
        if nested:
            warnings.append(
                f"This timeline also lists {nested} change(s) of definitions nested in "
                f"{entity.locator if entity else ''} (items marked nested: true, each with "
                "its own locator): a nested definition's lines are its own, so those "
                "commits did not change this function's own lines, and churn does not "
                "count them.")
        warnings.extend(unknown_note(sum(1 for i in items if _unknown(i))))
        actions: dict[str, Any] = {}
        if entity is None:
            text, names = unknown_entity_warning(ctx.store, ref.kind, str(ref.value))
            warnings.append(
                f"{text} The timeline is empty because nothing is known, not because it "
                "never changed outside that history.")
            if names:
                actions["tools"] = [
                    {"tool": TOOL, "arguments": {"repo": str(ctx.root), "entity": name},
                     "why": "a known entity with a similar name"} for name in names[:3]]
        data = {
            "entity": _entity_out(entity, ref.kind, ref.value),
            "items": items,
            "ingest": ingest_status(ctx, report),
            "total": total,
            "page": pager.wire(total),
        }
        stitched = len(locators) > 1
        if entity is not None and stitched:
            warnings.extend(_where_it_went(ctx.store, entity))
        if entity is not None:
            warnings.extend(_earlier_definitions(ctx.store, entity))
        return envelope(
            model=EntityTimelineEnvelope, tool=TOOL, repo=ctx.root, params=params, data=data,
            filters=filters, sort={"by": "changed_at", "order": params.sort_order},
            page={"limit": params.limit, "cursor": params.cursor}, warnings=warnings,
            next_actions=actions,
            enrichment={"sei": "present" if entity is not None and entity.sei else "absent",
                        "governance": "present" if stitched else "unavailable"},
        )


def _choose(rows: list[EntityRow], kind: str, value: str) -> EntityRow | None:
    if not rows:
        return None
    if kind == "path":
        for row in rows:
            if row.kind == "file":
                return row
    return sorted(rows, key=lambda r: (_KIND_PREFERENCE.get(r.kind, 9), r.id))[0]


def _entity_out(entity: EntityRow | None, kind: str, value: str) -> dict[str, Any]:
    if entity is None:
        return {"locator": value if kind == "locator" else None,
                "sei": value if kind == "sei" else None,
                "sei_resolution": "unknown", "warpline_entity_key_id": None,
                "path": value if kind == "path" else None, "kind": None}
    return {"locator": entity.locator, "sei": entity.sei,
            "sei_resolution": "resolved" if entity.sei else "unresolved",
            "warpline_entity_key_id": entity.id, "path": entity.path, "kind": entity.kind}


def _where_it_went(store: Store, entity: EntityRow) -> list[str]:
    """Asking for an old name: say which locator the lineage continues as now."""
    row = latest_locator(store, entity.lineage)
    if row is None or row[0] == entity.locator:
        return []
    return [f"{entity.locator} was renamed or moved: its history continues as {row[0]} "
            f"(latest change in commit {row[1][:12]}); this timeline covers the whole lineage."]


def _earlier_definitions(store: Store, entity: EntityRow) -> list[str]:
    """A name reused after its definition was renamed away: the earlier definition's
    history is not this one's; say where it continues. A name that took over another
    definition's history (a wrapper absorbing the body it called): say that its own
    earlier changes ended there."""
    rows = earlier_definitions(store, entity.id, entity.lineage)
    out = [f"An earlier definition named {entity.locator} was renamed or moved; its history "
           f"continues as {locator} and is not part of this timeline." for locator in rows]
    ended = ended_changes(store, entity.id, entity.lineage)
    if ended:
        out.append(f"An earlier definition named {entity.locator} ended when the name took "
                   f"over another definition's history (shown here); its own {ended} "
                   "change(s) before that are not part of this timeline.")
    return out


def _unknown(item: dict[str, Any]) -> bool:
    return (item["nature"] is None and item["change_kind"] in ("modified", "moved")
            and not str(item["locator"]).startswith("core:file:"))


def _events(store: Store, entity: EntityRow, filters: dict[str, Any], order: str, offset: int,
            limit: int, root: Path | None = None,
            ) -> tuple[list[dict[str, Any]], int, set[str], int]:
    """One page of the entity's timeline, its total, the lineage's locators and how many
    of the total are changes of nested definitions."""
    since, until = (parse_instant(filters[key], f"filters.{key}") if filters.get(key) else None
                    for key in ("since", "until"))
    locators = lineage_locators(store, entity.lineage)
    nested = (nested_entities(store, nested_prefixes(locators | {entity.locator}))
              if entity.kind == "function" else [])
    kinds = filters.get("change_kinds") or []
    rows, total = timeline_rows(store, entity.lineage, kinds, since, until, order, offset,
                                limit, nested)
    inside = 0
    if nested:
        inside = total - timeline_rows(store, entity.lineage, kinds, since, until, order, 0, 1)[1]
    doctests = runs_doctests(root) if root is not None else False
    items = [{"change_id": f"warpline:change:{r[0]}", "change_kind": r[1],
              "actor": f"{r[2]} <{r[3]}>", "commit": r[4], "changed_at": iso_z(r[5]),
              "path": r[6], "locator": r[7], "previous_locator": r[8], "previous_path": r[9],
              "also_modified": bool(r[10]) if r[1] == "moved" else None,
              "nature": nature_of(r[11], r[1], r[12], r[13], r[14], doctests),
              "nested": bool(r[15])} for r in rows]
    return items, int(total), locators, inside
