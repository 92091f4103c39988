""""My work": the working tree plus the commits not yet on the current branch's upstream.

``changed`` means this when no range is given and ``all_history`` is not asked, over MCP and
the CLI alike (``default_range``, the one rule); the CLI's ``reverify`` and
``blast-radius`` mean it too when no range or entity is given (``cli/mywork.py``).
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
    return my_work_of(handle)


def default_range(handle: pygit2.Repository, rev_range: str | None, base_ref: str | None,
                  head_ref: str | None, all_history: bool) -> MyWork | None:
    """The range ``changed`` answers for when none is given: my work, unless every
    recorded commit is asked for (``all_history``) or a range is named (None)."""
    if all_history or rev_range is not None or base_ref is not None or head_ref is not None:
        return None
    return my_work_of(handle)


def my_work_of(handle: pygit2.Repository) -> MyWork:
    upstream = upstream_name(handle)
    if upstream is not None:
        return MyWork(UPSTREAM_RANGE, True,
                      f"no range given: your work = uncommitted changes + commits not on "
                      f"{upstream} ({UPSTREAM_RANGE} --worktree)")
    return MyWork(WORKTREE_ONLY, True,
                  "no range given and the current branch has no upstream: showing "
                  "uncommitted changes only; pass A..B (e.g. origin/main..HEAD) for commits")
