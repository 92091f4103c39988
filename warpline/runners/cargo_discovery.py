"""cargo's tests in an edge snapshot, and the floor of a change (what a static selection
adds).

The built-in extractor keeps what it learnt of the tests in
``graph.graph["discovery"]["cargo"]`` (``graph/builtin/rust_tests.py``): every test
(id, the definition owning it, its target, its package, ignored) and each package with the
workspace packages it depends on. Pure functions of the graph: no file is read.

The floor of a change, for each changed ``.rs`` file of a package:

* the tests defined in the changed file itself (its ``#[cfg(test)] mod tests``);
* the package's integration tests (``tests/``: they use its public API, and a binary's
  integration tests run the binary);
* every test of every package depending on it, directly or through others (their unit
  tests exercise the libraries they use: ripgrep's ``ignore`` tests run ``globset``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["floor", "graph_tests", "test_nodes"]


def _facts(graph: Any) -> dict[str, Any]:
    discovery = graph.graph.get("discovery") if graph is not None else None
    facts = discovery.get("cargo") if isinstance(discovery, dict) else None
    return facts if isinstance(facts, dict) else {}


def _tests(graph: Any) -> list[tuple[str, str, str, str]]:
    """(id, locator, target kind, package dir) of every test cargo runs by default."""
    cached: list[tuple[str, str, str, str]] | None = graph.graph.get("warpline_cargo_tests")
    if cached is not None:
        return cached
    found = []
    for row in _facts(graph).get("tests", []):
        if isinstance(row, list) and len(row) >= 6 and all(isinstance(v, str)
                                                           for v in row[:5]) and not row[5]:
            found.append((row[0], row[1], row[2], row[4]))
    graph.graph["warpline_cargo_tests"] = found
    return found


def test_nodes(graph: Any) -> list[str]:
    """The graph's definitions that own cargo tests (locators, sorted)."""
    if graph is None:
        return []
    return sorted({locator for _, locator, _, _ in _tests(graph) if locator in graph._node})


def graph_tests(graph: Any, locator: str) -> list[str]:
    """The test ids that run the definition ``locator`` (a test function; a module whose
    code a test macro expands into tests: each of them)."""
    if graph is None or not locator.startswith("rust:"):
        return []
    return [test_id for test_id, found, _, _ in _tests(graph) if found == locator]


def _package_of(packages: dict[str, Any], path: str) -> str | None:
    best = None
    for directory in packages:
        if directory == "" or path.startswith(f"{directory}/"):
            if best is None or len(directory) > len(best):
                best = directory
    return best


def floor(graph: Any, paths: Iterable[str | None]) -> list[str] | None:
    """The test ids of the floor of changed files ``paths``; None when the snapshot has no
    cargo facts."""
    facts = _facts(graph)
    packages = facts.get("packages")
    if graph is None or not isinstance(packages, dict):
        return None
    changed_files = {p for p in paths if p and p.endswith(".rs")}
    changed = {d for d in (_package_of(packages, p) for p in changed_files) if d is not None}
    if not changed:
        return []
    dependents: set[str] = set()
    frontier = set(changed)
    while frontier:
        nxt = {d for d, info in packages.items() if isinstance(info, dict)
               and set(info.get("deps", [])) & frontier and d not in dependents
               and d not in changed}
        dependents |= nxt
        frontier = nxt
    out = []
    for test_id, _, kind, package in _tests(graph):
        path = test_id.partition(".rs::")[0] + ".rs"
        if path in changed_files or package in dependents or (
                kind == "test" and package in changed):
            out.append(test_id)
    return out
