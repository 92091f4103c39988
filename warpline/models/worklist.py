"""The ``warpline.reverify_worklist.v1`` contract: what to recheck before saying done."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from warpline.limits import MAX_DEPTH
from warpline.models.common import Count, EntityOut, IngestStatus, Page, Timestamp, WireModel
from warpline.models.envelope import EnvelopeBase
from warpline.models.graph import EdgeBasis, Staleness, ViaEdge
from warpline.models.vocab import (
    Completeness,
    Nature,
    Priority,
    Reason,
    RunSelectionBasis,
    SelectionBasis,
    SuggestionKind,
    VerificationClaim,
    VerificationScope,
    VerificationState,
    WorkPriority,
)


class SuggestedVerification(WireModel):
    """How to re-verify an item: a test that reaches it, or callers to read."""

    kind: SuggestionKind
    command: str | None = Field(
        description="Runnable command for kind=test (e.g. pytest tests/t.py::TestA::test_x); "
        "null for inspection."
    )
    test: str | None = Field(default=None, description="Locator of the test function.")
    test_id: str | None = Field(
        default=None, description="For kind=test: the runner's own id of the test the "
        "command runs (repository-relative, e.g. tests/t.py::TestA::test_x), from the row "
        "of warpline's table of runners owning it (additive).")
    distance: Count | None = Field(
        default=None, description="Call edges from the test to the item (nearest first)."
    )
    callers: list[str] = Field(
        default_factory=list, description="Locators to read, for kind=inspection."
    )
    why: str | None = None


class WorkLink(WireModel):
    """A filigree issue linked to the item's SEI."""

    issue_id: str
    title: str | None = None
    status: str | None = None
    status_category: str | None = Field(default=None, description="filigree's, e.g. open/wip/done.")
    priority: WorkPriority | None = None
    assignee: str | None = None
    claim_commit: str | None = Field(default=None, description="Opaque commit anchor, verbatim.")
    close_commit: str | None = Field(default=None, description="Opaque commit anchor, verbatim.")
    sei: str | None = Field(default=None, description="The SEI the association was found on.")


class ItemEnrichment(WireModel):
    work: list[WorkLink] = Field(default_factory=list)
    risk: list[dict[str, Any]] = Field(
        default_factory=list, description="What history says makes the item risky, one fact "
        "per kind: co_change (partners that usually change with it, missing from this "
        "change: locator, support, confidence, last_commit), churn (changes in the recent "
        "window against the repository's distribution), fixes (recent commits whose message "
        "says they fixed something). See docs/coupling.md.")
    governance: list[dict[str, Any]] = Field(default_factory=list)
    requirements: list[dict[str, Any]] = Field(default_factory=list)


class Verification(WireModel):
    """Recorded-verification freshness of an item (from verify_record events)."""

    state: VerificationState = Field(
        description="fresh: verified at a commit containing the item's latest change (and, "
        "downstream, the seed change); stale: verified before it; unverified: never."
    )
    last_verified_commit: str | None = None
    last_verified_at: Timestamp | None = None
    kinds: list[str] = Field(
        default_factory=list, description="Verification kinds recorded at that commit."
    )
    commits_behind: Count | None = Field(
        default=None, description="Commits the needed change is ahead of the newest relevant "
        "verification (git rev-list --count VERIFIED..CHANGE); 0 when fresh, null when "
        "unverified.",
    )
    scope: VerificationScope | None = Field(
        default=None, description="What the reported record's pass covered: whole_suite, "
        "selection (see selection_basis), attested (an actor's word; no run seen), unknown "
        "(recorded before scopes); null when unverified."
    )
    selection_basis: RunSelectionBasis | None = Field(
        default=None, description="For a selection: the basis it was chosen on (static: "
        "from the static graph alone, which misses tests; user: narrowed by hand)."
    )
    claimed_by: VerificationClaim | None = Field(
        default=None, description="Whose claim the reported record is: local (recorded in "
        "this clone), ci_identity (a git-notes line whose SSH signature verifies for a "
        "principal of gpg.ssh.allowedSignersFile, see signer), remote_unverified (any other "
        "git-notes line: whoever can push refs/notes/warpline can write one); null when "
        "unverified."
    )
    signer: str | None = Field(
        default=None, description="The allowed-signers principal of a ci_identity claim."
    )


