"""The tests of a graph, as the project's pytest collects them, and the import floor.

* Test files, classes and functions follow the snapshot's pytest rules
  (``warpline.runners.pytest_rules``; the defaults when the snapshot has none).
* Inherited test methods: a test method defined in a base class runs once per collected
  subclass that does not override it (``tests/test_b.py::TestB::test_x`` runs
  ``TestA.test_x``); a base class that pytest does not collect itself (a mixin, a
  ``Base`` class) still has its methods run through its collected subclasses. Base classes
  are read from the graph: a class's ``references`` edge to another class.
* The floor: the test files that import the module of a changed entity (or a name a
  package re-exports from it), from the snapshot's discovery facts.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import networkx as nx

from warpline.lang.locators import dotted_module
from warpline.runners.pytest_rules import DEFAULT_RULES, TestRules

_FUNCTION = "python:function:"
_CLASS = "python:class:"


def rules_of(graph: nx.DiGraph | None) -> TestRules:
    if graph is None:
        return DEFAULT_RULES
    cached = graph.graph.get("rules")
    if isinstance(cached, TestRules):
        return cached
    discovery = graph.graph.get("discovery")
    rules = TestRules.from_json(discovery.get("rules")) if isinstance(discovery, dict) \
        else DEFAULT_RULES
    graph.graph["rules"] = rules
    return rules


@lru_cache(maxsize=65536)
def own_id(locator: str, path: str | None, rules: TestRules = DEFAULT_RULES) -> str | None:
    """``tests/test_a.py::TestA::test_x`` for a function pytest collects where it is
    defined, else None."""
    if not locator.startswith(_FUNCTION) or not path or not rules.is_test_file(path):
        return None
    parts = _qualname_parts(locator, path)
    if parts is None or "<locals>" in parts or not rules.collects_function(parts[-1]):
        return None
    if any(not rules.collects_class(cls) for cls in parts[:-1]):
        return None
    return "::".join([path, *parts])


def _qualname_parts(locator: str, path: str) -> list[str] | None:
    dotted = dotted_module(path)
    if dotted is None or not locator.startswith(f"{_FUNCTION}{dotted}."):
        return None
    return locator[len(_FUNCTION) + len(dotted) + 1:].split(".")


def _subclasses(graph: nx.DiGraph) -> dict[str, list[str]]:
    """base class locator -> the classes whose ``references`` edges name it (in test files)."""
    cached: dict[str, list[str]] | None = graph.graph.get("subclasses")
    if cached is not None:
        return cached
    rules = rules_of(graph)
    nodes: dict[str, dict[str, Any]] = graph._node
    found: dict[str, list[str]] = {}
    for node, attrs in nodes.items():
        if attrs.get("kind") != "class" or not rules.is_test_file(attrs.get("path") or ""):
            continue
        for target, data in graph._succ[node].items():
            if nodes.get(target, {}).get("kind") == "class" and any(
                    kind == "references" for kind, _ in data["links"]):
                found.setdefault(target, []).append(node)
    graph.graph["subclasses"] = found
    return found


def collected_ids(graph: nx.DiGraph, locator: str) -> list[str]:
    """Every pytest id that runs the function ``locator``: where it is defined (when
    collected there) and under each collected subclass that inherits it."""
    attrs = graph._node.get(locator, {})
    rules = rules_of(graph)
    path = attrs.get("path")
    ids = []
    own = own_id(locator, path, rules)
    if own is not None:
        ids.append(own)
    if not locator.startswith(_FUNCTION) or not path:
        return ids
    owner, _, name = locator[len(_FUNCTION):].rpartition(".")
    if not owner or not rules.collects_function(name) or "<locals>" in owner:
        return ids
    subclasses = _subclasses(graph)
    seen = {f"{_CLASS}{owner}"}
    stack = list(subclasses.get(f"{_CLASS}{owner}", ()))
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        method = f"{_FUNCTION}{cls[len(_CLASS):]}.{name}"
        if method in graph._node:
            continue  # overridden: the subclass runs its own (and so do its subclasses)
        inherited = own_id(method, graph._node[cls].get("path"), rules)
        if inherited is not None:
            ids.append(inherited)
        stack.extend(subclasses.get(cls, ()))
    return ids


def graph_tests(graph: nx.DiGraph) -> list[str]:
    """The graph's test functions (those with a pytest id), sorted; kept on the graph
    (built graphs are cached and never modified)."""
    cached: list[str] | None = graph.graph.get("tests")
    if cached is not None:
        return cached
    rules = rules_of(graph)
    subclasses = _subclasses(graph)
    test_file: dict[str | None, bool] = {}
    tests = []
    for node, attrs in graph._node.items():
        path = attrs.get("path")
        in_test_file = test_file.get(path)
        if in_test_file is None:
            in_test_file = test_file[path] = bool(path) and rules.is_test_file(path)
        if in_test_file and own_id(node, path, rules) is not None:
            tests.append(node)
        elif subclasses and node.startswith(_FUNCTION) \
                and f"{_CLASS}{node[len(_FUNCTION):].rpartition('.')[0]}" in subclasses \
                and collected_ids(graph, node):
            tests.append(node)
    tests.sort()
    graph.graph["tests"] = tests
    return tests


def floor_files(graph: nx.DiGraph | None, locators: Iterable[str],
                wide: bool = False) -> list[str] | None:
    """Test files importing the module of any of ``locators`` (or holding one); None when
    the snapshot carries no import facts (the floor is unknown). A test file imports a
    module when it imports it or a name from it, or uses one of its entities directly;
    ``wide`` also counts every module a package it imports re-exports from."""
    if graph is None:
        return None
    nodes: dict[str, dict[str, Any]] = graph._node
    return floor_of_paths(graph, [nodes.get(loc, {}).get("path") for loc in locators], wide)


def _imports(graph: nx.DiGraph | None, wide: bool) -> dict[str, Any] | None:
    discovery = graph.graph.get("discovery") if graph is not None else None
    imports = discovery.get("test_imports_wide" if wide else "test_imports") \
        if isinstance(discovery, dict) else None
    return imports if isinstance(imports, dict) else None


def floor_of_paths(graph: nx.DiGraph | None, paths: Iterable[str | None],
                   wide: bool = False) -> list[str] | None:
    """``floor_files`` for the files ``paths`` (a changed entity's file, also one the
    snapshot does not hold yet); None without import facts."""
    imports = _imports(graph, wide)
    if imports is None:
        return None
    rules = rules_of(graph)
    modules: set[str] = set()
    files: set[str] = set()
    for path in paths:
        if not path:
            continue
        if rules.is_test_file(path):
            files.add(path)
        dotted = dotted_module(path)
        if dotted:
            modules.add(dotted)
    for test_file, imported in imports.items():
        if isinstance(imported, list) and modules.intersection(imported):
            files.add(str(test_file))
    return sorted(files)


def imported_modules(graph: nx.DiGraph | None) -> set[str] | None:
    """Every module some test file imports (whether a file has a floor); None without
    import facts. Kept on the graph (built graphs are cached and never modified)."""
    if graph is None:
        return None
    cached: set[str] | None = graph.graph.get("warpline_imported_modules")
    if cached is not None:
        return cached
    imports = _imports(graph, False)
    if imports is None:
        return None
    found = {str(m) for imported in imports.values() if isinstance(imported, list)
             for m in imported}
    graph.graph["warpline_imported_modules"] = found
    return found


def file_runs(path: str) -> list[str]:
    """What a change to ``path`` as a whole runs: a ``conftest.py`` (hooks, plugins,
    module-level fixtures) its directory; a test module pytest collects by its default
    names, the file."""
    name = path.rsplit("/", 1)[-1]
    if name == "conftest.py":
        return [path.rsplit("/", 1)[0] if "/" in path else "."]
    if DEFAULT_RULES.is_test_file(path) and DEFAULT_RULES.matches_python_files(path):
        return [path]
    return []
