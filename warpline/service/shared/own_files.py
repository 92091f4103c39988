"""warpline's own files in the work tree: never shown as the user's change.

``.weft/`` (the weft tools' state) is left out by the walker already. ``.mcp.json`` is
ours when its only difference from HEAD's version is the ``warpline`` server entry that
``install`` wrote: the entry whose command is the one this clone's config records
(``.weft/warpline/config.json``, ``mcp.command``). Any other edit to the file (another
server, a changed key) is the user's, and the file is theirs again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2

from warpline.setup.local_state import installed_config
from warpline.setup.mcp_config import MCP_FILE, SERVER_NAME, read_config, registered_command

_MAX_BYTES = 1 << 20


def own_paths(root: Path, repo: pygit2.Repository) -> frozenset[str]:
    """Work-tree paths whose uncommitted change is warpline's own doing."""
    return frozenset({MCP_FILE}) if _mcp_json_is_ours(root, repo) else frozenset()


def _mcp_json_is_ours(root: Path, repo: pygit2.Repository) -> bool:
    config = installed_config(root, repo.path) or {}
    mcp = config.get("mcp")
    recorded = mcp.get("command") if isinstance(mcp, dict) else None
    if not isinstance(recorded, list) or not recorded:
        return False
    if registered_command(root) != recorded:
        return False
    current = read_config(root)
    if not current:
        return False
    return _without_ours(current) == _without_ours(_head_version(repo))


def _head_version(repo: pygit2.Repository) -> dict[str, Any]:
    """HEAD's ``.mcp.json`` as an object; ``{}`` when HEAD has none (or it is unreadable,
    which an install never leaves: then the two differ and the file is the user's)."""
    if repo.head_is_unborn:
        return {}
    try:
        entry = repo.head.peel(pygit2.Commit).tree[MCP_FILE]
        blob = repo[entry.id]
        if not isinstance(blob, pygit2.Blob) or blob.size > _MAX_BYTES:
            return {"<unreadable>": True}
        data = json.loads(blob.data.decode("utf-8"))
    except KeyError:
        return {}
    except (UnicodeDecodeError, json.JSONDecodeError, pygit2.GitError):
        return {"<unreadable>": True}
    return data if isinstance(data, dict) else {"<not an object>": True}


def _without_ours(config: dict[str, Any]) -> dict[str, Any]:
    """The configuration minus our server entry (and an ``mcpServers`` left empty)."""
    out = dict(config)
    servers = out.get("mcpServers")
    if isinstance(servers, dict):
        rest = {k: v for k, v in servers.items() if k != SERVER_NAME}
        if rest:
            out["mcpServers"] = rest
        else:
            del out["mcpServers"]
    return out
