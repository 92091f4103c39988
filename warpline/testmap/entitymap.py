"""Executed lines -> entities, with the walker's own definitions (``pyentities`` for
Python; every other language by its row of ``warpline.lang``: any runner's coverage maps
through here).

A line belongs to its innermost owning entity and, by containment, to every entity
enclosing it: a test that ran ``Cls.meth`` depends on the class body (its attributes,
bases, decorators) and on the module's own code (imports, globals, registrations). The
lines of a ``def``/``class`` header (decorators, the signature up to the body) execute when
the *enclosing* scope defines it, so they count for the enclosing entity, not for the
function: importing a module lazily inside a test does not make the test depend on every
function the module defines. (That header rule is Python's, whose definitions execute; in
the other languages a definition's lines count for itself and what encloses it.)

Sources come from git at the recorded commit when the file there is what ran (clean), else
from the working tree (what actually executed), and the path is named in ``dirty_paths``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from warpline.git.lookups import is_ignored
from warpline.git.parsecache import TreeFiles
from warpline.lang import PYTHON, Language, language_of
from warpline.lang.entities import MODULE_KEY, EntityKey, FileEntities
from warpline.lang.locators import (
    dotted_module,
    entity_locator,
    normalize_path,
)
from warpline.lang.pyentities import parse_entities
from warpline.lang.pyheaders import header_lines

_MAX_FILE_BYTES = 8 * 1024 * 1024


@dataclass(slots=True)
class FileMap:
    """One file: line -> the locators that executing it counts for (innermost first)."""

    path: str
    line_count: int
    owners: list[tuple[str, ...]]  # index 0 is line 1

    def locators(self, lines: set[int] | list[int]) -> set[str]:
        out: set[str] = set()
        count = self.line_count
        owners = self.owners
        for line in lines:
            if 1 <= line <= count:
                out.update(owners[line - 1])
        return out


@dataclass(slots=True)
class EntityMapper:
    """Caches one ``FileMap`` per repo-relative path for a recording at ``commit``."""

    root: Path
    repo: pygit2.Repository
    commit: pygit2.Commit | None
    prefer_worktree: bool = True
    dirty_paths: set[str] = field(default_factory=set)
    unmapped: set[str] = field(default_factory=set)
    _files: dict[str, FileMap | None] = field(default_factory=dict)
    _tree_files: TreeFiles | None = None

    def relative(self, filename: str) -> str | None:
        """The repo-relative path of a measured file, or None outside the repository,
        under ``.weft``/``.git``, ignored by git, or a file no language row reads."""
        try:
            rel = Path(filename).resolve().relative_to(self.root)
        except (ValueError, OSError):
            return None
        path = normalize_path(rel.as_posix())
        if language_of(path) is None or path.split("/", 1)[0] in (".git", ".weft"):
            return None
        # Ignored, or ignore rules git cannot read: not the project's code.
        return None if is_ignored(self.repo, path) is not False else path

    def file_map(self, path: str) -> FileMap | None:
        if path in self._files:
            return self._files[path]
        built = self._build(path)
        if built is None:
            self.unmapped.add(path)
        self._files[path] = built
        return built

    def _source(self, path: str) -> bytes | None:
        committed = self._blob(path)
        if committed is not None and not self.prefer_worktree:
            return committed
        disk = self.root / path
        worktree: bytes | None = None
        try:
            if disk.is_file() and not disk.is_symlink() \
                    and disk.stat().st_size <= _MAX_FILE_BYTES:
                worktree = disk.read_bytes()
        except OSError:
            worktree = None
        if worktree is not None and worktree != committed:
            self.dirty_paths.add(path)
            return worktree
        return committed if committed is not None else worktree

    def _blob(self, path: str) -> bytes | None:
        if self.commit is None:
            return None
        try:
            entry = self.commit.tree[path]
        except KeyError:
            return None
        obj = self.repo.get(entry.id)
        if not isinstance(obj, pygit2.Blob) or obj.size > _MAX_FILE_BYTES:
            return None
        return bytes(obj.data)

    def _build(self, path: str) -> FileMap | None:
        lang = language_of(path)
        if lang is None:
            return None
        if lang is not PYTHON:
            return self._build_row(path, lang)
        dotted = dotted_module(path)
        source = self._source(path)
        if dotted is None or source is None:
            return None
        parsed = parse_entities(source)
        if parsed is None:
            return None
        headers = header_lines(source)
        keys = parsed.keys()
        painted = parsed.paint(1, parsed.line_count)
        chains: dict[tuple[EntityKey, bool], tuple[str, ...]] = {}
        owners: list[tuple[str, ...]] = []
        for index, key in enumerate(painted):
            header = (index + 1) in headers and key != MODULE_KEY
            chain = chains.get((key, header))
            if chain is None:
                found = _ancestors(key, keys)
                if header:
                    found = found[1:]
                chain = chains[(key, header)] = tuple(
                    entity_locator(kind, dotted, qualname) for kind, qualname in found)
            owners.append(chain)
        return FileMap(path, parsed.line_count, owners)

    def _build_row(self, path: str, lang: Language) -> FileMap | None:
        """A file of another language row: its module named from the recorded commit's
        manifests (``go.mod``, ``Cargo.toml``), its definitions by the row's reader."""
        if self._tree_files is None:
            self._tree_files = TreeFiles(self.repo, self.commit.tree if self.commit else None)
        module = lang.module(path, self._tree_files)
        source = self._source(path)
        if module is None or source is None:
            return None
        parsed = lang.read(source)
        if parsed is None:
            return None
        chains: dict[EntityKey, tuple[str, ...]] = {}
        owners: list[tuple[str, ...]] = []
        enclosing = _enclosing(parsed)
        for key in parsed.paint(1, parsed.line_count):
            chain = chains.get(key)
            if chain is None:
                chain = chains[key] = tuple(lang.locator(k, module)
                                            for k in _chain(key, enclosing))
            owners.append(chain)
        return FileMap(path, parsed.line_count, owners)


def _enclosing(parsed: FileEntities) -> dict[str, EntityKey]:
    """qualname -> the definition a nested qualname's prefix names (any kind; the first in
    sorted order where kinds share a name)."""
    out: dict[str, EntityKey] = {}
    for key in sorted(parsed.keys()):
        if key[1]:
            out.setdefault(key[1], key)
    return out


def _chain(key: EntityKey, enclosing: dict[str, EntityKey]) -> list[EntityKey]:
    """``key``, the definitions enclosing it (by qualname prefix), the module last."""
    out = [key]
    parts = key[1].split(".") if key[1] else []
    while len(parts) > 1:
        parts = parts[:-1]
        found = enclosing.get(".".join(parts))
        if found is not None:
            out.append(found)
    if key != MODULE_KEY:
        out.append(MODULE_KEY)
    return out


def _ancestors(key: EntityKey, keys: set[EntityKey]) -> list[EntityKey]:
    """``key`` and its enclosing entities, innermost first, ending with the module."""
    out = [key]
    parts = key[1].split(".") if key[1] else []
    while parts:
        parts = parts[:-1]
        while parts and parts[-1] == "<locals>":
            parts = parts[:-1]
        if not parts:
            break
        qualname = ".".join(parts)
        for kind in ("class", "function"):
            if (kind, qualname) in keys:
                out.append((kind, qualname))
                break
    if key != MODULE_KEY:
        out.append(MODULE_KEY)
    return out
