"""``warpline_reverify_worklist_get`` / ``reverify``: what to recheck before saying done.

Changed entities first (``reason: changed``, depth 0), then their dependents
(``reason: downstream``) with the ``why`` path from the seed outward. Per item: the
tests that reach it (``suggest``), its recorded-verification freshness
(``freshness``), and, with ``include_federation``, its linked work and priority (``work``).

``group_by``: ``entity`` (default) lists one item per entity, changed first;
``reason`` does the same and names the two groups; ``file`` keeps each file's items
together (files in the order of their first item); ``none`` is one flat list ordered by
the sort key alone (changed and downstream interleave).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warpline.graph.graph import Affected
from warpline.models import ReverifyWorklistEnvelope
from warpline.models.inputs import ReverifyWorklistInput
from warpline.service.admin import freshness
from warpline.service.history import coupling
from warpline.service.impact import cosmetic, suggest
from warpline.service.impact.graph_call import graph_call
from warpline.service.impact.graph_entities import EntityBook
from warpline.service.impact.graph_query import GraphView
from warpline.service.impact.impact import follow_ups, listed, seed_warnings
from warpline.service.impact.seeds import Seed
from warpline.service.shared.context import ingest_status
from warpline.service.shared.envelope import envelope
from warpline.service.shared.paging import Pager
from warpline.service.testing.worklist_tests import (
    WorklistTests,
    map_counts,
    worklist_tests,
)
from warpline.store.events import latest_change_per_lineage

TOOL = "warpline_reverify_worklist_get"
# filigree answers one request at a time (2–5 ms each, measured): 200 SEIs plus their
# issues fit the 3 s enrichment deadline with room to spare.
MAX_WORK_ITEMS = 200
MAX_SUGGEST_ITEMS = 2000
_PRIORITY_RANK = {"P0": 0, "P1": 1, "P2": 2, "P3": 3, "P4": 4, "unknown": 5}


@dataclass(slots=True)
class Item:
    """One entity of the re-verify worklist, with why and how far it is there."""
    locator: str
    reason: str
    depth: int
    seed: Seed | None = None
    hit: Affected | None = None
    kind: str | None = None
    path: str | None = None
    priority: str = "unknown"
    links: list[dict[str, Any]] = field(default_factory=list)
    verification: dict[str, Any] = field(default_factory=dict)
    group: str | None = None


def reverify_worklist(params: ReverifyWorklistInput, cwd: Path | None) -> dict[str, Any]:
    with graph_call(params, cwd) as call:
        params = call.params
        ctx, report, warnings, view, seeds = call.unpack()
        filters = params.filters
        warnings.extend(seed_warnings(view, seeds, len(seeds.items)))
        looks = cosmetic.split(seeds.items)
        warnings.extend(looks.note())
        items = _items(view, seeds.items, params.depth, looks.cosmetic)
        items = [i for i in items if listed(view, i.locator, filters, (i.kind, i.path))]
        if filters is not None and filters.reasons:
            items = [i for i in items if i.reason in filters.reasons]
        book = call.book()
        book.prefetch(i.locator for i in items)
        _verify(ctx, book, items, params.verified_kinds,
                (seeds.range or {}).get("head_commit") or _head(ctx), warnings)
        if filters is not None and filters.verification_states:
            items = [i for i in items if i.verification["state"] in filters.verification_states]
        warnings.extend(freshness.scope_warnings([i.verification for i in items]))
        work_state = "unavailable"
        filigree: list[dict[str, Any]] = []
        if params.include_federation:
            work_state, filigree = _work(ctx, book, items, warnings)
        groups = _order(items, params.sort_by, params.sort_order, params.group_by)
        pager = Pager.of(params)
        page = pager.cut(items)
        targets = [i.locator for i in items[:MAX_SUGGEST_ITEMS]] + [i.locator for i in page]
        labels = suggest.nearest_tests(view.graph, targets) if view.graph is not None else {}
        per_item = {loc: suggest.suggestions(view.graph, loc, labels.get(loc, []), ctx.root)
                    for loc in dict.fromkeys(targets)}
        for locator in looks.cosmetic & per_item.keys():
            per_item[locator] = cosmetic.inspection()
        if looks.only_cosmetic:
            tests = WorklistTests(looks.selection(), per_item, [])
        else:
            tests = worklist_tests(
                ctx, view.graph, looks.active,
                [i for i in items[:MAX_SUGGEST_ITEMS] if i.locator not in looks.cosmetic],
                per_item, params.rev_range,
                (seeds.range or {}).get("base_commit"))
            tests.selection.cosmetic = sorted(looks.cosmetic)
        per_item = tests.per_item
        linked = map_counts(ctx, tests.selection, [i.locator for i in page])
        warnings.extend(tests.selection.warnings)
        history = coupling.for_worklist(ctx, book, items, page, seeds.range)
        warnings.extend(history.warnings)
        if len(items) > MAX_SUGGEST_ITEMS:
            warnings.append(f"The worklist has {len(items)} items; the test command covers "
                            f"the tests of the first {MAX_SUGGEST_ITEMS}.")
        data = {
            "completeness": view.completeness,
            "staleness": view.staleness,
            "edge_basis": view.basis,
            "items": [_wire(book, item, per_item[item.locator], linked.get(item.locator),
                            history.risk.get(item.locator))
                      for item in page],
            "groups": groups,
            "verification_summary": freshness.summarise([i.verification for i in items]),
            "ingest": ingest_status(ctx, report),
            "total": len(items),
            "changed_total": sum(1 for i in items if i.reason == "changed"),
            "selection": tests.selection.wire(),
            "page": pager.wire(len(items)),
            "co_change": history.co_change(),
        }
        actions = follow_ups(ctx.root, params, view, "warpline_impact_radius_get")
        actions["commands"] = [*tests.commands, *actions.get("commands", [])]
        if filigree:
            actions["filigree"] = filigree
        return envelope(
            model=ReverifyWorklistEnvelope, tool=TOOL, repo=ctx.root, params=params, data=data,
            filters=filters.model_dump(mode="json", exclude_none=True) if filters else {},
            sort={"by": params.sort_by, "order": params.sort_order},
            page={"limit": params.limit, "cursor": params.cursor}, warnings=warnings,
            next_actions=actions,
            enrichment={"sei": book.sei_enrichment(), "edges": view.edges_enrichment,
                        "work": work_state, "risk": history.state},
        )


def _items(view: GraphView, seeds: list[Seed], depth: int,
           unreaching: set[str] | frozenset[str] = frozenset()) -> list[Item]:
    """The changed items, then the dependents of those not in ``unreaching`` (cosmetic:
    their code did not change)."""
    # The raw node-attribute dict: one lookup per item, without a view object each time.
    nodes: dict[str, dict[str, Any]] = view.graph._node if view.graph is not None else {}
    by_locator = {s.locator: s for s in seeds}
    items = []
    for seed in seeds:
        node = nodes[seed.locator] if seed.locator in nodes else {}
        items.append(Item(seed.locator, "changed", 0, seed=seed,
                          kind=node.get("kind") or seed.kind, path=node.get("path") or seed.path))
    reaching = [locator for locator in by_locator if locator not in unreaching]
    for locator, hit in view.reach(reaching, depth).items():
        if locator in by_locator:
            continue
        origin = by_locator[hit.via_edges[-1].target_locator]
        items.append(Item(locator, "downstream", hit.depth, seed=origin, hit=hit,
                          kind=nodes[locator].get("kind"), path=nodes[locator].get("path")))
    return items


def _head(ctx: Any) -> str | None:
    """HEAD's commit: the history a working-tree answer is about."""
    return None if ctx.repo.head_is_unborn else str(ctx.repo.head.target)


