"""The selection behind ``pytest --warpline-select[=REV_RANGE]``.

What changed: ``REV_RANGE`` when given, else the commits not on the current branch's
upstream (``@{upstream}..HEAD``; without an upstream, the commits since the test map's
commit), always plus the working tree (the tests run on it). The tests: ``reverify``'s own
``data.selection`` for that range, so the plugin runs what every other output names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2

from warpline.git.lookups import upstream_branch
from warpline.models.inputs import ReverifyWorklistInput
from warpline.service.shared.choice import choose_map
from warpline.store.db import Store


def default_range(repo: pygit2.Repository, store: Store) -> tuple[str | None, str]:
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
    choice = choose_map(store, repo)
    if choice is not None and choice.is_ancestor and choice.commits_behind:
        return (f"{choice.row.commit_sha}..HEAD",
                "the commits since the test map (no upstream) and the working tree")
    return None, "the working tree (no upstream branch)"


def plan(root: Path, rev_range: str | None) -> dict[str, Any]:
    """The selection ``reverify`` answers for the range plus the working tree: the same
    object (``data.selection``) every other output renders."""
    from warpline.service.impact.reverify import reverify_worklist
    from warpline.service.shared.context import open_context

    scope = f"the range {rev_range} and the working tree"
    if not rev_range:
        with open_context(str(root)) as ctx:
            rev_range, scope = default_range(ctx.repo, ctx.store)
    arguments: dict[str, Any] = {"repo": str(root), "include_worktree": True, "limit": 1}
    if rev_range:
        arguments["rev_range"] = rev_range
    params = ReverifyWorklistInput.model_validate(arguments)  # built here, not user input
    envelope = reverify_worklist(params, None)
    selection = envelope["data"]["selection"]
    return {"selection": selection, "tests": list(selection["tests"]),
            "changed": envelope["data"].get("changed_total") or 0, "scope": scope,
            "warnings": list(envelope["warnings"])}
