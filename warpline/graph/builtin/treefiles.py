"""Reads of one commit's tree for the extractors (manifests: ``go.mod``, ``Cargo.toml``):
regular files up to 1 MiB, never a symlink, each path read once; directory listings."""

from __future__ import annotations

import pygit2

__all__ = ["CommitFiles"]

_SYMLINK_MODE = 0o120000
_MAX_BYTES = 1 << 20


class CommitFiles:
    def __init__(self, commit: pygit2.Commit) -> None:
        self._tree = commit.tree
        self._memo: dict[str, bytes | None] = {}

    def read(self, path: str) -> bytes | None:
        if path not in self._memo:
            try:
                obj = self._tree[path]
            except KeyError:
                obj = None
            self._memo[path] = obj.data if isinstance(obj, pygit2.Blob) \
                and obj.filemode != _SYMLINK_MODE and obj.size <= _MAX_BYTES else None
        return self._memo[path]

    def listdir(self, directory: str) -> list[str]:
        try:
            obj = self._tree[directory] if directory else self._tree
        except KeyError:
            return []
        return [e.name or "" for e in obj] if isinstance(obj, pygit2.Tree) else []