def _verify(ctx: Any, book: EntityBook, items: list[Item], kinds: list[str] | None,
            history_head: str | None, warnings: list[str]) -> None:
    lineage_of = {i.locator: book.lineage(i.locator) for i in items}
    latest = latest_change_per_lineage(ctx.store,
                             {x for x in lineage_of.values() if x is not None})

    def change_of(locator: str) -> str | None:
        lineage = lineage_of.get(locator)
        return latest.get(lineage) if lineage is not None else None

    queries: list[tuple[str | None, str | None]] = []
    for item in items:
        seed = item.seed
        if seed is not None and seed.uncommitted:
            queries.append((None, None))  # no recorded verification can cover it
        elif item.reason == "changed":
            queries.append((change_of(item.locator), None))
        else:
            seed_change = change_of(seed.locator) if seed is not None else None
            own = change_of(item.locator)
            queries.append((own, seed_change) if own is not None else (seed_change, None))
    states = freshness.verification_states(ctx, queries, kinds, history_head, warnings)
    for item, state in zip(items, states, strict=True):
        item.verification = state


def _work(ctx: Any, book: EntityBook, items: list[Item],
          warnings: list[str]) -> tuple[str, list[dict[str, Any]]]:
    from warpline.service.admin.work import enrich_work

    first = sorted(items, key=lambda i: (i.reason != "changed", i.depth, i.locator))
    first = first[:MAX_WORK_ITEMS]
    if len(items) > MAX_WORK_ITEMS:
        warnings.append(f"Work links were looked up for the first {MAX_WORK_ITEMS} of "
                        f"{len(items)} items (changed first, then nearest); the rest show "
                        "priority unknown.")
    work = enrich_work(ctx, [book.sei(i.locator) for i in first])
    warnings.extend(work.warnings)
    for item, links, priority in zip(first, work.links, work.priorities, strict=True):
        item.links, item.priority = links, priority
    return work.state, work.filigree_actions


