"""The dependency graph of one snapshot, and the downstream walk over it (DESIGN §5).

Edges point the way the indexer gives them (caller → callee, referrer → referenced).
What a change can break is upstream along those arrows: its callers and referrers,
transitively. ``downstream`` therefore walks predecessors, breadth-first, so every
affected entity is reported at its shortest distance with one shortest path of real edges.

Determinism: nodes and edges are inserted in sorted order and networkx keeps insertion
order in its adjacency dicts, so the walk (and the path chosen among equal-length ones) is
stable.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any, NamedTuple

import networkx as nx

from warpline.errors import InvalidDepth
from warpline.graph.model import EdgeCapture, GraphEdge, GraphEntity
from warpline.limits import MAX_DEPTH

# When one pair is linked both ways, the path names the call: it is the stronger claim.
_KIND_ORDER = {"calls": 0, "references": 1}


class Affected(NamedTuple):
    """``via_edges`` runs from the affected entity to a seed: ``via_edges[0]`` starts at
    the affected entity, ``via_edges[-1]`` ends at the seed. Seeds have ``depth == 0``
    and no edges."""

    depth: int
    via_edges: tuple[GraphEdge, ...]


# (kind, confidence) of one edge; the graph keeps these per pair, not GraphEdge objects:
# building 100k dataclasses costs more than the whole walk, which only needs a path's.
Link = tuple[str, str | None]


def build_graph(entities: Iterable[GraphEntity], edges: Iterable[GraphEdge]) -> nx.DiGraph:
    """Nodes are locators (attributes ``kind``, ``path``, ``sei``); each edge carries
    ``links``: the ``(kind, confidence)`` of the edges between that ordered pair, calls
    first."""
    return graph_from_rows(
        sorted(((e.locator, e.kind, e.path, e.sei) for e in entities), key=lambda r: r[0]),
        sorted(((e.source_locator, e.target_locator, e.kind, e.confidence) for e in edges),
               key=lambda r: (r[0], r[1])))


def graph_from_rows(entities: Iterable[tuple[str, str, str, str | None]],
                    edges: Iterable[tuple[str, str, str, str | None]]) -> nx.DiGraph:
    """``build_graph`` from plain rows: entities ``(locator, kind, path, sei)`` sorted by
    locator, edges ``(source, target, kind, confidence)`` sorted by (source, target), as
    the store's primary keys give them. Insertion order is what makes walks stable, so the
    order given is kept; the adjacency dicts are filled directly (``add_edges_from`` costs
    several times more per edge)."""
    graph = nx.DiGraph()
    nodes: dict[str, dict[str, Any]] = graph._node
    succ: dict[str, dict[str, dict[str, Any]]] = graph._succ
    pred: dict[str, dict[str, dict[str, Any]]] = graph._pred
    for locator, kind, path, sei in entities:
        if locator in nodes:
            nodes[locator].update(kind=kind, path=path, sei=sei)
            continue
        nodes[locator] = {"kind": kind, "path": path, "sei": sei}
        succ[locator] = {}
        pred[locator] = {}
    shared: dict[Link, tuple[Link, ...]] = {}  # most pairs have one edge of a common kind
    for source, target, kind, confidence in edges:
        out = succ.get(source)
        if out is None:  # an endpoint that is not a captured entity: a bare node
            nodes[source], out, pred[source] = {}, {}, {}
            succ[source] = out
        into = pred.get(target)
        if into is None:
            nodes[target], succ[target], into = {}, {}, {}
            pred[target] = into
        data = out.get(target)
        link = (kind, confidence)
        if data is None:
            links = shared.get(link)
            if links is None:
                links = shared[link] = (link,)
            out[target] = into[source] = {"links": links}
        else:
            data["links"] = _ordered((*data["links"], link))
    return graph


def _ordered(links: tuple[Link, ...]) -> tuple[Link, ...]:
    return tuple(sorted(set(links), key=lambda k: (_KIND_ORDER.get(k[0], 9), k[0], k[1] or "")))


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
    # The raw adjacency dict: the public view costs a wrapper object per lookup.
    predecessors: dict[str, dict[str, dict[str, Any]]] = graph._pred
    # node -> (the neighbour one step closer to a seed, the link between them)
    toward_seed: dict[str, tuple[str, Link] | None] = {}
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
                toward_seed[dependent] = (node, attributes["links"][0])
                queue.append(dependent)

    # ``distance`` is in visiting order: a node's next step toward its seed is done first,
    # so each path is its first edge plus the (shared) path of that step.
    result: dict[str, Affected] = {}
    for node, hops in distance.items():
        step = toward_seed[node]
        if step is None:
            result[node] = Affected(0, ())
            continue
        closer, (kind, confidence) = step
        edge = GraphEdge(node, closer, kind, confidence)  # type: ignore[arg-type]
        result[node] = Affected(hops, (edge, *result[closer].via_edges))
    return result
