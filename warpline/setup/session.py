"""``warpline session-context``: one line for the start of an agent's session.

It says how much history is tracked, how far the store is behind HEAD, which dependency
graph snapshot impact/reverify would use and how fresh it is, and the one command to run
next when something is missing. It never fails and never writes: the store is opened
read-only (``warpline.store.probe``), never created, and only counts are read. Outside a
git work tree it says so.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from warpline.setup._probe import probe_with_gap
from warpline.store.probe import StoreProbe

if TYPE_CHECKING:
    from warpline.service.shared.choice import Choice
    from warpline.store.snapshots import SnapshotRow


def session_context(repo: str | None, cwd: Path | None = None) -> dict[str, Any]:
    """``{"line", "repo", "in_repo", "store", "snapshot", "next"}``; never raises."""
    target = str(Path(cwd or Path.cwd()) / (repo or "."))
    try:
        from warpline.service.shared.context import open_repo_only

        root, handle = open_repo_only(repo or ".", cwd)
    except Exception as exc:
        hint = getattr(exc, "hint", str(exc))
        return {"line": f"warpline: {target} is not a git work tree ({hint}); no history is "
                        "tracked here.", "repo": target, "in_repo": False, "store": None,
                "snapshot": None, "next": None}
    try:
        return _describe(root, handle)
    except Exception as exc:  # a session must start whatever state the store is in
        return {"line": f"warpline: could not read the state of {root} ({type(exc).__name__}: "
                        f"{exc}). Next: warpline doctor --repo {shlex.quote(str(root))}",
                "repo": str(root), "in_repo": True, "store": None, "snapshot": None,
                "next": {"command": f"warpline doctor --repo {shlex.quote(str(root))}",
                         "why": "the store's state could not be read"}}


def _describe(root: Path, handle: pygit2.Repository) -> dict[str, Any]:
    from warpline.setup import ingest_log
    from warpline.setup.local_state import installed_config

    probe, choice, gap = probe_with_gap(root, handle)
    snapshot = _snapshot(choice)
    repo_arg = shlex.quote(str(root))
    installed = installed_config(root, handle.path) is not None
    records = ingest_log.recent(root, limit=1)
    last = records[-1] if records else None
    parts = [_store_words(probe, handle)]
    from warpline.git.shallow import SHALLOW_FIX, boundary

    if boundary(handle):
        parts.append(f"shallow clone: history before the boundary is missing ({SHALLOW_FIX})")
    damaged = probe.status == "ok" and probe.integrity == "damaged"
    if probe.status == "ok" and not damaged:
        parts.append(_snapshot_words(snapshot, gap))
    nxt = _next(probe, snapshot, installed, last, repo_arg)
    line = "warpline: " + "; ".join(parts) + "."
    if nxt:
        line += f" Next: {nxt['command']} ({nxt['why']})."
    elif gap:  # unknown said as unknown: no command fills it, and nothing is "all there"
        line += (f" Missing: dependents of {', '.join(sorted(gap))} code (no edge source "
                 "here reads it; impact and reverify answer DELTA for it).")
    else:
        line += " Nothing missing."
    return {"line": line, "repo": str(root), "in_repo": True,
            "store": {"status": "store_damaged" if damaged else probe.status,
                      "change_events": probe.change_event_count,
                      "commits_behind_head": probe.commits_behind_head,
                      "behind_is_lower_bound": probe.behind_is_lower_bound,
                      "hooks_installed": installed},
            "snapshot": snapshot, "next": nxt, "unseen_languages": sorted(gap)}


def _store_words(probe: StoreProbe, handle: pygit2.Repository) -> str:
    if probe.status == "store_absent":
        return "no history recorded yet (no store)"
    if probe.status == "schema_ahead":
        return f"the store was written by a newer warpline (schema {probe.schema_version})"
    if probe.status != "ok":
        return f"the store cannot be read ({probe.reason})"
    if probe.integrity == "damaged":
        return (f"the store is damaged (SQLite quick_check: {probe.damage or 'damaged'}); "
                "its answers cannot be trusted")
    events = f"{probe.change_event_count or 0} change events tracked"
    behind = probe.commits_behind_head or 0
    head = "" if handle.head_is_unborn else f" {str(handle.head.target)[:10]}"
    if not behind:
        return f"{events}, up to date with HEAD{head}"
    count = f"at least {behind}" if probe.behind_is_lower_bound else str(behind)
    return f"{events}, {count} commit{'s' if behind != 1 else ''} behind HEAD{head}"


def _snapshot(choice: Choice[SnapshotRow] | None) -> dict[str, Any] | None:
    """The snapshot impact/reverify would use, with its source and freshness."""
    if choice is None:
        return None
    row = choice.row
    return {"commit": row.commit_sha, "source": row.source, "completeness": row.completeness,
            "captured_at": row.captured_at,
            "commits_behind_head": choice.commits_behind if choice.is_ancestor else None}


def _snapshot_words(snapshot: dict[str, Any] | None, gap: dict[str, int]) -> str:
    if snapshot is None:
        return "no dependency-graph snapshot (impact and reverify list changed entities only)"
    age = _age(int(time.time()) - snapshot["captured_at"])
    behind = snapshot["commits_behind_head"]
    where = ("at HEAD" if behind == 0 else "not an ancestor of HEAD" if behind is None
             else f"{behind} commit{'s' if behind != 1 else ''} behind HEAD")
    completeness = snapshot["completeness"]
    holds = ""
    if gap:  # FULL over the files it read, blind to the rest: not FULL for this repository
        completeness = "DELTA" if completeness == "FULL" else completeness
        holds = f", holding no {', '.join(sorted(gap))} entities (their dependents unknown)"
    return (f"graph: {snapshot['source']} {completeness} snapshot of "
            f"{snapshot['commit'][:10]}, {where}, captured {age} ago{holds}")


def _age(seconds: int) -> str:
    seconds = max(seconds, 0)
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def _next(probe: StoreProbe, snapshot: dict[str, Any] | None, installed: bool,
          last: dict[str, Any] | None, repo_arg: str) -> dict[str, str] | None:
    """The single most useful command, most fundamental first."""
    install = {"command": f"warpline install --repo {repo_arg}",
               "why": "wires the hooks and the MCP server and records the history"}
    if probe.status == "store_absent":
        return install if not installed else {
            "command": f"warpline backfill --repo {repo_arg}", "why": "records the history"}
    if probe.status == "schema_ahead":
        return {"command": "pip install -U warpline", "why": "the store is newer than this "
                "warpline"}
    if probe.status != "ok" or probe.integrity == "damaged" or (
            last is not None and not last.get("ok")):
        return {"command": f"warpline doctor --fix --repo {repo_arg}",
                "why": "the store or the last background ingest is broken"}
    if probe.commits_behind_head:
        return {"command": f"warpline backfill --repo {repo_arg}", "why": "catches the store "
                "up to HEAD"}
    if not installed:
        return install
    if snapshot is None or snapshot["commits_behind_head"] != 0:
        return {"command": f"warpline capture-snapshot --repo {repo_arg}",
                "why": "impact and reverify need a current dependency graph"}
    return None
