"""The tool table: one row per tool, read by tools/list, dispatch, the CLI, docs and tests.

A row holds everything a tool is: its endorsed name and shim, its CLI command (the
subcommand, and the ``next:`` lines that name it), its contract ids, its typed input model
and envelope model, its handler, its write metadata and its example call (``mcp-smoke``).
Its CLI flags and table view are its ``ToolCommand`` (``warpline.cli.runner``).
``contracts/tools.json`` is generated from the rows (``python -m warpline.models.schemas``).
``call_tool`` is the single entry point both adapters use, so their envelopes are identical
by construction.

Handlers are real functions (mypy and an IDE follow them) that import their service module
on first call: importing all eight service modules costs ~0.8 s (pygit2, networkx, ...),
which ``tools/list`` and ``initialize`` must not pay.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from warpline.errors import InvalidArgument

if TYPE_CHECKING:  # the models load with the first call of their tool, not with the table:
    # tools/list and initialize answer from the contract files without pydantic.
    from pydantic import BaseModel

    from warpline.models.envelope import EnvelopeBase
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
    from warpline.service.history.churn_input import ChurnArgs

STORE_PATH = ".weft/warpline/"

Envelope = dict[str, Any]
P = TypeVar("P", bound="BaseModel")
# Entity refs as a ``changed`` call returns them (``{"kind": "locator", "value": ...}``).
Refs = list[dict[str, str]]
Example = Callable[[Refs], dict[str, Any]]


def _repo_only(refs: Refs) -> dict[str, Any]:
    return {}


@dataclass(frozen=True, slots=True)
class ToolSpec(Generic[P]):
    """One tool: its names, its contract, its models, its handler, and whether it writes."""
    endorsed: ToolName
    shim: str
    cli_command: str
    schema_id: str
    models: tuple[str, str]  # names in ``warpline.models``: (input model, envelope model)
    handler: Callable[[P, Path | None], Envelope]
    mutating: bool
    read_only: bool
    writes_local_state: bool
    mutates_paths: tuple[str, ...]
    idempotent: bool
    federation_dependencies: tuple[str, ...]
    description: str
    # Parses the tool's common input shape without pydantic, or answers None (the input
    # model decides); the handler then takes what it returns (churn: ``churn_input.py``).
    fast_input: Callable[[dict[str, Any]], Any] | None = None
    # Git refs the tool may write (beyond the store): said in its description and inventory.
    writes_refs: tuple[str, ...] = ()
    # Its smallest valid arguments beside ``repo``, given the refs a ``changed`` call
    # returned, for a call that changes nothing a user owns (``warpline mcp-smoke`` makes
    # it); None: there is no such call, the tool writes.
    example: Example | None = _repo_only

    @property
    def input_schema_file(self) -> str:
        return f"{self.endorsed}.input.json"

    @property
    def output_schema_file(self) -> str:
        return f"{self.schema_id}.json"

    @property
    def input_model(self) -> type[P]:
        """The strict input model (imports its models module on first use)."""
        return cast("type[P]", _model(self.models[0]))

    @property
    def envelope_model(self) -> type[EnvelopeBase]:
        return cast("type[EnvelopeBase]", _model(self.models[1]))

    @property
    def names(self) -> tuple[str, str]:
        return (self.endorsed, self.shim)

    def input_schema(self) -> dict[str, Any]:
        from warpline.contracts_io import load_contract

        return load_contract(self.input_schema_file)

    def output_schema(self) -> dict[str, Any]:
        from warpline.contracts_io import load_contract

        return load_contract(self.output_schema_file)

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
            "writes_refs": list(self.writes_refs),
            "description": self.description,
        }


def _model(name: str) -> Any:
    return getattr(importlib.import_module("warpline.models"), name)


# -- handlers: each imports its service module on first call ------------------------------

def _change_list(params: ChangeListInput, cwd: Path | None) -> Envelope:
    from warpline.service.history.changed import change_list

    return change_list(params, cwd)


def _entity_timeline(params: EntityTimelineInput, cwd: Path | None) -> Envelope:
    from warpline.service.history.timeline import entity_timeline

    return entity_timeline(params, cwd)


def _churn_count(params: EntityChurnCountInput | ChurnArgs, cwd: Path | None) -> Envelope:
    from warpline.service.history.churn import churn_count

    return churn_count(params, cwd)


def _churn_fast_input(arguments: dict[str, Any]) -> ChurnArgs | None:
    from warpline.service.history.churn_input import fast_args

    return fast_args(arguments)


def _impact_radius(params: ImpactRadiusInput, cwd: Path | None) -> Envelope:
    from warpline.service.impact.impact import impact_radius

    return impact_radius(params, cwd)


def _reverify_worklist(params: ReverifyWorklistInput, cwd: Path | None) -> Envelope:
    from warpline.service.impact.reverify import reverify_worklist

    return reverify_worklist(params, cwd)


def _capture_snapshot(params: EdgeSnapshotCaptureInput, cwd: Path | None) -> Envelope:
    from warpline.service.impact.snapshot import capture_snapshot

    return capture_snapshot(params, cwd)


def _verification_record(params: VerificationRecordInput, cwd: Path | None) -> Envelope:
    from warpline.service.admin.verification import verification_record

    return verification_record(params, cwd)


def _project_status(params: ProjectStatusInput, cwd: Path | None) -> Envelope:
    from warpline.service.admin.status import project_status

    return project_status(params, cwd)


# -- the table ----------------------------------------------------------------------------

_READ_ONLY_NOTE = " Read-only; may initialise and catch up the local store under .weft/warpline/."


def _reader(
    endorsed: ToolName, shim: str, cli_command: str, contract: str,
    models: tuple[str, str],
    handler: Callable[[P, Path | None], Envelope],
    description: str,
    federation: tuple[str, ...] = (),
    fast_input: Callable[[dict[str, Any]], Any] | None = None,
    example: Example = _repo_only,
) -> ToolSpec[P]:
    # Read tools answer without changing anything a user owns, but they open the store,
    # which creates/migrates it and catches it up with HEAD.
    return ToolSpec(
        endorsed, shim, cli_command, f"warpline.{contract}.v1", models, handler,
        mutating=False, read_only=True, writes_local_state=True,
        mutates_paths=(STORE_PATH,), idempotent=True,
        federation_dependencies=federation,
        description=description + _READ_ONLY_NOTE, fast_input=fast_input, example=example,
    )


TOOLS: tuple[ToolSpec[Any], ...] = (
    _reader(
        "warpline_change_list", "changed", "changed", "change_list",
        ("ChangeListInput", "ChangeListEnvelope"), _change_list,
        "Changed entities for a repo and rev range, with ready-to-call next actions; call "
        "this first. Without a range it answers for my work (uncommitted changes plus "
        "commits not yet on the upstream; only the former without one); all_history true "
        "lists every recorded commit, newest first.",
        example=lambda refs: {"limit": 5, "all_history": True},
    ),
    _reader(
        "warpline_entity_timeline_get", "timeline", "timeline", "entity_timeline",
        ("EntityTimelineInput", "EntityTimelineEnvelope"), _entity_timeline,
        "Ordered change history of one entity, across renames.",
        example=lambda refs: {"entity_ref": refs[0] if refs else {"kind": "path",
                                                                  "value": "README.md"}},
    ),
    _reader(
        "warpline_entity_churn_count_get", "churn", "churn", "entity_churn_count",
        ("EntityChurnCountInput", "EntityChurnCountEnvelope"), _churn_count,
        "Change-event counts per entity over an optional window (unknown entities count 0).",
        fast_input=_churn_fast_input, example=lambda refs: {"entity_refs": refs[:5]},
    ),
    _reader(
        "warpline_impact_radius_get", "blast_radius", "blast-radius", "impact_radius",
        ("ImpactRadiusInput", "ImpactRadiusEnvelope"), _impact_radius,
        "Entities downstream of the changed ones (callers, referrers) with completeness and "
        "staleness.",
        example=lambda refs: {"changed_refs": refs[:5]},
    ),
    _reader(
        "warpline_reverify_worklist_get", "reverify", "reverify", "reverify_worklist",
        ("ReverifyWorklistInput", "ReverifyWorklistEnvelope"), _reverify_worklist,
        "The worklist to re-verify before claiming done: changed entities, then dependents, "
        "with verification freshness and one test selection (data.selection, run by "
        "next_actions.commands[0]); optionally reads filigree work links.",
        federation=("filigree",), example=lambda refs: {"changed_refs": refs[:5]},
    ),
    ToolSpec(
        "warpline_edge_snapshot_capture", "capture_snapshot", "capture-snapshot",
        "warpline.edge_snapshot.v1", ("EdgeSnapshotCaptureInput", "EdgeSnapshotEnvelope"),
        _capture_snapshot,
        mutating=True, read_only=False, writes_local_state=True,
        mutates_paths=(STORE_PATH,), idempotent=True,
        federation_dependencies=("loomweave",),
        description="Captures a dated call/reference edge snapshot (from loomweave, else the "
        "built-in extractor). Writes only under .weft/warpline/; never touches a sibling.",
        example=lambda refs: {"dry_run": True},
    ),
    ToolSpec(
        "warpline_verification_record", "verify_record", "verify-record",
        "warpline.verification_record.v1",
        ("VerificationRecordInput", "VerificationRecordEnvelope"),
        _verification_record,
        mutating=True, read_only=False, writes_local_state=True,
        mutates_paths=(STORE_PATH,), idempotent=True,
        federation_dependencies=(), writes_refs=("refs/notes/warpline",),
        description="Records an attestation that a commit passed (e.g. test_pass), once per "
        "(commit, kind): scope attested, an actor's word with no test run seen (`pytest "
        "--warpline-verify` and `warpline ci --record` record what a run proved). Writes under "
        ".weft/warpline/ and, unless git_note is false, the commit's note under "
        "refs/notes/warpline (for `warpline sync`); advisory, never gates.",
        example=None,
    ),
    ToolSpec(
        "warpline_project_status_get", "project_status", "status",
        "warpline.project_status.v1", ("ProjectStatusInput", "ProjectStatusEnvelope"),
        _project_status,
        mutating=False, read_only=True, writes_local_state=False,
        mutates_paths=(), idempotent=True,
        federation_dependencies=(),
        description="Probes whether this build can serve the store of repo. Writes nothing "
        "anywhere: never creates or migrates the store.",
    ),
)

_BY_NAME: dict[str, ToolSpec[Any]] = {name: spec for spec in TOOLS for name in spec.names}


def lookup(name: str) -> ToolSpec[Any] | None:
    """The tool registered under ``name`` (endorsed name or shim), or ``None``."""
    return _BY_NAME.get(name)


def tool_by_name(name: str) -> ToolSpec[Any]:
    """The tool registered under ``name`` (endorsed name or shim); KeyError if none."""
    return _BY_NAME[name]


def tool_names() -> tuple[str, ...]:
    """All sixteen names, endorsed then shim, in table order."""
    return tuple(name for spec in TOOLS for name in spec.names)


@cache
def inventory_document() -> dict[str, Any]:
    """The content of ``contracts/tools.json``."""
    return {
        "inventory_version": 1,
        "tools": [spec.to_inventory_entry() for spec in TOOLS],
    }


def call_tool(name: str, arguments: dict[str, Any], *, cwd: Path | None = None) -> Envelope:
    """Validate ``arguments`` strictly, run the tool, return its envelope (a JSON object).

    Raises ``WarplineError`` for every recoverable failure; the adapters render it.
    """
    spec = lookup(name)
    if spec is None:
        raise InvalidArgument(f"Unknown tool {name!r}. `tools/list` names the tools this "
                              "build serves.", field="name", value=name)
    return dispatch(spec, arguments, cwd)


def _refuse_long_strings(arguments: object) -> None:
    """Before any validation: a string past ``MAX_STRING_CHARS`` is refused naming the field
    and the bound (validating and echoing 7 MB took seconds and hundreds of MB)."""
    from warpline.limits import MAX_STRING_CHARS, first_long_string

    found = first_long_string(arguments)
    if found is not None:
        from warpline.service.shared.validation import error_class

        field, length = found
        raise error_class(field)(
            f"`{field}` is {length:,} characters long; a string argument may hold at most "
            f"{MAX_STRING_CHARS:,}. Pass a shorter value (paths, revisions and entity names "
            "fit well within it).", field=field,
            details={"length": length, "limit": MAX_STRING_CHARS})


def dispatch(spec: ToolSpec[Any], arguments: dict[str, Any], cwd: Path | None) -> Envelope:
    """The one place every tool call runs: input validation, then the handler.

    A tool with a ``fast_input`` tries it first: the common shape, certainly valid, is
    parsed without pydantic; anything else goes to the input model, which names the field."""
    import sqlite3

    _refuse_long_strings(arguments)
    params = spec.fast_input(arguments) if spec.fast_input is not None \
        and isinstance(arguments, dict) else None
    if params is None:
        from warpline.service.shared.validation import validate_input

        params = validate_input(spec, arguments)
    try:
        return spec.handler(params, cwd)
    except sqlite3.Error as exc:  # a query below met a damaged store or a refusing disk
        from warpline.store.db import translate

        raise translate(exc, "answering the query") from exc
