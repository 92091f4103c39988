"""Which snapshot answers a query, and how it relates to HEAD (``data.staleness``).

The graph used for queries is the most complete usable snapshot nearest to HEAD:

1. the most complete first: FULL, then a DELTA of a full capture, then a
   ``changed_only`` DELTA (a partial graph by construction);
2. then snapshots whose commit is HEAD or an ancestor of it before any other (a
   snapshot of a commit rebased away describes code HEAD may not have);
3. then the fewest commits behind HEAD; then the newest capture.

``project_status`` reports the same choice (``data.store.snapshot_rev``).

SKIPPED attempts, pruned snapshots and ``changed_only`` captures that named nothing are
never candidates, so a later failed or partial attempt cannot shadow a better graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pygit2

from warpline.git.locators import is_python_path
from warpline.git.lookups import ancestry, status_or_empty
from warpline.service.shared.envelope import iso_z
from warpline.store.snapshots import SnapshotRow, snapshots

MAX_DIRTY_PATHS = 100


@dataclass(frozen=True, slots=True)
class Choice:
    snapshot: SnapshotRow
    is_ancestor: bool
    commits_behind: int | None


def _rank(row: SnapshotRow) -> int:
    if row.completeness == "FULL":
        return 0
    return 1 if row.mode == "full" else 2


def choose(conn: Any, repo: pygit2.Repository) -> Choice | None:
    head = None if repo.head_is_unborn else repo.head.peel(pygit2.Commit).id
    best: tuple[tuple[int, int, int, int, int], Choice] | None = None
    for row in snapshots(conn):
        is_ancestor, behind = ancestry(repo, head, row.commit_sha)
        key = (_rank(row), 0 if is_ancestor else 1, behind if behind is not None else 1 << 30,
               -row.captured_at, -row.id)
        if best is None or key < best[0]:
            best = (key, Choice(row, is_ancestor, behind))
    return None if best is None else best[1]


def dirty_graph_paths(repo: pygit2.Repository, graph_paths: set[str]) -> list[str]:
    """Uncommitted paths that may change the graph: files in it, or any Python file."""
    status = status_or_empty(repo)
    dirty = sorted(
        path for path in status
        if not (path == ".weft" or path.startswith(".weft/"))
        and (path in graph_paths or is_python_path(path))
    )
    return dirty


def staleness(repo: pygit2.Repository, choice: Choice | None,
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
    row = choice.snapshot
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
