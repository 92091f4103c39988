"""The history contracts: ``warpline.change_list.v1``, ``warpline.entity_timeline.v1``,
``warpline.entity_churn_count.v1``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from warpline.models.common import (
    ChangedRef,
    Count,
    EntityOut,
    IngestStatus,
    Page,
    RefEcho,
    Timestamp,
    WireModel,
)
from warpline.models.envelope import EnvelopeBase
from warpline.models.vocab import ChangeKind, ChangeOrigin, Nature, SeiResolution

_CHANGE_ID = "warpline:change:<row id>; null for uncommitted working-tree changes."
_NATURE = ("What the change means: cosmetic (the definition's code is unchanged apart from "
           "comments, whitespace, layout and docstrings — a docstring counts in a project "
           "that runs doctests), signature (its name, parameters, return type or generics "
           "changed), behavioural (any other change; every added or removed definition); "
           "null for a file event, or when unknown (recorded before warpline read it, a "
           "merge, a version no reader could parse: a warning says so).")
_ALSO_MODIFIED = ("For a moved event: true when the entity's own text also changed (moved "
                  "and edited), false when it moved unchanged; null for other change kinds.")


class ChangeItem(WireModel):
    """One entity changed by one commit (or, with include_worktree, by the working tree)."""

    change_id: str | None = Field(description=_CHANGE_ID)
    entity: EntityOut
    change_kind: ChangeKind
    actor: str | None = Field(description="Commit author 'Name <email>'; null for worktree.")
    commit: str | None = Field(description="Commit object id; null for worktree changes.")
    changed_at: Timestamp | None = Field(description="Committer time; null for worktree.")
    origin: ChangeOrigin = "commit"
    previous_locator: str | None = Field(
        default=None, description="The locator before a rename (moved events)."
    )
    previous_path: str | None = None
    also_modified: bool | None = Field(default=None, description=_ALSO_MODIFIED)
    nature: Nature | None = Field(default=None, description=_NATURE)


class RevRangeInfo(WireModel):
    """The revision range the answer covers, resolved to object ids."""

    rev_range: str | None = Field(description="As given (or built from base_ref/head_ref).")
    base_commit: str | None = Field(description="Exclusive base; null for 'from the root'.")
    head_commit: str | None = Field(description="Inclusive head; null for an unborn HEAD.")
    commit_count: Count


class ChangeListData(WireModel):
    items: list[ChangeItem]
    changed_refs: list[ChangedRef] = Field(
        description="Federation keys of the distinct changed entities (SEI when resolved)."
    )
    changed_entity_key_ids: list[int] = Field(
        default_factory=list, description="The same entities as warpline key ids."
    )
    range: RevRangeInfo
    ingest: IngestStatus
    total: Count = Field(description="Items across all pages (after filters).")
    page: Page


class ChangeListEnvelope(EnvelopeBase):
    """Changed entities for a repo and rev range, with ready-to-call next_actions."""

    schema_: Literal["warpline.change_list.v1"] = Field(
        default="warpline.change_list.v1", alias="schema"
    )
    data: ChangeListData


class TimelineEntity(EntityOut):
    sei_resolution: SeiResolution = Field(
        default="unknown",
        description="warpline's own SEI resolution state for this entity; not a lineage claim.",
    )


class TimelineItem(WireModel):
    change_id: str = Field(description="warpline:change:<row id>.")
    change_kind: ChangeKind
    actor: str
    commit: str
    changed_at: Timestamp
    path: str | None
    locator: str = Field(description="The entity's locator at that commit.")
    previous_locator: str | None = None
    previous_path: str | None = None
    also_modified: bool | None = Field(default=None, description=_ALSO_MODIFIED)
    nature: Nature | None = Field(default=None, description=_NATURE)
    nested: bool = Field(default=False, description=(
        "True for a change of a definition nested in this function (a nested function, a "
        "local class; `locator` names it): its lines are its own, not this entity's, and "
        "churn does not count it; listed so the function's timeline shows what changed "
        "inside it."))


class EntityTimelineData(WireModel):
    entity: TimelineEntity
    items: list[TimelineItem]
    ingest: IngestStatus
    total: Count = Field(description="Items across all pages (after filters).")
    page: Page


class EntityTimelineEnvelope(EnvelopeBase):
    """Ordered change history for one entity, continued across renames."""

    schema_: Literal["warpline.entity_timeline.v1"] = Field(
        default="warpline.entity_timeline.v1", alias="schema"
    )
    data: EntityTimelineData


class ChurnItem(WireModel):
    """Change-event count for one requested ref; never-observed refs count 0."""

    ref: RefEcho
    entity: EntityOut
    observed: bool = Field(description="Whether warpline knows the entity at all.")
    churn_count: Count
    first_changed_at: Timestamp | None
    last_changed_at: Timestamp | None
    last_actor: str | None
    nested_churn_count: Count = Field(default=0, description=(
        "Change events of definitions nested in this function (nested functions, local "
        "classes), in the same window: not in churn_count, whose rule is the entity's own "
        "lines; 0 for other kinds."))


class ChurnWindowOut(WireModel):
    since: Timestamp | None = None
    until: Timestamp | None = None
    rev_range: str | None = None


class EntityChurnCountData(WireModel):
    items: list[ChurnItem]
    window: ChurnWindowOut
    ingest: IngestStatus
    total: Count = Field(description="Items across all pages (after filters).")
    page: Page


class EntityChurnCountEnvelope(EnvelopeBase):
    """Per-entity change-event counts over an optional window."""

    schema_: Literal["warpline.entity_churn_count.v1"] = Field(
        default="warpline.entity_churn_count.v1", alias="schema"
    )
    data: EntityChurnCountData
