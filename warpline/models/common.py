"""Wire building blocks shared by every contract: timestamps, entities, refs, pages.

Output models derive from ``WireModel``: every field is *required* in the serialization
schema (nullable where it may be null) because the service always emits it, and unknown
keyword arguments are rejected at construction time (a typo in the service is a bug), yet
the published schema stays open (no ``additionalProperties: false``) so v1 can grow
additively. Input models live in ``inputs.py`` and are closed.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from warpline.models.vocab import ChangedRefKind, EntityKind, EntityRefKind

# Re-exported: defined pydantic-free, for the churn answer that is built without pydantic.
from warpline.models.wire import TIMESTAMP_PATTERN as TIMESTAMP_PATTERN
from warpline.models.wire import iso_z as iso_z
from warpline.models.wire import language_fields

Timestamp = Annotated[
    str,
    Field(
        pattern=TIMESTAMP_PATTERN,
        description="UTC instant, ISO-8601 with a Z suffix, e.g. 2026-06-25T10:00:00Z.",
    ),
]
Count = Annotated[int, Field(ge=0)]
NonEmptyStr = Annotated[str, Field(min_length=1)]


def _open_schema(schema: dict[str, Any]) -> None:
    # Construction is strict (extra="forbid"), the published output schema is open.
    schema.pop("additionalProperties", None)


class WireModel(BaseModel):
    """Base of every output object: all fields required on the wire, open for growth."""

    model_config = ConfigDict(
        defer_build=True,
        extra="forbid",
        json_schema_extra=_open_schema,
        json_schema_serialization_defaults_required=True,
        serialize_by_alias=True,
        validate_by_alias=True,
        validate_by_name=True,
    )


def dump(model: BaseModel) -> dict[str, Any]:
    """Serialise a wire model exactly as the contract describes it (JSON types, aliases,
    nulls kept)."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=False)


class EntityOut(WireModel):
    """An entity on the wire. Key on sei (preferred) or locator; warpline_entity_key_id
    is a warpline-internal row id, not a federation key."""

    locator: str | None = Field(
        description="loomweave-dialect locator, e.g. python:function:demo.auth.login; null "
        "only when warpline has never seen the entity (e.g. an unknown SEI)."
    )
    sei: str | None = Field(default=None, description="loomweave SEI, null when unresolved.")
    warpline_entity_key_id: int | None = Field(default=None, ge=1)
    path: str | None = Field(default=None, description="Repo-relative file, '/' separators.")
    kind: EntityKind | None = None
    language: str | None = Field(
        default=None, description="The language whose reader found the entity (python, "
        "rust, ...); for a file, the language reading its suffix; null when none does "
        "(the file was read only as a file) or the entity is unknown.")
    language_kind: str | None = Field(
        default=None, description="The entity's kind in its own language (rust: struct, "
        "impl, macro, ...; python: module, class, function; files: file); `kind` keeps the "
        "four-value vocabulary.")

    @model_validator(mode="before")
    @classmethod
    def _language(cls, data: Any) -> Any:
        # Both follow from the locator: every producer gets them without naming them.
        if isinstance(data, dict) and "language_kind" not in data:
            return {**data, **language_fields(data.get("locator"), data.get("path"))}
        return data


class EntityRef(BaseModel):
    """An input reference to an entity. A bare string is accepted wherever this is, and
    means {"kind": "auto", "value": <string>}."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    kind: EntityRefKind
    value: NonEmptyStr | Annotated[int, Field(ge=1)] = Field(
        description="The locator, SEI, path, qualname or key id (an integer for "
        "warpline_entity_key_id)."
    )


EntityRefInput = EntityRef | NonEmptyStr


class RefEcho(WireModel):
    """The input ref, echoed back normalised (a bare string becomes kind auto)."""

    kind: EntityRefKind
    value: str | int


class ChangedRef(WireModel):
    """A federation key for a changed entity: its SEI when resolved, else its locator."""

    kind: ChangedRefKind
    value: str


class Page(WireModel):
    limit: int = Field(ge=1)
    next_cursor: str | None = Field(
        default=None, description="Pass as cursor to fetch the next page; null on the last."
    )
    has_more: bool = False


class IngestStatus(WireModel):
    """How far the store's history is behind HEAD when this answer was computed. When the
    backlog was too large to catch up interactively the answer covers only what is
    ingested (complete: false) and a warning says how to finish."""

    head_commit: str | None = Field(description="HEAD's object id; null for an unborn HEAD.")
    commits_behind: Count = 0
    complete: bool = True
    ingested_now: Count = Field(default=0, description="Commits ingested during this call.")
    shallow: bool = Field(
        default=False,
        description="The repository is a shallow clone: history before its boundary is "
        "missing, so the answer is partial (complete: false) and a warning says how to fetch "
        "the rest.",
    )
    shallow_boundary: list[str] = Field(
        default_factory=list,
        description="The shallow boundary commits (their parents were not fetched); empty "
        "for a complete clone.",
    )
    range_complete: bool | None = Field(
        default=None,
        description="Every commit of the answer's range is ingested, so the answer is whole "
        "for that range even while the store is behind HEAD on other history (complete: "
        "false); null for an answer without a range (complete says it).",
    )
    backfill_running: bool = Field(
        default=False,
        description="A background backfill (started by a read that could not catch up in "
        "its budget, or by a git hook) is ingesting the rest of the history now; later "
        "answers cover more.",
    )
