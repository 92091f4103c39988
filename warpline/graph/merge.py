"""Merging two captures of one commit: loomweave's entities, SEIs and edges, completed by
the built-in extractor's edges and facts where loomweave has none.

loomweave mints SEIs and resolves with a type checker, but resolves nothing without
``node`` and, with it, fewer test-to-code edges than the built-in extractor (fixtures,
registered callbacks, constructors). The merge keeps every loomweave entity and edge and
adds the built-in edges (and the entities they need) that loomweave lacks; ``origins``
says which source gave how many. The unresolved count is the smaller of the two: a call
site is left without an edge only when neither source resolved it, so the merged count is
at most that.
"""

from __future__ import annotations

from dataclasses import replace

from warpline.graph.model import EdgeCapture


def merge(primary: EdgeCapture, secondary: EdgeCapture) -> EdgeCapture:
    known = {e.locator for e in primary.entities}
    added_entities = [e for e in secondary.entities if e.locator not in known]
    entities = sorted([*primary.entities, *added_entities], key=lambda e: e.locator)
    locators = known | {e.locator for e in added_entities}
    pairs = {(e.source_locator, e.target_locator, e.kind) for e in primary.edges}
    added_edges = [e for e in secondary.edges
                   if (e.source_locator, e.target_locator, e.kind) not in pairs
                   and e.source_locator in locators and e.target_locator in locators]
    edges = sorted([*primary.edges, *added_edges],
                   key=lambda e: (e.source_locator, e.target_locator, e.kind))
    failed = sorted({*primary.failed_entities,
                     *(f for f in secondary.failed_entities if f[0] not in known)})
    return replace(
        primary, entities=tuple(entities), edges=tuple(edges), failed_entities=tuple(failed),
        unresolved=min(primary.unresolved, secondary.unresolved),
        discovery=primary.discovery or secondary.discovery,
        origins={
            primary.source: {"entities": len(primary.entities), "edges": len(primary.edges),
                             "unresolved": primary.unresolved},
            secondary.source: {"entities": len(added_entities), "edges": len(added_edges),
                               "unresolved": secondary.unresolved},
        })
