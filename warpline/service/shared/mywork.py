""""My work": the working tree plus the commits not yet on the current branch's upstream.

The CLI's ``changed``, ``reverify`` and ``blast-radius`` mean this when no range or entity
is given; over MCP an agent asks for it explicitly with ``rev_range: "@{upstream}..HEAD"``
and ``include_worktree: true`` (the contract's default, all recorded history, stays).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pygit2

from warpline.git.lookups import upstream_branch
from warpline.service.shared.context import open_repo_only

UPSTREAM_RANGE = "@{upstream}..HEAD"
WORKTREE_ONLY = "HEAD..HEAD"


@dataclass(frozen=True, slots=True)
class MyWork:
    """The range of "my work": what it spans, whether the work tree counts, and why."""
    rev_range: str
    include_worktree: bool
    note: str


def upstream_name(repo: pygit2.Repository) -> str | None:
    """The current branch's upstream (``origin/main``), or None (detached, none set)."""
    upstream = upstream_branch(repo)
    return None if upstream is None else str(upstream.shorthand)


def my_work(repo: object, cwd: Path | None) -> MyWork:
    _, handle = open_repo_only(repo, cwd)
    upstream = upstream_name(handle)
    if upstream is not None:
        return MyWork(UPSTREAM_RANGE, True,
                      f"no range given: your work = uncommitted changes + commits not on "
                      f"{upstream} ({UPSTREAM_RANGE} --worktree)")
    return MyWork(WORKTREE_ONLY, True,
                  "no range given and the current branch has no upstream: showing "
                  "uncommitted changes only; pass A..B (e.g. origin/main..HEAD) for commits")
