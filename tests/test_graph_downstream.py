"""Downstream impact: dependents (callers, referrers), breadth-first, with real-edge paths."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpline.errors import InvalidDepth
from warpline.graph.graph import Affected, build_graph, downstream
from warpline.graph.model import EdgeKind, GraphEdge, GraphEntity
from warpline.limits import MAX_DEPTH


def _entity(name: str) -> GraphEntity:
    return GraphEntity(f"python:function:m.{name}", "function", "m.py", None, 1, 1)


def _edge(source: str, target: str, kind: EdgeKind = "calls") -> GraphEdge:
    return GraphEdge(_loc(source), _loc(target), kind, "resolved")


def _loc(name: str) -> str:
    return f"python:function:m.{name}"


# A calls B calls C calls A (a cycle); D references C; E calls D; T (a test) calls E.
EDGES = [
    _edge("A", "B"),
    _edge("B", "C"),
    _edge("C", "A"),
    _edge("D", "C", "references"),
    _edge("E", "D"),
    _edge("T", "E"),
]
GRAPH = build_graph([_entity(n) for n in "ABCDET"], EDGES)


def _depths(result: dict[str, Affected]) -> dict[str, int]:
    return {locator.rsplit(".", 1)[1]: affected.depth for locator, affected in result.items()}


def test_downstream_lists_callers_and_referrers_not_callees() -> None:
    assert _depths(downstream(GRAPH, [_loc("C")], 0)) == {"C": 0}
    assert _depths(downstream(GRAPH, [_loc("C")], 1)) == {"C": 0, "B": 1, "D": 1}
    assert _depths(downstream(GRAPH, [_loc("C")], 2)) == {"C": 0, "B": 1, "D": 1, "A": 2, "E": 2}
    assert _depths(downstream(GRAPH, [_loc("C")], 5)) == {
        "C": 0, "B": 1, "D": 1, "A": 2, "E": 2, "T": 3,
    }  # fmt: skip


def test_a_cycle_is_walked_once_at_shortest_distance() -> None:
    # From B: A calls B (1), C calls A (2), D references C (3), E (4), T (5); B stays 0.
    assert _depths(downstream(GRAPH, [_loc("B")], 5)) == {
        "B": 0, "A": 1, "C": 2, "D": 3, "E": 4, "T": 5,
    }  # fmt: skip


def test_via_edges_run_from_the_affected_entity_back_to_the_seed() -> None:
    result = downstream(GRAPH, [_loc("C")], 5)
    assert result[_loc("C")] == Affected(0, ())
    assert result[_loc("T")].via_edges == (_edge("T", "E"), _edge("E", "D"), EDGES[3])
    assert result[_loc("D")].via_edges == (_edge("D", "C", "references"),)


def test_seeds_missing_from_the_graph_are_skipped() -> None:
    assert _depths(downstream(GRAPH, ["python:function:m.gone", _loc("T")], 2)) == {"T": 0}


def test_a_pair_linked_twice_reports_the_call() -> None:
    graph = build_graph(
        [_entity("X"), _entity("Y")], [_edge("X", "Y", "references"), _edge("X", "Y")]
    )
    assert downstream(graph, [_loc("Y")], 1)[_loc("X")].via_edges == (_edge("X", "Y"),)


@pytest.mark.parametrize("depth", [-1, 6, True, 2.0])
def test_depth_outside_zero_to_five_is_invalid(depth: object) -> None:
    with pytest.raises(InvalidDepth) as caught:
        downstream(GRAPH, [_loc("C")], depth)  # type: ignore[arg-type]
    assert caught.value.code == "invalid_depth"


_pairs = st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), max_size=60)


@settings(max_examples=150, deadline=None)
@given(pairs=_pairs, seeds=st.sets(st.integers(0, 16), min_size=1, max_size=4))
def test_impact_is_monotonic_in_depth_and_every_path_reaches_a_seed(
    pairs: list[tuple[int, int]], seeds: set[int]
) -> None:
    edges = [_edge(f"n{a}", f"n{b}") for a, b in pairs]
    graph = build_graph([_entity(f"n{i}") for i in range(15)], edges)
    seed_locs = {_loc(f"n{s}") for s in seeds}
    edge_set = set(edges)
    reverse = graph.reverse(copy=True)
    shortest: dict[str, int] = {}
    for seed in seed_locs & set(graph):
        for node, hops in nx.single_source_shortest_path_length(reverse, seed).items():
            shortest[node] = min(hops, shortest.get(node, hops))

    previous: set[str] = set()
    for depth in range(MAX_DEPTH + 1):
        result = downstream(graph, seed_locs, depth)
        assert previous <= set(result)
        previous = set(result)
        for locator, affected in result.items():
            assert affected.depth == shortest[locator] <= depth
            assert len(affected.via_edges) == affected.depth
            at = locator
            for edge in affected.via_edges:
                assert edge in edge_set and edge.source_locator == at
                at = edge.target_locator
            assert at in seed_locs
        # Nothing within reach is left out.
        assert {n for n, hops in shortest.items() if hops <= depth} == set(result)
