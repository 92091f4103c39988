"""The Java tests of an edge snapshot's graph, from what the built-in extractor learnt
(``graph.graph["discovery"]["java"]``, ``graph/builtin/java_tests.py``): which definitions
are tests and the test ids that run each (a base class's test method runs under every
concrete subclass)."""

from __future__ import annotations

from typing import Any

__all__ = ["facts", "graph_tests", "test_nodes"]


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
