"""The Java tests of an edge snapshot's graph, from what the built-in extractor learnt
(``graph.graph["discovery"]["java"]``, ``graph/builtin/java_tests.py``): which definitions
are tests and the test ids that run each (a base class's test method runs under every
concrete subclass)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["facts", "floor", "graph_tests", "test_nodes", "widen"]


def facts(graph: Any) -> dict[str, Any]:
    """The snapshot's Java test facts ({} when it was captured without them)."""
    discovery = graph.graph.get("discovery") if graph is not None else None
    found = discovery.get("java") if isinstance(discovery, dict) else None
    return found if isinstance(found, dict) else {}


def _tests(graph: Any) -> dict[str, list[str]]:
    tests = facts(graph).get("tests")
    return tests if isinstance(tests, dict) else {}


def test_nodes(graph: Any) -> list[str]:
    """The graph's Java test methods (locators, sorted; kept on the graph)."""
    cached: list[str] | None = graph.graph.get("warpline_maven_tests")
    if cached is None:
        nodes = graph._node
        cached = sorted(loc for loc in _tests(graph) if loc in nodes)
        graph.graph["warpline_maven_tests"] = cached
    return cached


def graph_tests(graph: Any, locator: str) -> list[str]:
    """The test ids that run the test method ``locator`` (empty for any other)."""
    found = _tests(graph).get(locator)
    return [str(i) for i in found] if isinstance(found, list) else []


def floor(graph: Any, paths: Sequence[str | None]) -> list[str] | None:
    """``maven_select.floor_files`` from the snapshot's facts; None without them."""
    from warpline.runners.maven_select import floor_files

    found = facts(graph)
    if not found:
        return None
    return floor_files(found, paths)


def widen(graph: Any, locators: Sequence[str]) -> list[str]:
    """The classes whose initializers reach ``locators`` over the graph's calls."""
    from warpline.runners.maven_select import initializer_classes

    java = [loc for loc in locators if loc.startswith("java:")]
    if not java or graph is None:
        return []
    pred: dict[str, dict[str, Any]] = graph._pred
    calls: list[tuple[str, str]] = []
    seen: set[str] = set()
    frontier = [loc for loc in java if loc in pred]
    for _ in range(4):  # the edges initializer_classes may walk, and no more
        step = []
        for node in frontier:
            for caller, data in pred[node].items():
                if any(kind == "calls" for kind, _ in data["links"]):
                    calls.append((caller, node))
                    if caller not in seen:
                        seen.add(caller)
                        step.append(caller)
        frontier = step
    return sorted(initializer_classes(calls, java))
