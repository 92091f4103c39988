"""Ready-to-call follow-ups, with bounded arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def follow_ups(root: Path, rev_range: str | None, include_worktree: bool,
               refs: list[dict[str, str]], commits_behind: int,
               page_range: str | None = None) -> dict[str, Any]:
    """After ``changed``: reverify, then impact radius, seeded by a range (the answer's,
    or the commits its page shows when it spans all history), refs only when no range
    can say it (a page reaching a root commit)."""
    arguments: dict[str, Any] = {"repo": str(root), "depth": 2}
    if rev_range is not None:
        arguments["rev_range"] = rev_range
    elif page_range is not None:
        arguments["rev_range"] = page_range
    else:
        arguments["changed_refs"] = refs
    if include_worktree:
        arguments["include_worktree"] = True
    tools = [
        {"tool": name, "arguments": dict(arguments), "why": why}
        for name, why in (
            ("warpline_reverify_worklist_get",
             "List what must be re-verified: the changed entities and their dependents."),
            ("warpline_impact_radius_get",
             "See which entities depend on the changed ones (callers, referrers)."),
        )
    ]
    commands = []
    if commits_behind:
        commands.append({"command": f"warpline backfill --repo {root}",
                         "why": f"The store is {commits_behind} commits behind HEAD."})
    actions: dict[str, Any] = {"tools": tools}
    if commands:
        actions["commands"] = commands
    return actions
