"""The graph tools over the real loomweave (``loomweave install`` + ``loomweave analyze`` on
the hand-written fixture of tests/graphfixture.py): same graph, same answers, plus SEIs.

Needs ``loomweave`` + ``loomweave-plugin-python`` and ``node`` on PATH (call edges).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from tests.graphfixture import (
    CHANGE_PONG,
    CMD_TEST_MAKE,
    CMD_TEST_PING,
    EXPECTED_EDGES,
    MAKE,
    PING,
    PONG,
    REGISTRY_MODULE,
    SQUARE,
    TEST_MAKE,
    TEST_PING,
    call,
    depths,
    edit,
    make_repo,
)
from warpline.store.db import store_path

pytestmark = [
    pytest.mark.loomweave,
    pytest.mark.skipif(shutil.which("loomweave") is None, reason="loomweave is not installed"),
]


def loomweave(args: list[str], repo: FixtureRepo, home: Path) -> None:
    # `install` writes ~/.codex/config.toml: keep HOME inside tmp. A pinned interpreter
    # makes pyright's import resolution complete (docs/notes-loomweave.md §1).
    env = {**os.environ, "HOME": str(home), "LOOMWEAVE_PYTHON_INTERPRETER": sys.executable}
    done = subprocess.run(["loomweave", *args], cwd=repo.path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def analyzed_repo(root: Path) -> tuple[FixtureRepo, Path]:
    repo = make_repo(root / "repo")
    home = root / "home"
    home.mkdir()
    loomweave(["install", "--path", "."], repo, home)
    loomweave(["analyze"], repo, home)
    return repo, home


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0")
    monkeypatch.delenv("WARPLINE_EDGE_SOURCES", raising=False)
    monkeypatch.delenv("WARPLINE_LOOMWEAVE_COMMAND", raising=False)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    repo, _ = analyzed_repo(tmp_path_factory.mktemp("lw-graph"))
    return repo


def _rows(repo: FixtureRepo, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(store_path(repo.path))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_capture_reads_loomweave_edges_and_seis(indexed: FixtureRepo) -> None:
    env = call("capture_snapshot", repo=str(indexed.path))
    data = env["data"]
    assert (data["source"], data["completeness"], data["commit_sha"]) == (
        "loomweave", "FULL", indexed.head)
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", data["source_version"])
    assert env["enrichment"]["sei"] == "present"
    assert set(_rows(indexed, "SELECT source, target, kind FROM snapshot_edges")) == \
        EXPECTED_EDGES
    missing = _rows(indexed, "SELECT locator FROM snapshot_entities WHERE sei IS NULL")
    assert missing == []
    # The SEIs also land on the store's entities, so history tools resolve them locally.
    [(locator, sei)] = _rows(indexed, f"SELECT locator, sei FROM entities WHERE locator = "
                                      f"'{PONG}'")
    assert str(sei).startswith("loomweave:eid:")
    timeline = call("timeline", repo=str(indexed.path), entity_ref={"kind": "sei", "value": sei})
    assert timeline["data"]["entity"]["locator"] == locator
    again = call("capture_snapshot", repo=str(indexed.path))["data"]
    assert (again["idempotency"], again["snapshot_id"]) == ("already_current",
                                                           data["snapshot_id"])


def test_loomweave_answers_the_hand_written_affected_sets(indexed: FixtureRepo) -> None:
    call("capture_snapshot", repo=str(indexed.path))
    env = call("blast_radius", repo=str(indexed.path), changed_refs=[PONG], depth=3)
    assert depths(env) == {PING: 1, MAKE: 2, TEST_PING: 2, REGISTRY_MODULE: 3, TEST_MAKE: 3}
    assert env["data"]["staleness"]["snapshot_source"] == "loomweave"
    assert env["enrichment"]["sei"] == "present"
    for affected in env["data"]["affected"]:
        assert affected["entity"]["sei"]
        assert all(e["from_sei"] and e["to_sei"] for e in affected["via_edges"])
    square = call("blast_radius", repo=str(indexed.path), changed_refs=["shapes.base.Shape"],
                  depth=2)
    assert depths(square) == {SQUARE: 1, MAKE: 2}


def test_changing_a_callee_lists_its_caller_over_real_loomweave_edges(tmp_path: Path) -> None:
    repo, home = analyzed_repo(tmp_path)
    call("capture_snapshot", repo=str(repo.path))  # loomweave, at the analyzed commit
    edit(repo, *CHANGE_PONG, message="change the callee")
    env = call("reverify", repo=str(repo.path), rev_range="HEAD~1..HEAD", depth=2)
    data = env["data"]
    assert (data["staleness"]["snapshot_source"], data["staleness"]["commits_behind"]) == (
        "loomweave", 1)
    items = {i["entity"]["locator"]: i for i in data["items"]}
    assert items[PONG]["reason"] == "changed"
    caller = items[PING]
    assert (caller["reason"], caller["depth"], caller["seed"]) == ("downstream", 1, PONG)
    [step] = caller["why"]
    assert (step["from"], step["to"], step["kind"]) == (PING, PONG, "calls")
    assert step["from_sei"] and step["to_sei"]
    assert [s["command"] for s in items[PONG]["suggested_verification"]] == [
        CMD_TEST_PING, CMD_TEST_MAKE]

    # The index describes the old commit: a capture at HEAD must not stamp it there.
    fallback = call("capture_snapshot", repo=str(repo.path))
    assert fallback["data"]["source"] == "builtin"
    assert fallback["warnings"]
    loomweave(["analyze"], repo, home)
    fresh = call("capture_snapshot", repo=str(repo.path))["data"]
    assert (fresh["source"], fresh["commit_sha"], fresh["idempotency"]) == (
        "loomweave", repo.head, "created")
    now = call("reverify", repo=str(repo.path), rev_range="HEAD~1..HEAD", depth=1)["data"]
    assert now["staleness"]["snapshot_id"] == fresh["snapshot_id"]
    assert now["staleness"]["commits_behind"] == 0
    assert [i["entity"]["locator"] for i in now["items"]] == [PONG, PING]


def test_without_the_executable_loomweave_is_not_used(indexed: FixtureRepo,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_LOOMWEAVE_COMMAND", "no-such-loomweave-binary")
    env = call("capture_snapshot", repo=str(indexed.path), dry_run=True)
    assert env["data"]["source"] == "builtin"
    assert env["enrichment"]["sei"] == "unavailable"
    assert env["warnings"]
