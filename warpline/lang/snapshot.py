"""Every entity locator of one tree, per language: the ids a peer indexer (loomweave) is
compared with, and what ``warpline`` would call the definitions at that commit."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pygit2

from warpline.git.parsecache import TreeFiles, blob_bytes, is_regular_file, source_of

__all__ = ["tree_locators"]


def tree_locators(repo: pygit2.Repository, tree: pygit2.Tree,
                  want: Callable[[str], bool] = lambda path: True) -> dict[str, str]:
    """``{locator: path}`` of every entity in the files of ``tree`` that a language row
    reads and ``want`` keeps (a module's file, a definition's file)."""
    files = TreeFiles(repo, tree)
    out: dict[str, str] = {}
    for path, oid, mode in _walk(tree, ""):
        if not want(path):
            continue
        src = source_of(path, mode, files)
        if src is None:
            continue
        lang, module = src
        blob = repo[oid]
        assert isinstance(blob, pygit2.Blob)
        parsed = lang.read(blob_bytes(blob))
        if parsed is None:
            continue
        for key in parsed.keys():
            out.setdefault(lang.locator(key, module), path)
    return out


def _walk(tree: pygit2.Tree, prefix: str) -> Iterator[tuple[str, pygit2.Oid, int]]:
    for entry in tree:
        path = prefix + str(entry.name)
        if isinstance(entry, pygit2.Tree):
            yield from _walk(entry, path + "/")
        elif is_regular_file(entry.filemode):
            yield path, entry.id, entry.filemode
