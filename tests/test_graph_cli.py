"""``warpline capture-snapshot``, ``blast-radius`` and ``reverify`` on the command line:
refs and rev ranges in, tables / JSON / the other formats out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from tests.graphfixture import CHANGE_PONG, CMD_TEST_PING, MAKE, PING, PONG, edit, make_repo


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1",
                               "WARPLINE_AUTO_CAPTURE_BUDGET_S": "0", **(env or {})})


def _json(*args: str) -> dict[str, Any]:
    done = _cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    envelope: dict[str, Any] = json.loads(done.stdout)
    assert_valid_envelope(envelope)
    return envelope


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    repo = make_repo(tmp_path_factory.mktemp("graph-cli") / "repo")
    edit(repo, *CHANGE_PONG)
    done = _cli("capture-snapshot", "--repo", str(repo.path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("created: snapshot ")
    return repo


def test_capture_snapshot_flags_map_to_the_tool(repo: FixtureRepo) -> None:
    again = _json("capture-snapshot", "--repo", str(repo.path), "--commit", "HEAD~1",
                  "--mode", "changed_only", "--changed-ref", "shapes.cycle.pong",
                  "--dry-run", "--max-entities", "10")
    assert again["query"]["arguments"] == {
        "repo": str(repo.path), "commit": "HEAD~1", "mode": "changed_only",
        "changed_refs": ["shapes.cycle.pong"], "dry_run": True, "max_entities": 10}
    assert (again["data"]["idempotency"], again["data"]["completeness"]) == ("dry_run", "DELTA")
    current = _cli("capture-snapshot", "--repo", str(repo.path), "--if-stale-after",
                   "2000-01-01")
    assert current.returncode == 0 and current.stdout.startswith("already_current:")


def test_blast_radius_takes_a_rev_range_and_prints_a_table(repo: FixtureRepo) -> None:
    done = _cli("blast-radius", "HEAD~1..HEAD", "--repo", str(repo.path), "--depth", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("graph: FULL snapshot")
    header = next(line for line in lines if line.startswith("DEPTH"))
    assert header.split() == ["DEPTH", "AFFECTED", "SEED", "VIA"]
    assert PING in done.stdout


def test_blast_radius_takes_refs_and_key_ids(repo: FixtureRepo) -> None:
    by_ref = _json("blast-radius", "--repo", str(repo.path), "--ref", "shapes.cycle.pong",
                   "--depth", "2")
    key_id = by_ref["data"]["changed"][0]["entity"]["warpline_entity_key_id"]
    by_id = _json("blast-radius", "--repo", str(repo.path), "--key-id", str(key_id),
                  "--depth", "2")
    assert by_id["data"]["affected"] == by_ref["data"]["affected"]
    by_locator = _json("blast-radius", "--repo", str(repo.path), "--ref", PONG,
                       "--ref-kind", "locator", "--edge-kind", "calls", "--path", "shapes")
    assert by_locator["query"]["arguments"]["changed_refs"] == [
        {"kind": "locator", "value": PONG}]
    assert {a["entity"]["locator"] for a in by_locator["data"]["affected"]} == {PING, MAKE}


@pytest.mark.parametrize(("fmt", "marker"), [("mermaid", "flowchart LR"),
                                              ("dot", "digraph blast_radius")])
def test_blast_radius_renders_graph_formats(repo: FixtureRepo, fmt: str, marker: str) -> None:
    done = _cli("blast-radius", "HEAD~1..HEAD", "--repo", str(repo.path), "--format", fmt)
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout
    assert "python:function:shapes.cycle.ping" in done.stdout or (  # dot: the tooltip
        "cycle.ping" in done.stdout and "shapes/cycle.py" in done.stdout)  # mermaid: file


def test_reverify_prints_the_tests_to_run(repo: FixtureRepo) -> None:
    done = _cli("reverify", "HEAD~1..HEAD", "--repo", str(repo.path))
    assert done.returncode == 0, done.stderr
    assert CMD_TEST_PING in done.stdout
    assert "verification: 0 fresh, 0 stale" in done.stdout
    markdown = _cli("reverify", "HEAD~1..HEAD", "--repo", str(repo.path), "--format",
                    "markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert markdown.stdout.startswith("## warpline: what to re-verify")
    as_json = _cli("reverify", "HEAD~1..HEAD", "--repo", str(repo.path), "--format", "json")
    envelope = json.loads(as_json.stdout)
    assert_valid_envelope(envelope)
    # the markdown runs the selection (the ping test's file imports the changed module)
    command = envelope["next_actions"]["commands"][0]["command"]
    assert "tests/test_shapes.py" in command.split()
    assert f"```sh\n{command}\n```" in markdown.stdout


def test_reverify_flags_map_to_the_tool(repo: FixtureRepo) -> None:
    env = _json("reverify", "--repo", str(repo.path), "--ref", "shapes.cycle.pong",
                "--group-by", "reason", "--reason", "downstream", "--verification-state",
                "unverified", "--verified-kind", "test_pass", "--sort-by", "locator")
    assert env["query"]["arguments"] == {
        "repo": str(repo.path), "changed_refs": ["shapes.cycle.pong"],
        "filters": {"reasons": ["downstream"], "verification_states": ["unverified"]},
        "sort_by": "locator", "group_by": "reason", "verified_kinds": ["test_pass"]}
    assert {i["reason"] for i in env["data"]["items"]} == {"downstream"}


def test_bad_input_exits_1_with_the_error_envelope(repo: FixtureRepo) -> None:
    done = _cli("reverify", "--repo", str(repo.path), "--ref", "x", "--depth", "9", "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert (error["error_code"], error["rejected_field"]) == ("invalid_depth", "depth")
    assert_valid_envelope(error)
    # No range and no refs is not an error on the CLI: it means "my work" (see
    # tests/test_agent_defaults.py); the MCP contract still requires a scope.
    mine = _cli("blast-radius", "--repo", str(repo.path), "--json")
    assert mine.returncode == 0, mine.stderr
    assert json.loads(mine.stdout)["query"]["arguments"]["include_worktree"] is True


def test_without_a_snapshot_the_table_says_no_graph(tmp_path: Path) -> None:
    bare = make_repo(tmp_path / "repo")
    done = _cli("blast-radius", "--repo", str(bare.path), "--ref", PONG)
    assert done.returncode == 0, done.stderr
    assert "affected: unknown (no graph)" in done.stdout
    assert "warpline capture-snapshot" in done.stdout
