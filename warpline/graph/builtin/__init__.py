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

from warpline.graph.builtin import go, python, rust
from warpline.graph.model import EdgeCapture
from warpline.lang import GO, PYTHON, RUST, language_of

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
EXTRACTORS: dict[str, Extractor] = {PYTHON.name: python.capture, GO.name: go.capture,
                                    RUST.name: rust.capture}


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

    Python's capture always runs (a repository without Python files gets its empty
    capture, as before); every other language's runs when the commit holds its files,
    and the captures are joined (``join``)."""
    blobs = source_blobs(commit)
    captures = [EXTRACTORS[PYTHON.name](commit, blobs.get(PYTHON.name, []), BUILTIN_VERSION)]
    captures.extend(EXTRACTORS[name](commit, found, BUILTIN_VERSION)
                    for name, found in sorted(blobs.items()) if name != PYTHON.name)
    return join(captures)


def join(captures: list[EdgeCapture]) -> EdgeCapture:
    """One capture of several languages' (their locators never collide: each language has
    its prefix; a file belongs to one language). Python's discovery facts stay at the top
    level, where the pytest rules read them; another language's are under its own key."""
    first, *rest = captures
    if not rest:
        return first
    discovery = dict(first.discovery or {})
    for other in rest:
        discovery.update(other.discovery or {})
    return replace(
        first,
        entities=tuple(sorted((e for c in captures for e in c.entities),
                              key=lambda e: e.locator)),
        edges=tuple(sorted((e for c in captures for e in c.edges),
                           key=lambda e: (e.source_locator, e.target_locator, e.kind))),
        failed_entities=tuple(sorted(f for c in captures for f in c.failed_entities)),
        unresolved=sum(c.unresolved for c in captures),
        discovery=discovery)
