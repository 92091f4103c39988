"""``reverify`` over MCP (the official SDK client, a real server process) on cosmetic
changes: a range of comment-only edits asks for no tests and says why; in a mixed range
the cosmetic entity is listed to inspect and only the others select tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo

CORE = '''def alpha(x):
    # double it
    return x * 2


def beta(y):
    """Add one."""
    return y + 1
'''
TESTS = '''from app.core import alpha, beta


def test_alpha():
    assert alpha(2) == 4


def test_beta():
    assert beta(1) == 2
'''


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"app/__init__.py": "", "app/core.py": CORE, "tests/test_core.py": TESTS,
              "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n"}, "one")
    return r


async def _reverify(repo: FixtureRepo, tmp_path: Path, rev_range: str) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "warpline.mcp"],
                                   cwd=str(tmp_path))
    with (tmp_path / "server-stderr.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(
                "reverify", {"repo": str(repo.path), "rev_range": rev_range})
            assert not result.isError, result
            assert result.structuredContent is None  # one copy on the wire: the text
            envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
            return envelope


def test_a_range_of_comment_only_edits_asks_for_no_tests_and_says_why(
        repo: FixtureRepo, tmp_path: Path) -> None:
    repo.commit({"app/core.py": CORE.replace("# double it", "# twice x")}, "comment")
    repo.commit({"app/core.py": CORE.replace("# double it", "# twice x").replace(
        '"""Add one."""', '"""Add one to y."""')}, "docstring")
    env = anyio.run(_reverify, repo, tmp_path, "HEAD~2..HEAD")
    assert_valid_envelope(env)
    data = env["data"]
    items = {i["entity"]["locator"]: i for i in data["items"]}
    assert {loc: i["nature"] for loc, i in items.items()} == {
        "python:function:app.core.alpha": "cosmetic", "python:function:app.core.beta": "cosmetic"}
    assert all(i["reason"] == "changed" for i in items.values())
    for item in items.values():
        assert [s["kind"] for s in item["suggested_verification"]] == ["inspection"]
        assert item["suggested_verification"][0]["command"] is None
    selection = data["selection"]
    assert selection["tests"] == [] and selection["tests_selected"] == 0
    assert selection["cosmetic_entities"] == sorted(items)
    assert selection["cosmetic_only"] is True
    commands = env["next_actions"].get("commands", [])
    assert not any(c["command"].startswith("pytest") for c in commands)
    assert any("cosmetic" in w and "no tests" in w for w in env["warnings"])


def test_a_mixed_range_selects_tests_for_the_behavioural_change_only(
        repo: FixtureRepo, tmp_path: Path) -> None:
    repo.commit({"app/core.py": CORE.replace("# double it", "# twice x").replace(
        "y + 1", "1 + y + 0")}, "mixed")
    env = anyio.run(_reverify, repo, tmp_path, "HEAD~1..HEAD")
    assert_valid_envelope(env)
    data = env["data"]
    natures = {i["entity"]["locator"]: i["nature"] for i in data["items"]
               if i["reason"] == "changed"}
    assert natures == {"python:function:app.core.alpha": "cosmetic",
                       "python:function:app.core.beta": "behavioural"}
    assert data["selection"]["cosmetic_entities"] == ["python:function:app.core.alpha"]
    assert data["selection"]["cosmetic_only"] is False
    tests = data["selection"]["tests"]
    assert tests and all("test_alpha" not in t for t in tests)
    assert any(t.endswith("test_beta") or t == "tests/test_core.py" for t in tests)


def test_a_docstring_edit_selects_tests_where_the_project_runs_doctests(
        repo: FixtureRepo, tmp_path: Path) -> None:
    repo.commit({"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n"
                 "addopts = '--doctest-modules'\n"}, "doctests")
    repo.commit({"app/core.py": CORE.replace('"""Add one."""', '"""Add one to y."""')}, "doc")
    env = anyio.run(_reverify, repo, tmp_path, "HEAD~1..HEAD")
    data = env["data"]
    assert [i["nature"] for i in data["items"] if i["reason"] == "changed"] == ["behavioural"]
    assert data["selection"]["cosmetic_entities"] == []
    assert data["selection"]["tests"]


def test_every_rendering_says_nothing_is_to_run_for_a_cosmetic_range(repo: FixtureRepo) -> None:
    # The table and the markdown once said "none known: the whole suite" for it, while the
    # JSON, --format pytest and the plugin ran nothing.
    import subprocess

    repo.commit({"app/core.py": CORE.replace("# double it", "# twice x")}, "comment")

    def cli(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "warpline.cli", "reverify", "HEAD~1..HEAD",
                               "--repo", str(repo.path), *args], capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    for rendered in (cli(), cli("--format", "markdown")):
        assert "whole suite" not in rendered
        assert "none to run" in rendered
    assert cli("--format", "pytest").strip() == ""
