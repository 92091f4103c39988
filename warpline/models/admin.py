"""The local-state contracts: ``warpline.verification_record.v1`` (CI's tool) and
``warpline.project_status.v1`` (peers' read-only probe)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from warpline.models.common import Count, Timestamp, WireModel
from warpline.models.envelope import EnvelopeBase
from warpline.models.vocab import (
    RunSelectionBasis,
    StoreStatus,
    VerificationIdempotency,
    VerificationScope,
)


class RunSelection(WireModel):
    """The narrower run behind a ``selection`` record."""

    basis: RunSelectionBasis = Field(
        description="warpline's selection basis (map, mixed, static, none), or user: the run "
        "was narrowed by hand (-k, -m, explicit paths; see reasons)."
    )
    map_commit: str | None = None
    rev_range: str | None = Field(default=None, description="The range the selection was for.")
    tests_selected: Count | None = None
    tests_known: Count | None = Field(
        default=None, description="Tests the basis knew (the map's, or the static graph's)."
    )
    reasons: list[str] = Field(default_factory=list)


class RunFacts(WireModel):
    """The test run a record's pass rests on (its receipt)."""

    tested_commit: str = Field(
        description="The commit the run checked out (for a GitHub pull request, the merge "
        "commit whose second parent is the recorded head)."
    )
    runner: str | None = Field(
        default=None, description="The test runner that ran (a row of warpline's table of "
        "runners, e.g. pytest; additive: null in records made before it was kept).")
    rootdir: str | None = Field(
        default=None, description="The runner's rootdir, relative to the repository (\"\" for "
        "its root): whole_suite means this project's whole suite."
    )
    tests_collected: Count | None = None
    tests_run: Count
    tests_passed: Count | None = None
    tests_failed: Count | None = None
    tests_skipped: Count | None = None
    selection: RunSelection | None = None


class VerificationRecordData(WireModel):
    commit_sha: str = Field(description="The resolved commit object id (never a symbolic ref).")
    kind: str = Field(min_length=1, description="Provenance label, e.g. test_pass, ci_pass.")
    verified_at: Timestamp = Field(description="When the (first) record was stored.")
    actor: str | None = None
    source: Literal["warpline"] = "warpline"
    idempotency: VerificationIdempotency
    notes_ref: str | None = Field(
        default=None,
        description="The git notes ref holding this record (refs/notes/warpline), or null "
        "when it is only in the local store.",
    )
    scope: VerificationScope = Field(
        default="attested",
        description="What the pass covers: whole_suite or selection (a test run warpline saw "
        "backs it; see run), attested (an actor said so, no run seen: verify-record), "
        "unknown (recorded before scopes).",
    )
    run: RunFacts | None = Field(default=None, description="The run behind it; null unless "
                                 "scope is whole_suite or selection.")


class VerificationRecordEnvelope(EnvelopeBase):
    """A recorded verification event, stored under .weft/warpline/."""

    schema_: Literal["warpline.verification_record.v1"] = Field(
        default="warpline.verification_record.v1", alias="schema"
    )
    data: VerificationRecordData


class StoreInfo(WireModel):
    present: bool
    readable: bool
    schema_version: int | None = Field(
        description="The store's schema version; null unless present, readable and served."
    )
    snapshot_rev: str | None = Field(
        default=None, description="Commit of the latest usable edge snapshot."
    )
    change_event_count: Count | None = None
    commits_behind_head: Count | None = Field(
        default=None, description="Commits reachable from HEAD not yet ingested; null if unknown."
    )
    integrity: Literal["ok", "damaged", "unchecked"] | None = Field(
        default=None,
        description="SQLite's quick_check of the store file (once per change of the file): "
        "damaged pages make store_status store_damaged; unchecked when the check did not "
        "finish in its budget; null when the store could not be opened.",
    )


class ProjectStatusData(WireModel):
    resolved_root: str = Field(description="Absolute path of the repository root.")
    store: StoreInfo
    store_status: StoreStatus
    binding_ok: bool = Field(
        description="True iff the store is present, readable, at a served schema version and "
        "not found damaged."
    )
    served_schema_version: int = Field(
        description="The highest store schema version this build serves."
    )
    shallow: bool = Field(
        default=False,
        description="The repository is a shallow clone: the store's history is partial.",
    )


class ProjectStatusEnvelope(EnvelopeBase):
    """Read-only probe: can this warpline build serve the store of repo?"""

    schema_: Literal["warpline.project_status.v1"] = Field(
        default="warpline.project_status.v1", alias="schema"
    )
    data: ProjectStatusData
