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
    # What the change means (``warpline.git.nature``): (code the same apart from comments,
    # layout and docstrings; docstring or comments changed; signature changed). None: not
    # read (added, removed, files, merges, a version no ``code_key`` reads).
    facts: tuple[bool, bool, bool] | None = None

    def __reduce__(self) -> tuple[type[EntityChange], tuple[object, ...]]:
        # Workers send every change to the writer pickled: rebuilt from a tuple it costs a
        # third of a slotted dataclass's default (per-field) state.
        return (EntityChange, (self.locator, self.kind, self.change_kind, self.path,
                               self.previous_locator, self.previous_path, self.also_modified,
                               self.facts))


@dataclass(frozen=True, slots=True)
class CommitInfo:
    """Who made a commit and when, with its parents."""
    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    # UTC instants as integer seconds since the epoch.
    authored_at: int
    committed_at: int

    def __reduce__(self) -> tuple[type[CommitInfo], tuple[object, ...]]:
        return (CommitInfo, (self.sha, self.parents, self.author_name, self.author_email,
                             self.authored_at, self.committed_at))


@dataclass(frozen=True, slots=True)
class CommitChanges:
    """One commit's change events, with the files and limits its answer is partial under."""
    commit: CommitInfo
    changes: tuple[EntityChange, ...]
    # Repo-relative paths of Python files that did not parse (they still get a file event).
    unparsed_files: tuple[str, ...] = field(default=())
    # Limits this commit's answer is partial under: "rename_limit" (git's rename detection
    # stopped pairing files), "lineage_limit" (definition pairing stopped comparing).
    limits_hit: tuple[str, ...] = field(default=())

    def __reduce__(self) -> tuple[type[CommitChanges], tuple[object, ...]]:
        return (CommitChanges, (self.commit, self.changes, self.unparsed_files,
                                self.limits_hit))
