"""Entities and edges of graph answers, as they go on the wire.

An entity is ``{locator, sei, warpline_entity_key_id, path, kind}``; an edge names its
endpoints by locator (and SEI), never by an internal id. SEIs come, in order, from the
snapshot (loomweave captures carry them), the store (written by loomweave captures) and
loomweave's index read-only (batched), when it exists; they are never minted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx

from warpline.graph.loomweave_source import index_path, resolve_seis
from warpline.graph.model import GraphEdge
from warpline.models.wire import language_fields
from warpline.service.impact.seeds import Seed
from warpline.service.shared.context import RepoContext
from warpline.service.shared.resolve import by_locators
from warpline.store.entities import EntityRow


class EntityBook:
    def __init__(self, ctx: RepoContext, graph: nx.DiGraph | None, seeds: Iterable[Seed],
                 snapshot_source: str | None) -> None:
        self._ctx = ctx
        self._graph = graph
        self._seeds = {s.locator: s for s in seeds}
        self._rows: dict[str, EntityRow] = {}
        self._index_seis: dict[str, str] = {}
        self._fetched: set[str] = set()
        self._has_index = index_path(ctx.root).is_file()
        # Could an SEI have been found? (loomweave is the only SEI authority.)
        self.sei_consulted = snapshot_source == "loomweave" or self._has_index
        self.any_sei = False

    def prefetch(self, locators: Iterable[str]) -> None:
        wanted = [loc for loc in dict.fromkeys(locators) if loc not in self._fetched]
        if not wanted:
            return
        self._fetched.update(wanted)
        self._rows.update(by_locators(self._ctx.store, wanted))
        if self._has_index:
            missing = [loc for loc in wanted if self._known_sei(loc) is None]
            if missing:
                self._index_seis.update(resolve_seis(self._ctx.root, missing))

    def _node(self, locator: str) -> dict[str, Any] | None:
        if self._graph is None or locator not in self._graph:
            return None
        attrs: dict[str, Any] = self._graph.nodes[locator]
        return attrs

    def _known_sei(self, locator: str) -> str | None:
        node = self._node(locator)
        if node is not None and node.get("sei"):
            return str(node["sei"])
        seed = self._seeds.get(locator)
        if seed is not None and seed.sei:
            return seed.sei
        row = self._rows.get(locator)
        return row.sei if row is not None else None

    def sei(self, locator: str) -> str | None:
        if locator not in self._fetched:
            self.prefetch([locator])
        found = self._known_sei(locator) or self._index_seis.get(locator)
        if found:
            self.any_sei = True
        return found

    def entity(self, locator: str) -> dict[str, Any]:
        if locator not in self._fetched:
            self.prefetch([locator])
        node = self._node(locator) or {}
        row = self._rows.get(locator)
        seed = self._seeds.get(locator)
        kind = node.get("kind") or (row.kind if row else None) or (seed.kind if seed else None)
        path = node.get("path") or (row.path if row else None) or (seed.path if seed else None)
        key_id = row.id if row else (seed.key_id if seed else None)
        return {"locator": locator, "sei": self.sei(locator), "warpline_entity_key_id": key_id,
                "path": path, "kind": kind, **language_fields(locator, path)}

    def lineage(self, locator: str) -> int | None:
        if locator not in self._fetched:
            self.prefetch([locator])
        row = self._rows.get(locator)
        return row.lineage if row is not None else None

    def edge(self, edge: GraphEdge) -> dict[str, Any]:
        return {"from": edge.source_locator, "to": edge.target_locator,
                "from_sei": self.sei(edge.source_locator), "to_sei": self.sei(edge.target_locator),
                "kind": edge.kind, "confidence": edge.confidence}

    def path_out(self, via: tuple[GraphEdge, ...]) -> list[dict[str, Any]]:
        """``downstream`` gives the path from the affected entity to its seed; the wire
        runs from the seed outward (the first edge points at the seed)."""
        return [self.edge(e) for e in reversed(via)]

    def sei_enrichment(self) -> str:
        if self.any_sei:
            return "present"
        return "absent" if self.sei_consulted else "unavailable"
