"""The selection behind ``pytest --warpline-select[=REV_RANGE]``.

What changed: ``REV_RANGE`` when given, else the commits not on the current branch's
upstream (``@{upstream}..HEAD``; without an upstream, the commits since the test map's
commit), always plus the working tree (the tests run on it). The tests: ``testselect``,
the same rules and the same map as ``reverify``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2

from warpline.git.lookups import upstream_branch
from warpline.models.inputs import ReverifyWorklistInput
from warpline.service.graph.graph_call import graph_call
from warpline.service.shared.choice import choose_map
from warpline.service.testing.testselect import select, static_entries


def default_range(repo: pygit2.Repository, conn: Any) -> tuple[str | None, str]:
    """(rev range or None for the working tree only, the words saying which)."""
    if repo.head_is_unborn:
        return None, "the working tree (no commit yet)"
    head = repo.head.peel(pygit2.Commit)
    upstream = upstream_branch(repo)
    if upstream is not None:
        base = upstream.peel(pygit2.Commit)
        if base.id == head.id:
            return None, f"the working tree (HEAD is {upstream.shorthand})"
        return f"{base.id}..HEAD", f"the commits not on {upstream.shorthand} and the working tree"
    choice = choose_map(conn, repo)
    if choice is not None and choice.is_ancestor and choice.commits_behind:
        return (f"{choice.row.commit_sha}..HEAD",
                "the commits since the test map (no upstream) and the working tree")
    return None, "the working tree (no upstream branch)"


def plan(root: Path, rev_range: str | None) -> dict[str, Any]:
    from warpline.service.shared.context import open_context

    scope = f"the range {rev_range} and the working tree"
    if not rev_range:
        with open_context(str(root)) as ctx:
            rev_range, scope = default_range(ctx.repo, ctx.store.conn)
    arguments: dict[str, Any] = {"repo": str(root), "include_worktree": True}
    if rev_range:
        arguments["rev_range"] = rev_range
    params = ReverifyWorklistInput.model_validate(arguments)  # built here, not user input
    with graph_call(params, None) as call:
        ctx, _, warnings, view, seeds = call.unpack()
        static = static_entries(view.graph, seeds.locators())
        selection = select(ctx.store.conn, ctx.repo, ctx.root, view.graph, seeds.items, static)
        return {"selection": selection.wire(), "tests": selection.tests,
                "changed": len(seeds.items), "scope": scope,
                "warnings": [*warnings, *selection.warnings]}
