"""Co-change and risk from history (``service/history/coupling.py``), on real repositories:
a strongly coupled pair changed together in several commits, a range that changes one of
them, asked over the real MCP server; an oversized commit and a merge left out; a fix
commit named; a shallow clone says the history is not there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo, run_git
from warpline.mcp.client import McpProcess, initialize
from warpline.registry import call_tool

SERVER = [sys.executable, "-m", "warpline.mcp"]
CLIENT = "python:function:app.client.send"
ADAPTER = "python:function:app.adapters.send"
LONELY = "python:function:app.lonely.alone"


def _client(n: int) -> str:
    return f"def send(x):\n    return x + {n}\n\n\ndef other():\n    return 0\n"


def _adapters(n: int) -> str:
    return f"def send(x):\n    return x * {n}\n"


def _bulk(n: int) -> str:
    """31 definitions, every one edited: a commit over the transaction bound."""
    return "\n\n".join(f"def b{k}():\n    return {n}\n" for k in range(31))


class Built:
    def __init__(self, repo: FixtureRepo) -> None:
        self.repo = repo
        self.together: list[str] = []


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    repo = FixtureRepo(tmp_path_factory.mktemp("coupling") / "repo")
    out = Built(repo)
    repo.commit({"app/__init__.py": "", "app/client.py": _client(0),
                 "app/adapters.py": _adapters(0), "app/lonely.py": "def alone():\n    pass\n",
                 "app/bulk.py": _bulk(0)}, message="start")
    for n in range(1, 5):  # the pair changes together four times
        out.together.append(repo.commit({"app/client.py": _client(n),
                                         "app/adapters.py": _adapters(n)},
                                        message=f"together {n}"))
    # Together again, but in a commit of 33 changed definitions: over the bound, not counted.
    repo.commit({"app/client.py": _client(5), "app/adapters.py": _adapters(5),
                 "app/bulk.py": _bulk(1)}, message="sweeping change")
    repo.commit({"app/client.py": _client(6).replace("return 0", "return 1")},
                message="Fix other's return value")
    # The range asked about: client.send alone.
    repo.commit({"app/client.py": _client(7).replace("return 0", "return 1")},
                message="client only")
    return out


@pytest.fixture(scope="module")
def server(built: Built) -> Iterator[McpProcess]:
    with McpProcess(SERVER, cwd=built.repo.path.parent, timeout=120) as proc:
        initialize(proc)
        yield proc


def _reverify(server: McpProcess, repo: Path, **args: Any) -> dict[str, Any]:
    reply = server.request("tools/call", {"name": "reverify", "arguments": {
        "repo": str(repo), "depth": 0, **args}})
    envelope: dict[str, Any] = json.loads(reply["result"]["content"][0]["text"])
    assert_valid_envelope(envelope)
    return envelope


def _item(envelope: dict[str, Any], locator: str) -> dict[str, Any]:
    return next(i for i in envelope["data"]["items"] if i["entity"]["locator"] == locator)


def test_a_range_changing_one_of_a_coupled_pair_lists_the_other_with_its_evidence(
        built: Built, server: McpProcess) -> None:
    env = _reverify(server, built.repo.path, rev_range="HEAD")
    assert env["enrichment"]["risk"] == "present"
    partners = env["data"]["co_change"]
    assert [p["locator"] for p in partners] == [ADAPTER]
    partner = partners[0]
    # Four commits together; the 33-definition commit is over the bound and not counted;
    # client.send changed in 4 bounded commits before the range (plus the fix commit).
    assert partner["support"] == 4
    assert partner["confidence"] == pytest.approx(4 / 5, abs=1e-3)
    assert partner["last_commit"] == built.together[-1]
    assert partner["changed_with"] == [CLIENT]
    facts = {f["kind"]: f for f in _item(env, CLIENT)["enrichment"]["risk"]}
    assert [m["locator"] for m in facts["co_change"]["missing"]] == [ADAPTER]
    assert facts["co_change"]["missing"][0]["last_commit"] == built.together[-1]


def test_a_partner_is_never_a_test_to_run_and_never_an_item(
        built: Built, server: McpProcess) -> None:
    env = _reverify(server, built.repo.path, rev_range="HEAD")
    assert ADAPTER not in {i["entity"]["locator"] for i in env["data"]["items"]}
    commands = " ".join(c["command"] for c in env["next_actions"].get("commands", []))
    assert "adapters" not in commands


def test_a_range_holding_both_lists_neither(built: Built, server: McpProcess) -> None:
    env = _reverify(server, built.repo.path,
                    rev_range=f"{built.together[0]}~1..{built.together[-1]}")
    assert env["data"]["co_change"] == []
    facts = _item(env, CLIENT)["enrichment"]["risk"]
    assert "co_change" not in {f["kind"] for f in facts}


def test_a_recent_fix_commit_is_named_on_the_item(built: Built, server: McpProcess) -> None:
    env = _reverify(server, built.repo.path, rev_range="HEAD")
    fix = run_git(built.repo.path, "rev-parse", "HEAD~1").strip()
    facts = {f["kind"]: f for f in _item(env, CLIENT)["enrichment"]["risk"]}
    assert [c["commit"] for c in facts["fixes"]["commits"]] == [fix]
    assert facts["fixes"]["count"] == 1


def test_nothing_notable_is_absent_not_unavailable(built: Built, tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "quiet")
    repo.commit({"app/__init__.py": "", "app/lonely.py": "def alone():\n    pass\n"})
    repo.commit({"app/lonely.py": "def alone():\n    return 1\n"})
    env = call_tool("reverify", {"repo": str(repo.path), "rev_range": "HEAD", "depth": 0})
    assert_valid_envelope(env)
    assert env["enrichment"]["risk"] == "absent"
    assert env["data"]["co_change"] == []
    assert _item(env, LONELY)["enrichment"]["risk"] == []


def test_a_shallow_clone_says_risk_is_unavailable_and_why(built: Built, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    run_git(tmp_path, "clone", "-q", "--depth", "2", f"file://{built.repo.path}", str(clone))
    env = call_tool("reverify", {"repo": str(clone), "rev_range": "HEAD", "depth": 0})
    assert_valid_envelope(env)
    assert env["enrichment"]["risk"] == "unavailable"
    assert env["data"]["co_change"] == []
    assert all(i["enrichment"]["risk"] == [] for i in env["data"]["items"])
    assert any("unshallow" in w for w in env["warnings"])


def test_the_table_and_markdown_name_the_partner_apart_from_the_tests(built: Built) -> None:
    for fmt in ("table", "markdown"):
        done = subprocess.run([sys.executable, "-m", "warpline.cli", "reverify", "HEAD",
                               "--depth", "0", "--format", fmt], cwd=built.repo.path,
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "NO_COLOR": "1"})
        assert done.returncode == 0, done.stderr
        after = done.stdout.split("not in this change", 1)
        assert len(after) == 2 and ADAPTER in after[1], done.stdout


def test_a_merge_is_not_a_transaction(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "merged")
    repo.commit({"app/__init__.py": "", "app/client.py": _client(0),
                 "app/adapters.py": _adapters(0), "app/lonely.py": "def alone():\n    pass\n"})
    together = [repo.commit({"app/client.py": _client(n), "app/adapters.py": _adapters(n)})
                for n in (1, 2)]
    fork = repo.head
    assert fork is not None
    side = repo.commit({"app/lonely.py": "def alone():\n    return 2\n"}, parents=[fork],
                       update_head=False)
    ours = repo.commit({"app/client.py": _client(3)})
    # The resolution matches neither parent: the merge records both definitions as changed.
    repo.merge_commit(ours, side, {"app/client.py": _client(4), "app/adapters.py": _adapters(4)})
    repo.commit({"app/client.py": _client(5)})
    merged = call_tool("changed", {"repo": str(repo.path), "rev_range": "HEAD~1"})
    assert {CLIENT, ADAPTER} <= {i["entity"]["locator"] for i in merged["data"]["items"]}
    env = call_tool("reverify", {"repo": str(repo.path), "rev_range": "HEAD", "depth": 0})
    assert_valid_envelope(env)
    [partner] = env["data"]["co_change"]
    assert partner["locator"] == ADAPTER
    assert (partner["support"], partner["last_commit"]) == (2, together[-1])
    assert partner["confidence"] == pytest.approx(2 / 3, abs=1e-3)
