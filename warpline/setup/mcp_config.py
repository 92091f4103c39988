"""The repository's ``.mcp.json``: register ``warpline-mcp``, keep everything else.

The file is the project-scoped MCP configuration coding agents read
(``{"mcpServers": {name: {"type": "stdio", "command", "args", "env"}}}``). Only the
``warpline`` entry is ours: other servers, other top-level keys and their order are kept,
and keys a person added to our entry (``env``, say) survive an update. A file that is
not a JSON object is never rewritten: install reports a conflict instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from warpline.mcpjson import MCP_FILE as MCP_FILE
from warpline.mcpjson import SERVER_NAME as SERVER_NAME
from warpline.mcpjson import server_command
from warpline.setup._files import Action, write_atomic


def desired_entry(command: list[str]) -> dict[str, Any]:
    return {"type": "stdio", "command": command[0], "args": list(command[1:])}


def read_config(root: Path) -> dict[str, Any] | None:
    """The parsed ``.mcp.json``; ``{}`` when absent, ``None`` when it is not a JSON object."""
    path = root / MCP_FILE
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def registered_command(root: Path) -> list[str] | None:
    """``[command, *args]`` of our entry, or None when there is none (or it is malformed)."""
    return server_command(read_config(root) or {})


def register(root: Path, command: list[str]) -> Action:
    path = root / MCP_FILE
    config = read_config(root)
    if config is None:
        return Action("mcp", str(path), "conflict",
                      f"{MCP_FILE} is not a JSON object; fix or move it, then rerun install")
    servers = config.get("mcpServers", {})
    if not isinstance(servers, dict):
        return Action("mcp", str(path), "conflict",
                      f"`mcpServers` in {MCP_FILE} is not an object; fix it, then rerun install")
    current = servers.get(SERVER_NAME)
    entry = {**current, **desired_entry(command)} if isinstance(current, dict) \
        else desired_entry(command)
    if current == entry:
        return Action("mcp", str(path), "unchanged", f"server `{SERVER_NAME}`: {command[0]}")
    existed = path.exists()
    # Insert or replace in place: the other servers keep their order.
    config["mcpServers"] = {**servers, SERVER_NAME: entry}
    write_atomic(path, (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode())
    others = len(servers) - (1 if current is not None else 0)
    return Action("mcp", str(path), "updated" if existed else "created",
                  f"server `{SERVER_NAME}`: {command[0]}; {others} other server(s) kept")
