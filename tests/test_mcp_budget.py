"""What an agent's first minute costs (issue 34): the bytes the server writes for
``tools/list`` and for an agent's first three calls, on a real history, through the official
MCP SDK client. The server's stdout passes through ``tee``, so what is counted is the wire
itself, one JSON-RPC message a line.

The budgets were set from measurement (the numbers are in the issue's note): the listing
was 277 KB before, 19 KB after; on requests' 400th first-parent commit, ``changed
HEAD~10..HEAD`` and the two follow-ups it hands over: 17.7, 41.8 and 14.9 KB (each answer
once, as text; before, each was sent twice)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.corpora import early_requests_or_skip

LIST_BUDGET = 20_000
# Per call, from the same measurement with room for the history's own variation (a
# worklist item carries the contract's every field, ~1 KB: the next step is the contract's).
CALL_BUDGETS = {"changed": 20_000, "warpline_reverify_worklist_get": 48_000,
                "warpline_impact_radius_get": 18_000}


@pytest.fixture(scope="module")
def requests_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """requests' history up to its 400th first-parent commit, backfilled, with a snapshot."""
    clone = early_requests_or_skip(tmp_path_factory)
    for command in (["backfill"], ["capture-snapshot"]):
        subprocess.run([sys.executable, "-m", "warpline.cli", *command, "--repo", str(clone),
                        "--json"], check=True, capture_output=True)
    return clone


async def _session(clone: Path, wire: Path) -> list[str]:
    """tools/list, then ``changed`` of the last ten commits and the two calls it hands
    over, as given; returns the methods in order."""
    server = f"{shlex.quote(sys.executable)} -m warpline.mcp | tee {shlex.quote(str(wire))}"
    params = StdioServerParameters(command="sh", args=["-c", server], cwd=str(clone),
                                   env={**os.environ, "WARPLINE_BACKGROUND_BACKFILL": "0"})
    calls: list[str] = []
    with (wire.parent / "stderr.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            first = await session.call_tool("changed", {"rev_range": "HEAD~10..HEAD"})
            calls.append("changed")
            envelope: dict[str, Any] = json.loads(first.content[0].text)  # type: ignore[union-attr]
            for action in envelope["next_actions"]["tools"][:2]:
                result = await session.call_tool(action["tool"], action["arguments"])
                assert not result.isError
                calls.append(action["tool"])
    return calls


def test_tools_list_and_the_first_three_calls_stay_within_their_budgets(
        requests_clone: Path, tmp_path: Path) -> None:
    wire = tmp_path / "wire.jsonl"
    calls = anyio.run(_session, requests_clone, wire)
    replies = {}
    for line in wire.read_bytes().splitlines():
        message = json.loads(line)
        replies[message.get("id")] = len(line) + 1
    sizes = [replies[request_id] for request_id in sorted(replies)]
    init, listing, *answers = sizes
    print(f"wire bytes: initialize {init}, tools/list {listing}, "
          + ", ".join(f"{name} {size}" for name, size in zip(calls, answers, strict=True)))
    assert calls == ["changed", "warpline_reverify_worklist_get", "warpline_impact_radius_get"]
    assert listing <= LIST_BUDGET
    assert len(answers) == 3
    for name, size in zip(calls, answers, strict=True):
        assert size <= CALL_BUDGETS[name], (name, size)
