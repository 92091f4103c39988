"""tools/list and tools/call over the real server: the registry, twice, and nothing else."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.cli.smoke import minimal_arguments, run_smoke
from warpline.mcp.client import McpProcess, envelope_of, initialize
from warpline.registry import TOOLS

CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"
SERVER = [sys.executable, "-m", "warpline.mcp"]
SRC = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n"


def _contract(filename: str) -> Any:
    return json.loads((CONTRACTS / filename).read_text(encoding="utf-8"))


INVENTORY: list[dict[str, Any]] = _contract("tools.json")["tools"]
TOOL_NAMES = {spec.endorsed for spec in TOOLS}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    r = FixtureRepo(tmp_path_factory.mktemp("mcp-tools") / "repo")
    r.commit({"app/core.py": SRC}, message="one")
    r.commit({"app/core.py": SRC.replace("return 2", "return 3")}, message="two")
    r.commit({"app/extra.py": "def gamma():\n    return 0\n"}, message="three")
    return r


@pytest.fixture(scope="module")
def server(repo: FixtureRepo) -> Iterator[McpProcess]:
    with McpProcess(SERVER, cwd=repo.path.parent, timeout=120) as proc:
        initialize(proc)
        # Settle the store (the first call ingests history) so later calls see one state.
        proc.request("tools/call", {"name": "changed", "arguments": {"repo": str(repo.path)}})
        # ...and record the verification the table below repeats, so every call of it is
        # the same idempotent no-op.
        proc.request("tools/call", {"name": "verify_record", "arguments": _arguments(
            "warpline_verification_record", str(repo.path))})
        # ...and capture the edge snapshot, so graph answers never auto-capture mid-test.
        proc.request("tools/call", {"name": "capture_snapshot",
                                    "arguments": {"repo": str(repo.path)}})
        yield proc


@pytest.fixture(scope="module")
def listed(server: McpProcess) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = server.request("tools/list")["result"]["tools"]
    return tools


def _call(server: McpProcess, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    reply = server.request("tools/call", {"name": name, "arguments": arguments})
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def _arguments(endorsed: str, repo: str) -> dict[str, Any]:
    """Valid arguments per tool, on the module's fixture repository."""
    table: dict[str, dict[str, Any]] = {
        "warpline_change_list": {"repo": repo, "all_history": True},
        "warpline_entity_timeline_get": {"repo": repo, "entity": "app.core.beta"},
        "warpline_entity_churn_count_get": {
            "repo": repo, "entity_refs": ["app.core.beta", "app.core.alpha", "nope.x"]},
        "warpline_verification_record": {"repo": repo, "commit": "HEAD", "kind": "mcp_tools"},
        "warpline_impact_radius_get": {"repo": repo, "rev_range": "HEAD~2..HEAD"},
        "warpline_reverify_worklist_get": {"repo": repo, "changed_refs": ["app.core.beta"],
                                           "group_by": "file"},
        "warpline_edge_snapshot_capture": {"repo": repo},
    }
    return table.get(endorsed, {"repo": repo})


# -- tools/list ---------------------------------------------------------------------------

def test_tools_list_names_every_tool_of_the_inventory_under_both_names(
        listed: list[dict[str, Any]]) -> None:
    expected = [name for row in INVENTORY for name in (row["endorsed"], row["shim"])]
    assert [tool["name"] for tool in listed] == expected
    assert TOOL_NAMES == {row["endorsed"] for row in INVENTORY}


def test_tools_list_pins_the_graph_tools(listed: list[dict[str, Any]]) -> None:
    by_name = {tool["name"]: tool for tool in listed}
    pinned = {"warpline_impact_radius_get": ("blast_radius", True),
              "warpline_reverify_worklist_get": ("reverify", True),
              "warpline_edge_snapshot_capture": ("capture_snapshot", False)}
    for endorsed, (shim, read_only) in pinned.items():
        assert by_name[endorsed]["_meta"]["warpline/inventory"]["shim"] == shim
        assert endorsed in by_name[shim]["description"]
        for name in (endorsed, shim):
            tool = by_name[name]
            assert tool["annotations"]["readOnlyHint"] is read_only
            assert tool["annotations"]["destructiveHint"] is False
    assert by_name["reverify"]["annotations"]["openWorldHint"] is True  # filigree, read-only


