"""Java's built-in edges: calls and references among one commit's ``.java`` files.

Entities are the walker's own (``lang/java.read``: ``java:method:pkg.Outer.m(int)``), the
package is the module (``java:module:pkg``, its first file's path), each file its
``core:file:``. Edges: ``java_resolve`` (sites, scopes, receivers, overloads) over the
types of ``java_types``; a method overriding a supertype's is reached from it
(``dispatch``); a test reaches the repository's runner that runs it (``runner``). Test
facts (``java_tests``) ride along as ``discovery["java"]``.

A file whose parse has errors keeps what tree-sitter still read and is listed in
``failed_entities`` (``syntax_error``); a type declared twice (two source roots holding
one class) keeps its first file and the second is ``duplicate_definition``.
"""

from __future__ import annotations

import pygit2

from warpline.git.filecaps import too_large
from warpline.graph.builtin.java_resolve import FileEdges, dispatch_edges
from warpline.graph.builtin.java_scan import FileScan, scan_file
from warpline.graph.builtin.java_tests import discovery_facts, prepare, runner_edges
from warpline.graph.builtin.java_types import TypeTable
from warpline.graph.builtin.python_resolve import EdgeSink
from warpline.graph.model import EdgeCapture, GraphEdge, GraphEntity
from warpline.lang import JAVA
from warpline.lang.locators import file_locator

__all__ = ["capture"]


def capture(commit: pygit2.Commit, blobs: list[tuple[str, bytes]],
            version: str) -> EdgeCapture:
    """Entities and edges of the Java files ``blobs`` (``(path, content)``, sorted)."""
    entities: dict[str, GraphEntity] = {}
    failed: list[tuple[str, str]] = []
    scans: list[FileScan] = []
    for path, content in blobs:
        file_id = file_locator(path)
        entities[file_id] = GraphEntity(file_id, "file", path, None, None, None)
        if too_large(content):
            failed.append((file_id, "too_large"))
            continue
        try:
            scan = scan_file(path, content)
        except RecursionError:
            failed.append((file_id, "too_complex"))
            continue
        if not scan.readable or scan.tree.root_node.has_error:
            failed.append((file_id, "syntax_error"))
        if not scan.readable:
            continue
        scans.append(scan)
        module = f"java:module:{scan.package}"
        entities.setdefault(module, GraphEntity(module, "module", path, None, None, None))
        for locator, (kind, first, last) in scan.entities.items():
            if locator in entities:
                failed.append((locator, "duplicate_definition"))
                continue
            entities[locator] = GraphEntity(locator, JAVA.kinds.get(kind, "function"), path,
                                            None, first, last)
    table = TypeTable(scans)
    sink = EdgeSink()
    for scan in scans:
        try:
            FileEdges(table, scan, sink).run()
        except RecursionError:
            failed.append((file_locator(scan.path), "too_complex"))
    dispatch_edges(table, sink)
    projects, tests = prepare(commit, scans, table)
    runner_edges(table, scans, tests, sink)
    edges = tuple(
        GraphEdge(source, target, kind, sink.confidence.get((source, target, kind), "resolved"))
        for source, target, kind in sorted(sink.edges)
        if source in entities and target in entities)
    return EdgeCapture(
        source="builtin",
        source_version=version,
        entities=tuple(entities[locator] for locator in sorted(entities)),
        edges=edges,
        failed_entities=tuple(sorted(set(failed))),
        unresolved=sink.unresolved,
        discovery={"java": discovery_facts(projects, tests, scans, edges)},
    )