class WorklistItem(WireModel):
    entity: EntityOut
    priority: Priority = Field(
        default="unknown", description="From linked work (most urgent open issue); unknown "
        "without a work seam."
    )
    reason: Reason
    depth: int = Field(ge=0, le=MAX_DEPTH, description="0 for changed entities.")
    seed: str | None = Field(
        default=None, description="Locator of the changed entity, for downstream items."
    )
    why: list[ViaEdge] = Field(
        default_factory=list, description="The via_edges path, for downstream items."
    )
    suggested_verification: list[SuggestedVerification] = Field(default_factory=list)
    enrichment: ItemEnrichment = Field(default_factory=ItemEnrichment)
    verification: Verification
    group: str | None = Field(
        default=None, description="The group key under group_by=file|reason; else null."
    )
    map_tests: Count | None = Field(
        default=None, description="Tests the test map saw execute this entity (additive); "
        "null without a map or when the map does not hold the entity.")
    nature: Nature | None = Field(
        default=None, description="For a changed item, what its changes in the range mean "
        "(additive): cosmetic when every one is (comments, layout, docstrings: it is listed "
        "to inspect, asks for no tests and reaches no dependents), signature when one "
        "changed its signature, else behavioural; null when unknown, and for dependents.")


class WorklistGroup(WireModel):
    key: str
    count: Count


class VerificationSummary(WireModel):
    """Verification states over the whole worklist (not just this page)."""

    fresh: Count = 0
    stale: Count = 0
    unverified: Count = 0


class CachedEntity(WireModel):
    """A changed definition whose results are cached (``functools.cache``, ``lru_cache``,
    ``cached_property`` and the like), or that is called through one: a cached body runs on
    the first call only, so a test map links it (and what it calls) to the first test that
    called it; the tests of the cached definitions' callers were added."""

    locator: str
    decorator: str | None = Field(description="Its caching decorator as written, e.g. "
                                  "functools.lru_cache; null when it is not cached itself "
                                  "but called through cached_callers.")
    cached_callers: list[str] = Field(
        default_factory=list, description="Cached definitions it is called through (within "
        "4 edges; first 20).")
    callers: Count = Field(description="Definitions with an edge into it (when cached) and "
                           "into its cached callers, in the snapshot.")
    map_tests: Count = Field(description="Tests the map saw execute one of those callers.")
    static_tests: Count = Field(description="Tests the static graph reaches it from.")


class RunnerRun(WireModel):
    """One test runner's share of the selection and the command running it (see
    docs/runners.md)."""

    runner: str = Field(description="The runner (a row of warpline's table of runners, "
                        "e.g. pytest).")
    tests: list[str] = Field(description="Its tests in the selection, in the runner's own "
                             "ids (repository-relative); empty when none is known (the "
                             "command is its whole suite).")
    command: str = Field(description="The command running exactly these tests, as printed, "
                         "from the repository root (its whole suite when whole_suite).")
    whole_suite: bool = Field(description="No test of this runner is known for the change: "
                              "the command runs its whole suite.")


class NonCodeChange(WireModel):
    """A changed file no language row reads, read for what it is to the tests (see
    docs/test-map.md, "Non-code changes")."""

    locator: str = Field(description="The file's locator (core:file:<path>).")
    kind: Literal["docs", "ci", "test_config"] = Field(
        description="docs: documentation or a changelog, no test reads it (none selected); "
        "ci: CI configuration, verified by running the pipeline, not by a test; "
        "test_config: configuration the tests read (runners' whole suites run).")
    runners: list[str] = Field(default_factory=list, description="For test_config: the "
                               "runners whose tests read it (their whole suites run).")


