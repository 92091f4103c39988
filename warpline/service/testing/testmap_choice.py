"""Which test map answers a selection, and how far it is from HEAD.

Like edge snapshots (``snapshot_choice``): maps of HEAD or an ancestor of it first (a map
recorded on a commit rebased away describes code HEAD may not have), then whole-suite
recordings before partial ones (``-k``, deselection, explicit paths, an early stop), then
the fewest commits behind HEAD, then the newest recording.

Staleness is stated, never hidden: the map's commit, commits behind HEAD, and how many
entities changed in those commits (the map may not know what they execute now).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import pygit2

from warpline.git.lookups import ancestry, paths_changed_since
from warpline.store.events import count_changed_entities
from warpline.store.testmaps import MapRow, maps

MAX_WALK = 20_000


@dataclass(frozen=True, slots=True)
class MapChoice:
    row: MapRow
    is_ancestor: bool
    commits_behind: int | None
    entities_changed_since: int | None
    changed_paths_since: frozenset[str]


def choose_map(conn: sqlite3.Connection, repo: pygit2.Repository) -> MapChoice | None:
    head = None if repo.head_is_unborn else repo.head.peel(pygit2.Commit).id
    best: tuple[tuple[int, int, int, int, int], MapRow, bool, int | None] | None = None
    for row in maps(conn):
        is_ancestor, behind = ancestry(repo, head, row.commit_sha)
        key = (0 if is_ancestor else 1, 1 if row.partial else 0,
               behind if behind is not None else 1 << 30, -row.recorded_at, -row.id)
        if best is None or key < best[0]:
            best = (key, row, is_ancestor, behind)
    if best is None:
        return None
    _, row, is_ancestor, behind = best
    shas = _commits_since(repo, head, row.commit_sha) if is_ancestor else []
    return MapChoice(row, is_ancestor, behind if is_ancestor else None,
                     count_changed_entities(conn, shas) if is_ancestor else None,
                     frozenset(paths_changed_since(repo, row.commit_sha)))


def _commits_since(repo: pygit2.Repository, head: pygit2.Oid | None, sha: str) -> list[str]:
    if head is None:
        return []
    walker = repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL)
    walker.hide(pygit2.Oid(hex=sha))
    out = []
    for commit in walker:
        out.append(str(commit.id))
        if len(out) >= MAX_WALK:
            break
    return out


