"""``warpline_impact_radius_get`` / ``blast_radius``: what depends on the changed entities.

Downstream = dependents: callers and referrers, transitively, breadth-first up to
``depth`` over the chosen snapshot's graph (``graph_query``). Filters (entity kinds, path
prefixes) narrow what is listed, never the walk; ``edge_kinds`` narrows the walk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warpline.graph.graph import Affected
from warpline.graph.model import GraphEdge
from warpline.models import ImpactRadiusEnvelope
from warpline.models.inputs import ImpactRadiusInput
from warpline.service.impact.graph_call import graph_call
from warpline.service.impact.graph_query import GraphView
from warpline.service.impact.seeds import Seeds
from warpline.service.shared.context import ingest_status
from warpline.service.shared.envelope import envelope
from warpline.service.shared.paging import Pager
from warpline.store.pathprefixes import PathPrefixes, normalised

TOOL = "warpline_impact_radius_get"
MAX_CHANGED_LISTED = 1000


def impact_radius(params: ImpactRadiusInput, cwd: Path | None) -> dict[str, Any]:
    with graph_call(params, cwd, range_answers=True) as call:
        params = call.params
        ctx, report, warnings, view, seeds = call.unpack()
        filters = params.filters
        reached = view.reach(seeds.locators(), params.depth)
        seed_set = set(seeds.locators())
        affected = [(loc, hit) for loc, hit in reached.items() if loc not in seed_set]
        affected = [(loc, hit) for loc, hit in affected if listed(view, loc, filters)]
        affected = sort_affected(view, affected, params.sort_by, params.sort_order)
        pager = Pager.of(params)
        page = pager.cut(affected)
        book = call.book()
        shown = seeds.items[:MAX_CHANGED_LISTED]
        book.prefetch([s.locator for s in shown] + [loc for loc, _ in page] +
                      [x for _, hit in page for e in hit.via_edges
                       for x in (e.source_locator, e.target_locator)])
        warnings.extend(seed_warnings(view, seeds, len(shown)))
        data = {
            "completeness": view.completeness,
            "staleness": view.staleness,
            "edge_basis": view.basis,
            "changed": [{"entity": book.entity(s.locator),
                         "in_snapshot": None if view.graph is None else s.locator in view.graph}
                        for s in shown],
            "affected": [{"entity": book.entity(loc), "depth": hit.depth,
                          "seed": hit.via_edges[-1].target_locator,
                          "via_edges": book.path_out(hit.via_edges)} for loc, hit in page],
            "ingest": ingest_status(ctx, report, call.seeds.range_complete),
            "total": len(affected),
            "page": pager.wire(len(affected)),
            "changed_edges": [book.edge(e) for e in between(view, [s.locator for s in shown])],
        }
        return envelope(
            model=ImpactRadiusEnvelope, tool=TOOL, repo=ctx.root, params=params, data=data,
            filters=filters.model_dump(mode="json", exclude_none=True) if filters else {},
            sort={"by": params.sort_by, "order": params.sort_order},
            page={"limit": params.limit, "cursor": params.cursor}, warnings=warnings,
            next_actions=follow_ups(ctx.root, params, view, "warpline_reverify_worklist_get"),
            enrichment={"sei": book.sei_enrichment(), "edges": view.edges_enrichment},
        )


# The last filter's prefixes, kept with the list they came from: ``listed`` runs once per
# reached entity, and building the set each time would cost entities × paths again.
_LAST_PREFIXES: list[tuple[list[str], PathPrefixes]] = []


def _prefixes(paths: list[str]) -> PathPrefixes:
    if _LAST_PREFIXES and _LAST_PREFIXES[0][0] is paths:
        return _LAST_PREFIXES[0][1]
    prefixes = PathPrefixes(normalised(paths))
    _LAST_PREFIXES[:] = [(paths, prefixes)]
    return prefixes


def listed(view: GraphView, locator: str, filters: Any,
           fallback: tuple[str | None, str | None] = (None, None)) -> bool:
    """Whether the entity passes the kind and path filters (never the walk)."""
    if filters is None:
        return True
    node = view.graph.nodes[locator] if view.graph is not None and locator in view.graph \
        else {}
    kind = node.get("kind") or fallback[0]
    path = node.get("path") or fallback[1] or ""
    if filters.entity_kinds and kind not in filters.entity_kinds:
        return False
    if filters.paths and not _prefixes(filters.paths).matches(path):
        return False
    return True


def sort_affected(view: GraphView, items: list[tuple[str, Affected]], sort_by: str,
                  order: str) -> list[tuple[str, Affected]]:
    nodes = view.graph.nodes if view.graph is not None else {}
    ordered = sorted(items, key=lambda it: it[0])
    if sort_by == "depth":
        ordered.sort(key=lambda it: it[1].depth, reverse=order == "desc")
    elif sort_by == "path":
        ordered.sort(key=lambda it: nodes[it[0]].get("path") or "", reverse=order == "desc")
    elif order == "desc":
        ordered.reverse()
    return ordered


def seed_warnings(view: GraphView, seeds: Seeds, shown: int) -> list[str]:
    from warpline.service.history.events_query import unread_language_note

    warnings = unread_language_note([{"kind": "locator", "value": s.locator}
                                     for s in seeds.items if s.locator.startswith("core:file:")])
    if shown < len(seeds.items):
        warnings.append(f"{len(seeds.items)} entities changed; `changed` lists the first "
                        f"{shown} (all of them seeded the walk).")
    if view.graph is not None:
        warnings += _unseen_languages(view, seeds)
        missing = [s.locator for s in seeds.items
                   if s.locator not in view.graph and not s.locator.startswith("core:file:")]
        if missing:
            warnings.append(
                f"{len(missing)} changed entities are not in the edge snapshot (added after "
                f"it, removed, or not Python; first: {missing[0]}): their dependents are "
                "unknown, not absent.")
    return warnings


def _unseen_languages(view: GraphView, seeds: Seeds) -> list[str]:
    """Changed entities of a language the graph holds nothing of: its sources could not
    see that code, so the answer is no ``FULL`` answer for them (``DELTA``, and said;
    the rule: ``service/shared/unseen.py``)."""
    from warpline.service.shared.unseen import prefix_of, unseen_languages, unseen_warning

    assert view.graph is not None
    held = view.graph.graph.get("prefixes")
    if held is None:
        held = view.graph.graph["prefixes"] = {prefix_of(str(n)) for n in view.graph}
    unseen = unseen_languages(held, (seed.locator for seed in seeds.items))
    if not unseen:
        return []
    if view.completeness == "FULL":
        view.completeness = "DELTA"
    if view.edges_enrichment == "present":
        view.edges_enrichment = "partial"
    return [unseen_warning(unseen, held)]


MAX_CHANGED_EDGES = 500


def between(view: GraphView, locators: list[str]) -> list[GraphEdge]:
    """The graph's edges whose both ends are among ``locators`` (bounded, sorted)."""
    graph = view.graph
    if graph is None:
        return []
    inside = set(locators) & set(graph)
    edges = []
    for source in sorted(inside):
        for target, data in graph.succ[source].items():
            if target in inside and target != source:
                edges += [GraphEdge(source, target, kind, confidence)
                          for kind, confidence in data.get("links", ())]
    edges.sort(key=lambda e: (e.source_locator, e.target_locator, e.kind))
    return edges[:MAX_CHANGED_EDGES]