def test_every_listed_name_answers(server: McpProcess, listed: list[dict[str, Any]]) -> None:
    for tool in listed:  # the server runs outside any repository: `repo` is missing
        reply = server.request("tools/call", {"name": tool["name"], "arguments": {}})
        assert reply["error"]["code"] == -32602, tool["name"]
        assert reply["error"]["data"]["error_code"] == "missing_required_field"


def test_an_endorsed_tool_lists_its_contracts_wire_form_and_a_shim_only_its_alias(
        listed: list[dict[str, Any]]) -> None:
    """Issue 34: the listing is the least that says how to call and read a tool. The
    input schema is the contract's wire form (every argument, type and vocabulary), once;
    no outputSchema (the answer is self-describing text; the contract is named)."""
    from warpline.mcp.wire_schema import call_schema

    by_name = {tool["name"]: tool for tool in listed}
    for row in INVENTORY:
        endorsed, shim = by_name[row["endorsed"]], by_name[row["shim"]]
        contract = _contract(row["input_schema"])
        wire = endorsed["inputSchema"]
        assert wire == call_schema(contract)
        assert set(wire["properties"]) == set(contract["properties"])
        assert set(wire.get("required", [])) == set(contract.get("required", []))
        assert "outputSchema" not in endorsed and "outputSchema" not in shim
        assert endorsed["_meta"]["warpline/inventory"] == {"shim": row["shim"],
                                                            "schema": row["schema"]}
        assert "Answer data:" in endorsed["description"]
        assert shim["inputSchema"] == {"type": "object"}
        assert f"Alias of `{row['endorsed']}`" in shim["description"]


def test_the_wire_form_accepts_what_the_contract_accepts() -> None:
    """Every argument set the tests call tools with validates against both forms alike."""
    from jsonschema import Draft202012Validator

    from warpline.mcp.wire_schema import call_schema

    calls = {row["endorsed"]: [_arguments(row["endorsed"], "/r"), {"repo": "/r", "limit": 0},
                               {"repo": "/r", "nope": 1}, {"repo": 3}, {}]
             for row in INVENTORY}
    for row in INVENTORY:
        contract = _contract(row["input_schema"])
        strict = Draft202012Validator(contract)
        wire = Draft202012Validator(call_schema(contract))
        for arguments in calls[row["endorsed"]]:
            assert strict.is_valid(arguments) == wire.is_valid(arguments), (row, arguments)


def test_annotations_agree_with_the_inventory(listed: list[dict[str, Any]]) -> None:
    rows = {name: row for row in INVENTORY for name in (row["endorsed"], row["shim"])}
    for tool in listed:
        row, hints = rows[tool["name"]], tool["annotations"]
        assert set(hints) == {"readOnlyHint", "destructiveHint", "idempotentHint",
                              "openWorldHint"}
        assert hints["readOnlyHint"] is (row["read_only"] and not row["mutating"])
        assert hints["idempotentHint"] is row["idempotent"]
        assert hints["openWorldHint"] is bool(row["federation_dependencies"])
        outside_store = [p for p in row["mutates_paths"] if not p.startswith(".weft/warpline")]
        assert hints["destructiveHint"] is bool(outside_store)


def test_descriptions_say_plainly_whether_and_where_a_tool_writes(
        listed: list[dict[str, Any]]) -> None:
    by_name = {tool["name"]: tool for tool in listed}
    for row in INVENTORY:
        text = by_name[row["endorsed"]]["description"]
        if row["writes_local_state"] or row["mutating"]:
            assert all(path in text for path in row["mutates_paths"])
        else:
            assert "Writes nothing" in text
        for ref in row["writes_refs"]:  # verify_record writes refs/notes/warpline: said
            assert ref in text
    assert next(r for r in INVENTORY if r["shim"] == "verify_record")["writes_refs"] == [
        "refs/notes/warpline"]


# -- tools/call ---------------------------------------------------------------------------

