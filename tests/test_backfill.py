"""Backfill, resume, ingest-commit and the read tools' catch-up."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.git.repo import head_commit, open_repo
from warpline.registry import call_tool
from warpline.store.db import Store
from warpline.store.ingest import Ingestor


def _history(tmp_path: Path, commits: int = 30) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    for n in range(commits):
        body = "\n\n".join(f"def f{k}():\n    return {k * n}\n" for k in range(6))
        repo.commit({f"pkg/m{n % 4}.py": body, "README.md": f"rev {n}\n"}, message=f"c{n}")
    return repo


def _state(root: Path) -> list[tuple[str, str, str]]:
    with Store.open(root) as store:
        return sorted(store.conn.execute(
            "SELECT c.sha, e.locator, ce.change_kind FROM change_events ce "
            "JOIN commits c ON c.id = ce.commit_id JOIN entities e ON e.id = ce.entity_id"))


def _clean_copy(src: Path, dst: Path) -> Path:
    """The same repository without any warpline state."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".weft"))
    return dst


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], capture_output=True,
                          text=True, timeout=300, env=env)


def test_backfill_ingests_every_commit_and_a_rerun_ingests_nothing(tmp_path: Path) -> None:
    repo = _history(tmp_path)
    first = _cli("backfill", "--repo", str(repo.path), "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["commits_ingested"] == 30
    state = _state(repo.path)
    again = _cli("backfill", "--repo", str(repo.path), "--json")
    assert json.loads(again.stdout)["commits_ingested"] == 0
    assert _state(repo.path) == state


def test_backfill_prints_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=3)
    result = _cli("backfill", "--repo", str(repo.path))
    assert "[" not in result.stderr
    assert "ingested 3 commits" in result.stdout


def test_an_interrupted_backfill_resumes_without_duplicates(tmp_path: Path) -> None:
    repo = _history(tmp_path)
    handle = open_repo(repo.path)
    with Store.open(repo.path) as store:
        ingestor = Ingestor(store, handle)
        pending = ingestor.pending(head_commit(handle))
        ingestor.run(pending[:11])  # the first eleven commits, then "the process dies"
    with Store.open(repo.path) as store:
        report = Ingestor(store, handle).catch_up(head_commit(handle))
    assert report.commits_ingested == 19
    clean = _clean_copy(repo.path, tmp_path / "clean")
    _cli("backfill", "--repo", str(clean))
    assert _state(repo.path) == _state(clean)


def test_a_backfill_killed_mid_run_resumes_to_the_same_state(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=120)
    proc = subprocess.Popen([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                             str(repo.path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.0)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    resumed = _cli("backfill", "--repo", str(repo.path), "--json")
    assert resumed.returncode == 0, resumed.stderr
    clean = _clean_copy(repo.path, tmp_path / "clean")
    _cli("backfill", "--repo", str(clean))
    assert _state(repo.path) == _state(clean)
    with Store.open(repo.path) as store:
        assert store.conn.execute("SELECT count(*) FROM commits").fetchone()[0] == 120


def test_ingest_commit_ingests_exactly_one_commit(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=3)
    result = _cli("ingest-commit", "HEAD", "--repo", str(repo.path), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["commits_ingested"] == 1
    twice = _cli("ingest-commit", "HEAD", "--repo", str(repo.path), "--json")
    assert json.loads(twice.stdout)["commits_ingested"] == 0


def test_ingest_commit_with_a_bad_ref_is_invalid_rev_range(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=1)
    result = _cli("ingest-commit", "no-such-ref", "--repo", str(repo.path), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error_code"] == "invalid_rev_range"


def test_read_tools_catch_up_with_new_commits(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=2)
    call_tool("changed", {"repo": str(repo.path)})
    sha = repo.commit({"pkg/new.py": "def fresh():\n    return 0\n"}, message="new")
    env = call_tool("changed", {"repo": str(repo.path), "rev_range": sha})
    assert_valid_envelope(env)
    assert "python:function:pkg.new.fresh" in {i["entity"]["locator"]
                                                for i in env["data"]["items"]}


def test_a_backlog_beyond_the_budget_answers_partially_and_says_how_to_finish(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _history(tmp_path, commits=10)
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "0")
    env = call_tool("changed", {"repo": str(repo.path)})
    assert_valid_envelope(env)
    assert env["warnings"], "a partial answer must say so"
    commands = [c["command"] for c in env["next_actions"].get("commands", [])]
    assert any(c.startswith("warpline backfill") for c in commands)


def test_unparsable_python_files_are_counted_and_still_get_a_file_event(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/broken.py": "def oops(:\n"}, message="broken")
    result = _cli("backfill", "--repo", str(repo.path), "--json")
    assert json.loads(result.stdout)["unparsed_files"] == 1
    env = call_tool("changed", {"repo": str(repo.path)})
    assert {i["entity"]["locator"] for i in env["data"]["items"]} == {"core:file:pkg/broken.py"}
