"""``warpline install``: wire warpline into one repository, idempotently.

Components, in the order they are applied: ``ignore`` (``/.weft/`` in git's exclude
file), ``config`` (``.weft/warpline/config.json``), ``mcp`` (the ``.mcp.json`` entry),
``hooks`` (post-commit, post-merge, post-rewrite), then the first backfill. ``hooks``
and ``mcp`` imply ``config``: it tells doctor what to check, and the hooks' background
process only ingests where a config says warpline was installed. Every write goes through
``ensure_file`` / ``write_atomic``, so a second install reports ``unchanged`` everywhere
and leaves every byte as it was.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warpline.ingest import lock as ingestlock
from warpline.ingest.report import Progress
from warpline.service.shared.context import open_repo_only
from warpline.setup import hooks, ingest_log, mcp_config, trust
from warpline.setup._files import PROBLEMS, Action, Result
from warpline.setup.executables import command_for, portable_command
from warpline.setup.hook_runner import LOCK_WAIT_S, catch_up
from warpline.setup.local_state import ensure_ignored, write_config
from warpline.store.db import store_path

COMPONENTS: tuple[str, ...] = ("ignore", "config", "mcp", "hooks")


@dataclass(slots=True)
class InstallReport:
    """What `warpline install` did, action by action."""
    repo: Path
    actions: list[Action] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(a.result in PROBLEMS for a in self.actions)

    @property
    def changed(self) -> bool:
        return any(a.result in ("created", "updated") for a in self.actions)

    def to_dict(self) -> dict[str, Any]:
        return {"repo": str(self.repo), "ok": self.ok, "changed": self.changed,
                "actions": [a.to_dict() for a in self.actions]}


def install(repo: str, cwd: Path | None = None, *, components: Sequence[str] = (),
            backfill: bool = True, progress: Progress | None = None,
            source: str = "install", shared_mcp: bool = False) -> InstallReport:
    """Apply ``components`` (all when empty), then backfill unless told not to.
    ``shared_mcp``: a ``.mcp.json`` git tracks may be changed too (else it is left alone,
    and the report says so)."""
    root, handle = open_repo_only(repo, cwd)
    selected = set(components or COMPONENTS)
    if selected & {"hooks", "mcp"}:
        selected.add("config")  # what doctor checks, and the hooks' go-ahead
    report = InstallReport(root)
    warpline_cmd = command_for("warpline")
    mcp_cmd = portable_command("warpline-mcp")  # .mcp.json is committed: no machine path
    paths = hooks.git_paths(root) if selected & {"hooks", "ignore"} else None
    # Every place install writes is checked before the first write: nothing half-done.
    if "hooks" in selected and paths is not None:
        hooks.check_writable(root, paths)
    if "ignore" in selected and paths is not None:
        trust.refuse_escape(paths.common_dir / "info" / "exclude", [paths.common_dir],
                            "git's exclude file")
    if "mcp" in selected:
        trust.refuse_escape(root / mcp_config.MCP_FILE, [root], mcp_config.MCP_FILE)
    if "ignore" in selected and paths is not None:
        report.actions.append(ensure_ignored(root, paths.common_dir))
    if "config" in selected:
        settings: dict[str, Any] = {}
        if "hooks" in selected:
            settings["hooks"] = {"names": list(hooks.HOOK_NAMES), "command": warpline_cmd}
        if "mcp" in selected:
            settings["mcp"] = {"command": mcp_cmd}
        report.actions.extend(write_config(root, sorted(selected), settings))
    if "mcp" in selected:
        from warpline.git.lookups import is_tracked

        report.actions.append(mcp_config.register(
            root, mcp_cmd, tracked=is_tracked(handle, mcp_config.MCP_FILE),
            shared=shared_mcp))
    if "hooks" in selected and paths is not None:
        note = _shared_hooks_note(root, paths)
        for name in hooks.HOOK_NAMES:
            action = hooks.install_hook(paths.hooks_dir, name, warpline_cmd)
            if note and action.result != "conflict":
                action = Action(action.component, action.target, action.result,
                                "; ".join(filter(None, (action.detail, note))))
            report.actions.append(action)
    if backfill:
        report.actions.append(run_backfill(root, progress=progress, source=source))
    return report


def _shared_hooks_note(root: Path, paths: hooks.GitPaths) -> str:
    hooks_dir = paths.hooks_dir.resolve()
    if hooks_dir.is_relative_to(paths.common_dir.resolve()) or hooks_dir.is_relative_to(root):
        return ""
    return (f"core.hooksPath is {hooks_dir}, outside this repository: other repositories "
            "using it run these hooks too (they ingest only where warpline is installed)")


def run_backfill(root: Path, *, progress: Progress | None = None,
                 source: str = "install") -> Action:
    """Catch the store up to HEAD in this process, and log it like a hook run."""
    target = store_path(root)
    existed = target.exists()
    started = time.monotonic()
    try:
        # Not beside a background ingest (a hook's, or one a read left running): after it.
        with ingestlock.exclusive(root, LOCK_WAIT_S):
            outcome = catch_up(root, progress=progress)
    except Exception as exc:  # a corrupt store, a full disk: report it, keep the rest
        error = f"{type(exc).__name__}: {getattr(exc, 'hint', exc)}"
        ingest_log.append(root, {"hook": source, "ok": False, "error": error[:2000]})
        return Action("backfill", str(target), "failed",
                      f"{error} (`warpline doctor --fix` can rebuild a broken store)")
    seconds = round(time.monotonic() - started, 3)
    ingest_log.append_if_news(root, {"hook": source, **outcome, "seconds": seconds})
    count = outcome["ingested"]
    detail = f"ingested {count} commit{'s' if count != 1 else ''} in {seconds:.1f}s"
    if not outcome["ok"]:
        return Action("backfill", str(target), "failed",
                      f"{detail}; {outcome['failed']} failed (first: {outcome['error']})")
    result: Result = "created" if not existed else ("updated" if count else "unchanged")
    return Action("backfill", str(target), result, detail)
