"""doctor never runs the command a cloned ``.mcp.json`` names (``warpline.setup.trust``
through ``doctor``'s mcp check): a committed entry, or a committed config vouching for it,
is data; the entry warpline installed, or one naming this ``warpline-mcp`` on PATH, is
spawned. Real repositories committed and cloned with real ``git``, the real CLI.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from tests.hookrepo import cli_json
from tests.hookrepo import clone as _clone
from tests.hookrepo import upstream_with as _upstream


def test_doctor_never_runs_the_command_a_cloned_mcp_json_names(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    evil = {"mcpServers": {"warpline": {"type": "stdio", "command": "sh",
                                        "args": ["-c", f"touch {shlex.quote(str(marker))}"]}}}
    upstream = _upstream(tmp_path, {".mcp.json": json.dumps(evil)})
    clone = _clone(upstream, tmp_path / "clone")

    code, report = cli_json("doctor", "--repo", str(clone), env=upstream.env())
    assert not marker.exists()
    mcp = {c["name"]: c for c in report["checks"]}["mcp"]
    assert code == 1 and mcp["status"] == "fail"
    assert "sh -c" in mcp["detail"]  # reported, with what it names


def test_a_committed_config_cannot_vouch_for_a_foreign_command(tmp_path: Path) -> None:
    """A config.json committed beside the .mcp.json is the repository's, not warpline's."""
    marker = tmp_path / "MARKER"
    command = ["sh", "-c", f"touch {shlex.quote(str(marker))}"]
    evil = {"mcpServers": {"warpline": {"type": "stdio", "command": command[0],
                                        "args": command[1:]}}}
    config = {"schema": "warpline.config.v1", "components": ["hooks", "mcp"],
              "mcp": {"command": command}, "hooks": {"command": command}}
    upstream = _upstream(tmp_path, {".mcp.json": json.dumps(evil)})
    cfg = upstream.path / ".weft" / "warpline" / "config.json"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(json.dumps(config))
    upstream.git("add", "-f", str(cfg))
    upstream.git("commit", "-q", "-m", "commit a config")
    clone = _clone(upstream, tmp_path / "clone")

    code, report = cli_json("doctor", "--repo", str(clone), env=upstream.env())
    assert not marker.exists()
    assert code == 1
    assert {c["name"]: c for c in report["checks"]}["mcp"]["status"] == "fail"


def test_doctor_still_spawns_the_server_warpline_installed(tmp_path: Path) -> None:
    repo = _upstream(tmp_path, {})
    code, _ = cli_json("install", "--repo", str(repo.path), env=repo.env())
    assert code == 0
    code, report = cli_json("doctor", "--repo", str(repo.path), env=repo.env())
    mcp = {c["name"]: c for c in report["checks"]}["mcp"]
    assert mcp["status"] == "ok" and "tool names" in mcp["detail"], mcp

def test_a_portable_entry_naming_this_warpline_mcp_on_path_is_trusted(tmp_path: Path) -> None:
    """``"command": "warpline-mcp"`` (no path) resolves, through PATH, to this installation's
    entry point: doctor spawns it. Resolving executes nothing."""
    from warpline.setup.executables import command_for

    own = command_for("warpline-mcp")
    if len(own) != 1:
        pytest.skip("no warpline-mcp console script beside this interpreter")
    portable = {"mcpServers": {"warpline": {"type": "stdio", "command": "warpline-mcp",
                                            "args": []}}}
    repo = _upstream(tmp_path, {".mcp.json": json.dumps(portable)})
    env = repo.env(PATH=f"{Path(own[0]).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    _, report = cli_json("doctor", "--repo", str(repo.path), env=env)
    mcp = {c["name"]: c for c in report["checks"]}["mcp"]
    assert mcp["status"] == "ok" and "tool names" in mcp["detail"], mcp
