"""The repository's ``.mcp.json``: register ``warpline-mcp``, keep everything else.

The file is the project-scoped MCP configuration coding agents read
(``{"mcpServers": {name: {"type": "stdio", "command", "args", "env"}}}``). Only the
``warpline`` entry is ours: every other byte of the file is kept (other servers, their
layout and order, other top-level keys), and keys a person added to our entry (``env``,
say) survive an update. A file that is not a JSON object is never rewritten: install
reports a conflict instead. A tracked ``.mcp.json`` is the team's: install leaves it
alone and says so unless asked (``--shared-mcp``).
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


def register(root: Path, command: list[str], *, tracked: bool | None = False,
             shared: bool = False) -> Action:
    """Add or update our entry. Only its bytes change: every other byte of the file (other
    servers, their layout, other keys) stays as it was. A ``.mcp.json`` git tracks is the
    team's file: left alone unless ``shared`` (``install --shared-mcp``), and said."""
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
    if tracked is not False and not shared:
        said = "is tracked by git (the team's file)" if tracked else \
            "may be tracked by git (its index could not be read)"
        return Action("mcp", str(path), "skipped",
                      f"{MCP_FILE} {said}: not changed. Rerun with --shared-mcp to add "
                      f"the `{SERVER_NAME}` entry there, or add it by hand: "
                      f"\"{SERVER_NAME}\": {json.dumps(entry, ensure_ascii=False)}")
    existed = path.exists()
    text = path.read_text(encoding="utf-8") if existed else ""
    write_atomic(path, with_entry(text, entry).encode("utf-8"))
    others = len(servers) - (1 if current is not None else 0)
    return Action("mcp", str(path), "updated" if existed else "created",
                  f"server `{SERVER_NAME}`: {command[0]}; {others} other server(s) kept "
                  "byte for byte")


def with_entry(text: str, entry: dict[str, Any]) -> str:
    """``text`` (a JSON object, or empty) with ``mcpServers.warpline`` set to ``entry``,
    every other byte kept: our value replaced in place, or our member added after the last
    one, indented like its neighbours."""
    if not text.strip():
        return json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2,
                          ensure_ascii=False) + "\n"
    top = _members(text, _skip(text, 0))
    servers = next((m for m in top.members if m[0] == "mcpServers"), None)
    if servers is None:  # no servers yet: one member added to the top object
        return _append(text, top, "mcpServers", {SERVER_NAME: entry})
    inner = _members(text, servers[2])
    ours = next((m for m in inner.members if m[0] == SERVER_NAME), None)
    if ours is not None:
        indent = _indent_of(text, ours[1])
        value = _dumps(entry, indent)
        return text[:ours[2]] + value + text[ours[3]:]
    return _append(text, inner, SERVER_NAME, entry)


# (key, key start, value start, value end)
_Member = tuple[str, int, int, int]


class _Object:
    def __init__(self, start: int, end: int, members: list[_Member]) -> None:
        self.start, self.end, self.members = start, end, members  # end: index of its "}"


_DECODER = json.JSONDecoder()


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _members(text: str, start: int) -> _Object:
    """The members of the JSON object whose ``{`` is at ``start`` (the file parsed already,
    so it is well formed)."""
    members: list[_Member] = []
    at = _skip(text, start + 1)
    while text[at] != "}":
        key_start = at
        key, at = _DECODER.raw_decode(text, at)
        at = _skip(text, _skip(text, at) + 1)  # past the ':'
        value_start = at
        _, at = _DECODER.raw_decode(text, at)
        members.append((str(key), key_start, value_start, at))
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return _Object(start, at, members)


def _indent_of(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    return text[line_start:at] if not text[line_start:at].strip() else ""


def _dumps(value: Any, indent: str) -> str:
    """``value`` as JSON, nested lines indented from ``indent`` (2 spaces a level)."""
    lines = json.dumps(value, indent=2, ensure_ascii=False).split("\n")
    return "\n".join([lines[0], *(indent + line for line in lines[1:])])


def _append(text: str, obj: _Object, key: str, value: Any) -> str:
    if obj.members:
        last = obj.members[-1]
        indent = _indent_of(text, last[1])
        new = f",\n{indent}{json.dumps(key)}: {_dumps(value, indent)}"
        return text[:last[3]] + new + text[last[3]:]
    closing = _indent_of(text, obj.end)
    indent = closing + "  "
    new = f"\n{indent}{json.dumps(key)}: {_dumps(value, indent)}\n{closing}"
    return text[:obj.start + 1] + new + text[obj.end:]