class Selection(WireModel):
    """How the worklist's tests were chosen (see docs/test-map.md)."""

    basis: SelectionBasis = Field(
        description="What answered. map: a recorded per-test execution map; static: the "
        "static call graph and the import floor only (no usable map); mixed: a map was "
        "consulted, and the static graph and import floor answered for the changed entities "
        "it cannot answer for (possibly all of them); none: no test is known to exercise the "
        "changes."
    )
    map_commit: str | None = Field(default=None, description="Commit the test map was "
                                   "recorded at; null without a map.")
    map_commits_behind: Count | None = Field(
        default=None, description="Commits from the map's commit to HEAD; null without a map "
        "or when the map's commit is not an ancestor of HEAD.")
    tests_selected: Count = Field(description="Tests (node ids, classes or files) selected.")
    tests_known: Count | None = Field(
        default=None, description="Tests the basis knows: the map's recorded tests, or the "
        "static graph's test functions.")
    map_id: int | None = None
    map_recorded_at: Timestamp | None = None
    map_entities_changed_since: Count | None = Field(
        default=None, description="Entities changed in the commits after the map's commit.")
    map_partial: bool | None = Field(
        default=None, description="The map was recorded from part of the suite.")
    entities_from_map: Count = Field(default=0, description="Changed entities answered by "
                                     "the map (or by their own test file).")
    entities_from_static: Count = Field(default=0, description="Changed entities whose "
                                        "tests came from the static graph.")
    entities_without_tests: list[str] = Field(
        default_factory=list, description="Changed entities no known test exercises (first 50).")
    new_tests: Count = Field(default=0, description="Selected tests the map does not hold "
                             "(new since it, or not run while recording).")
    tests: list[str] = Field(
        default_factory=list, description="The selection itself (additive): node ids, test "
        "files or directories, relative to the repository root. next_actions.commands[0], "
        "every --format, `warpline ci` and `pytest --warpline-select` run exactly these; "
        "empty with basis none (then the whole suite, unless cosmetic_only: then nothing).")
    floor_files: Count = Field(
        default=0, description="Test files selected whole because they import a changed "
        "entity's module (the import floor).")
    cached_entities: list[CachedEntity] = Field(
        default_factory=list, description="Changed definitions whose results are cached, "
        "and the tests added through their callers (additive; see docs/test-map.md).")
    cosmetic_entities: list[str] = Field(
        default_factory=list, description="Changed entities whose only changes in the range "
        "are cosmetic (comments, layout, docstrings; first 50): no tests are selected for "
        "them (additive). When every change is cosmetic, tests is empty and no command "
        "runs tests.")
    cosmetic_only: bool = Field(
        default=False, description="Every change in the range is cosmetic (additive): tests "
        "is empty because nothing is to run, not because nothing is known (basis none); "
        "no output runs the whole suite for it.")
    runners: list[RunnerRun] = Field(
        default_factory=list, description="One entry per test runner the change's tests run "
        "under, in the order of next_actions.commands (additive): its share of tests and "
        "its command. Empty when no runner the repository uses tests the change (a warning "
        "names the ecosystem's own command) or when every change is cosmetic.")
    dropped_tests: list[str] = Field(
        default_factory=list, description="Tests the selection named that no command runs "
        "(additive; first 50): gone from the work tree (deleted in the range or since), or "
        "in a file its runner does not collect as tests (a helper module, a conftest file). "
        "tests and every command leave them out; a warning says so.")
    non_code: list[NonCodeChange] = Field(
        default_factory=list, description="Changed files that are documentation, CI "
        "configuration or configuration the tests read (additive; first 50).")
    nothing_to_run: bool = Field(
        default=False, description="Changes exist and none asks for a test (additive): "
        "every change is cosmetic, documentation or CI configuration, or every selected "
        "test is gone. tests is empty and no output runs a suite for it.")


class CoChangePartner(WireModel):
    """A definition that usually changed together with the changed ones and is not in
    this change (co-change on lineages, see docs/coupling.md)."""

    locator: str = Field(description="Its locator now (the lineage followed across renames).")
    kind: str
    path: str
    support: Count = Field(description="Past commits that changed it together with "
                           "changed_with (bounded non-merge commits).")
    confidence: float = Field(ge=0, le=1, description="support / past commits that changed "
                              "the changed entity.")
    last_commit: str = Field(description="The most recent commit that changed them together.")
    changed_with: list[str] = Field(description="The changed entities it usually changes with.")


class ReverifyWorklistData(WireModel):
    completeness: Completeness
    staleness: Staleness
    edge_basis: EdgeBasis | None = Field(
        default=None, description="The snapshot's unresolved call sites and edge sources; "
        "null without a snapshot.")
    items: list[WorklistItem]
    groups: list[WorklistGroup] = Field(
        default_factory=list, description="Group keys in order, under group_by=file|reason."
    )
    verification_summary: VerificationSummary = Field(default_factory=VerificationSummary)
    ingest: IngestStatus
    total: Count = Field(description="Items across all pages (after filters).")
    changed_total: Count | None = Field(
        default=None, description="Changed entities across all pages (after filters); the "
        "other total - changed_total items are dependents (additive).")
    page: Page
    selection: Selection | None = Field(
        default=None, description="How the tests of the worklist were chosen (additive).")
    co_change: list[CoChangePartner] = Field(
        default_factory=list, description="Definitions that usually changed with the changed "
        "ones and are not in this change, best first (a handful at most); to inspect, never "
        "part of the tests to run. Empty when history holds none or is not there "
        "(enrichment.risk says which).")


class ReverifyWorklistEnvelope(EnvelopeBase):
    """The worklist to recheck before claiming completion."""

    schema_: Literal["warpline.reverify_worklist.v1"] = Field(
        default="warpline.reverify_worklist.v1", alias="schema"
    )
    data: ReverifyWorklistData
