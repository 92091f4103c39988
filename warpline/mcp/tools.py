"""``tools/list`` and ``tools/call``: a thin adapter over ``warpline.registry``.

Every row of the registry is listed twice (endorsed name and shim) with the contract's
schemas; a call goes to ``registry.call_tool``, the same entry point the CLI uses.
The registry (and so pydantic, pygit2, ...) is imported on first use, not at start-up.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warpline.errors import InvalidArgument, MissingRequiredField, WarplineError
from warpline.mcp.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    RpcError,
    internal_error,
)

if TYPE_CHECKING:
    from warpline.registry import ToolSpec

log = logging.getLogger("warpline.mcp")

STORE_DIR = ".weft/warpline/"
META_KEY = "warpline/inventory"
_MAX_NAME = 200


def list_tools() -> list[dict[str, Any]]:
    from warpline.registry import TOOLS

    return [tool_entry(spec, name) for spec in TOOLS for name in spec.names]


def tool_entry(spec: ToolSpec[Any], name: str) -> dict[str, Any]:
    """One tool's listing. Its schemas are the parsed contract files themselves, shared by
    the endorsed name and the shim, not copies: the listing is encoded as it is built."""
    from warpline.contracts_io import shared_contract

    return {
        "name": name,
        "title": spec.endorsed if name == spec.endorsed else f"{name} ({spec.endorsed})",
        "description": describe(spec, name),
        "inputSchema": shared_contract(spec.input_schema_file),
        "outputSchema": shared_contract(spec.output_schema_file),
        "annotations": tool_hints(spec),
        "_meta": {META_KEY: inventory_meta(spec, name)},
    }


def tool_hints(spec: ToolSpec[Any]) -> dict[str, bool]:
    """The MCP hints, derived from the inventory metadata and nothing else."""
    return {
        "readOnlyHint": spec.read_only and not spec.mutating,
        # Destructive = may overwrite or delete something outside warpline's own store.
        "destructiveHint": any(not _in_store(path) for path in spec.mutates_paths),
        "idempotentHint": spec.idempotent,
        "openWorldHint": bool(spec.federation_dependencies),
    }


def inventory_meta(spec: ToolSpec[Any], name: str) -> dict[str, Any]:
    return {
        "endorsed": spec.endorsed,
        "shim": spec.shim,
        "alias_of": None if name == spec.endorsed else spec.endorsed,
        "schema": spec.schema_id,
        "mutating": spec.mutating,
        "read_only": spec.read_only,
        "writes_local_state": spec.writes_local_state,
        "mutates_paths": list(spec.mutates_paths),
        "idempotent": spec.idempotent,
        "federation_dependencies": list(spec.federation_dependencies),
        "writes_refs": list(spec.writes_refs),
    }


def describe(spec: ToolSpec[Any], name: str) -> str:
    """The contract's description plus a plain statement of what the tool writes, and where."""
    parts = [spec.description.strip()]
    if name != spec.endorsed:
        parts.append(f"Short name for `{spec.endorsed}`: same input, same envelope.")
    parts.append(_writes_sentence(spec))
    if spec.federation_dependencies:
        parts.append("Consults " + ", ".join(spec.federation_dependencies)
                     + " when reachable; answers locally (enrichment `unavailable`) when not.")
    return " ".join(parts)


def _writes_sentence(spec: ToolSpec[Any]) -> str:
    where = ", ".join(f"REPO/{path}" for path in spec.mutates_paths) or f"REPO/{STORE_DIR}"
    if spec.writes_refs:
        refs = ", ".join(spec.writes_refs)
        return (f"Writes: {where} and the git ref {refs} (nothing else: never your files, "
                "the git index, branches or tags, or a sibling tool's data).")
    if spec.mutating:
        return (f"Writes: {where} only (never your files, the git index or refs, or a "
                "sibling tool's data).")
    if spec.writes_local_state:
        return (f"Writes: only warpline's own store, {where} (never your files, the git "
                "index or refs).")
    return "Writes: nothing, anywhere."


def _in_store(path: str) -> bool:
    return path.rstrip("/").startswith(STORE_DIR.rstrip("/"))


def call(params: dict[str, Any]) -> dict[str, Any]:
    """``tools/call``: the envelope as structuredContent and as JSON text, or an RpcError."""
    if "name" not in params:
        raise _invalid(MissingRequiredField(
            "`params.name` is required: pass a tool name from `tools/list`.", field="name"))
    name = params["name"]
    if not isinstance(name, str):
        raise _invalid(InvalidArgument("`params.name` must be a string naming a tool.",
                                       field="name", value=type(name).__name__))
    if len(name) > _MAX_NAME:  # never echoed back in full (it is named in the error)
        raise _invalid(InvalidArgument(
            f"`params.name` is {len(name):,} characters long; tool names are at most "
            f"{_MAX_NAME}. Pass a tool name from `tools/list`.", field="name",
            details={"length": len(name), "limit": _MAX_NAME}))
    arguments = params.get("arguments")
    if arguments is None:  # absent (or null): the tool's own validation names what is missing
        arguments = {}
    if not isinstance(arguments, dict):
        raise _invalid(InvalidArgument(
            "`params.arguments` must be a JSON object of the tool's arguments.",
            field="arguments", value=type(arguments).__name__))

    try:
        from warpline import registry

        if registry.lookup(name) is None:
            raise RpcError(METHOD_NOT_FOUND, f"unknown tool: {name}", InvalidArgument(
                f"Unknown tool {name!r}. `tools/list` names the tools this build serves.",
                field="name", value=name).to_payload())
        envelope = registry.call_tool(name, arguments, cwd=_cwd())
        text = json.dumps(envelope, ensure_ascii=False, allow_nan=False)
    except RpcError:
        raise
    except WarplineError as exc:
        if exc.code == "internal_error":
            log.error("tool %s failed: %s", name, exc.hint)
            raise RpcError(INTERNAL_ERROR, exc.summary(), exc.to_payload()) from None
        raise _invalid(exc) from None
    except (Exception, SystemExit) as exc:
        log.exception("tool %s raised unexpectedly", name)
        raise internal_error(exc) from None
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": envelope,
        "isError": False,
    }


def _cwd() -> Path | None:
    """The server's working directory; None once it was deleted (absolute paths still work)."""
    try:
        return Path.cwd()
    except OSError:
        return None


def _invalid(error: WarplineError) -> RpcError:
    """``-32602``: the message says what to fix in words (a client may show only that);
    ``data`` is the ``warpline.error.v1`` object, unchanged."""
    return RpcError(INVALID_PARAMS, f"invalid params: {error.summary()}", error.to_payload())
