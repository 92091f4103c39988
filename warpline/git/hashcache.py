"""Blob ids of large work-tree files, remembered against what ``lstat`` says of them.

``--worktree`` compares a changed file that is not read (not Python, or past the parse cap)
with HEAD's blob by its id, and hashing a tracked 1 GB file took ~24 s on every call. Its id
is kept here keyed on path, size, ``mtime_ns``, ``ctime_ns``, inode and mode, and reused
while all of them are unchanged. Git's "racy" rule applies: an entry whose file was
modified within ``RACY_NS`` of the moment it was hashed is not trusted (a write in the same
timestamp tick would leave the stat unchanged) and is hashed again until it is old enough.

The file is a small JSON object beside the store (``worktree-hashes.json``); only the paths
of the last call are kept, so it never grows past the set of large changed files. Losing it
(or failing to write it: a read-only disk) only costs hashing again.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pygit2

MIN_BYTES = 1024 * 1024  # smaller files hash in well under a millisecond: not remembered
RACY_NS = 2_000_000_000

Stat = tuple[int, int, int, int, int]  # size, mtime_ns, ctime_ns, inode, mode


def stat_key(st: os.stat_result) -> Stat:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


class HashCache:
    """The remembered ids of one work tree (``path`` None: remembered for this call only)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._old: dict[str, tuple[Stat, str, int]] = self._load()
        self._new: dict[str, tuple[Stat, str, int]] = {}
        self.hashed = 0  # files hashed by this cache (the rest came from it)

    def _load(self) -> dict[str, tuple[Stat, str, int]]:
        if self.path is None:
            return {}
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict):
                return {}
            return {str(rel): ((int(s[0]), int(s[1]), int(s[2]), int(s[3]), int(s[4])),
                               str(oid), int(at))
                    for rel, (s, oid, at) in raw.items()}
        except (OSError, ValueError, TypeError, KeyError, IndexError):
            return {}

    def blob_id(self, full: str, rel: str, st: os.stat_result) -> pygit2.Oid:
        """The blob id of the regular file ``full`` (``rel`` in the work tree), hashed only
        when it changed since it was remembered. Raises what ``pygit2.hashfile`` raises."""
        if st.st_size < MIN_BYTES:
            return pygit2.hashfile(full)
        key = stat_key(st)
        known = self._old.get(rel)
        if known is not None and known[0] == key and key[1] < known[2] - RACY_NS:
            self._new[rel] = known
            return pygit2.Oid(hex=known[1])
        oid = pygit2.hashfile(full)
        self.hashed += 1
        try:
            after = stat_key(os.lstat(full))
        except OSError:
            return oid
        if after == key:  # unchanged while it was read: the id is this stat's
            self._new[rel] = (key, str(oid), time.time_ns())
        return oid

    def save(self) -> None:
        """Best effort; only when something changed."""
        if self.path is None or self._new == self._old:
            return
        data = json.dumps({rel: [list(s), oid, at] for rel, (s, oid, at)
                           in sorted(self._new.items())}).encode()
        temp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                         | getattr(os, "O_NOFOLLOW", 0), 0o666)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            os.replace(temp, self.path)
        except OSError:
            pass
        finally:
            try:
                os.unlink(temp)
            except OSError:
                pass
