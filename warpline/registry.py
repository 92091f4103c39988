"""The tool table: one row per tool, read by the CLI, the MCP server, docs and tests.

The inventory (names, schema ids, write metadata) is the frozen ``contracts/tools.json``;
this module pairs each row with its input model and handler. ``call_tool`` is the single
entry point both adapters use, so their envelopes are identical by construction.
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from warpline.contracts_io import load_contract
from warpline.errors import InvalidArgument

Handler = Callable[[Any, Path | None], dict[str, Any]]

# endorsed name -> "module:function" of its handler. The input model is the inventory's
# (``warpline.models.inventory``), checked against the same contract files.
# A tool appears here only once it can answer; tools/list never lists a name that cannot.
_IMPLEMENTED: dict[str, str] = {
    "warpline_change_list": "warpline.service.changed:change_list",
    "warpline_entity_timeline_get": "warpline.service.timeline:entity_timeline",
    "warpline_entity_churn_count_get": "warpline.service.churn:churn_count",
    "warpline_impact_radius_get": "warpline.service.impact:impact_radius",
    "warpline_reverify_worklist_get": "warpline.service.reverify:reverify_worklist",
    "warpline_edge_snapshot_capture": "warpline.service.snapshot:capture_snapshot",
    "warpline_verification_record": "warpline.service.verification:verification_record",
    "warpline_project_status_get": "warpline.service.status:project_status",
}


@dataclass(frozen=True, slots=True)
class ToolSpec:
    endorsed: str
    shim: str
    schema: str
    input_schema_file: str
    output_schema_file: str
    description: str
    mutating: bool
    read_only: bool
    writes_local_state: bool
    mutates_paths: tuple[str, ...]
    idempotent: bool
    federation_dependencies: tuple[str, ...]

    @property
    def names(self) -> tuple[str, str]:
        return (self.endorsed, self.shim)

    def input_schema(self) -> dict[str, Any]:
        return load_contract(self.input_schema_file)

    def output_schema(self) -> dict[str, Any]:
        return load_contract(self.output_schema_file)


def _spec(row: dict[str, Any]) -> ToolSpec:
    return ToolSpec(
        endorsed=row["endorsed"],
        shim=row["shim"],
        schema=row["schema"],
        input_schema_file=row["input_schema"],
        output_schema_file=row["output_schema"],
        description=row["description"],
        mutating=bool(row["mutating"]),
        read_only=bool(row["read_only"]),
        writes_local_state=bool(row["writes_local_state"]),
        mutates_paths=tuple(row["mutates_paths"]),
        idempotent=bool(row["idempotent"]),
        federation_dependencies=tuple(row["federation_dependencies"]),
    )


@cache
def inventory() -> tuple[ToolSpec, ...]:
    """All eight tools of the frozen contract, implemented or not."""
    return tuple(_spec(row) for row in load_contract("tools.json")["tools"])


def implemented_tools() -> tuple[ToolSpec, ...]:
    return tuple(spec for spec in inventory() if spec.endorsed in _IMPLEMENTED)


def lookup(name: str) -> ToolSpec | None:
    for spec in implemented_tools():
        if name in spec.names:
            return spec
    return None


def _load(target: str) -> Any:
    module, attr = target.split(":")
    return getattr(importlib.import_module(module), attr)


def call_tool(name: str, arguments: dict[str, Any], *, cwd: Path | None = None) -> dict[str, Any]:
    """Validate ``arguments`` strictly, run the tool, return its envelope (a JSON object).

    Raises ``WarplineError`` for every recoverable failure; the adapters render it.
    """
    spec = lookup(name)
    if spec is None:
        raise InvalidArgument(f"Unknown tool {name!r}. `tools/list` names the tools this "
                              "build implements.", field="name", value=name)

    from warpline.service.validation import validate_input

    params = validate_input(spec.endorsed, arguments)
    handler: Handler = _load(_IMPLEMENTED[spec.endorsed])
    try:
        return handler(params, cwd)
    except sqlite3.Error as exc:  # a query below met a damaged store or a refusing disk
        from warpline.store.db import translate

        raise translate(exc, "answering the query") from exc
