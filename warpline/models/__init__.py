"""Pydantic models of every warpline v1 envelope and input (the tool table is `warpline.registry`).

Build an envelope with the model, serialise it with ``dump``; the JSON Schemas in
``contracts/`` are generated from these models (``python -m warpline.models.schemas``).

The names below load lazily (PEP 562): ``from warpline.models import X`` imports only the
submodule that defines ``X``, so a tool call builds the models of that tool and no other
(start-up is a hot path: loomweave spawns ``warpline-mcp`` once per call). Every model
also defers building its validator to its first use (``defer_build``, see ``common.py``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from warpline.models.admin import (
        ProjectStatusData,
        ProjectStatusEnvelope,
        StoreInfo,
        VerificationRecordData,
        VerificationRecordEnvelope,
    )
    from warpline.models.common import (
        TIMESTAMP_PATTERN,
        ChangedRef,
        EntityOut,
        EntityRef,
        EntityRefInput,
        IngestStatus,
        Page,
        RefEcho,
        Timestamp,
        WireModel,
        dump,
        iso_z,
    )
    from warpline.models.envelope import (
        CommandAction,
        Enrichment,
        EnvelopeBase,
        FiligreeAction,
        Meta,
        NextActions,
        Producer,
        Query,
        QueryPage,
        QuerySort,
        ToolAction,
    )
    from warpline.models.error import (
        ErrorCode,
        ErrorDetails,
        ErrorEnvelope,
    )
    from warpline.models.graph import (
        AffectedItem,
        ChangedSeed,
        EdgeSnapshotData,
        EdgeSnapshotEnvelope,
        FailedEntity,
        ImpactRadiusData,
        ImpactRadiusEnvelope,
        Staleness,
        ViaEdge,
    )
    from warpline.models.history import (
        ChangeItem,
        ChangeListData,
        ChangeListEnvelope,
        ChurnItem,
        ChurnWindowOut,
        EntityChurnCountData,
        EntityChurnCountEnvelope,
        EntityTimelineData,
        EntityTimelineEnvelope,
        RevRangeInfo,
        TimelineEntity,
        TimelineItem,
    )
    from warpline.models.inputs import (
        MAX_CHURN_REFS,
        MAX_SEED_REFS,
        ChangeListFilters,
        ChangeListInput,
        ChurnWindow,
        EdgeSnapshotCaptureInput,
        EntityChurnCountInput,
        EntityTimelineInput,
        ImpactFilters,
        ImpactRadiusInput,
        ProjectStatusInput,
        ReverifyFilters,
        ReverifyWorklistInput,
        TimelineFilters,
        VerificationRecordInput,
    )
    from warpline.models.vocab import (
        CaptureCompleteness,
        CaptureMode,
        ChangedRefKind,
        ChangeKind,
        ChangeListSortBy,
        ChangeOrigin,
        ChurnSortBy,
        Completeness,
        EdgeKind,
        EdgesEnrichmentValue,
        EdgeSource,
        EnrichmentValue,
        EntityKind,
        EntityRefKind,
        FiligreeActionKind,
        GroupBy,
        ImpactSortBy,
        Priority,
        Reason,
        ReverifySortBy,
        SeiResolution,
        SnapshotIdempotency,
        SortOrder,
        StoreStatus,
        SuggestionKind,
        TimelineSortBy,
        ToolName,
        VerificationIdempotency,
        VerificationState,
        WorkPriority,
    )
    from warpline.models.worklist import (
        ItemEnrichment,
        ReverifyWorklistData,
        ReverifyWorklistEnvelope,
        SuggestedVerification,
        Verification,
        VerificationSummary,
        WorkLink,
        WorklistGroup,
        WorklistItem,
    )

# Where each public name lives (a test checks this against ``__all__``).
_SUBMODULE: dict[str, str] = {name: sub for sub, names in (
    ("admin", (
        "ProjectStatusData", "ProjectStatusEnvelope", "StoreInfo", "VerificationRecordData",
        "VerificationRecordEnvelope"
    )),
    ("common", (
        "TIMESTAMP_PATTERN", "ChangedRef", "EntityOut", "EntityRef", "EntityRefInput",
        "IngestStatus", "Page", "RefEcho", "Timestamp", "WireModel", "dump", "iso_z"
    )),
    ("envelope", (
        "CommandAction", "Enrichment", "EnvelopeBase", "FiligreeAction", "Meta", "NextActions",
        "Producer", "Query", "QueryPage", "QuerySort", "ToolAction"
    )),
    ("error", (
        "ErrorCode", "ErrorDetails", "ErrorEnvelope"
    )),
    ("graph", (
        "AffectedItem", "ChangedSeed", "EdgeSnapshotData", "EdgeSnapshotEnvelope",
        "FailedEntity", "ImpactRadiusData", "ImpactRadiusEnvelope", "Staleness", "ViaEdge"
    )),
    ("history", (
        "ChangeItem", "ChangeListData", "ChangeListEnvelope", "ChurnItem", "ChurnWindowOut",
        "EntityChurnCountData", "EntityChurnCountEnvelope", "EntityTimelineData",
        "EntityTimelineEnvelope", "RevRangeInfo", "TimelineEntity", "TimelineItem"
    )),
    ("inputs", (
        "MAX_CHURN_REFS", "MAX_SEED_REFS", "ChangeListFilters", "ChangeListInput",
        "ChurnWindow", "EdgeSnapshotCaptureInput", "EntityChurnCountInput",
        "EntityTimelineInput", "ImpactFilters", "ImpactRadiusInput", "ProjectStatusInput",
        "ReverifyFilters", "ReverifyWorklistInput", "TimelineFilters", "VerificationRecordInput"
    )),
    ("vocab", (
        "CaptureCompleteness", "CaptureMode", "ChangeKind", "ChangeListSortBy", "ChangeOrigin",
        "ChangedRefKind", "ChurnSortBy", "Completeness", "EdgeKind", "EdgeSource",
        "EdgesEnrichmentValue", "EnrichmentValue", "EntityKind", "EntityRefKind",
        "FiligreeActionKind", "GroupBy", "ImpactSortBy", "Priority", "Reason", "ReverifySortBy",
        "SeiResolution", "SnapshotIdempotency", "SortOrder", "StoreStatus", "SuggestionKind",
        "TimelineSortBy", "ToolName", "VerificationIdempotency", "VerificationState",
        "WorkPriority"
    )),
    ("worklist", (
        "ItemEnrichment", "ReverifyWorklistData", "ReverifyWorklistEnvelope",
        "SuggestedVerification", "Verification", "VerificationSummary", "WorkLink",
        "WorklistGroup", "WorklistItem"
    )),
) for name in names}


def __getattr__(name: str) -> Any:
    sub = _SUBMODULE.get(name)
    if sub is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{sub}"), name)
    globals()[name] = value  # the next lookup is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "MAX_CHURN_REFS",
    "MAX_SEED_REFS",
    "TIMESTAMP_PATTERN",
    "AffectedItem",
    "CaptureCompleteness",
    "CaptureMode",
    "ChangeItem",
    "ChangeKind",
    "ChangeListData",
    "ChangeListEnvelope",
    "ChangeListFilters",
    "ChangeListInput",
    "ChangeListSortBy",
    "ChangeOrigin",
    "ChangedRef",
    "ChangedRefKind",
    "ChangedSeed",
    "ChurnItem",
    "ChurnSortBy",
    "ChurnWindow",
    "ChurnWindowOut",
    "CommandAction",
    "Completeness",
    "EdgeKind",
    "EdgeSnapshotCaptureInput",
    "EdgeSnapshotData",
    "EdgeSnapshotEnvelope",
    "EdgeSource",
    "EdgesEnrichmentValue",
    "Enrichment",
    "EnrichmentValue",
    "EntityChurnCountData",
    "EntityChurnCountEnvelope",
    "EntityChurnCountInput",
    "EntityKind",
    "EntityOut",
    "EntityRef",
    "EntityRefInput",
    "EntityRefKind",
    "EntityTimelineData",
    "EntityTimelineEnvelope",
    "EntityTimelineInput",
    "EnvelopeBase",
    "ErrorCode",
    "ErrorDetails",
    "ErrorEnvelope",
    "FailedEntity",
    "FiligreeAction",
    "FiligreeActionKind",
    "GroupBy",
    "ImpactFilters",
    "ImpactRadiusData",
    "ImpactRadiusEnvelope",
    "ImpactRadiusInput",
    "ImpactSortBy",
    "IngestStatus",
    "ItemEnrichment",
    "Meta",
    "NextActions",
    "Page",
    "Priority",
    "Producer",
    "ProjectStatusData",
    "ProjectStatusEnvelope",
    "ProjectStatusInput",
    "Query",
    "QueryPage",
    "QuerySort",
    "Reason",
    "RefEcho",
    "RevRangeInfo",
    "ReverifyFilters",
    "ReverifySortBy",
    "ReverifyWorklistData",
    "ReverifyWorklistEnvelope",
    "ReverifyWorklistInput",
    "SeiResolution",
    "SnapshotIdempotency",
    "SortOrder",
    "Staleness",
    "StoreInfo",
    "StoreStatus",
    "SuggestedVerification",
    "SuggestionKind",
    "TimelineEntity",
    "TimelineFilters",
    "TimelineItem",
    "TimelineSortBy",
    "Timestamp",
    "ToolAction",
    "ToolName",
    "Verification",
    "VerificationIdempotency",
    "VerificationRecordData",
    "VerificationRecordEnvelope",
    "VerificationRecordInput",
    "VerificationState",
    "VerificationSummary",
    "ViaEdge",
    "WireModel",
    "WorkLink",
    "WorkPriority",
    "WorklistGroup",
    "WorklistItem",
    "dump",
    "iso_z",
]
