"""Incremental tree writing: only the directories a commit touched are rebuilt.

Each directory keeps its entries in memory; ``write`` rebuilds dirty directories deepest
first with ``TreeBuilder`` and reuses every untouched subtree's id.
"""

from __future__ import annotations

import pygit2

TREE = 0o040000
_PENDING = pygit2.Oid(raw=b"\0" * 20)  # a new subtree's id, filled in before its parent


def _parent(d: str) -> tuple[str, str]:
    head, _, name = d.rpartition("/")
    return head, name


class TreeState:
    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self.dirs: dict[str, dict[str, tuple[pygit2.Oid, int]]] = {"": {}}
        self.dirty: dict[str, None] = {"": None}
        self.root: pygit2.Oid | None = None

    def copy(self) -> TreeState:
        other = TreeState(self.repo)
        other.dirs = {d: dict(entries) for d, entries in self.dirs.items()}
        other.dirty = dict(self.dirty)
        other.root = self.root
        return other

    def set(self, path: str, oid: pygit2.Oid, mode: int) -> None:
        d, name = _parent(path)
        self._ensure(d)
        self.dirs[d][name] = (oid, mode)
        self.dirty[d] = None

    def remove(self, path: str) -> None:
        d, name = _parent(path)
        del self.dirs[d][name]
        self.dirty[d] = None

    def _ensure(self, d: str) -> None:
        if d in self.dirs:
            return
        up, name = _parent(d)
        self._ensure(up)
        self.dirs[d] = {}
        self.dirs[up][name] = (_PENDING, TREE)
        self.dirty[up] = None

    def write(self) -> pygit2.Oid:
        while self.dirty:
            d = max(self.dirty, key=lambda x: (x.count("/") + 1) if x else 0)
            del self.dirty[d]
            entries = self.dirs[d]
            if d:
                up, name = _parent(d)
                self.dirty[up] = None
                if not entries:  # git has no empty directories
                    del self.dirs[d]
                    del self.dirs[up][name]
                    continue
            builder = self.repo.TreeBuilder()
            for entry, (oid, mode) in entries.items():
                builder.insert(entry, oid, mode)
            oid = builder.write()
            if d:
                self.dirs[up][name] = (oid, TREE)
            else:
                self.root = oid
        assert self.root is not None
        return self.root