def _order(items: list[Item], sort_by: str, order: str, group_by: str) -> list[dict[str, Any]]:
    """Sort ``items`` in place; return ``groups``."""
    key = {
        "depth": lambda i: i.depth,
        "priority": lambda i: _PRIORITY_RANK.get(i.priority, 5),
        "locator": lambda i: i.locator,
        "path": lambda i: i.path or "",
    }[sort_by]
    items.sort(key=lambda i: (i.depth, i.locator))
    items.sort(key=key, reverse=order == "desc")
    if group_by != "none":
        items.sort(key=lambda i: i.reason != "changed")
    if group_by == "file":
        first_seen: dict[str, int] = {}
        for index, item in enumerate(items):
            item.group = item.path or "(unknown)"
            first_seen.setdefault(item.group, index)
        items.sort(key=lambda i: first_seen[i.group or ""])
    elif group_by == "reason":
        for item in items:
            item.group = item.reason
    counts: dict[str, int] = {}
    for item in items:
        if item.group is not None:
            counts[item.group] = counts.get(item.group, 0) + 1
    return [{"key": k, "count": n} for k, n in counts.items()]


def _wire(book: EntityBook, item: Item, suggested: list[dict[str, Any]],
          map_tests: int | None, risk: list[dict[str, Any]] | None) -> dict[str, Any]:
    hit = item.hit
    return {
        "entity": book.entity(item.locator),
        "priority": item.priority,
        "reason": item.reason,
        "depth": item.depth,
        "seed": hit.via_edges[-1].target_locator if hit is not None else None,
        "why": book.path_out(hit.via_edges) if hit is not None else [],
        "suggested_verification": suggested,
        "enrichment": {"work": item.links, "risk": risk or [], "governance": [],
                       "requirements": []},
        "verification": item.verification,
        "group": item.group,
        "map_tests": map_tests,
        "nature": item.seed.nature if item.seed is not None and item.reason == "changed"
        else None,
    }
