"""The smaller items of issue 38 (item 7), each on a real repository: a commit object
missing under a caught-up store, a churn window before year 1000, the unreadable-versions
warning naming each file's language, and a file named ``a\\b.py`` beside ``a/b.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.registry import call_tool


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args, "--json"], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "WARPLINE_BACKGROUND_BACKFILL": "0"})


def test_a_missing_commit_object_under_a_caught_up_store_is_invalid_repo(
        tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    shas = [repo.commit({"pkg/mod.py": f"def f():\n    return {n}\n"}, message=f"c{n}")
            for n in range(5)]
    assert _cli(repo.path, "changed").returncode == 0  # caught up
    gone = shas[2]
    loose = repo.path / ".git" / "objects" / gone[:2] / gone[2:]
    loose.chmod(0o644)
    loose.unlink()
    for args in (["changed"], ["reverify"], ["changed", "HEAD~1..HEAD"]):
        done = _cli(repo.path, *args)
        assert done.returncode == 1, (args, done.stdout[-500:], done.stderr[-500:])
        error = json.loads(done.stdout)
        assert error["error_code"] == "invalid_repo", args
        assert error["details"]["missing_object"] == gone, args


def test_a_churn_window_before_year_1000_answers(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/mod.py": "def f():\n    return 1\n"}, message="one")
    env = call_tool("churn", {"repo": str(repo.path), "entity_refs": ["pkg.mod.f"],
                              "window": {"since": "0999-01-01T00:00:00Z",
                                         "until": "0999-12-31T00:00:00Z"}})
    assert_valid_envelope(env)
    assert env["data"]["window"]["since"] == "0999-01-01T00:00:00Z"


def test_the_unreadable_versions_warning_names_each_files_language(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "300")  # two 5 MB files, a busy CI
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"src/a.rs": "fn a() {}\n", "Big.java": "class Big {}\n"}, message="one")
    repo.commit({"src/a.rs": "fn a() {}\n" + "// pad\n" * 700_000,
                 "Big.java": "class Big {}\n" + "// x\n" * 1_000_000}, message="two")
    env = call_tool("changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD"})
    [warning] = [w for w in env["warnings"] if "could not be read for definitions" in w]
    assert "Python" not in warning
    assert "java 1" in warning and "rust 1" in warning


def test_a_backslash_in_a_file_name_is_no_separator(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"a/__init__.py": "", "a/b.py": "def f():\n    return 1\n"}, message="one")
    repo.commit({"a\\b.py": "def f():\n    return 2\n"}, message="two")
    env = call_tool("changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD"})
    added = {(i["entity"]["locator"], i["entity"]["path"]) for i in env["data"]["items"]}
    assert ("core:file:a\\b.py", "a\\b.py") in added
    assert not {loc for loc, _ in added} & {"core:file:a/b.py", "python:function:a.b.f"}
    timeline = call_tool("timeline", {"repo": str(repo.path), "entity": "a.b.f"})
    assert [i["commit"] for i in timeline["data"]["items"]] == [
        str(repo.repo.revparse_single("HEAD~1").id)]
