"""Go's built-in edges: calls and references among one commit's ``.go`` files.

Entities are the Go row's own (``warpline.lang.golang``: the same locators the walker
gives changes, so a changed function is a node of the graph), plus each file and each
package (``go:module:<import path>``, shared by the package's files). Edges come from
``go_scan`` (one query per file), ``go_resolve`` (packages, types, members) and
``go_edges`` (what each use means; what is a guess says so in its confidence). The test
facts a selection needs (every test ``go test`` runs, each package's imports) are the
capture's ``discovery["go"]`` (``go_tests``).
"""

from __future__ import annotations

import pygit2

from warpline.git.filecaps import too_large
from warpline.graph.builtin.go_edges import Emitter, implementations
from warpline.graph.builtin.go_resolve import Resolver
from warpline.graph.builtin.go_scan import FileScan, scan_file
from warpline.graph.builtin.go_tests import discovery_facts
from warpline.graph.builtin.python_resolve import EdgeSink
from warpline.graph.builtin.treefiles import CommitFiles
from warpline.graph.model import EdgeCapture, GraphEdge, GraphEntity
from warpline.lang import GO, Files
from warpline.lang.entities import MODULE_KEY
from warpline.lang.golang import module_name, read
from warpline.lang.locators import file_locator

__all__ = ["capture"]


def capture(commit: pygit2.Commit, blobs: list[tuple[str, bytes]],
            version: str) -> EdgeCapture:
    """Entities and edges of the Go files ``blobs`` (``(path, content)``, sorted by path)
    of ``commit`` (whose tree holds the ``go.mod`` files naming the packages)."""
    return capture_files(CommitFiles(commit), blobs, version)


def capture_files(files: Files, blobs: list[tuple[str, bytes]],
                  version: str) -> EdgeCapture:
    entities: dict[str, GraphEntity] = {}
    failed: list[tuple[str, str]] = []
    scans: list[tuple[str, FileScan]] = []
    for path, content in blobs:
        file_id = file_locator(path)
        entities[file_id] = GraphEntity(file_id, "file", path, None, None, None)
        package = module_name(path, files) or "."
        module_id = GO.locator(MODULE_KEY, package)
        entities.setdefault(module_id, GraphEntity(module_id, "module", path, None, None, None))
        defs = None if too_large(content) else read(content)
        scan = scan_file(path, content) if defs is not None else None
        if defs is None or scan is None:
            failed.append((file_id, "too_large" if too_large(content) else "syntax_error"))
            continue
        if defs.tolerant:
            failed.append((file_id, "syntax_error"))
        for entity in defs.entities:
            if entity.key == MODULE_KEY:
                continue
            locator = GO.locator(entity.key, package)
            first, last = entity.spans[0]
            # Build-constrained twins (`x_windows.go`, `x_linux.go`): the first path wins.
            entities.setdefault(locator, GraphEntity(
                locator, GO.wire_kind(entity.key), path, None, first, last))
        scans.append((package, scan))

    resolver = Resolver(scans)
    sink = EdgeSink()
    emitter = Emitter(resolver, sink, implementations(resolver))
    for _, scan in scans:
        emitter.file(scan)
    for interface, implementing in emitter.dispatch.items():
        for owner, type_name in implementing:
            found = owner.types.get(type_name)
            if found is not None:
                edge = (owner.locator(found[0]), interface, "references")
                if edge not in sink.edges:
                    sink.edges.add(edge)  # type: ignore[arg-type]
                    sink.confidence[edge] = "implements"  # type: ignore[index]
    edges = tuple(
        GraphEdge(source, target, kind, sink.confidence.get((source, target, kind), "resolved"))
        for source, target, kind in sorted(sink.edges)
        if source in entities and target in entities)
    return EdgeCapture(
        source="builtin", source_version=version,
        entities=tuple(entities[locator] for locator in sorted(entities)),
        edges=edges, failed_entities=tuple(sorted(failed)), unresolved=sink.unresolved,
        discovery={"go": discovery_facts(scans, resolver)})
