"""The dependency graph of one snapshot, and the downstream walk over it (DESIGN §5).

Edges point the way the indexer gives them (caller → callee, referrer → referenced).
What a change can break is upstream along those arrows: its callers and referrers,
transitively. ``downstream`` therefore walks predecessors, breadth-first, so every
affected entity is reported at its shortest distance with one shortest path of real edges.

Determinism: edges are inserted in sorted order and networkx keeps insertion order in its
adjacency dicts, so the walk (and the path chosen among equal-length ones) is stable.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import NamedTuple

import networkx as nx

from warpline.errors import InvalidDepth
from warpline.graph.model import EdgeCapture, GraphEdge, GraphEntity

MAX_DEPTH = 5
# When one pair is linked both ways, the path names the call: it is the stronger claim.
_KIND_ORDER = {"calls": 0, "references": 1}


class Affected(NamedTuple):
    """``via_edges`` runs from the affected entity to a seed: ``via_edges[0]`` starts at
    the affected entity, ``via_edges[-1]`` ends at the seed. Seeds have ``depth == 0``
    and no edges."""

    depth: int
    via_edges: tuple[GraphEdge, ...]


def build_graph(entities: Iterable[GraphEntity], edges: Iterable[GraphEdge]) -> nx.DiGraph:
    """Nodes are locators (attributes ``kind``, ``path``, ``sei``); each edge carries
    ``edges``: the ``GraphEdge`` objects between that ordered pair, calls first."""
    graph = nx.DiGraph()
    graph.add_nodes_from(
        (e.locator, {"kind": e.kind, "path": e.path, "sei": e.sei})
        for e in sorted(entities, key=lambda e: e.locator)
    )
    by_pair: dict[tuple[str, str], tuple[GraphEdge, ...]] = {}
    for edge in edges:
        pair = (edge.source_locator, edge.target_locator)
        previous = by_pair.get(pair)
        by_pair[pair] = (edge,) if previous is None else _ordered((*previous, edge))
    # One batched call over sorted pairs: insertion order is what makes walks stable.
    graph.add_edges_from((*pair, {"edges": by_pair[pair]}) for pair in sorted(by_pair))
    return graph


def _ordered(edges: tuple[GraphEdge, ...]) -> tuple[GraphEdge, ...]:
    return tuple(
        sorted(set(edges), key=lambda e: (_KIND_ORDER.get(e.kind, 9), e.kind, e.confidence or ""))
    )


def graph_from_capture(capture: EdgeCapture) -> nx.DiGraph:
    return build_graph(capture.entities, capture.edges)


def downstream(graph: nx.DiGraph, seeds: Iterable[str], depth: int) -> dict[str, Affected]:
    """Seeds (those present in ``graph``) and their dependents up to ``depth`` hops.

    A cycle is harmless: each entity is visited once, at its shortest distance. Seeds
    absent from the graph are skipped; the caller knows its seeds and can report them.
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
        raise InvalidDepth(
            f"depth must be an integer from 0 to {MAX_DEPTH}; got {depth!r}",
            field="depth",
            value=depth,
        )
    predecessors = graph.pred
    # node -> (the neighbour one step closer to a seed, the edge between them)
    toward_seed: dict[str, tuple[str, GraphEdge] | None] = {}
    distance: dict[str, int] = {}
    queue: deque[str] = deque()
    for seed in sorted(set(seeds)):
        if seed in predecessors:
            toward_seed[seed] = None
            distance[seed] = 0
            queue.append(seed)
    while queue:
        node = queue.popleft()
        hops = distance[node]
        if hops == depth:
            continue
        for dependent, attributes in predecessors[node].items():
            if dependent not in distance:
                distance[dependent] = hops + 1
                toward_seed[dependent] = (node, attributes["edges"][0])
                queue.append(dependent)

    result: dict[str, Affected] = {}
    for node, hops in distance.items():
        path: list[GraphEdge] = []
        step = toward_seed[node]
        while step is not None:
            path.append(step[1])
            step = toward_seed[step[0]]
        result[node] = Affected(hops, tuple(path))
    return result