def seed_arguments(root: Path, params: Any) -> dict[str, Any]:
    """The same question, for the sibling tool."""
    arguments: dict[str, Any] = {"repo": str(root), "depth": params.depth}
    if params.rev_range is not None:
        arguments["rev_range"] = params.rev_range
    if params.changed_refs:
        arguments["changed_refs"] = [r if isinstance(r, str) else r.model_dump(mode="json")
                                     for r in params.changed_refs][:200]
    if params.changed_entity_key_ids:
        arguments["changed_entity_key_ids"] = list(params.changed_entity_key_ids)[:200]
    if params.include_worktree:
        arguments["include_worktree"] = True
    return arguments


def follow_ups(root: Path, params: Any, view: GraphView, sibling: str) -> dict[str, Any]:
    actions: dict[str, Any] = {}
    tools = []
    if view.graph is None:
        tools.append({"tool": "warpline_edge_snapshot_capture", "arguments": {"repo": str(root)},
                      "why": "Capture the edge graph at HEAD, then ask again."})
    why = ("List what to re-verify, with the tests that reach it."
           if sibling == "warpline_reverify_worklist_get"
           else "See the dependents as a plain impact list.")
    tools.append({"tool": sibling, "arguments": seed_arguments(root, params), "why": why})
    actions["tools"] = tools
    if view.commands:
        actions["commands"] = list(view.commands)
    return actions
