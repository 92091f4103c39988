"""The built-in edge source: calls and references at one commit, without loomweave, one
extractor per language (``EXTRACTORS``, keyed by the row of ``warpline.lang`` reading the
file; Python's is ``python.py`` and its ``python_*`` modules).

It reads blobs from the commit's tree through pygit2 (never the working tree), so a
capture describes exactly that commit. A file of a language without an extractor is not
in the capture (``reads`` says which files are).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pygit2

from warpline.graph.builtin import go, java, python, rust, script
from warpline.graph.model import EdgeCapture
from warpline.lang import GO, JAVA, JAVASCRIPT, PYTHON, RUST, TSX, TYPESCRIPT, language_of

__all__ = [
    "BUILTIN_VERSION",
    "EXTRACTORS",
    "capture_builtin",
    "join",
    "reads",
    "source_blobs",
    "try_capture_builtin",
]

BUILTIN_VERSION = "warpline-builtin-1"
_SYMLINK_MODE = 0o120000

# A language's extractor: its files' ``(path, content)`` (sorted by path) at ``commit``
# -> that language's entities and edges, stamped with the version given.
Extractor = Callable[[pygit2.Commit, list[tuple[str, bytes]], str], EdgeCapture]
EXTRACTORS: dict[str, Extractor] = {
    PYTHON.name: python.capture,
    GO.name: go.capture,
    # One extractor reads the three rows together (a .ts file imports a .js one).
    TYPESCRIPT.name: script.capture, TSX.name: script.capture, JAVASCRIPT.name: script.capture,
    JAVA.name: java.capture,
    RUST.name: rust.capture,
}


def reads(path: str) -> bool:
    """True for a file some extractor reads (its edits may change the built-in graph)."""
    lang = language_of(path)
    return lang is not None and lang.name in EXTRACTORS


def source_blobs(commit: pygit2.Commit) -> dict[str, list[tuple[str, bytes]]]:
    """``(path, content)`` of every committed regular file an extractor reads, by
    language, each list sorted by path (symlinks are not source)."""
    found: dict[str, list[tuple[str, bytes]]] = {}
    stack: list[tuple[str, pygit2.Tree]] = [("", commit.tree)]
    while stack:
        prefix, tree = stack.pop()
        for entry in tree:
            name = entry.name or ""
            path = f"{prefix}{name}"
            # Tree entries are lazily loaded objects: no extra lookup through `repo`.
            if isinstance(entry, pygit2.Tree):
                stack.append((f"{path}/", entry))
            elif isinstance(entry, pygit2.Blob) and entry.filemode != _SYMLINK_MODE:
                lang = language_of(name)
                if lang is not None and lang.name in EXTRACTORS:
                    found.setdefault(lang.name, []).append((path, entry.data))
    for blobs in found.values():
        blobs.sort()
    return found


def try_capture_builtin(repo: pygit2.Repository,
                        commit: pygit2.Commit) -> tuple[EdgeCapture | None, str | None]:
    """``capture_builtin``, or None and why it failed (a missing object in a damaged or
    partial clone, an unreadable file, a recursion or memory limit): the caller reports the
    reason instead of answering with a graph it does not have."""
    try:
        return capture_builtin(repo, commit), None
    except (RecursionError, MemoryError, OSError, pygit2.GitError) as exc:
        return None, f"{type(exc).__name__}: {exc}"


def capture_builtin(repo: pygit2.Repository, commit: pygit2.Commit) -> EdgeCapture:
    """Entities and edges of ``commit`` (blobs come from ``commit.tree``; ``repo`` is the
    repository it belongs to, kept in the signature for sources that need lookups).

    Each extractor reads its languages' files (rows sharing an extractor together); the
    captures are joined (Python's always runs: a repository without Python files gets
    its empty capture, as before)."""
    blobs = source_blobs(commit)
    grouped: dict[Extractor, list[tuple[str, bytes]]] = {EXTRACTORS[PYTHON.name]: []}
    for name, files in blobs.items():
        grouped.setdefault(EXTRACTORS[name], []).extend(files)
    captures = [extract(commit, sorted(files), BUILTIN_VERSION)
                for extract, files in grouped.items()]
    return join(captures)


def join(captures: list[EdgeCapture]) -> EdgeCapture:
    """One capture of several languages' (their locators never overlap). Python's
    discovery facts stay at the top level, where the pytest rules read them; another
    language's are under its own key (Go's ``go``)."""
    if len(captures) == 1:
        return captures[0]
    first = captures[0]
    discovery: dict[str, object] = {}
    for capture in captures:
        discovery.update(capture.discovery or {})
    return replace(
        first,
        entities=tuple(sorted((e for c in captures for e in c.entities),
                              key=lambda e: e.locator)),
        edges=tuple(sorted((e for c in captures for e in c.edges),
                           key=lambda e: (e.source_locator, e.target_locator, e.kind))),
        failed_entities=tuple(sorted(f for c in captures for f in c.failed_entities)),
        unresolved=sum(c.unresolved for c in captures),
        discovery=discovery or None)
