"""The graph contracts: ``warpline.impact_radius.v1`` and ``warpline.edge_snapshot.v1``,
plus the pieces the re-verify worklist shares (edges on the wire, staleness)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from warpline.limits import MAX_DEPTH
from warpline.models.common import Count, EntityOut, IngestStatus, Page, Timestamp, WireModel
from warpline.models.envelope import EnvelopeBase
from warpline.models.vocab import (
    CaptureCompleteness,
    CaptureMode,
    Completeness,
    EdgeKind,
    EdgeSource,
    SnapshotIdempotency,
)


class ViaEdge(WireModel):
    """A stored edge as the indexer gives it (calls: caller -> callee, references:
    referrer -> referenced). Endpoints are locators, never internal ids."""

    from_: str = Field(alias="from", description="Locator of the caller / referrer.")
    to: str = Field(description="Locator of the callee / referenced entity.")
    from_sei: str | None = None
    to_sei: str | None = None
    kind: EdgeKind
    confidence: str | None = Field(
        default=None, description="The source's own confidence label, e.g. resolved, ambiguous."
    )


class Staleness(WireModel):
    """Which snapshot answered and how it relates to HEAD. Mandatory in every answer."""

    snapshot_id: int | None = Field(default=None, description="Null when no snapshot exists.")
    snapshot_commit: str | None = None
    snapshot_source: EdgeSource | None = None
    snapshot_captured_at: Timestamp | None = None
    head_commit: str | None = None
    commits_behind: Count | None = Field(
        default=None,
        description="Commits from the snapshot commit to HEAD; null when there is no "
        "snapshot or it is not an ancestor of HEAD.",
    )
    is_ancestor: bool | None = Field(
        default=None, description="Whether the snapshot commit is an ancestor of HEAD."
    )
    stale: bool = Field(
        default=False,
        description="True when the graph may not describe HEAD (behind, not an ancestor, "
        "or the working tree touches graph files).",
    )
    dirty_paths: list[str] = Field(
        default_factory=list,
        description="Uncommitted paths that touch files in the graph (repo-relative).",
    )


class EdgeSourceShare(WireModel):
    """What one edge source contributed to a snapshot."""

    source: EdgeSource
    entities: Count = Field(description="Entities this source gave (a merge keeps the "
                            "preferred source's entity when both give one).")
    edges: Count = Field(description="Edges this source gave that the other did not.")
    unresolved_calls: Count | None = Field(
        default=None, description="Call sites this source could not resolve to a target "
        "(no edge was invented for them); null when the source does not say.")


class EdgeBasis(WireModel):
    """How far the graph's edges can be trusted: which source gave what, and how many call
    sites no source resolved. Unresolved call sites mean dependents and tests reached only
    through them (calls through variables, parameters, framework dispatch) are missing."""

    unresolved_calls: Count | None = Field(
        default=None, description="Call sites of the snapshot left without an edge; null when "
        "the snapshot predates the count.")
    edge_sources: list[EdgeSourceShare] = Field(default_factory=list)
    meaning: str = Field(default="", description="What the counts mean for this answer.")


class ChangedSeed(WireModel):
    entity: EntityOut
    in_snapshot: bool | None = Field(
        default=None, description="Whether the seed is a node of the graph; null without one."
    )


class AffectedItem(WireModel):
    """A dependent of a changed entity (caller / referrer, transitively)."""

    entity: EntityOut
    depth: int = Field(ge=1, le=MAX_DEPTH)
    seed: str = Field(description="Locator of the changed entity this path starts at.")
    via_edges: list[ViaEdge] = Field(
        description="The path from the seed outward: the first edge points at the seed."
    )


class ImpactRadiusData(WireModel):
    completeness: Completeness
    staleness: Staleness
    edge_basis: EdgeBasis | None = Field(
        default=None, description="The snapshot's unresolved call sites and edge sources; "
        "null without a snapshot.")
    changed: list[ChangedSeed]
    affected: list[AffectedItem] = Field(
        description="Empty under NO_SNAPSHOT means 'no graph', never 'nothing affected'."
    )
    ingest: IngestStatus
    total: Count = Field(description="Items across all pages (after filters).")
    page: Page
    changed_edges: list[ViaEdge] = Field(
        default_factory=list, description="The graph's edges between listed changed "
        "entities (caller -> callee), at most 500: how the change hangs together.")


class ImpactRadiusEnvelope(EnvelopeBase):
    """Downstream affected entities over the best usable snapshot."""

    schema_: Literal["warpline.impact_radius.v1"] = Field(
        default="warpline.impact_radius.v1", alias="schema"
    )
    data: ImpactRadiusData


class FailedEntity(WireModel):
    locator: str
    reason: str


class EdgeSnapshotData(WireModel):
    snapshot_id: int | None = Field(
        description="The stored (or replayed) snapshot; null for dry_run and SKIPPED."
    )
    commit_sha: str
    source: EdgeSource
    source_version: str = Field(
        description="The source's version (loomweave's, or builtin-<warpline version>); "
        "'no_index' when no source could answer."
    )
    completeness: CaptureCompleteness
    mode: CaptureMode = "full"
    entities: Count
    edges: Count
    failed_entities: list[FailedEntity] = Field(default_factory=list)
    unresolved_calls: Count | None = Field(
        default=None, description="Call sites no source resolved to a target (no edge was "
        "invented for them): answers over this snapshot miss what is reached only through "
        "them. Null when the source does not say.")
    edge_sources: list[EdgeSourceShare] = Field(
        default_factory=list, description="Which source gave which entities and edges (two "
        "entries when loomweave's capture was completed by the built-in extractor).")
    idempotency: SnapshotIdempotency
    captured_at: Timestamp | None = Field(description="Null for dry_run.")


class EdgeSnapshotEnvelope(EnvelopeBase):
    """A captured edge snapshot, stored under .weft/warpline/."""

    schema_: Literal["warpline.edge_snapshot.v1"] = Field(
        default="warpline.edge_snapshot.v1", alias="schema"
    )
    data: EdgeSnapshotData