@pytest.mark.parametrize("endorsed", sorted(TOOL_NAMES))
def test_shim_and_endorsed_name_return_byte_identical_envelopes(
        server: McpProcess, repo: FixtureRepo, endorsed: str) -> None:
    shim = next(spec.shim for spec in TOOLS if spec.endorsed == endorsed)
    arguments = _arguments(endorsed, str(repo.path))
    by_endorsed = _call(server, endorsed, arguments)
    by_shim = _call(server, shim, arguments)
    assert by_endorsed["content"][0]["text"] == by_shim["content"][0]["text"]
    assert by_endorsed == by_shim
    assert envelope_of(by_shim)["query"]["tool"] == endorsed


@pytest.mark.parametrize("endorsed", sorted(TOOL_NAMES))
def test_results_carry_the_envelope_once_as_text_and_it_validates(
        server: McpProcess, repo: FixtureRepo, endorsed: str) -> None:
    result = _call(server, endorsed, _arguments(endorsed, str(repo.path)))
    assert result["isError"] is False
    [content] = result["content"]
    assert content["type"] == "text"
    assert set(result) == {"content", "isError"}  # one copy: no structuredContent
    envelope = json.loads(content["text"])
    assert envelope["ok"] is True
    assert envelope["schema"] == next(row["schema"] for row in INVENTORY
                                      if row["endorsed"] == endorsed)
    assert_valid_envelope(envelope)


def test_error_data_is_a_valid_error_envelope(server: McpProcess, repo: FixtureRepo) -> None:
    for arguments in ({"repo": str(repo.path), "rev_range": "no-such-rev"},
                      {"repo": str(repo.path), "limit": 0}, {}):
        reply = server.request("tools/call", {"name": "changed", "arguments": arguments})
        assert reply["error"]["code"] == -32602
        assert_valid_envelope(reply["error"]["data"])
    rev = server.request("tools/call", {"name": "changed", "arguments": {
        "repo": str(repo.path), "rev_range": "no-such-rev"}})["error"]["data"]
    assert (rev["error_code"], rev["rejected_field"]) == ("invalid_rev_range", "rev_range")


def test_a_relative_repo_resolves_against_the_server_working_directory(
        server: McpProcess, repo: FixtureRepo) -> None:
    relative = _call(server, "churn", {"repo": repo.path.name, "entity_refs": ["app.core.beta"]})
    absolute = _call(server, "churn", {"repo": str(repo.path), "entity_refs": ["app.core.beta"]})
    assert envelope_of(relative)["data"] == envelope_of(absolute)["data"]
    assert envelope_of(relative)["data"]["items"][0]["churn_count"] >= 1


def test_one_server_answers_for_many_repositories(server: McpProcess, repo: FixtureRepo,
                                                  tmp_path: Path) -> None:
    other = FixtureRepo(tmp_path / "other")
    other.commit({"lib/mod.py": "def solo():\n    return 1\n"}, message="only")
    here = envelope_of(_call(server, "changed", {"repo": str(repo.path),
                                                 "all_history": True}))
    there = envelope_of(_call(server, "changed", {"repo": str(other.path),
                                                  "all_history": True}))
    locators = {item["entity"]["locator"] for item in there["data"]["items"]}
    assert any(locator.endswith("solo") for locator in locators)
    assert not any("app.core" in locator or "app/core" in locator for locator in locators)
    assert here["data"]["items"] != there["data"]["items"]


# -- warpline mcp-smoke -------------------------------------------------------------------

def test_mcp_smoke_passes_on_a_working_installation(repo: FixtureRepo) -> None:
    out = io.StringIO()
    assert run_smoke(repo.path, SERVER, out=out) == 0, out.getvalue()
    report = out.getvalue()
    assert "FAIL" not in report
    for spec in TOOLS:
        # The smoke check never calls a tool that writes (verify_record): it reports a skip.
        writes = minimal_arguments(spec.endorsed, str(repo.path), []) is None
        assert f"{'skip' if writes else 'ok':<5} tools/call {spec.endorsed}" in report


def test_mcp_smoke_fails_when_the_server_is_broken(repo: FixtureRepo) -> None:
    out = io.StringIO()
    broken = [sys.executable, "-c", "import sys; sys.exit(3)"]
    assert run_smoke(repo.path, broken, out=out, timeout=30) == 1
    assert "FAIL" in out.getvalue()


def test_mcp_smoke_fails_when_the_repo_is_not_a_repository(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_smoke(tmp_path, SERVER, out=out) == 1
    assert "invalid_repo" in out.getvalue()
