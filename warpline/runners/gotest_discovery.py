"""Go's tests in an edge snapshot, and the floor of a change (what a static selection adds).

The built-in extractor keeps what it learnt of the tests in ``graph.graph["discovery"]["go"]``
(``graph/builtin/go_tests.py``): every test ``go test`` runs (id, locator, kind, static
subtests) and per package its directory and the repository packages its files and its
test files import. Pure functions of the graph: no file is read.

The floor of a change (Go's counterpart of pytest's import floor): for each changed Go
file, every test of its package (internal and external test files), and every test of a
package whose files or test files import it. Code reached only at run time (an
interface's implementation picked by a registry, a callback stored in a field) is
reached through its package's tests this way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from warpline.runners.gotest_rules import runs_by_default

__all__ = ["floor", "graph_tests", "package_of", "test_nodes"]


def _facts(graph: Any) -> dict[str, Any]:
    discovery = graph.graph.get("discovery") if graph is not None else None
    facts = discovery.get("go") if isinstance(discovery, dict) else None
    return facts if isinstance(facts, dict) else {}


def _tests(graph: Any) -> list[tuple[str, str, str]]:
    """(id, locator, kind) of every test that runs by default; kept on the graph."""
    cached: list[tuple[str, str, str]] | None = graph.graph.get("warpline_go_tests")
    if cached is not None:
        return cached
    found = []
    for row in _facts(graph).get("tests", []):
        if isinstance(row, list) and len(row) >= 3 and all(isinstance(v, str) for v in row[:3]) \
                and runs_by_default(row[2]):
            found.append((row[0], row[1], row[2]))
    graph.graph["warpline_go_tests"] = found
    return found


def test_nodes(graph: Any) -> list[str]:
    """The graph's definitions that are Go tests (locators, sorted)."""
    if graph is None:
        return []
    return sorted({locator for _, locator, _ in _tests(graph) if locator in graph._node})


def graph_tests(graph: Any, locator: str) -> list[str]:
    """The test ids that run the definition ``locator`` (a test function: its id; the
    internal and external test packages of one directory share a path, so a name in
    both gives both)."""
    if graph is None or not locator.startswith("go:function:"):
        return []
    path = graph._node.get(locator, {}).get("path") or ""
    directory = path.rpartition("/")[0]
    return [test_id for test_id, found, _ in _tests(graph)
            if found == locator and test_id.split("::", 1)[0].rpartition("/")[0] == directory]


def package_of(graph: Any, path: str) -> str | None:
    """The import path of the package a ``.go`` file is in (by its directory)."""
    directory = path.rpartition("/")[0]
    for import_path, facts in _facts(graph).get("packages", {}).items():
        if isinstance(facts, dict) and facts.get("dir") == directory:
            return str(import_path)
    return None


def floor(graph: Any, paths: Iterable[str | None]) -> list[str] | None:
    """The test files of the floor of changed files ``paths`` (run whole): their
    packages' and those of every package importing them; None when the snapshot has no
    Go facts."""
    facts = _facts(graph)
    packages = facts.get("packages")
    if graph is None or not isinstance(packages, dict):
        return None
    changed = {p for p in (package_of(graph, path) for path in paths
                           if path and path.endswith(".go")) if p is not None}
    if not changed:
        return []
    dirs = set()
    for import_path, info in packages.items():
        if not isinstance(info, dict):
            continue
        imported = set(info.get("imports", [])) | set(info.get("test_imports", []))
        if import_path in changed or imported & changed:
            dirs.add(info.get("dir"))
    return sorted({test_id.split("::", 1)[0] for test_id, _, _ in _tests(graph)
                   if test_id.split("::", 1)[0].rpartition("/")[0] in dirs})
