"""The tool inventory: eight tools, sixteen names, one table.

``tools/list``, dispatch, the CLI, docs and tests read this table (the MCP adapter adds its
handler per endorsed name). ``contracts/tools.json`` is generated from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from warpline.models.admin import ProjectStatusEnvelope, VerificationRecordEnvelope
from warpline.models.envelope import EnvelopeBase
from warpline.models.graph import EdgeSnapshotEnvelope, ImpactRadiusEnvelope
from warpline.models.history import (
    ChangeListEnvelope,
    EntityChurnCountEnvelope,
    EntityTimelineEnvelope,
)
from warpline.models.inputs import (
    ChangeListInput,
    EdgeSnapshotCaptureInput,
    EntityChurnCountInput,
    EntityTimelineInput,
    ImpactRadiusInput,
    ProjectStatusInput,
    ReverifyWorklistInput,
    VerificationRecordInput,
)
from warpline.models.vocab import ToolName
from warpline.models.worklist import ReverifyWorklistEnvelope

STORE_PATH = ".weft/warpline/"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    endorsed: ToolName
    shim: str
    schema_id: str
    input_model: type[BaseModel]
    envelope_model: type[EnvelopeBase]
    mutating: bool
    read_only: bool
    writes_local_state: bool
    mutates_paths: tuple[str, ...]
    idempotent: bool
    federation_dependencies: tuple[str, ...]
    description: str

    @property
    def input_schema_file(self) -> str:
        return f"{self.endorsed}.input.json"

    @property
    def output_schema_file(self) -> str:
        return f"{self.schema_id}.json"

    @property
    def names(self) -> tuple[str, str]:
        return (self.endorsed, self.shim)

    def to_inventory_entry(self) -> dict[str, Any]:
        return {
            "endorsed": self.endorsed,
            "shim": self.shim,
            "schema": self.schema_id,
            "input_schema": self.input_schema_file,
            "output_schema": self.output_schema_file,
            "mutating": self.mutating,
            "read_only": self.read_only,
            "writes_local_state": self.writes_local_state,
            "mutates_paths": list(self.mutates_paths),
            "idempotent": self.idempotent,
            "federation_dependencies": list(self.federation_dependencies),
            "description": self.description,
        }


def _reader(
    endorsed: ToolName,
    shim: str,
    contract: str,
    models: tuple[type[BaseModel], type[EnvelopeBase]],
    description: str,
    federation: tuple[str, ...] = (),
) -> ToolSpec:
    # Read tools answer without changing anything a user owns, but they open the store,
    # which creates/migrates it and catches it up with HEAD.
    return ToolSpec(
        endorsed, shim, f"warpline.{contract}.v1", models[0], models[1],
        mutating=False, read_only=True, writes_local_state=True,
        mutates_paths=(STORE_PATH,), idempotent=True,
        federation_dependencies=federation,
        description=description + " Read-only; may initialise and catch up the local "
        "store under .weft/warpline/.",
    )


TOOLS: tuple[ToolSpec, ...] = (
    _reader(
        "warpline_change_list", "changed", "change_list",
        (ChangeListInput, ChangeListEnvelope),
        "Changed entities for a repo and rev range, with ready-to-call next actions; call "
        "this first. For \"my work\" (uncommitted changes plus commits not yet on the "
        "upstream) pass rev_range \"@{upstream}..HEAD\" and include_worktree true (no "
        "upstream: BASE..HEAD, e.g. origin/main..HEAD). Without rev_range it lists all "
        "recorded history, newest first.",
    ),
    _reader(
        "warpline_entity_timeline_get", "timeline", "entity_timeline",
        (EntityTimelineInput, EntityTimelineEnvelope),
        "Ordered change history of one entity, across renames.",
    ),
    _reader(
        "warpline_entity_churn_count_get", "churn", "entity_churn_count",
        (EntityChurnCountInput, EntityChurnCountEnvelope),
        "Change-event counts per entity over an optional window (unknown entities count 0).",
    ),
    _reader(
        "warpline_impact_radius_get", "blast_radius", "impact_radius",
        (ImpactRadiusInput, ImpactRadiusEnvelope),
        "Entities downstream of the changed ones (callers, referrers) with completeness and "
        "staleness.",
    ),
    _reader(
        "warpline_reverify_worklist_get", "reverify", "reverify_worklist",
        (ReverifyWorklistInput, ReverifyWorklistEnvelope),
        "The worklist to re-verify before claiming done: changed entities, then dependents, "
        "with tests to run and verification freshness; optionally reads filigree work links.",
        federation=("filigree",),
    ),
    ToolSpec(
        "warpline_edge_snapshot_capture", "capture_snapshot", "warpline.edge_snapshot.v1",
        EdgeSnapshotCaptureInput, EdgeSnapshotEnvelope,
        mutating=True, read_only=False, writes_local_state=True,
        mutates_paths=(STORE_PATH,), idempotent=True,
        federation_dependencies=("loomweave",),
        description="Captures a dated call/reference edge snapshot (from loomweave, else the "
        "built-in extractor). Writes only under .weft/warpline/; never touches a sibling.",
    ),
    ToolSpec(
        "warpline_verification_record", "verify_record", "warpline.verification_record.v1",
        VerificationRecordInput, VerificationRecordEnvelope,
        mutating=True, read_only=False, writes_local_state=True,
        mutates_paths=(STORE_PATH,), idempotent=True,
        federation_dependencies=(),
        description="Records a verification pass (e.g. test_pass) for a commit, once per "
        "(commit, kind). Writes under .weft/warpline/ and, unless git_note is false, the "
        "commit's note under refs/notes/warpline (for `warpline sync`); advisory, never gates.",
    ),
    ToolSpec(
        "warpline_project_status_get", "project_status", "warpline.project_status.v1",
        ProjectStatusInput, ProjectStatusEnvelope,
        mutating=False, read_only=True, writes_local_state=False,
        mutates_paths=(), idempotent=True,
        federation_dependencies=(),
        description="Probes whether this build can serve the store of repo. Writes nothing "
        "anywhere: never creates or migrates the store.",
    ),
)

_BY_NAME: dict[str, ToolSpec] = {name: spec for spec in TOOLS for name in spec.names}


def tool_by_name(name: str) -> ToolSpec:
    """The tool registered under ``name`` (endorsed name or shim); KeyError if none."""
    return _BY_NAME[name]


def tool_names() -> tuple[str, ...]:
    """All sixteen names, endorsed then shim, in inventory order."""
    return tuple(name for spec in TOOLS for name in spec.names)


def inventory_document() -> dict[str, Any]:
    """The content of ``contracts/tools.json``."""
    return {
        "inventory_version": 1,
        "tools": [spec.to_inventory_entry() for spec in TOOLS],
    }
