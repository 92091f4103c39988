"""Every suggestion callable as given (issue 34): "did you mean" names that are read back
as what they name (a Go or TypeScript name has a `/`, so it is handed back as its
locator), `more:` lines runnable as printed, unknown tool names answered with the closest
ones, and a range that names no commit never read as "nothing changed"."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.errors import WarplineError
from warpline.mcp.client import McpProcess, envelope_of, initialize, server_command
from warpline.registry import call_tool

GOMOD = "module github.com/acme/tool\n\ngo 1.21\n"
GO = ("package tool\n\nfunc Execute() int {\n\treturn 1\n}\n\n"
      "func helper() int {\n\treturn 2\n}\n")
TS = "export function parseHeader(x: string): string {\n  return x;\n}\n"


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"go.mod": GOMOD, "cmd.go": GO, "src/lib.ts": TS}, message="one")
    r.commit({"cmd.go": GO.replace("return 1", "return 3")}, message="two")
    for n in range(3):
        r.commit({f"notes{n}.txt": f"{n}\n"}, message=f"note {n}")
    return r


def _cli(repo: FixtureRepo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=repo.path,
                          capture_output=True, text=True, timeout=300)


def _run_printed(repo: FixtureRepo, line: str) -> subprocess.CompletedProcess[str]:
    """A printed `warpline ...` command, run as printed (its words, as a shell splits them)."""
    words = shlex.split(line)
    assert words[0] == "warpline", line
    return _cli(repo, *words[1:])


@pytest.mark.parametrize(("typo", "locator"), [
    ("Executte", "go:function:github.com/acme/tool.Execute"),
    ("parseHeadr", "ts:function:src/lib.parseHeader"),
])
def test_a_suggested_name_with_a_slash_is_handed_back_as_its_locator(
        repo: FixtureRepo, typo: str, locator: str) -> None:
    env = call_tool("timeline", {"repo": str(repo.path), "entity": typo})
    assert_valid_envelope(env)
    suggested = [action["arguments"]["entity"] for action in env["next_actions"]["tools"]]
    assert locator in suggested
    again = call_tool("timeline", {"repo": str(repo.path), "entity": locator})
    assert again["data"]["entity"]["warpline_entity_key_id"] is not None
    # The CLI prints the same suggestion as a `next:` line that runs as printed.
    done = _cli(repo, "timeline", typo)
    assert done.returncode == 0, done.stderr
    nexts = [line[len("next: "):].split("  (")[0] for line in done.stdout.splitlines()
             if line.startswith("next: ") and locator in line]
    assert nexts, done.stdout
    followed = _run_printed(repo, nexts[0])
    assert followed.returncode == 0, followed.stderr
    assert "no entity named" not in followed.stdout


def test_a_more_line_runs_as_printed_and_gives_the_next_page(repo: FixtureRepo) -> None:
    done = _cli(repo, "changed", "--all", "--limit", "2")
    assert done.returncode == 0, done.stderr
    [more] = [line for line in done.stdout.splitlines() if line.startswith("more: ")]
    followed = _run_printed(repo, more[len("more: "):])
    assert followed.returncode == 0, followed.stderr
    page_one = [line for line in done.stdout.splitlines() if "  core:file:" in line]
    page_two = [line for line in followed.stdout.splitlines() if "  core:file:" in line]
    assert page_two and not set(page_one) & set(page_two)


def test_an_unknown_tool_name_gets_the_closest_names(repo: FixtureRepo) -> None:
    with McpProcess(server_command(), cwd=repo.path, timeout=120) as server:
        initialize(server)
        reply = server.request("tools/call", {"name": "warpline_changes", "arguments": {}})
        assert reply["error"]["code"] == -32601
        data = reply["error"]["data"]
        assert (data["error_code"], data["rejected_field"]) == ("invalid_argument", "name")
        assert "warpline_change_list" in data["details"]["did_you_mean"]
        assert_valid_envelope(data)
        # ...and the suggestion is callable as given.
        name = data["details"]["did_you_mean"][0]
        answer = server.request("tools/call", {"name": name, "arguments": {}})
        assert envelope_of(answer["result"])["ok"] is True


def test_a_reversed_range_is_refused_naming_the_range_the_right_way_round(
        repo: FixtureRepo) -> None:
    for tool in ("changed", "reverify", "blast_radius"):
        with pytest.raises(WarplineError) as caught:
            call_tool(tool, {"repo": str(repo.path), "rev_range": "HEAD..HEAD~3"})
        assert (caught.value.code, caught.value.field) == ("invalid_rev_range", "rev_range")
        assert caught.value.details["did_you_mean"] == "HEAD~3..HEAD"
    done = _cli(repo, "changed", "HEAD..HEAD~3", "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error_code"] == "invalid_rev_range"
    fixed = _cli(repo, "changed", json.loads(done.stdout)["details"]["did_you_mean"])
    assert fixed.returncode == 0 and "notes2.txt" in fixed.stdout


def test_an_empty_range_warns_and_proposes_nothing(repo: FixtureRepo) -> None:
    env: dict[str, Any] = call_tool("changed", {"repo": str(repo.path),
                                                "rev_range": "HEAD..HEAD"})
    assert_valid_envelope(env)
    assert env["data"]["items"] == [] and env["warnings"]
    assert "tools" not in env["next_actions"]
    done = _cli(repo, "changed", "HEAD..HEAD")
    assert done.returncode == 0
    assert "warning:" in done.stdout and "next: warpline reverify" not in done.stdout


def test_no_range_without_changes_proposes_no_reverify(repo: FixtureRepo) -> None:
    env = call_tool("changed", {}, cwd=repo.path)
    assert env["data"]["items"] == [] and "tools" not in env["next_actions"]
    assert os.fspath(repo.path.resolve()) == env["query"]["repo"]
