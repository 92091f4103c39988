"""The CLI (``warpline <cmd> --json``) and MCP give identical envelopes on identical state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.mcp.client import McpProcess, initialize
from warpline.registry import TOOLS

SRC = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n"

# (CLI argv after `warpline`, MCP tool name, MCP arguments) -- the same question both ways.
CASES: list[tuple[list[str], str, dict[str, Any]]] = [
    (["changed", "--all"], "changed", {"all_history": True}),
    # No range means "my work" on both (the service's rule); no upstream here: the work tree.
    (["changed"], "changed", {}),
    (["changed", "HEAD~1..HEAD"], "changed", {"rev_range": "HEAD~1..HEAD"}),
    (["changed", "--base", "HEAD~2", "--head", "HEAD"], "warpline_change_list",
     {"base_ref": "HEAD~2", "head_ref": "HEAD"}),
    (["changed", "--all", "--change-kind", "modified", "--limit", "1"], "changed",
     {"filters": {"change_kinds": ["modified"]}, "limit": 1, "all_history": True}),
    (["changed", "--all", "--path", "app/", "--sort-order", "asc"], "changed",
     {"filters": {"paths": ["app/"]}, "sort_order": "asc", "all_history": True}),
    (["timeline", "app.core.beta"], "timeline", {"entity": "app.core.beta"}),
    (["timeline", "python:function:app.core.beta", "--ref-kind", "locator"],
     "warpline_entity_timeline_get",
     {"entity_ref": {"kind": "locator", "value": "python:function:app.core.beta"}}),
    (["churn", "app.core.beta", "app.core.alpha", "no.such.thing"], "churn",
     {"entity_refs": ["app.core.beta", "app.core.alpha", "no.such.thing"]}),
    (["churn", "app.core.beta", "--range", "HEAD~1..HEAD", "--sort-order", "asc"],
     "warpline_entity_churn_count_get",
     {"entity_refs": ["app.core.beta"], "window": {"rev_range": "HEAD~1..HEAD"},
      "sort_order": "asc"}),
    # The server fixture records (HEAD, parity) first, so both ways answer already_recorded.
    (["verify-record", "--commit", "HEAD", "--kind", "parity"], "verify_record",
     {"commit": "HEAD", "kind": "parity"}),
    (["verify-record", "--commit", "HEAD~1", "--kind", "parity", "--actor", "ci"],
     "warpline_verification_record", {"commit": "HEAD~1", "kind": "parity", "actor": "ci"}),
    (["status"], "project_status", {}),
    (["status"], "warpline_project_status_get", {}),
    # The server fixture captures the snapshot first: graph answers never auto-capture.
    (["blast-radius", "HEAD~2..HEAD"], "blast_radius", {"rev_range": "HEAD~2..HEAD"}),
    (["blast-radius", "--ref", "app.core.beta", "--depth", "3", "--edge-kind", "calls"],
     "warpline_impact_radius_get",
     {"changed_refs": ["app.core.beta"], "depth": 3, "filters": {"edge_kinds": ["calls"]}}),
    (["reverify", "HEAD~2..HEAD", "--group-by", "file", "--limit", "1"], "reverify",
     {"rev_range": "HEAD~2..HEAD", "group_by": "file", "limit": 1}),
    (["reverify", "--ref", "python:function:app.core.beta", "--ref-kind", "locator",
      "--reason", "changed"], "warpline_reverify_worklist_get",
     {"changed_refs": [{"kind": "locator", "value": "python:function:app.core.beta"}],
      "filters": {"reasons": ["changed"]}}),
    (["capture-snapshot", "--dry-run"], "capture_snapshot", {"dry_run": True}),
    (["capture-snapshot"], "warpline_edge_snapshot_capture", {}),
]

ERROR_CASES: list[tuple[list[str], str, dict[str, Any]]] = [
    (["changed", "no-such-rev"], "changed", {"rev_range": "no-such-rev"}),
    # A reversed range names no commit: refused with the range the right way round.
    (["changed", "HEAD..HEAD~1"], "changed", {"rev_range": "HEAD..HEAD~1"}),
    (["reverify", "HEAD..HEAD~1"], "reverify", {"rev_range": "HEAD..HEAD~1"}),
    (["changed", "--limit", "0"], "changed", {"limit": 0}),
    (["timeline", "x", "--ref-kind", "warpline_entity_key_id"], "timeline",
     {"entity_ref": {"kind": "warpline_entity_key_id", "value": "x"}}),
    (["verify-record", "--commit", "no-such-rev", "--kind", "ci_pass"], "verify_record",
     {"commit": "no-such-rev", "kind": "ci_pass"}),
    (["verify-record", "--commit", "HEAD", "--kind", ""], "verify_record",
     {"commit": "HEAD", "kind": ""}),
    (["blast-radius", "--ref", "app.core.beta", "--depth", "9"], "blast_radius",
     {"changed_refs": ["app.core.beta"], "depth": 9}),
    (["reverify", "no-such-rev"], "reverify", {"rev_range": "no-such-rev"}),
    (["capture-snapshot", "--mode", "changed_only"], "capture_snapshot",
     {"mode": "changed_only"}),
]

# The same mistake made on each adapter: a value of the wrong type or outside a closed
# vocabulary, a missing required argument. Both name the same code and the same field
# (the wording may differ where the CLI's parser answers, e.g. `--limit abc`).
FIELD_CASES: list[tuple[list[str], str, dict[str, Any]]] = [
    (["changed", "--all", "--limit", "abc"], "changed", {"limit": "abc"}),
    (["changed", "--all", "--change-kind", "modified", "--change-kind", "sideways"],
     "changed", {"filters": {"change_kinds": ["modified", "sideways"]}}),
    (["changed", "--all", "--entity-kind", "lambda"], "changed",
     {"filters": {"entity_kinds": ["lambda"]}}),
    (["changed", "--all", "--sort-order", "up"], "changed", {"sort_order": "up"}),
    (["changed", "--all", "--since", "yesterday"], "changed",
     {"filters": {"since": "yesterday"}}),
    (["timeline"], "timeline", {}),
    (["timeline", "app.core.beta", "--ref-kind", "nickname"], "timeline",
     {"entity_ref": {"kind": "nickname", "value": "app.core.beta"}}),
    (["churn", "app.core.beta", "--ref-kind", "nickname"], "churn",
     {"entity_refs": [{"kind": "nickname", "value": "app.core.beta"}]}),
    (["churn", "app.core.beta", "--sort-by", "size"], "churn",
     {"entity_refs": ["app.core.beta"], "sort_by": "size"}),
    (["blast-radius", "--ref", "app.core.beta", "--depth", "two"], "blast_radius",
     {"changed_refs": ["app.core.beta"], "depth": "two"}),
    (["blast-radius", "--key-id", "x1"], "blast_radius", {"changed_entity_key_ids": ["x1"]}),
    (["blast-radius", "--ref", "app.core.beta", "--edge-kind", "telepathy"], "blast_radius",
     {"changed_refs": ["app.core.beta"], "filters": {"edge_kinds": ["telepathy"]}}),
    (["reverify", "--ref", "app.core.beta", "--reason", "whim"], "reverify",
     {"changed_refs": ["app.core.beta"], "filters": {"reasons": ["whim"]}}),
    (["reverify", "HEAD~1..HEAD", "--group-by", "colour"], "reverify",
     {"rev_range": "HEAD~1..HEAD", "group_by": "colour"}),
    (["verify-record", "--kind", "parity"], "verify_record", {"kind": "parity"}),
    (["verify-record", "--commit", "HEAD"], "verify_record", {"commit": "HEAD"}),
    (["capture-snapshot", "--mode", "sideways"], "capture_snapshot", {"mode": "sideways"}),
    (["capture-snapshot", "--max-entities", "many"], "capture_snapshot",
     {"max_entities": "many"}),
]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    r = FixtureRepo(tmp_path_factory.mktemp("parity") / "repo")
    r.commit({"app/core.py": SRC}, message="one")
    r.commit({"app/core.py": SRC.replace("return 2", "return 3")}, message="two")
    r.commit({"app/more.py": "def gamma():\n    return 0\n"}, message="three")
    return r


@pytest.fixture(scope="module")
def server(repo: FixtureRepo) -> Iterator[McpProcess]:
    with McpProcess([sys.executable, "-m", "warpline.mcp"], cwd=repo.path,
                    timeout=120) as proc:
        initialize(proc)
        # Settle the store first so both front doors read the very same state.
        proc.request("tools/call", {"name": "changed", "arguments": {"repo": str(repo.path)}})
        for commit in ("HEAD", "HEAD~1"):
            proc.request("tools/call", {"name": "verify_record", "arguments": {
                "repo": str(repo.path), "commit": commit, "kind": "parity"}})
        proc.request("tools/call", {"name": "capture_snapshot",
                                    "arguments": {"repo": str(repo.path)}})
        yield proc


def _cli(argv: list[str], repo: FixtureRepo) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "warpline.cli", *argv, "--repo", str(repo.path), "--json"],
        capture_output=True, text=True, timeout=120, cwd=repo.path,
        env={**os.environ, "NO_COLOR": "1"})


def _mcp(server: McpProcess, name: str, arguments: dict[str, Any],
         repo: FixtureRepo) -> dict[str, Any]:
    reply: dict[str, Any] = server.request("tools/call", {
        "name": name, "arguments": {"repo": str(repo.path), **arguments}})
    return reply


def _both_errors(server: McpProcess, repo: FixtureRepo, argv: list[str], name: str,
                 arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The CLI's error envelope (exit 1) and MCP's (-32602 data) for the same mistake."""
    cli = _cli(argv, repo)
    assert cli.returncode == 1, cli.stderr
    by_cli: dict[str, Any] = json.loads(cli.stdout)
    assert_valid_envelope(by_cli)
    reply = _mcp(server, name, arguments, repo)
    assert reply["error"]["code"] == -32602
    by_mcp: dict[str, Any] = reply["error"]["data"]
    return by_cli, by_mcp


