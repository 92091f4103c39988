"""The project-scoped ``.mcp.json`` as data: its name, warpline's server name in it, and
the command warpline's entry names. Pure (no I/O), so the setup package that writes the
file and the service layer that recognises it as warpline's own read it the same way."""

from __future__ import annotations

from typing import Any

MCP_FILE = ".mcp.json"
SERVER_NAME = "warpline"


def server_command(config: dict[str, Any]) -> list[str] | None:
    """``[command, *args]`` of warpline's entry in a parsed ``.mcp.json``; None when there
    is none or it is malformed."""
    servers = config.get("mcpServers")
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return None
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None
    return [entry["command"], *args]
