"""warpline's own files in the work tree: never shown as the user's change.

``.weft/`` (the weft tools' state) is left out by the walker already. The reports `warpline
ci` writes into the checkout (``warpline-reverify.md``, the GitLab example's ``reverify.md``
and ``tests.txt``: its ``--markdown`` and ``--selection`` files) are remembered with the git
blob id of what was written (``outputs.json`` in the state directory): while a file still
holds exactly that, it is ours. ``.mcp.json`` is
ours when its only difference from HEAD's version is the ``warpline`` server entry that
``install`` wrote: the entry whose command is the one this clone's config records
(``.weft/warpline/config.json``, ``mcp.command``). Any other edit to the file (another
server, a changed key) is the user's, and the file is theirs again.

The two files' formats are ``warpline.setup``'s (``local_state``, ``mcp_config``); they are
read here, not imported, because the service layer sits below setup.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2

from warpline.errors import StoreUnsafe
from warpline.git.lookups import head_blob
from warpline.mcpjson import MCP_FILE as MCP_FILE
from warpline.mcpjson import SERVER_NAME as SERVER_NAME
from warpline.mcpjson import server_command
from warpline.store import guard

_MAX_BYTES = 1 << 20
OUTPUTS = "outputs.json"
_MAX_OUTPUTS = 32


def own_paths(root: Path, repo: pygit2.Repository) -> frozenset[str]:
    """Work-tree paths whose uncommitted change is warpline's own doing."""
    ours = set(_written_outputs(root))
    if _mcp_json_is_ours(root, repo):
        ours.add(MCP_FILE)
    return frozenset(ours)


def remember_outputs(root: Path, written: list[Path]) -> None:
    """Remember files warpline just wrote (those inside the work tree at ``root``), with
    the blob id of their bytes: while they hold exactly that, they are not the user's."""
    state = guard.check_state(root, create=True)
    assert state is not None
    known = _outputs(state)
    for path in written:
        try:
            relative = path.resolve().relative_to(root.resolve()).as_posix()
            if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
                continue
            known[relative] = str(pygit2.hash(path.read_bytes()))
        except (OSError, ValueError):
            continue
    kept = dict(list(known.items())[-_MAX_OUTPUTS:])
    (state / OUTPUTS).write_text(json.dumps(kept, sort_keys=True), encoding="utf-8")


def _outputs(state: Path) -> dict[str, str]:
    found = _read_object(state / OUTPUTS) or {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}


def _written_outputs(root: Path) -> list[str]:
    try:
        state = guard.check_state(root, create=False)
    except StoreUnsafe:
        return []
    if state is None:
        return []
    out = []
    for relative, blob in _outputs(state).items():
        path = root / relative
        try:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
                continue
            if str(pygit2.hash(path.read_bytes())) == blob:
                out.append(relative)
        except OSError:
            continue
    return out


def _mcp_json_is_ours(root: Path, repo: pygit2.Repository) -> bool:
    config = _installed_config(root, Path(repo.path)) or {}
    mcp = config.get("mcp")
    recorded = mcp.get("command") if isinstance(mcp, dict) else None
    if not isinstance(recorded, list) or not recorded:
        return False
    current = _read_object(root / MCP_FILE)
    if not current or server_command(current) != recorded:
        return False
    return _without_ours(current) == _without_ours(_head_version(repo))


def _read_object(path: Path) -> dict[str, Any] | None:
    """A JSON object from a regular file (never through a link), within the cap."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _installed_config(root: Path, gitdir: Path) -> dict[str, Any] | None:
    """This work tree's ``config.json``, else (a linked worktree) the main work tree's."""
    for candidate in (root, _main_worktree(gitdir)):
        if candidate is None:
            continue
        try:
            if guard.check_state(candidate, create=False) is None:
                continue
        except StoreUnsafe:
            continue
        found = _read_object(guard.state_dir(candidate) / "config.json")
        if found is not None:
            return found
    return None


def _main_worktree(gitdir: Path) -> Path | None:
    try:
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return None
    return common.parent if common.name == ".git" else None


def _head_version(repo: pygit2.Repository) -> dict[str, Any]:
    """HEAD's ``.mcp.json`` as an object; ``{}`` when HEAD has none (or it is unreadable,
    which an install never leaves: then the two differ and the file is the user's)."""
    try:
        raw = head_blob(repo, MCP_FILE, _MAX_BYTES)
        if raw is None:
            return {}
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):  # json.JSONDecodeError is a ValueError
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