def test_every_tool_has_a_parity_case() -> None:
    covered = {name for _, name, _ in CASES}
    for spec in TOOLS:
        assert covered & set(spec.names), spec.endorsed


@pytest.mark.parametrize(("argv", "name", "arguments"), CASES,
                         ids=[" ".join(case[0]) for case in CASES])
def test_cli_and_mcp_give_identical_envelopes(server: McpProcess, repo: FixtureRepo,
                                              argv: list[str], name: str,
                                              arguments: dict[str, Any]) -> None:
    cli = _cli(argv, repo)
    assert cli.returncode == 0, cli.stderr
    by_cli = json.loads(cli.stdout)
    reply = _mcp(server, name, arguments, repo)
    assert "result" in reply, reply
    by_mcp = json.loads(reply["result"]["content"][0]["text"])
    assert by_mcp == by_cli
    assert_valid_envelope(by_mcp)


@pytest.mark.parametrize(("argv", "name", "arguments"), ERROR_CASES,
                         ids=[" ".join(case[0]) for case in ERROR_CASES])
def test_cli_and_mcp_give_identical_errors(server: McpProcess, repo: FixtureRepo,
                                           argv: list[str], name: str,
                                           arguments: dict[str, Any]) -> None:
    by_cli, by_mcp = _both_errors(server, repo, argv, name, arguments)
    assert by_mcp == by_cli


@pytest.mark.parametrize(("argv", "name", "arguments"), FIELD_CASES,
                         ids=[" ".join(case[0]) for case in FIELD_CASES])
def test_cli_and_mcp_name_the_same_code_and_field(server: McpProcess, repo: FixtureRepo,
                                                  argv: list[str], name: str,
                                                  arguments: dict[str, Any]) -> None:
    by_cli, by_mcp = _both_errors(server, repo, argv, name, arguments)
    assert by_cli["rejected_field"] is not None
    assert (by_cli["error_code"], by_cli["rejected_field"]) == \
        (by_mcp["error_code"], by_mcp["rejected_field"])
