"""Agent-first answers: MCP error messages in words, "my work" as the CLI default and as an
explicit MCP call, commands from a subdirectory, unknown entities with the closest names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo, run_git
from warpline.registry import call_tool

SRC = "def login():\n    return 1\n\n\ndef logout():\n    return login()\n"



def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    """A clone whose branch tracks origin/main, one local commit ahead, one file edited."""
    origin = FixtureRepo(tmp_path / "origin")
    origin.commit({"auth/session.py": SRC, "auth/__init__.py": ""}, message="one")
    origin.commit({"auth/session.py": SRC.replace("return 1", "return 2")}, message="two")
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(origin.path), str(clone))
    run_git(clone, "config", "user.name", "Me")
    run_git(clone, "config", "user.email", "me@example.com")
    (clone / "auth" / "tokens.py").write_text("def issue():\n    return 'x'\n")
    run_git(clone, "add", "auth/tokens.py")
    run_git(clone, "commit", "-q", "-m", "mine: tokens")
    (clone / "auth" / "session.py").write_text(SRC.replace("return 1", "return 9"))
    return clone


def _locators(env: dict[str, Any]) -> set[str]:
    return {item["entity"]["locator"] for item in env["data"]["items"]}


def test_cli_changed_without_a_range_is_my_work(work: Path) -> None:
    done = _cli(work, "changed", "--json")
    assert done.returncode == 0, done.stderr
    env = json.loads(done.stdout)
    assert_valid_envelope(env)
    assert env["data"]["range"]["rev_range"] == "@{upstream}..HEAD"
    found = _locators(env)
    assert "python:function:auth.tokens.issue" in found  # the unpushed commit
    assert "python:function:auth.session.login" in found  # the uncommitted edit
    # Nothing from the history already on upstream (commit "one" added logout).
    assert all(i["change_kind"] != "added" or "tokens" in i["entity"]["locator"]
               for i in env["data"]["items"] if i["origin"] != "worktree")
    assert any("your work" in w for w in env["warnings"])


def test_cli_reverify_and_blast_radius_without_a_range_seed_from_my_work(work: Path) -> None:
    for command in ("reverify", "blast-radius"):
        done = _cli(work, command, "--json")
        assert done.returncode == 0, done.stderr
        env = json.loads(done.stdout)
        assert_valid_envelope(env)
        args = env["query"]["arguments"]
        assert (args["rev_range"], args["include_worktree"]) == ("@{upstream}..HEAD", True)
        if command == "blast-radius":
            seeds = {s["entity"]["locator"] for s in env["data"]["changed"]}
        else:
            seeds = {i["entity"]["locator"] for i in env["data"]["items"] if i["depth"] == 0}
        assert {"python:function:auth.tokens.issue",
                "python:function:auth.session.login"} <= seeds
        assert "python:function:auth.session.logout" not in seeds  # on upstream already


def test_a_branch_without_upstream_means_the_work_tree_only(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "solo")
    repo.commit({"a.py": SRC}, message="one")
    (repo.path / "a.py").write_text(SRC.replace("return 1", "return 5"))
    done = _cli(repo.path, "changed", "--json")
    assert done.returncode == 0, done.stderr
    env = json.loads(done.stdout)
    assert {i["origin"] for i in env["data"]["items"]} == {"worktree"}
    assert any("no upstream" in w for w in env["warnings"])


def test_mcp_without_a_range_is_my_work_as_on_the_cli(work: Path) -> None:
    """Issue 34: one rule (the service's) for both adapters; all_history for the rest."""
    explicit = call_tool("changed", {"repo": str(work), "rev_range": "@{upstream}..HEAD",
                                     "include_worktree": True})
    mine = call_tool("changed", {"repo": str(work)})
    assert _locators(mine) == _locators(explicit)
    assert "python:function:auth.tokens.issue" in _locators(mine)
    assert "python:function:auth.session.logout" not in _locators(mine)
    everything = call_tool("changed", {"repo": str(work), "all_history": True})
    assert "python:function:auth.session.logout" in _locators(everything)


@pytest.mark.parametrize("tool", ["reverify", "blast_radius"])
def test_mcp_reverify_and_blast_radius_without_a_range_answer_for_my_work(
        work: Path, tool: str) -> None:
    """Issue 34: no range and no refs is my work, as ``changed`` (it was
    missing_required_field)."""
    explicit = call_tool(tool, {"repo": str(work), "rev_range": "@{upstream}..HEAD",
                                "include_worktree": True})
    mine = call_tool(tool, {"repo": str(work)})
    assert_valid_envelope(mine)
    key = "items" if tool == "reverify" else "affected"
    changed = {i["entity"]["locator"] for i in mine["data"][key]
               if i.get("reason", "changed") == "changed"} if key == "items" else None
    if changed is not None:
        assert "python:function:auth.tokens.issue" in changed
        assert "python:function:auth.session.logout" not in changed
    assert mine["data"][key] == explicit["data"][key]


def test_an_upstream_range_without_upstream_names_the_cause(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "solo")
    repo.commit({"a.py": SRC}, message="one")
    with pytest.raises(Exception) as caught:
        call_tool("changed", {"repo": str(repo.path), "rev_range": "@{upstream}..HEAD"})
    assert getattr(caught.value, "code", None) == "invalid_rev_range"
    assert getattr(caught.value, "field", None) == "rev_range"


def test_commands_run_from_a_subdirectory(work: Path) -> None:
    sub = work / "auth"
    done = _cli(sub, "changed", "HEAD~1..HEAD", "--json")
    assert done.returncode == 0, done.stderr
    env = json.loads(done.stdout)
    assert env["query"]["repo"] == str(work.resolve())
    assert "python:function:auth.tokens.issue" in _locators(env)
    assert not (sub / ".weft").exists()
    status = _cli(sub, "status", "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["data"]["resolved_root"] == str(work.resolve())


def test_an_explicit_subdirectory_path_is_still_refused(work: Path) -> None:
    done = _cli(work, "changed", "--repo", "auth", "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error_code"] == "invalid_repo"


def test_an_unknown_entity_names_the_closest_known_ones(work: Path) -> None:
    env = call_tool("timeline", {"repo": str(work), "entity": "auth.session.logn"})
    assert_valid_envelope(env)
    assert env["data"]["items"] == [] and env["data"]["entity"]["warpline_entity_key_id"] is None
    assert any("auth.session.login" in w for w in env["warnings"])
    suggested = [t["arguments"]["entity"] for t in env["next_actions"]["tools"]]
    assert suggested[0] == "auth.session.login"
    again = call_tool("timeline", {"repo": str(work), "entity": suggested[0]})
    assert again["data"]["items"]
    done = _cli(work, "timeline", "auth.session.logn")
    assert done.returncode == 0
    assert "None" not in done.stdout
    assert "auth.session.login" in done.stdout


async def _mcp_error(repo: Path, tmp_path: Path) -> McpError:
    params = StdioServerParameters(command=sys.executable, args=["-m", "warpline.mcp"],
                                   cwd=str(tmp_path))
    with (tmp_path / "stderr.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.instructions and "my work" in init.instructions
            listing = await session.list_tools()
            changed = next(t for t in listing.tools if t.name == "warpline_change_list")
            assert changed.description and "my work" in changed.description
            try:
                await session.call_tool("changed", {"repo": str(repo),
                                                    "rev_range": "nope..HEAD"})
            except McpError as exc:
                return exc
    raise AssertionError("the bad range was accepted")


def test_mcp_error_text_carries_code_field_and_fix_and_data_is_unchanged(
        work: Path, tmp_path: Path) -> None:
    exc = anyio.run(_mcp_error, work, tmp_path)
    text = str(exc)
    assert "invalid_rev_range" in text and "rev_range" in text and "'nope'" in text
    data = exc.error.data
    assert isinstance(data, dict)
    assert_valid_envelope(data)
    assert (data["error_code"], data["rejected_field"]) == ("invalid_rev_range", "rev_range")
    assert data["hint"] in exc.error.message


def test_churn_of_an_unknown_name_warns_with_the_closest_names(work: Path) -> None:
    env = call_tool("churn", {"repo": str(work), "entity_refs": ["auth.sesion.logout"]})
    assert_valid_envelope(env)
    assert env["data"]["items"][0]["churn_count"] == 0
    assert any("auth.session.logout" in w for w in env["warnings"])
