"""Honest where warpline cannot see (issue 26, item 6): a change in a language the edge
snapshot holds nothing of is never answered ``FULL``; no ``pytest`` is proposed for code
that is not Python (the project's own command is named instead); a changed file in a
language no row reads is named. Real git repositories, the real CLI in fresh processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo

CARGO = '[package]\nname = "demo-crate"\nversion = "0.1.0"\n'
LIB = ("pub fn area(w: u32, h: u32) -> u32 {\n    w * h\n}\n\n"
       "pub fn double(x: u32) -> u32 {\n    x * 2\n}\n")


@pytest.fixture(autouse=True)
def _builtin_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_EDGE_SOURCES", "builtin")


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "WARPLINE_EDGE_SOURCES": "builtin",
           "WARPLINE_INTERACTIVE_BUDGET_S": "30"}
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args, "--repo", str(repo)],
                          capture_output=True, text=True, timeout=300, env=env, check=False)


def _json(repo: Path, *args: str) -> dict[str, Any]:
    done = _cli(repo, *args, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


GEO = ("package demo;\n\npublic class Geo {\n    public static int area(int w, int h) {\n"
       "        return w * h;\n    }\n}\n")


@pytest.fixture()
def java(tmp_path: Path) -> FixtureRepo:
    """A Java change in a repository using no Java runner."""
    repo = FixtureRepo(tmp_path / "java")
    repo.commit({"src/main/java/demo/Geo.java": GEO}, message="one")
    repo.commit({"src/main/java/demo/Geo.java": GEO.replace("w * h", "h * w")}, message="two")
    return repo


@pytest.fixture()
def crate(tmp_path: Path) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "crate")
    repo.commit({"Cargo.toml": CARGO, "src/lib.rs": LIB}, message="one")
    repo.commit({"src/lib.rs": LIB.replace("w * h", "h * w")}, message="two")
    return repo


def _commands(answer: dict[str, Any]) -> list[str]:
    return [str(c["command"]) for c in answer.get("next_actions", {}).get("commands", [])]


@pytest.fixture()
def java_after_snapshot(tmp_path: Path) -> FixtureRepo:
    """Every language row has a built-in extractor now: the snapshot is taken before the
    repository held any Java, then Java is added and changed."""
    repo = FixtureRepo(tmp_path / "later")
    repo.commit({"app/core.py": "def f():\n    return 1\n"}, message="one")
    for args in (["install", "--no-backfill", "--config"], ["backfill"], ["capture-snapshot"]):
        done = _cli(repo.path, *args)
        assert done.returncode == 0, done.stderr
    repo.commit({"src/main/java/demo/Geo.java": GEO}, message="two")
    repo.commit({"src/main/java/demo/Geo.java": GEO.replace("w * h", "h * w")}, message="three")
    return repo


def test_a_change_is_never_full_over_a_graph_that_saw_none_of_its_language(
        java_after_snapshot: FixtureRepo) -> None:
    for tool in ("reverify", "blast-radius"):
        answer = _json(java_after_snapshot.path, tool, "HEAD~1..HEAD")
        assert answer["data"]["completeness"] != "FULL", tool
        assert any("java" in w and "not absent" in w for w in answer["warnings"]), tool


def test_no_pytest_is_proposed_where_no_runner_of_the_language_is_used(
        java: FixtureRepo) -> None:
    answer = _json(java.path, "reverify", "HEAD~1..HEAD")
    assert not any(c.startswith("pytest") for c in _commands(answer))
    assert any("mvn test" in w for w in answer["warnings"])
    done = _cli(java.path, "reverify", "HEAD~1..HEAD", "--format", "pytest")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""  # nothing for a shell to run as pytest
    table = _cli(java.path, "reverify", "HEAD~1..HEAD").stdout.splitlines()
    assert not any(line.startswith("next: pytest") for line in table), table
    assert any(line.startswith("tests: none known") and "no runner proposed" in line
               for line in table), table


def test_a_rust_change_is_answered_with_cargo_never_pytest(crate: FixtureRepo) -> None:
    # The Rust graph sees the crate (no language warning), no test reaches the change:
    # cargo's whole suite, named in every warning and command, never pytest's.
    answer = _json(crate.path, "reverify", "HEAD~1..HEAD")
    assert "rust:function:demo_crate.area" in {
        i["entity"]["locator"] for i in answer["data"]["items"]}
    assert not any("not absent" in w for w in answer["warnings"])
    assert _commands(answer)[0] == "cargo test"
    assert not any("pytest" in w for w in answer["warnings"]), answer["warnings"]
    assert any("`cargo test`" in w for w in answer["warnings"])
    assert any("`warpline record-tests`" in w for w in answer["warnings"])
    done = _cli(crate.path, "reverify", "HEAD~1..HEAD", "--format", "pytest")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""  # nothing for a shell to run as pytest


def test_a_python_change_still_gets_the_whole_suite_when_no_test_is_known(
        tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "py")
    repo.commit({"app/core.py": "def f():\n    return 1\n"}, message="one")
    repo.commit({"app/core.py": "def f():\n    return 2\n"}, message="two")
    answer = _json(repo.path, "reverify", "HEAD~1..HEAD")
    assert _commands(answer)[0] == "pytest"


def test_a_file_in_a_language_no_row_reads_is_named(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "c")
    repo.commit({"src/main.c": "int main(void) { return 0; }\n"}, message="one")
    repo.commit({"src/main.c": "int main(void) { return 1; }\n"}, message="two")
    for tool in ("changed", "reverify"):
        answer = _json(repo.path, tool, "HEAD~1..HEAD")
        assert any("src/main.c" in w and "only as files" in w for w in answer["warnings"]), tool
    answer = _json(repo.path, "reverify", "HEAD~1..HEAD")
    assert not any(c.startswith("pytest") for c in _commands(answer))


@pytest.mark.parametrize("name", ["main.go", "App.java", "index.mjs"])
def test_a_bare_file_name_of_a_read_language_is_a_path(tmp_path: Path, name: str) -> None:
    # `auto` refs once took only some suffixes as files: `main.go` was looked up as a
    # dotted qualname and answered "no entity named".
    repo = FixtureRepo(tmp_path / "r")
    repo.commit({name: "// one\n"}, message="one")
    repo.commit({name: "// two\n"}, message="two")
    items = _json(repo.path, "churn", name)["data"]["items"]
    assert {item["ref"]["kind"] for item in items} == {"path"}
    counts = {item["entity"]["locator"]: item["churn_count"] for item in items}
    assert counts[f"core:file:{name}"] == 2
