"""``warpline_edge_snapshot_capture`` / ``capture_snapshot``: store a dated edge graph.

* ``completeness``: FULL when every entity in scope was captured; DELTA when some failed
  (``failed_entities``), when ``max_entities`` cut the capture, and always for
  ``changed_only``; SKIPPED when no source could answer (the attempt is recorded, no graph).
* ``idempotency``: ``created``; ``already_current`` when a FULL snapshot of the same
  commit from the same source and version exists and its source has not changed since
  (or, with ``if_stale_after``, when the commit's snapshot was captured at or after that
  instant); ``dry_run`` when nothing was written. A repeated ``idempotency_key`` with the
  same arguments replays the stored answer; with different arguments it is an error.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from warpline.errors import IdempotencyConflict, InvalidArgument, InvalidChangedRefs, InvalidFilter
from warpline.git.repo import resolve_commit
from warpline.graph.loomweave_source import loomweave_version
from warpline.graph.model import EdgeCapture
from warpline.models import EdgeSnapshotEnvelope
from warpline.models.inputs import EdgeSnapshotCaptureInput
from warpline.service.impact import edge_basis, edge_sources
from warpline.service.impact.capture_scope import apply_max_entities, restrict_to_changed
from warpline.service.impact.gcpause import gc_paused
from warpline.service.shared.choice import choose_snapshot
from warpline.service.shared.context import RepoContext, behind_warning, catch_up, open_repo_only
from warpline.service.shared.envelope import envelope, iso_z, parse_instant
from warpline.store.db import Store, store_path
from warpline.store.snapshots import (
    NewSnapshot,
    SnapshotRow,
    basis,
    remember,
    replay,
    snapshots,
    write_snapshot,
)

TOOL = "warpline_edge_snapshot_capture"
MAX_FAILED_ON_WIRE = 1000


def capture_snapshot(params: EdgeSnapshotCaptureInput, cwd: Path | None) -> dict[str, Any]:
    if params.mode == "changed_only" and not params.changed_refs:
        raise InvalidChangedRefs("mode changed_only needs `changed_refs`: the entities whose "
                                 "edges to capture.", field="changed_refs")
    if params.mode == "full" and params.changed_refs:
        raise InvalidChangedRefs("`changed_refs` is only used with mode changed_only; drop "
                                 "it or pass mode: changed_only.", field="changed_refs")
    stale_after = _instant(params.if_stale_after)
    root, repo = open_repo_only(params.repo, cwd)
    commit = resolve_commit(repo, params.commit or "HEAD", field="commit")
    sha = str(commit.id)
    fingerprint = _fingerprint(root, params)
    warnings: list[str] = []
    if params.dry_run and not store_path(root).is_file():
        store = None  # a dry run creates nothing, not even the store
    else:
        store = Store.open(root)
    try:
        if store is not None and params.idempotency_key is not None:
            stored = replay(store, params.idempotency_key)
            if stored is not None:
                if stored.fingerprint != fingerprint:
                    raise IdempotencyConflict(
                        f"idempotency_key {params.idempotency_key!r} was used with different "
                        "arguments. Repeat the original arguments to replay its answer, or use "
                        "a new key.", field="idempotency_key", value=params.idempotency_key)
                warnings.append(f"Replayed the answer stored for idempotency_key "
                                f"{params.idempotency_key!r}; nothing was captured now.")
                return _envelope(root, params, stored.data, warnings)
        if store is not None and not params.dry_run:
            ctx = RepoContext(root=root, repo=repo, store=store)
            warnings.extend(behind_warning(ctx, catch_up(ctx)))
        head = None if repo.head_is_unborn else str(repo.head.target)
        chosen = edge_sources.plan(root, sha, head)
        if store is not None and not params.dry_run:
            current = _current(store, sha, chosen, stale_after, root)
            if current is not None:
                data = {**_data(current, "already_current"), **basis(store, current.id)}
                if params.idempotency_key is not None:
                    data = remember(store, params.idempotency_key, fingerprint, data).data
                return _envelope(root, params, data, warnings)
        # A twin: the same capture stored by a racing call from now on (and no older than
        # the caller's if_stale_after).
        checked_at = max(int(time.time()), stale_after or 0)
        with gc_paused():
            capture, notes = edge_sources.run(chosen, root, repo, commit)
            warnings.extend(notes)
            best = choose_snapshot(store, repo) if store is not None else None
            return _capture(root, repo_store=store, params=params, sha=sha, capture=capture,
                            fingerprint=fingerprint, warnings=warnings,
                            protect=() if best is None else (best.row.id,),
                            twin_since=checked_at)
    finally:
        if store is not None:
            store.close()


def _capture(root: Path, *, repo_store: Store | None, params: Any, sha: str,
             capture: EdgeCapture | None, fingerprint: str, warnings: list[str],
             protect: tuple[int, ...], twin_since: int | None = None) -> dict[str, Any]:
    failed: tuple[tuple[str, str], ...] = ()
    if capture is not None:
        if params.mode == "changed_only":
            capture = restrict_to_changed(capture, params.changed_refs, repo_store, root,
                                          warnings)
        capture = apply_max_entities(capture, params.max_entities, params.changed_refs)
        failed = capture.failed_entities
        warnings.extend(_degraded_warning(capture))
    completeness = edge_basis.completeness_of(capture, params.mode)
    if capture is not None and edge_basis.edgeless(capture):
        warnings.append(f"The {capture.source} source gave no edges although the code has "
                        f"{capture.unresolved} call sites: the snapshot is DELTA, answers "
                        "over it cannot trace dependents.")
    if len(failed) > MAX_FAILED_ON_WIRE:
        warnings.append(f"{len(failed)} entities failed; `failed_entities` lists the first "
                        f"{MAX_FAILED_ON_WIRE}.")
    new = NewSnapshot(
        commit_sha=sha,
        source=capture.source if capture is not None else "none",
        source_version=capture.source_version if capture is not None else "no_index",
        mode=params.mode, completeness=completeness, captured_at=int(time.time()),
        capture=capture, failed_entities=failed, idempotency_key=params.idempotency_key,
        fingerprint=fingerprint)
    if params.dry_run or repo_store is None:
        return _envelope(root, params, snapshot_data(new, None, "dry_run"), warnings)
    _, data, raced = write_snapshot(repo_store, new, lambda sid: snapshot_data(new, sid, "created"),
                                    protect=protect, twin_since=twin_since,
                                    twin_result=lambda row: _data(row, "already_current"))
    if raced is not None and raced.fingerprint != fingerprint:
        raise IdempotencyConflict(
            f"idempotency_key {params.idempotency_key!r} was used meanwhile with different "
            "arguments; use a new key.", field="idempotency_key", value=params.idempotency_key)
    return _envelope(root, params, data, warnings)


def _instant(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return parse_instant(value, "if_stale_after")
    except InvalidFilter as exc:
        raise InvalidArgument(exc.hint, field="if_stale_after", value=value) from exc


def _fingerprint(root: Path, params: Any) -> str:
    material = params.model_dump(mode="json", exclude={"idempotency_key", "repo"})
    material["repo"] = str(root)
    blob = json.dumps(material, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def _current(store: Store, sha: str, chosen: edge_sources.SourcePlan, stale_after: int | None,
             root: Path) -> SnapshotRow | None:
    """The snapshot of ``sha`` that makes a new capture pointless, if there is one."""
    same_commit = [row for row in snapshots(store) if row.commit_sha == sha]
    if not same_commit:
        return None
    ranked = sorted(same_commit, key=lambda r: (r.completeness != "FULL", r.mode != "full",
                                                -r.captured_at, -r.id))
    if stale_after is not None:
        best = ranked[0]
        return best if best.captured_at >= stale_after else None
    if chosen.source == "loomweave":
        version = loomweave_version()
        source_changed_at = edge_sources.index_mtime(root)
    elif chosen.source == "builtin":
        version, source_changed_at = edge_sources.builtin_version(), 0
    else:
        return None
    for row in ranked:
        if (row.completeness == "FULL" and row.mode == "full" and row.source == chosen.source
                and row.source_version == version and source_changed_at <= row.captured_at):
            return row
    return None


def _data(row: SnapshotRow, idempotency: str) -> dict[str, Any]:
    failed = row.failed_entities[:MAX_FAILED_ON_WIRE]
    return {
        "snapshot_id": row.id, "commit_sha": row.commit_sha, "source": row.source,
        "source_version": row.source_version, "completeness": row.completeness,
        "mode": row.mode, "entities": row.entity_count, "edges": row.edge_count,
        "failed_entities": [{"locator": loc, "reason": why} for loc, why in failed],
        "idempotency": idempotency, "captured_at": iso_z(row.captured_at),
    }


def snapshot_data(new: NewSnapshot, snapshot_id: int | None, idempotency: str) -> dict[str, Any]:
    capture = new.capture
    return {
        "snapshot_id": None if new.completeness == "SKIPPED" else snapshot_id,
        "commit_sha": new.commit_sha, "source": new.source,
        "source_version": new.source_version, "completeness": new.completeness,
        "mode": new.mode,
        "entities": len(capture.entities) if capture is not None else 0,
        "edges": len(capture.edges) if capture is not None else 0,
        "failed_entities": [{"locator": loc, "reason": why}
                            for loc, why in new.failed_entities[:MAX_FAILED_ON_WIRE]],
        "unresolved_calls": capture.unresolved if capture is not None else None,
        "edge_sources": edge_basis.shares(capture) if capture is not None else [],
        "idempotency": idempotency,
        "captured_at": None if idempotency == "dry_run" else iso_z(new.captured_at),
    }


def _degraded_warning(capture: EdgeCapture) -> list[str]:
    if not capture.degraded_files:
        return []
    path, reason = capture.degraded_files[0]
    return [f"loomweave reports incomplete call/reference resolution in "
            f"{len(capture.degraded_files)} files (first: {path}: {reason}); their edges may "
            "be a floor. Pin the interpreter (LOOMWEAVE_PYTHON_INTERPRETER) and put `node` on "
            "PATH, then `loomweave analyze`."]


def _envelope(root: Path, params: Any, data: dict[str, Any],
              warnings: list[str]) -> dict[str, Any]:
    edges = {"FULL": "present", "DELTA": "partial", "SKIPPED": "skipped"}[data["completeness"]]
    if data["source"] == "loomweave":
        sei = "present" if data["entities"] else "absent"
    else:
        sei = "unavailable"
    if data["completeness"] == "DELTA" and data["mode"] == "changed_only":
        warnings.append("The snapshot is DELTA: a changed_only capture holds only the named "
                        "entities, the edges touching them and their neighbours. It never "
                        "shadows a fuller snapshot.")
    elif data["completeness"] == "DELTA" and data["failed_entities"]:
        warnings.append(f"The snapshot is DELTA: {len(data['failed_entities'])}+ entities "
                        "failed to capture (see failed_entities); answers over it are a floor.")
    said = edge_basis.warning(data.get("unresolved_calls"), data["edges"])
    if said is not None:
        warnings.append(said)
    actions: dict[str, Any] = {}
    if data["completeness"] == "SKIPPED":
        warnings.append("No edge source could answer: nothing was captured.")
        actions["commands"] = [{"command": f"loomweave analyze {root}",
                                "why": "Index the repository with loomweave, then capture "
                                       "again (or enable the built-in source)."}]
    return envelope(model=EdgeSnapshotEnvelope, tool=TOOL, repo=root, params=params, data=data,
                    warnings=warnings, next_actions=actions,
                    enrichment={"sei": sei, "edges": edges})
