"""Modules a manifest (or a same-stem sibling file) renames in files the commit did not
touch.

A module name can depend on a manifest of the same tree (a Rust crate's ``Cargo.toml``
``[package].name``, a Go module's ``go.mod``). A commit that adds, removes or edits such a
manifest so that the names change renames every module below it, also in files the commit
leaves as they are. Those files' definitions are carried like a renamed file's (``moved``,
``previous_locator`` the old name); without this their histories would stop at the commit
and their next edit would read as a new definition (cobra's ``go.mod`` arrived in 2019
under six years of history; ripgrep's crate was renamed ``xrep`` -> ``ripgrep``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pygit2

from warpline.git.parsecache import Source, TreeFiles, same_module, source_of, tree_state
from warpline.lang import LANGUAGES, Language, language_of

__all__ = ["renamed_by_manifests"]

_PROBE = "~probe"  # a file name no module rule special-cases: it tells whether names changed


def renamed_by_manifests(
    old_tree: pygit2.Tree | None, new_tree: pygit2.Tree, touched: set[str],
    old_files: TreeFiles, new_files: TreeFiles,
) -> list[tuple[str, pygit2.Oid, Source, Source]]:
    """``(path, blob, old source, new source)`` of each file of a manifest-reading language,
    not in ``touched``, whose module the commit's manifest changes rename."""
    if old_tree is None:
        return []
    roots: dict[str, list[Language]] = {}
    for path in touched:
        directory, _, name = path.rpartition("/")
        for lang in LANGUAGES:
            if name in lang.manifests and lang not in roots.setdefault(directory, []):
                roots[directory].append(lang)
    found: list[tuple[str, pygit2.Oid, Source, Source]] = []
    seen: set[str] = set()
    for directory in sorted(roots):
        renaming = [lang for lang in roots[directory]
                    if _renames(lang, directory, old_files, new_files)]
        if not renaming:
            continue
        suffixes = tuple(s for lang in renaming for s in lang.suffixes)
        for path, oid, mode in _blobs(new_tree, directory):
            if path in touched or path in seen or not path.endswith(suffixes):
                continue
            old_src, new_src = source_of(path, mode, old_files), source_of(path, mode, new_files)
            if old_src is None or new_src is None or same_module(old_src, new_src):
                continue
            seen.add(path)
            found.append((path, oid, old_src, new_src))
    for path in sorted(touched):  # a sibling of a higher rank added or removed (TS/JS)
        row = language_of(path)
        for sibling in row.siblings(path) if row is not None and row.siblings else ():
            state = tree_state(new_tree, sibling)
            if sibling in touched or sibling in seen or state is None:
                continue
            old_src = source_of(sibling, state[1], old_files)
            new_src = source_of(sibling, state[1], new_files)
            if old_src is None or new_src is None or same_module(old_src, new_src):
                continue
            seen.add(sibling)
            found.append((sibling, state[0], old_src, new_src))
    return found


def _renames(lang: Language, directory: str, old: TreeFiles, new: TreeFiles) -> bool:
    """Whether a file directly in ``directory`` is named differently on the two sides
    (one probe per manifest: most manifest edits are versions and dependencies)."""
    probe = "/".join(p for p in (directory, _PROBE + lang.suffixes[0]) if p)
    return lang.module(probe, old) != lang.module(probe, new)


def _blobs(tree: pygit2.Tree, directory: str) -> Iterator[tuple[str, pygit2.Oid, int]]:
    """Every blob below ``directory`` of ``tree``: (path, oid, mode)."""
    try:
        top = tree[directory] if directory else tree
    except KeyError:
        return
    if not isinstance(top, pygit2.Tree):
        return
    stack: list[tuple[str, pygit2.Tree]] = [(directory, top)]
    while stack:
        prefix, folder = stack.pop()
        for entry in folder:
            path = f"{prefix}/{entry.name}" if prefix else str(entry.name)
            if isinstance(entry, pygit2.Tree):
                stack.append((path, entry))
            elif isinstance(entry, pygit2.Blob):
                yield path, entry.id, entry.filemode
