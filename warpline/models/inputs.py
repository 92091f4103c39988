"""One closed input model per tool (``additionalProperties: false``): an unknown argument,
an unknown filter key or a wrong type is rejected, naming the field.

Models are strict (no "2" -> 2 coercion) so that validating with pydantic and validating
with the published JSON Schema agree. Rules the schema cannot express (e.g. timeline needs
``entity_ref`` or ``entity``) are the service's to enforce.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from warpline.limits import DEFAULT_DEPTH, DEPTH_RANGE, MAX_DEPTH
from warpline.limits import MAX_CHURN_REFS as MAX_CHURN_REFS  # re-exported
from warpline.models.common import EntityRefInput, NonEmptyStr
from warpline.models.vocab import (
    CaptureMode,
    ChangeKind,
    ChangeListSortBy,
    ChurnSortBy,
    EdgeKind,
    EntityKind,
    GroupBy,
    ImpactSortBy,
    Reason,
    ReverifySortBy,
    SortOrder,
    TimelineSortBy,
    VerificationState,
)

MAX_SEED_REFS = 10_000

Repo = Annotated[str, Field(min_length=1, description="Path of the git repository.")]
# Every tool's ``repo``: left out, the repository the caller's working directory is in
# (the MCP server's, the CLI's): ``service/shared/context.resolve_repo_path``.
OptionalRepo = Annotated[
    NonEmptyStr | None,
    Field(description="Path of the git repository; left out: the repository the working "
          "directory is in."),
]
Instant = Annotated[
    str,
    Field(
        min_length=1,
        description="ISO-8601 instant (2026-06-25T10:00:00Z or with an offset) or date.",
    ),
]
Cursor = Annotated[
    str | None, Field(description="next_cursor from the previous page; null for the first.")
]
Depth = Annotated[int, Field(ge=0, le=MAX_DEPTH,
                             description=f"Dependency hops to follow, {DEPTH_RANGE}.")]
RevRange = Annotated[
    NonEmptyStr | None,
    Field(description="Git revision range, e.g. HEAD~3..HEAD; a single rev "
          "means that one commit."),
]
SeedRefs = Annotated[
    list[EntityRefInput] | None,
    Field(max_length=MAX_SEED_REFS, description="Seed entities as {kind, value} refs "
          "(SEIs preferred) or bare strings."),
]
KeyIds = Annotated[
    list[Annotated[int, Field(ge=1)]] | None,
    Field(max_length=MAX_SEED_REFS, description="Seed entities by warpline key id."),
]
IncludeWorktree = Annotated[
    bool, Field(description="Also use uncommitted working-tree changes against HEAD.")
]

_Kinds = Annotated[list[ChangeKind], Field(min_length=1)]
_EntityKinds = Annotated[list[EntityKind], Field(min_length=1)]
_EdgeKinds = Annotated[list[EdgeKind], Field(min_length=1)]
_Paths = Annotated[
    list[NonEmptyStr],
    Field(min_length=1, max_length=1000, description="Repo-relative path prefixes."),
]


class _Closed(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)


class _ToolInput(_Closed):
    repo: OptionalRepo = None


class ChangeListFilters(_Closed):
    """All given filters must match; omit a key for 'any'."""

    change_kinds: _Kinds | None = None
    entity_kinds: _EntityKinds | None = None
    paths: _Paths | None = None
    actors: Annotated[list[NonEmptyStr], Field(min_length=1, max_length=100)] | None = Field(
        default=None, description="Case-insensitive substrings of the author 'Name <email>'."
    )
    since: Instant | None = None
    until: Instant | None = None


class ChangeListInput(_ToolInput):
    rev_range: RevRange = None
    base_ref: NonEmptyStr | None = Field(default=None, description="Range base (exclusive).")
    head_ref: NonEmptyStr | None = Field(default=None, description="Range head (inclusive).")
    filters: ChangeListFilters | None = None
    sort_by: ChangeListSortBy = "changed_at"
    sort_order: SortOrder = "desc"
    limit: int = Field(default=50, ge=1, le=500)
    cursor: Cursor = None
    include_next_actions: bool = True
    include_worktree: IncludeWorktree = False
    all_history: bool = Field(
        default=False, description="Without a range: every recorded commit, newest first, "
        "instead of my work (uncommitted changes plus commits not on the upstream).")
    skip_cosmetic: bool = Field(
        default=False, description="Leave out cosmetic events (code unchanged apart from "
        "comments, layout and docstrings; see nature). Events of unknown nature stay.")


class TimelineFilters(_Closed):
    change_kinds: _Kinds | None = None
    since: Instant | None = None
    until: Instant | None = None


class EntityTimelineInput(_ToolInput):
    entity_ref: EntityRefInput | None = Field(
        default=None, description="The entity; give this or entity."
    )
    entity: NonEmptyStr | None = Field(
        default=None, description="Bare-string alternative to entity_ref (kind auto)."
    )
    filters: TimelineFilters | None = None
    sort_by: TimelineSortBy = "changed_at"
    sort_order: SortOrder = "asc"
    limit: int = Field(default=50, ge=1, le=500)
    cursor: Cursor = None


class ChurnWindow(_Closed):
    since: Instant | None = None
    until: Instant | None = None
    rev_range: RevRange = None


class EntityChurnCountInput(_ToolInput):
    entity_refs: Annotated[list[EntityRefInput], Field(max_length=MAX_CHURN_REFS)] = Field(
        description="Entities to count, as {kind, value} refs or bare strings."
    )
    window: ChurnWindow | None = None
    sort_by: ChurnSortBy = "churn_count"
    sort_order: SortOrder = "desc"
    limit: int = Field(default=100, ge=1, le=MAX_CHURN_REFS)
    cursor: Cursor = None
    skip_cosmetic: bool = Field(
        default=False, description="Count no cosmetic events (code unchanged apart from "
        "comments, layout and docstrings; see nature). Events of unknown nature stay.")


class ImpactFilters(_Closed):
    entity_kinds: _EntityKinds | None = None
    paths: _Paths | None = None
    edge_kinds: _EdgeKinds | None = Field(default=None, description="Edges to traverse.")


class ImpactRadiusInput(_ToolInput):
    """Seeds are the union of changed_entity_key_ids, changed_refs, the change events of
    rev_range and, with include_worktree, the uncommitted changes."""

    rev_range: RevRange = None
    changed_refs: SeedRefs = None
    changed_entity_key_ids: KeyIds = None
    include_worktree: IncludeWorktree = False
    depth: Depth = DEFAULT_DEPTH
    filters: ImpactFilters | None = None
    sort_by: ImpactSortBy = "depth"
    sort_order: SortOrder = "asc"
    limit: int = Field(default=100, ge=1, le=1000)
    cursor: Cursor = None


class ReverifyFilters(ImpactFilters):
    reasons: Annotated[list[Reason], Field(min_length=1)] | None = None
    verification_states: Annotated[list[VerificationState], Field(min_length=1)] | None = None


class ReverifyWorklistInput(_ToolInput):
    """Same seeds as impact radius."""

    rev_range: RevRange = None
    changed_refs: SeedRefs = None
    changed_entity_key_ids: KeyIds = None
    include_worktree: IncludeWorktree = False
    depth: Depth = DEFAULT_DEPTH
    filters: ReverifyFilters | None = None
    sort_by: ReverifySortBy = "depth"
    sort_order: SortOrder = "asc"
    limit: int = Field(default=100, ge=1, le=1000)
    cursor: Cursor = None
    group_by: GroupBy = "entity"
    include_federation: bool = Field(
        default=False, description="Consult the filigree work tracker (read-only)."
    )
    verified_kinds: Annotated[list[NonEmptyStr], Field(min_length=1, max_length=100)] | None = (
        Field(default=None, description="Verification kinds that count; null = all kinds.")
    )


class EdgeSnapshotCaptureInput(_ToolInput):
    commit: NonEmptyStr | None = Field(default=None, description="Commit to stamp; HEAD if null.")
    mode: CaptureMode = "full"
    changed_refs: SeedRefs = None
    if_stale_after: Instant | None = Field(
        default=None,
        description="Capture only if the current snapshot was captured before this instant.",
    )
    max_entities: int | None = Field(default=None, ge=1)
    dry_run: bool = Field(default=False, description="Report what would be captured; no write.")
    idempotency_key: Annotated[str, Field(min_length=1, max_length=200)] | None = None


class VerificationRecordInput(_ToolInput):
    commit: NonEmptyStr = Field(description="Any commit ref; stored as the resolved object id.")
    kind: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        description="Provenance label, e.g. test_pass, ci_pass, gate_pass."
    )
    actor: NonEmptyStr | None = None
    git_note: bool = Field(
        default=True,
        description="Also write the record as a git note under refs/notes/warpline, so "
        "`warpline sync` can carry it to other clones.",
    )


class ProjectStatusInput(_ToolInput):
    pass
