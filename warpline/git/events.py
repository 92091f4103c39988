"""What the walker produces: plain, immutable facts about one commit's changes.

The walker (``warpline.git.attribution``) turns a commit into a ``CommitChanges``; the
store persists it; nothing here knows about SQLite or the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

EntityKind = Literal["file", "module", "class", "function"]
ChangeKind = Literal["added", "modified", "removed", "moved"]


@dataclass(frozen=True, slots=True)
class EntityChange:
    """One entity touched by one commit.

    ``locator`` is the entity's locator after the commit (for ``removed``: before it).
    ``path`` is the repo-relative file the entity lives in after the commit (for
    ``removed``: before it). ``previous_locator``/``previous_path`` are set for ``moved``
    (and may be set for a ``modified`` entity whose file was renamed and edited).
    ``also_modified`` is meaningful for ``moved`` only: the entity's own text changed too
    (a moved-and-edited definition), else it moved unchanged.
    """

    locator: str
    kind: EntityKind
    change_kind: ChangeKind
    path: str
    previous_locator: str | None = None
    previous_path: str | None = None
    also_modified: bool = False


@dataclass(frozen=True, slots=True)
class CommitInfo:
    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    # UTC instants as integer seconds since the epoch.
    authored_at: int
    committed_at: int


@dataclass(frozen=True, slots=True)
class CommitChanges:
    commit: CommitInfo
    changes: tuple[EntityChange, ...]
    # Repo-relative paths of Python files that did not parse (they still get a file event).
    unparsed_files: tuple[str, ...] = field(default=())
    # Limits this commit's answer is partial under: "rename_limit" (git's rename detection
    # stopped pairing files), "lineage_limit" (definition pairing stopped comparing).
    limits_hit: tuple[str, ...] = field(default=())
