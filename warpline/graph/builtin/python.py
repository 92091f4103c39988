"""Python's built-in edges: calls and references among one commit's ``.py`` files.

The blobs come from the commit's tree (``warpline.graph.builtin`` reads them), so a
capture describes exactly that commit. Entities follow DESIGN §3 (the same locators
loomweave mints); SEIs stay ``None`` because only loomweave can mint them.

What it resolves, and what it refuses to guess, is described in ``python_resolve``.
A file that does not parse keeps its file and module entities and is listed in
``failed_entities``, so a capture containing one is never ``FULL``.
"""

from __future__ import annotations

import ast
import warnings

import pygit2

from warpline.git.filecaps import too_large
from warpline.graph.builtin.python_fixtures import FixtureLinker, collectable_functions
from warpline.graph.builtin.python_imports import ImportFloor
from warpline.graph.builtin.python_registry import Registrations
from warpline.graph.builtin.python_resolve import EdgeSink, Emitter, Resolver
from warpline.graph.builtin.python_scan import ModuleScan, scan_module
from warpline.graph.model import EdgeCapture, GraphEdge, GraphEntity
from warpline.lang.locators import dotted_module, file_locator, module_locator
from warpline.runners.pytest_rules import TestRules, rules_from_tree


def _parse(content: bytes) -> tuple[ast.Module | None, str | None]:
    try:
        with warnings.catch_warnings():
            # Invalid escape sequences in old code are not our business here.
            warnings.simplefilter("ignore")
            return ast.parse(content), None
    except (SyntaxError, ValueError):
        return None, "syntax_error"
    except (RecursionError, MemoryError):
        return None, "too_complex"


def _line_count(content: bytes) -> int:
    return content.count(b"\n") + (0 if not content or content.endswith(b"\n") else 1)


def capture(commit: pygit2.Commit, blobs: list[tuple[str, bytes]],
            version: str) -> EdgeCapture:
    """Entities and edges of the Python files ``blobs`` (``(path, content)``, sorted by
    path) of ``commit`` (whose tree holds the project's pytest configuration)."""
    entities: dict[str, GraphEntity] = {}
    failed: list[tuple[str, str]] = []  # (locator, reason)
    modules: dict[str, ModuleScan] = {}
    claimed: set[str] = set()  # dotted names already given to a path

    for path, content in blobs:
        file_id = file_locator(path)
        entities[file_id] = GraphEntity(file_id, "file", path, None, None, None)
        dotted = dotted_module(path)
        if not dotted:
            continue  # a top-level __init__.py: no locator can name its module
        if dotted in claimed:
            # `a.py` and `src/a.py` (or `a/__init__.py`) claim one dotted name; the
            # first path wins, the other cannot be captured faithfully.
            failed.append((file_id, "duplicate_module_name"))
            continue
        claimed.add(dotted)
        lines = _line_count(content)
        tree, problem = (None, "too_large") if too_large(content) else _parse(content)
        module_id = module_locator(dotted)
        scan = None
        if tree is not None:
            try:
                scan = scan_module(path, dotted, tree, lines, walrus=b":=" in content)
            except RecursionError:
                problem = "too_complex"  # absurd nesting that ast.parse still accepted
        if scan is None:
            entities[module_id] = GraphEntity(module_id, "module", path, None, 1, max(lines, 1))
            failed.append((module_id, problem or "syntax_error"))
            continue
        modules[dotted] = scan
        for scope in scan.scopes:
            # First definition wins on a duplicate qualname (loomweave does the same).
            entities.setdefault(
                scope.locator,
                GraphEntity(
                    scope.locator, scope.kind, path, None, scope.start_line, scope.end_line
                ),
            )

    resolver = Resolver(modules)
    sink = EdgeSink()
    emitter = Emitter(resolver, sink)
    for dotted in sorted(modules):
        for scope in modules[dotted].scopes:
            try:
                emitter.entity(scope)
            except RecursionError:
                # Deeply nested expressions (thousands of chained operators): the edges
                # found so far are real, the rest of this entity's are unknown.
                failed.append((scope.locator, "too_complex"))

    Registrations(modules, resolver).emit(modules, sink)
    rules = rules_from_tree(commit.tree)
    discovery = _tests_pass(modules, resolver, rules, sink)
    edges = tuple(
        GraphEdge(source, target, kind, sink.confidence.get((source, target, kind), "resolved"))
        for source, target, kind in sorted(sink.edges)
        if source in entities and target in entities
    )
    return EdgeCapture(
        source="builtin",
        source_version=version,
        entities=tuple(entities[locator] for locator in sorted(entities)),
        edges=edges,
        failed_entities=tuple(sorted(failed)),
        unresolved=sink.unresolved,
        discovery=discovery,
    )


def _tests_pass(modules: dict[str, ModuleScan], resolver: Resolver, rules: TestRules,
                sink: EdgeSink) -> dict[str, object]:
    """Fixture edges into ``sink``; the discovery facts (rules, each test file's imports)."""
    tests = {dotted: collectable_functions(scan, rules) for dotted, scan in modules.items()
             if rules.is_test_file(scan.path)}
    for requester, fixture in FixtureLinker(modules, resolver, rules).edges(tests):
        sink.edges.add((requester, fixture, "calls"))
    floor = ImportFloor(modules, resolver)
    narrow: dict[str, list[str]] = {}
    wide: dict[str, list[str]] = {}
    by_source: dict[str, set[tuple[str, str, str]]] = {}
    test_locators = {s.locator: dotted for dotted in tests for s in modules[dotted].scopes}
    for edge in sink.edges:
        dotted = test_locators.get(edge[0])
        if dotted is not None:
            by_source.setdefault(dotted, set()).add(edge)
    for dotted in tests:
        scan = modules[dotted]
        used = floor.used_modules(scan, by_source.get(dotted, set()))
        narrow[scan.path] = sorted(set(floor.imports_of(scan, wide=False)) | used)
        wide[scan.path] = sorted(set(floor.imports_of(scan, wide=True)) | used)
    return {"rules": rules.to_json(), "test_imports": narrow, "test_imports_wide": wide}
