"""TypeScript's and JavaScript's built-in edges: calls, references, imports, inheritance
and class members among one commit's ``.ts .tsx .mts .cts .js .jsx .mjs .cjs`` files.

Entities are the ``ts:`` locators warpline's reader gives (``docs/languages.md``), with
each file's ``core:file:`` and ``ts:module:`` entity; an edge's source is the innermost
definition owning the use's line (an anonymous callback's uses are its enclosing
definition's, a test file's ``it`` bodies its module's: test -> code). What resolves and
what becomes a candidate: ``script_resolve``. A file that cannot be read keeps its file
and module entities and is listed in ``failed_entities``.
"""

from __future__ import annotations

import pygit2

from warpline.git.filecaps import too_large
from warpline.graph.builtin.script_resolve import Resolver, tsconfig_paths
from warpline.graph.builtin.script_scan import FileScan, scan_file
from warpline.graph.model import EdgeCapture, EdgeKind, GraphEdge, GraphEntity
from warpline.lang import language_of
from warpline.lang.locators import file_locator

__all__ = ["capture"]

_DIALECT = {"javascript": "javascript", "tsx": "tsx", "typescript": "typescript"}


def capture(commit: pygit2.Commit, blobs: list[tuple[str, bytes]],
            version: str) -> EdgeCapture:
    """Entities and edges of the TS/JS files ``blobs`` (``(path, content)``) of
    ``commit`` (whose tree holds ``tsconfig.json`` and the files a module name probes)."""
    files_of_tree = _TreeFiles(commit.tree)
    entities: dict[str, GraphEntity] = {}
    failed: list[tuple[str, str]] = []
    scans: dict[str, FileScan] = {}
    for path, content in sorted(blobs):
        lang = language_of(path)
        if lang is None or "node_modules/" in path:
            continue
        entities[file_locator(path)] = GraphEntity(file_locator(path), "file", path, None,
                                                   None, None)
        module = lang.module(path, files_of_tree)
        if module is None:
            continue
        module_id = lang.locator(("module", ""), module)
        lines = content.count(b"\n") + (0 if content.endswith(b"\n") or not content else 1)
        entities.setdefault(module_id, GraphEntity(module_id, "module", path, None, 1,
                                                   max(lines, 1)))
        read = lang.read(content)
        if read is None:
            failed.append((module_id, "too_large" if too_large(content) else "syntax_error"))
            continue
        for entity in read.entities:
            if not entity.qualname:
                continue
            locator = lang.locator(entity.key, module)
            first, last = entity.spans[0][0], entity.spans[-1][1]
            entities.setdefault(locator, GraphEntity(locator, lang.wire_kind(entity.key),
                                                     path, None, first, last))
        try:
            scans[path] = scan_file(path, module, lang, read, content, _DIALECT[lang.name])
        except RecursionError:
            failed.append((module_id, "too_complex"))
    base, paths = tsconfig_paths(files_of_tree.read("tsconfig.json"))
    resolver = Resolver(scans, base, paths)
    edges: dict[tuple[str, str, EdgeKind], str] = {}
    unresolved = 0
    for scan in scans.values():
        for use in scan.uses:
            source = scan.lang.locator(use.source or ("module", ""), scan.module)
            if source is None:
                continue
            reached = list(resolver.targets(scan, use))
            if not reached and use.member and resolver.unresolved(use) and \
                    resolver.member(scan, use) == "unknown":
                unresolved += 1
            for target, confidence in reached:
                if target == source:
                    continue
                key = (source, target, use.kind)
                if edges.get(key) != "resolved":
                    edges[key] = confidence
    return EdgeCapture(
        source="builtin",
        source_version=version,
        entities=tuple(entities[locator] for locator in sorted(entities)),
        edges=tuple(GraphEdge(s, t, k, c) for (s, t, k), c in sorted(edges.items())
                    if s in entities and t in entities),
        failed_entities=tuple(sorted(failed)),
        unresolved=unresolved,
    )


class _TreeFiles:
    """Files of the commit's tree by path (what a module name probes, tsconfig.json)."""

    def __init__(self, tree: pygit2.Tree) -> None:
        self.tree = tree
        self.memo: dict[str, bytes | None] = {}

    def read(self, path: str) -> bytes | None:
        if path not in self.memo:
            try:
                entry = self.tree[path]
            except KeyError:
                entry = None
            self.memo[path] = entry.data if isinstance(entry, pygit2.Blob) else None
        return self.memo[path]
