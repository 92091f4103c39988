"""``warpline_project_status_get`` / ``project_status``: can this build serve repo's store?

The one genuinely read-only tool (``writes_local_state: false``): it opens the repository
without creating anything, reads the store through ``warpline.store.probe`` (``mode=ro``),
and never creates, migrates or catches up the store. ``binding_ok`` is true iff the store is
present, readable and at a schema version this build serves; otherwise ``warnings[0]`` says
why and ``next_actions.commands`` names what would fix it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pygit2

from warpline.git.shallow import boundary, partial_history_warning
from warpline.models import ProjectStatusEnvelope
from warpline.models.inputs import ProjectStatusInput
from warpline.service.shared.choice import choose_snapshot
from warpline.service.shared.context import open_repo_only
from warpline.service.shared.envelope import envelope
from warpline.store import integrity
from warpline.store.db import Store
from warpline.store.migrations import SCHEMA_VERSION
from warpline.store.probe import StoreProbe, probe_store

TOOL = "warpline_project_status_get"


def project_status(params: ProjectStatusInput, cwd: Path | None) -> dict[str, Any]:
    root, repo = open_repo_only(params.repo, cwd)
    probe = probe_store(root, repo, _snapshot_rev)
    damaged = probe.status == "ok" and probe.integrity == "damaged"
    served = probe.status == "ok" and not damaged
    data = {
        "resolved_root": str(root),
        "store": {
            "present": probe.present,
            "readable": probe.readable,
            "schema_version": probe.schema_version if probe.status == "ok" else None,
            "snapshot_rev": probe.snapshot_rev,
            "change_event_count": probe.change_event_count,
            "commits_behind_head": probe.commits_behind_head,
            "integrity": probe.integrity,
        },
        "store_status": "store_damaged" if damaged else probe.status,
        "binding_ok": served,
        "served_schema_version": SCHEMA_VERSION,
        "shallow": bool(boundary(repo)),
    }
    warnings, commands = _advice(root, probe)
    if data["shallow"]:
        warnings.append(partial_history_warning(len(boundary(repo))))
    return envelope(model=ProjectStatusEnvelope, tool=TOOL, repo=root, params=params,
                    data=data, warnings=warnings,
                    next_actions={"commands": commands} if commands else {})


def _snapshot_rev(store: Store, repo: pygit2.Repository) -> str | None:
    """The commit of the snapshot impact and reverify would use (same choice, read-only)."""
    choice = choose_snapshot(store, repo)
    return None if choice is None else choice.row.commit_sha


def _advice(root: Path, probe: StoreProbe) -> tuple[list[str], list[dict[str, str]]]:
    """The reason first (``warnings[0]`` when not bound), and the commands that would help."""
    repo_arg = shlex.quote(str(root))
    backfill = f"warpline backfill --repo {repo_arg}"
    capture = f"warpline capture-snapshot --repo {repo_arg}"
    where = probe.path
    if probe.status == "store_absent":
        return ([f"No warpline store at {where}: nothing has been recorded for this repository "
                 f"yet. Run `{backfill}` to create it (and `{capture}` for the dependency "
                 "graph)."],
                [{"command": backfill, "why": "Creates the store and ingests the history "
                  "reachable from HEAD."},
                 {"command": capture, "why": "Captures the dependency graph that impact and "
                  "reverify use."}])
    if probe.status == "schema_ahead":
        return ([f"The store at {where} has schema version {probe.schema_version}, newer "
                 f"than this warpline build serves (up to {SCHEMA_VERSION}): it was written "
                 "by a newer warpline. Upgrade warpline; the store is left as it is."],
                [{"command": "pip install -U warpline",
                  "why": f"This build serves store schema up to {SCHEMA_VERSION}."}])
    if probe.status == "store_unreadable":
        return ([f"The store at {where} cannot be read ({probe.reason}). Move it aside and "
                 f"run `{backfill}` to rebuild it from git."],
                [{"command": backfill, "why": "Rebuilds the store from git history, once the "
                  "unreadable file has been moved aside."}])
    warnings: list[str] = []
    commands: list[dict[str, str]] = []
    if probe.integrity == "damaged":
        warnings.append(integrity.damage_words(root, probe.damage or "damaged"))
        commands.append({"command": integrity.repair_command(root), "why": "Moves the "
                         "damaged store aside (kept, not deleted) and rebuilds it from git."})
    if probe.missing_object is not None:
        fsck = f"git -C {repo_arg} fsck --connectivity-only"
        warnings.append(f"The repository lacks commit {probe.missing_object}, which the "
                        "history from HEAD needs (no shallow boundary explains it): the "
                        "history past it cannot be read, so the count of commits behind is "
                        "a lower bound and read tools answer invalid_repo. "
                        f"`{fsck}` names what is missing; fetch it again or re-clone.")
        commands.append({"command": fsck, "why": "Names the objects missing from the "
                         "repository's history."})
    behind = probe.commits_behind_head
    if behind:
        count = f"at least {behind}" if probe.behind_is_lower_bound else str(behind)
        warnings.append(f"The store is {count} commits behind HEAD; read tools catch up within "
                        f"their time budget, `{backfill}` catches up completely.")
        commands.append({"command": backfill, "why": f"The store is {count} commits behind "
                         "HEAD."})
    if probe.snapshot_rev is None:
        commands.append({"command": capture, "why": "No usable dependency-graph snapshot is "
                         "stored yet; impact and reverify need one for downstream items."})
    return warnings, commands
