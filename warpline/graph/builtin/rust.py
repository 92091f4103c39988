"""Rust's built-in edges: calls and references among one commit's ``.rs`` files.

Entities are the Rust row's own (``warpline.lang.rust``: loomweave's ids, the same
locators the walker gives changes), plus each file. Edges come from ``rust_scan`` (the
items and one query per file), ``rust_resolve`` (modules, paths, impls, types) and
``rust_edges`` (what each use means; a guess says so in its confidence). The test facts a
selection needs (every test cargo runs, its package and the packages depending on it) are
the capture's ``discovery["cargo"]`` (``rust_tests``).
"""

from __future__ import annotations

from typing import Any

import pygit2

from warpline.git.filecaps import too_large
from warpline.graph.builtin.python_resolve import EdgeSink
from warpline.graph.builtin.rust_edges import Emitter
from warpline.graph.builtin.rust_resolve import Resolver
from warpline.graph.builtin.rust_scan import FileScan, scan_file
from warpline.graph.builtin.rust_tests import discovery_facts, workspace_crates
from warpline.graph.builtin.treefiles import CommitFiles
from warpline.graph.model import EdgeCapture, GraphEdge, GraphEntity
from warpline.lang import RUST
from warpline.lang.entities import MODULE_KEY
from warpline.lang.locators import file_locator
from warpline.lang.rust import module_name, read

__all__ = ["capture"]


def capture(commit: pygit2.Commit, blobs: list[tuple[str, bytes]],
            version: str) -> EdgeCapture:
    """Entities and edges of the Rust files ``blobs`` (``(path, content)``, sorted by
    path) of ``commit`` (whose tree holds the ``Cargo.toml`` files naming the crates)."""
    files = CommitFiles(commit)
    entities: dict[str, GraphEntity] = {}
    failed: list[tuple[str, str]] = []
    scans: list[FileScan] = []
    for path, content in blobs:
        file_id = file_locator(path)
        entities[file_id] = GraphEntity(file_id, "file", path, None, None, None)
        module = module_name(path, files)
        if module is None:
            continue
        defs = None if too_large(content) else read(content)
        scan = scan_file(path, module, defs, content) if defs is not None else None
        if defs is None or scan is None:
            failed.append((file_id, "too_large" if too_large(content) else "syntax_error"))
            module_id = RUST.locator(MODULE_KEY, module)
            entities.setdefault(module_id, GraphEntity(module_id, "module", path, None, None,
                                                       None))
            continue
        if defs.tolerant:
            failed.append((file_id, "syntax_error"))
        for entity in defs.entities:
            locator = RUST.locator(entity.key, module)
            first, last = entity.spans[0]
            entities.setdefault(locator, GraphEntity(
                locator, RUST.wire_kind(entity.key), path, None, first, last))
        scans.append(scan)

    crates = workspace_crates(files, scans)
    resolver = Resolver(scans, {name: root for name, root in crates.items()})
    sink = EdgeSink()
    emitter = Emitter(resolver, sink)
    for scan in scans:
        try:
            emitter.file(scan)
        except RecursionError:
            failed.append((file_locator(scan.path), "too_complex"))
    for owner, methods in resolver.external_impls:
        for method in methods:  # the type hands them to the trait's code: `dispatch`
            edge = (owner, method, "calls")
            if edge not in sink.edges:
                sink.edges.add(edge)  # type: ignore[arg-type]
                sink.confidence[edge] = "dispatch"  # type: ignore[index]
    edges = tuple(
        GraphEdge(source, target, kind, sink.confidence.get((source, target, kind), "resolved"))
        for source, target, kind in sorted(sink.edges)
        if source in entities and target in entities)
    facts: dict[str, Any] = discovery_facts(files, scans)
    return EdgeCapture(
        source="builtin", source_version=version,
        entities=tuple(entities[locator] for locator in sorted(entities)),
        edges=edges, failed_entities=tuple(sorted(failed)), unresolved=sink.unresolved,
        discovery={"cargo": facts})
