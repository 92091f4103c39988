"""The closed vocabularies of the v1 wire, one ``Literal`` each.

Every one of these becomes an ``enum`` in the generated JSON Schemas. Adding a value is a
contract change (consumers may switch on them); do it only additively, never rename.
"""

from __future__ import annotations

from typing import Literal

from warpline.errors import Retryability

ToolName = Literal[
    "warpline_change_list",
    "warpline_entity_timeline_get",
    "warpline_entity_churn_count_get",
    "warpline_impact_radius_get",
    "warpline_reverify_worklist_get",
    "warpline_edge_snapshot_capture",
    "warpline_verification_record",
    "warpline_project_status_get",
]

# Enrichment: present (peer present, fact attached), absent (peer present, no fact),
# unavailable (peer unreachable / not consulted); edges adds partial, stale, skipped.
EnrichmentValue = Literal["present", "absent", "unavailable"]
EdgesEnrichmentValue = Literal["present", "partial", "stale", "absent", "skipped", "unavailable"]

Completeness = Literal["FULL", "DELTA", "NO_SNAPSHOT", "SKIPPED"]
# A capture either stores a graph (FULL / DELTA) or cannot (SKIPPED); NO_SNAPSHOT is a query answer.
CaptureCompleteness = Literal["FULL", "DELTA", "SKIPPED"]

ChangeKind = Literal["added", "modified", "removed", "moved"]
ChangeOrigin = Literal["commit", "worktree"]
EntityKind = Literal["file", "module", "class", "function"]
EntityRefKind = Literal["auto", "locator", "sei", "path", "qualname", "warpline_entity_key_id"]
# Federation keys handed to peers and to the follow-up tools (SEI preferred).
ChangedRefKind = Literal["sei", "locator"]
SeiResolution = Literal["resolved", "unresolved", "unknown"]

EdgeKind = Literal["calls", "references"]
EdgeSource = Literal["loomweave", "builtin", "none"]
CaptureMode = Literal["full", "changed_only"]

Reason = Literal["changed", "downstream"]
# What a change means (docs/lineage.md): null on the wire when unknown or for a file.
Nature = Literal["cosmetic", "behavioural", "signature"]
Priority = Literal["P0", "P1", "P2", "P3", "P4", "unknown"]
WorkPriority = Literal["P0", "P1", "P2", "P3", "P4"]
VerificationState = Literal["fresh", "stale", "unverified"]
SuggestionKind = Literal["test", "inspection"]
SelectionBasis = Literal["map", "static", "mixed", "none"]
GroupBy = Literal["entity", "file", "reason", "none"]
FiligreeActionKind = Literal["review_issue", "propose_issue"]

SortOrder = Literal["asc", "desc"]
ChangeListSortBy = Literal["changed_at", "locator", "path", "change_kind", "actor"]
TimelineSortBy = Literal["changed_at"]
ChurnSortBy = Literal["churn_count", "sei", "locator", "last_changed_at"]
ImpactSortBy = Literal["depth", "locator", "path"]
ReverifySortBy = Literal["depth", "priority", "locator", "path"]

StoreStatus = Literal["ok", "store_absent", "store_unreadable", "schema_ahead",
                      "store_damaged"]
SnapshotIdempotency = Literal["created", "already_current", "dry_run"]
VerificationIdempotency = Literal["recorded", "already_recorded"]
# What a recorded pass proved (warpline.scope).
VerificationScope = Literal["whole_suite", "selection", "attested", "unknown"]
VerificationClaim = Literal["local", "ci_identity", "remote_unverified"]
RunSelectionBasis = Literal["map", "mixed", "static", "none", "user"]

__all__ = [
    "CaptureCompleteness",
    "CaptureMode",
    "ChangeKind",
    "ChangeListSortBy",
    "ChangeOrigin",
    "ChangedRefKind",
    "ChurnSortBy",
    "Completeness",
    "EdgeKind",
    "EdgeSource",
    "EdgesEnrichmentValue",
    "EnrichmentValue",
    "EntityKind",
    "EntityRefKind",
    "FiligreeActionKind",
    "GroupBy",
    "ImpactSortBy",
    "Nature",
    "Priority",
    "Reason",
    "Retryability",
    "ReverifySortBy",
    "RunSelectionBasis",
    "SeiResolution",
    "SnapshotIdempotency",
    "SortOrder",
    "StoreStatus",
    "SuggestionKind",
    "TimelineSortBy",
    "ToolName",
    "VerificationClaim",
    "VerificationIdempotency",
    "VerificationScope",
    "VerificationState",
    "WorkPriority",
]
