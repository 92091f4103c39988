"""``tools/list`` and ``tools/call``: a thin adapter over ``warpline.registry``.

What is listed is the least that tells an agent how to call and read each tool (the
contracts in ``contracts/`` stay whole; ``warpline.mcp.wire_schema`` derives the wire
form): an endorsed tool carries its input schema's wire form, its description with one
line of the answer's ``data`` fields, the MCP hints and its contract id; a shim says whose
alias it is and carries nothing twice. No ``outputSchema`` (optional in MCP
2025-06-18), so an answer is sent once, as JSON text: see ``call``.
A call goes to ``registry.call_tool``, the same entry point the CLI uses.
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
# A shim's input schema: any object; its endorsed tool's schema (listed once) is the rule.
_ALIAS_INPUT: dict[str, Any] = {"type": "object"}


def list_tools() -> list[dict[str, Any]]:
    from warpline.registry import TOOLS

    return [tool_entry(spec, name) for spec in TOOLS for name in spec.names]


def tool_entry(spec: ToolSpec[Any], name: str) -> dict[str, Any]:
    """One tool's listing: the endorsed name in full, a shim as an alias of it."""
    if name != spec.endorsed:
        return {
            "name": name,
            "title": f"{name} = {spec.endorsed}",
            "description": f"Alias of `{spec.endorsed}`: same arguments, same answer.",
            "inputSchema": _ALIAS_INPUT,
            "annotations": tool_hints(spec),
        }
    from warpline.contracts_io import shared_contract
    from warpline.mcp.wire_schema import call_schema, outline

    answer = outline(shared_contract(spec.output_schema_file))
    return {
        "name": name,
        "description": f"{describe(spec, name)} Answer data: {answer}.",
        "inputSchema": call_schema(shared_contract(spec.input_schema_file)),
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
    """What the listing adds to the hints: the shim and the contract (the rest of the
    inventory row is ``contracts/tools.json``)."""
    return {"shim": spec.shim, "schema": spec.schema_id}


def describe(spec: ToolSpec[Any], name: str) -> str:
    """The table's description (each says plainly whether and where the tool writes), and
    the peers it consults."""
    parts = [spec.description.strip()]
    if spec.federation_dependencies:
        parts.append("Consults " + ", ".join(spec.federation_dependencies)
                     + " when reachable (else enrichment `unavailable`).")
    return " ".join(parts)


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
            raise _unknown_tool(name, list(registry.tool_names()))
        envelope = registry.call_tool(name, arguments, cwd=_cwd())
        text = json.dumps(envelope, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":"))
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
    # One copy: the envelope as JSON text, which every client reads (a model is given the
    # text; 2024-11-05 and 2025-03-26 know nothing else). No structuredContent: MCP
    # 2025-06-18 requires it only of a tool that lists an outputSchema, and its copy of
    # the same bytes doubled every answer (docs/architecture.md, wire decisions).
    return {"content": [{"type": "text", "text": text}], "isError": False}


def _unknown_tool(name: str, known: list[str]) -> RpcError:
    """``-32601`` with the closest served names (a closed vocabulary: ``warpline_changes``
    -> ``warpline_change_list``, ``changed``)."""
    import difflib

    lowered = {candidate.lower(): candidate for candidate in known}
    close = [lowered[c] for c in difflib.get_close_matches(name.lower(), list(lowered),
                                                            n=3, cutoff=0.5)]
    hint = (f" Did you mean {', '.join(repr(c) for c in close)}?" if close
            else " `tools/list` names the tools this build serves.")
    error = InvalidArgument(f"Unknown tool {name!r}.{hint}", field="name", value=name,
                            details={"did_you_mean": close})
    return RpcError(METHOD_NOT_FOUND, f"unknown tool: {name}", error.to_payload())


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
