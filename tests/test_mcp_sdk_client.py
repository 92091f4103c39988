"""A real client: the official MCP Python SDK drives the server over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.registry import TOOLS

SRC = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n"


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"app/core.py": SRC}, message="one")
    r.commit({"app/core.py": SRC.replace("return 2", "return 3")}, message="two")
    return r


def _arguments(endorsed: str, repo: str, locators: list[str]) -> dict[str, Any]:
    refs = [{"kind": "locator", "value": locator} for locator in locators]
    if endorsed == "warpline_entity_timeline_get":
        return {"repo": repo, "entity_ref": refs[0]}
    if endorsed == "warpline_entity_churn_count_get":
        return {"repo": repo, "entity_refs": refs}
    if endorsed in ("warpline_impact_radius_get", "warpline_reverify_worklist_get"):
        return {"repo": repo, "changed_refs": refs, "depth": 3}
    if endorsed == "warpline_edge_snapshot_capture":
        return {"repo": repo, "dry_run": True}
    if endorsed == "warpline_verification_record":
        return {"repo": repo, "commit": "HEAD~1", "kind": "sdk_client", "actor": "sdk"}
    if endorsed == "warpline_change_list":
        return {"repo": repo, "all_history": True}
    return {"repo": repo}


def _envelope(result: Any) -> dict[str, Any]:
    [content] = result.content
    envelope: dict[str, Any] = json.loads(content.text)
    return envelope


async def _session_run(repo: FixtureRepo, tmp_path: Path) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "warpline.mcp"],
                                   cwd=str(tmp_path))
    seen: dict[str, Any] = {"calls": {}}
    with (tmp_path / "server-stderr.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            init = await session.initialize()
            seen["protocol"] = init.protocolVersion
            seen["server"] = init.serverInfo.name
            seen["instructions"] = init.instructions
            listing = await session.list_tools()
            seen["tools"] = [tool.name for tool in listing.tools]
            # The first call ingests history; settle it so endorsed and shim see one state.
            await session.call_tool("changed", {"repo": str(repo.path), "all_history": True})
            first = await session.call_tool(
                "verify_record", _arguments("warpline_verification_record", str(repo.path), []))
            seen["first_record"] = _envelope(first)
            # A snapshot first, so impact and reverify never auto-capture between calls.
            capture = await session.call_tool("capture_snapshot", {"repo": str(repo.path)})
            seen["capture"] = _envelope(capture)
            locators: list[str] = []
            for spec in TOOLS:
                for name in spec.names:
                    result = await session.call_tool(
                        name, _arguments(spec.endorsed, str(repo.path), locators))
                    assert not result.isError, result
                    assert result.structuredContent is None  # one copy: the text
                    envelope = _envelope(result)
                    seen["calls"][name] = envelope
                    if spec.endorsed == "warpline_change_list" and not locators:
                        locators = [item["entity"]["locator"]
                                    for item in envelope["data"]["items"]]
            try:
                await session.call_tool("changed", {"repo": str(repo.path), "limit": "ten"})
            except McpError as exc:
                seen["bad_input"] = (exc.error.code, exc.error.data)
    return seen


def test_the_sdk_client_drives_every_implemented_tool(repo: FixtureRepo, tmp_path: Path) -> None:
    seen = anyio.run(_session_run, repo, tmp_path)
    assert seen["server"] == "warpline"
    assert seen["protocol"] in ("2024-11-05", "2025-03-26", "2025-06-18")
    assert "changed" in seen["instructions"]
    expected = [name for spec in TOOLS for name in spec.names]
    assert seen["tools"] == expected
    assert sorted(seen["calls"]) == sorted(expected)
    for spec in TOOLS:
        endorsed, shim = (seen["calls"][name] for name in spec.names)
        assert endorsed == shim
        assert endorsed["query"]["tool"] == spec.endorsed
        assert_valid_envelope(endorsed)
    assert seen["calls"]["warpline_change_list"]["data"]["items"]
    assert seen["first_record"]["data"]["idempotency"] == "recorded"
    assert seen["capture"]["data"]["idempotency"] == "created"
    assert seen["calls"]["capture_snapshot"]["data"]["idempotency"] == "dry_run"
    impact = seen["calls"]["warpline_impact_radius_get"]["data"]
    assert (impact["completeness"], impact["staleness"]["commits_behind"]) == ("FULL", 0)
    assert impact["changed"]
    worklist = seen["calls"]["warpline_reverify_worklist_get"]["data"]
    assert {item["reason"] for item in worklist["items"]} == {"changed"}
    recorded = seen["calls"]["warpline_verification_record"]["data"]
    assert (recorded["idempotency"], recorded["actor"]) == ("already_recorded", "sdk")
    assert recorded["commit_sha"] == str(repo.repo.revparse_single("HEAD~1").id)
    status = seen["calls"]["warpline_project_status_get"]["data"]
    assert (status["store_status"], status["binding_ok"]) == ("ok", True)
    assert status["store"]["schema_version"] is not None
    code, data = seen["bad_input"]
    assert code == -32602
    assert (data["error_code"], data["rejected_field"]) == ("invalid_argument", "limit")
    assert_valid_envelope(data)
