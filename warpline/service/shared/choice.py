"""Which stored capture answers a query: an edge snapshot (impact, reverify, status) or a
test map (map-first selection), and how it relates to HEAD. One chooser, one shape.

Every candidate is placed against HEAD (is its commit HEAD or an ancestor, and how many
commits behind), then ordered by the kind's own preference, best first:

* snapshots: the most complete first (FULL, then a DELTA of a full capture, then a
  ``changed_only`` DELTA, a partial graph by construction); then HEAD or an ancestor
  before any other (a snapshot of a commit rebased away describes code HEAD may not have);
  then the fewest commits behind; then the newest capture. ``project_status`` reports the
  same choice (``data.store.snapshot_rev``). SKIPPED attempts, pruned snapshots and
  ``changed_only`` captures that named nothing are never candidates, so a later failed or
  partial attempt cannot shadow a better graph.
* test maps: HEAD or an ancestor first, then whole-suite recordings before partial ones
  (``-k``, deselection, explicit paths, an early stop), then the fewest commits behind,
  then the newest recording.

Staleness is stated, never hidden: a chosen map also carries how many entities changed
since its commit and which paths differ from the working tree (the map may not know what
they execute now); a snapshot's ``staleness`` names the uncommitted graph files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pygit2

from warpline.git.lookups import ancestry, head_id_or_none, paths_changed_since, status_or_empty
from warpline.graph.builtin import reads as builtin_reads
from warpline.service.shared.envelope import iso_z
from warpline.store.db import Store
from warpline.store.events import count_changed_entities
from warpline.store.snapshots import SnapshotRow, snapshots
from warpline.store.testmaps import MapRow, maps

MAX_DIRTY_PATHS = 100
MAX_WALK = 20_000
_FAR = 1 << 30  # "commits behind" of a candidate off HEAD's history: after every ancestor

Row = TypeVar("Row", SnapshotRow, MapRow)


@dataclass(frozen=True, slots=True)
class Choice(Generic[Row]):
    """The stored row an answer uses, and how far its commit is from HEAD."""
    row: Row
    is_ancestor: bool
    commits_behind: int | None
    # Test maps only (a snapshot's drift is its ``staleness``): entities changed in the
    # commits since the map's, and paths that differ between its commit and the work tree.
    entities_changed_since: int | None = None
    changed_paths_since: frozenset[str] = field(default_factory=frozenset)


Preference = Callable[[Row, bool, int], tuple[int, ...]]


def nearest(repo: pygit2.Repository, rows: Iterable[Row], commit_of: Callable[[Row], str],
            preference: Preference[Row]) -> Choice[Row] | None:
    """The best of ``rows`` by ``preference(row, is_ancestor, behind)`` (smallest first)."""
    head = head_id_or_none(repo)
    best: tuple[tuple[int, ...], Choice[Row]] | None = None
    for row in rows:
        is_ancestor, behind = ancestry(repo, head, commit_of(row))
        key = preference(row, is_ancestor, behind if behind is not None else _FAR)
        if best is None or key < best[0]:
            best = (key, Choice(row, is_ancestor, behind))
    return None if best is None else best[1]


def _snapshot_rank(row: SnapshotRow) -> int:
    if row.completeness == "FULL":
        return 0
    return 1 if row.mode == "full" else 2


def choose_snapshot(store: Store, repo: pygit2.Repository) -> Choice[SnapshotRow] | None:
    return nearest(repo, snapshots(store), lambda row: row.commit_sha,
                   lambda row, is_ancestor, behind: (
                       _snapshot_rank(row), 0 if is_ancestor else 1, behind,
                       -row.captured_at, -row.id))


def choose_map(store: Store, repo: pygit2.Repository) -> Choice[MapRow] | None:
    chosen = nearest(repo, maps(store), lambda row: row.commit_sha,
                     lambda row, is_ancestor, behind: (
                         0 if is_ancestor else 1, 1 if row.partial else 0, behind,
                         -row.recorded_at, -row.id))
    if chosen is None:
        return None
    row, is_ancestor = chosen.row, chosen.is_ancestor
    shas = _commits_since(repo, row.commit_sha) if is_ancestor else []
    return Choice(row, is_ancestor, chosen.commits_behind if is_ancestor else None,
                  count_changed_entities(store, shas) if is_ancestor else None,
                  frozenset(paths_changed_since(repo, row.commit_sha)))


def _commits_since(repo: pygit2.Repository, sha: str) -> list[str]:
    if repo.head_is_unborn:
        return []
    walker = repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL)
    walker.hide(pygit2.Oid(hex=sha))
    out = []
    for commit in walker:
        out.append(str(commit.id))
        if len(out) >= MAX_WALK:
            break
    return out


def dirty_graph_paths(repo: pygit2.Repository, graph_paths: set[str]) -> list[str]:
    """Uncommitted paths that may change the graph: files in it, or any file the built-in
    extractor reads."""
    return sorted(
        path for path in status_or_empty(repo)
        if not (path == ".weft" or path.startswith(".weft/"))
        and (path in graph_paths or builtin_reads(path))
    )


def staleness(repo: pygit2.Repository, choice: Choice[SnapshotRow] | None,
              graph_paths: set[str]) -> dict[str, Any]:
    """``data.staleness``: always present, also without a snapshot."""
    head = None if repo.head_is_unborn else str(repo.head.target)
    if choice is None:
        return {"snapshot_id": None, "snapshot_commit": None, "snapshot_source": None,
                "snapshot_captured_at": None, "head_commit": head, "commits_behind": None,
                "is_ancestor": None, "stale": False, "dirty_paths": []}
    dirty = dirty_graph_paths(repo, graph_paths)
    behind = choice.commits_behind
    stale = (not choice.is_ancestor) or bool(behind) or bool(dirty)
    row = choice.row
    return {
        "snapshot_id": row.id,
        "snapshot_commit": row.commit_sha,
        "snapshot_source": row.source,
        "snapshot_captured_at": iso_z(row.captured_at),
        "head_commit": head,
        "commits_behind": behind if choice.is_ancestor else None,
        "is_ancestor": choice.is_ancestor,
        "stale": stale,
        "dirty_paths": dirty[:MAX_DIRTY_PATHS],
    }
