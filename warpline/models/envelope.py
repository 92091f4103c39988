"""The frozen success envelope: ``schema, ok, query, data, warnings, next_actions,
enrichment, meta``. Each tool subclasses ``EnvelopeBase`` and pins ``schema`` and ``data``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from warpline._version import __version__
from warpline.models.common import WireModel
from warpline.models.vocab import (
    EdgesEnrichmentValue,
    EnrichmentValue,
    FiligreeActionKind,
    SortOrder,
    ToolName,
)


class QuerySort(WireModel):
    by: str | None = Field(default=None, description="Effective sort key; null if unsorted.")
    order: SortOrder | None = None


class QueryPage(WireModel):
    limit: int | None = Field(default=None, ge=1)
    cursor: str | None = None


class Query(WireModel):
    """The request as warpline understood it (effective defaults filled in)."""

    repo: str = Field(description="The repository path as given.")
    tool: ToolName = Field(description="Endorsed tool name, also when called by its shim.")
    arguments: dict[str, Any] = Field(default_factory=dict)
    filters: dict[str, Any] = Field(default_factory=dict)
    sort: QuerySort = Field(default_factory=QuerySort)
    page: QueryPage = Field(default_factory=QueryPage)


class Enrichment(WireModel):
    """Which sibling facts are attached. Defaults are the 'nothing consulted' state."""

    sei: EnrichmentValue = "absent"
    edges: EdgesEnrichmentValue = "absent"
    work: EnrichmentValue = "unavailable"
    risk: EnrichmentValue = "unavailable"
    governance: EnrichmentValue = "unavailable"
    requirements: EnrichmentValue = "unavailable"


class Producer(WireModel):
    tool: Literal["warpline"] = "warpline"
    version: str = __version__


class Meta(WireModel):
    producer: Producer = Field(default_factory=Producer)
    local_only: Literal[True] = True
    peer_side_effects: Annotated[list[Any], Field(max_length=0)] = Field(
        default_factory=list, description="Always empty: warpline never writes to a peer."
    )


class ToolAction(WireModel):
    """A ready-to-call warpline tool call."""

    tool: ToolName
    arguments: dict[str, Any]
    why: str


class CommandAction(WireModel):
    """A shell command that would help, e.g. 'warpline backfill --repo R' or a pytest line."""

    command: str
    why: str


class FiligreeAction(WireModel):
    """A candidate work item for the filigree tracker. warpline proposes; it files nothing."""

    action: FiligreeActionKind
    issue_id: str | None = Field(default=None, description="Existing issue, for review_issue.")
    title: str | None = None
    entities: list[str] = Field(
        default_factory=list, description="SEIs (or locators when unresolved) concerned."
    )
    why: str


def _empty(value: list[Any]) -> bool:
    return not value


class NextActions(WireModel):
    """Suggested follow-ups; every key is optional and omitted when empty."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=False)

    tools: list[ToolAction] = Field(default_factory=list, exclude_if=_empty)
    commands: list[CommandAction] = Field(default_factory=list, exclude_if=_empty)
    filigree: list[FiligreeAction] = Field(default_factory=list, exclude_if=_empty)


class EnvelopeBase(WireModel):
    """Common envelope fields. Subclasses narrow ``schema`` to a const and ``data`` to the
    tool's data model; build them with keyword arguments, e.g.
    ``ChangeListEnvelope(query=Query(repo=r, tool="warpline_change_list"), data=...)``."""

    schema_: str = Field(alias="schema")
    ok: Literal[True] = True
    query: Query
    data: Any
    warnings: list[str] = Field(
        default_factory=list, description="Human-readable reasons an answer is partial."
    )
    next_actions: NextActions = Field(default_factory=NextActions)
    enrichment: Enrichment = Field(default_factory=Enrichment)
    meta: Meta = Field(default_factory=Meta)
