"""A whole-suite pass is never recorded for a commit whose suite fails (issue 38, item 2).

The seven routes that recorded one, each now refused (``unbacked_pass``) or recorded as a
``selection``, on a real project with real pytest runs (the plugin active through its entry
point) and ``warpline ci --record``: ``--ignore`` of the failing file (also through
``PYTEST_ADDOPTS``, also after a failing run), ``-o python_files=...``, a sub-project's own
``pytest.ini``, a child commit that deletes the failing test recorded for its parent,
edits hidden by ``--skip-worktree`` / ``--assume-unchanged``, an ignored ``conftest.py``
that pytest loads, and the code under test inserting a passing receipt after a failing run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import run_git

OK = "def test_ok():\n    assert 1 + 1 == 2\n"
BAD = "def test_bad():\n    assert 1 + 1 == 3\n"
FIXED = "def test_bad():\n    assert 1 + 1 == 2\n"
# The code under test forging a receipt once the run is over (after the plugin's own).
FORGE = '''\
import atexit
import json
import sqlite3
import subprocess
import time


def _forge():
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    facts = {"v": 1, "runner": "pytest", "rootdir": "", "started_at": int(time.time()),
             "tests_collected": 2, "tests_deselected": 0, "tests_run": 2,
             "tests_passed": 2, "tests_failed": 0, "tests_skipped": 0, "failed_tests": [],
             "extent": "whole_suite", "selection": None, "dirty_paths": []}
    conn = sqlite3.connect(".weft/warpline/warpline.db")
    conn.execute("INSERT INTO run_receipts (commit_sha, clean, exit_status, finished_at, "
                 "facts) VALUES (?, 1, 0, ?, ?)", (head, int(time.time()) + 5,
                                                   json.dumps(facts)))
    conn.commit()


atexit.register(_forge)


def test_bad():
    assert 1 + 1 == 3
'''


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GITLAB_", "CI_", "RUNNER_", "PYTEST_", "WARPLINE_"))
           and k != "CI"}
    return {**env, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1", **extra}


class Project:
    """A repository whose suite fails (``tests/test_bad.py``), with a warpline store."""

    def __init__(self, root: Path, bad: str = BAD) -> None:
        self.root = root
        root.mkdir()
        run_git(root, "init", "-q", "-b", "main")
        run_git(root, "config", "user.name", "Dev")
        run_git(root, "config", "user.email", "dev@example.com")
        self.write({"pytest.ini": "[pytest]\ntestpaths = tests\n", "tests/test_ok.py": OK,
                    "tests/test_bad.py": bad,
                    ".gitignore": "__pycache__/\n.weft/\nconftest.py\n"})
        self.commit("a failing suite")
        done = self.warpline("backfill")
        assert done.returncode == 0, done.stderr

    def write(self, files: dict[str, str]) -> None:
        for name, text in files.items():
            (self.root / name).parent.mkdir(parents=True, exist_ok=True)
            (self.root / name).write_text(text)

    def commit(self, message: str) -> str:
        run_git(self.root, "add", "-A")
        run_git(self.root, "commit", "-qm", message)
        return run_git(self.root, "rev-parse", "HEAD").strip()

    def pytest(self, *args: str, cwd: Path | None = None,
               **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", *args],
                              cwd=cwd or self.root, env=_env(PYTHONPATH=str(self.root), **env),
                              capture_output=True, text=True, timeout=240, check=False)

    def warpline(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=self.root,
                              env=_env(), capture_output=True, text=True, timeout=240,
                              check=False)

    def record(self, *args: str) -> dict[str, Any]:
        """``warpline ci --record test_pass``: the refusal's code, or the record's scope."""
        done = self.warpline("ci", "--record", "test_pass", "--no-push", "--no-fetch",
                             "--json", *args)
        answer = json.loads(done.stdout)
        if "error_code" in answer:
            assert done.returncode != 0
            return {"refused": answer["error_code"],
                    "reason": (answer.get("details") or {}).get("reason")}
        return {"scope": answer["record"]["data"]["scope"]}


def _no_whole_suite_pass(outcome: dict[str, Any]) -> None:
    assert outcome.get("refused") == "unbacked_pass" or outcome.get("scope") == "selection", \
        outcome


@pytest.fixture()
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "project")


def test_the_failing_suite_itself_is_refused(project: Project) -> None:
    assert project.pytest().returncode == 1
    assert project.record() == {"refused": "unbacked_pass", "reason": "run_failed"}


@pytest.mark.parametrize("how", ["argument", "PYTEST_ADDOPTS"])
def test_ignoring_the_failing_file_is_a_selection_and_clears_no_failure(
        project: Project, how: str) -> None:
    ignore = "--ignore=tests/test_bad.py"
    run = project.pytest(ignore) if how == "argument" else project.pytest(
        PYTEST_ADDOPTS=ignore)
    assert run.returncode == 0, run.stdout
    assert project.record() == {"scope": "selection"}
    # After a failing run of the whole suite, the narrower pass clears nothing.
    assert project.pytest().returncode == 1
    run = project.pytest(ignore) if how == "argument" else project.pytest(
        PYTEST_ADDOPTS=ignore)
    assert run.returncode == 0
    assert project.record() == {"refused": "unbacked_pass", "reason": "earlier_failure"}


def test_overriding_python_files_is_a_selection(project: Project) -> None:
    assert project.pytest("-o", "python_files=test_ok.py").returncode == 0
    _no_whole_suite_pass(project.record())


def test_a_sub_projects_own_pytest_ini_is_not_the_whole_suite(project: Project) -> None:
    project.write({"sub/pytest.ini": "[pytest]\n", "sub/tests/test_sub.py": OK})
    project.commit("a sub-project")
    assert project.pytest(cwd=project.root / "sub").returncode == 0
    _no_whole_suite_pass(project.record())


def test_a_child_that_deletes_the_failing_test_backs_no_record_of_its_parent(
        project: Project) -> None:
    parent = run_git(project.root, "rev-parse", "HEAD").strip()
    (project.root / "tests/test_bad.py").unlink()
    project.commit("delete the failing test")
    assert project.pytest().returncode == 0
    assert project.record("--head", parent) == {"refused": "unbacked_pass",
                                                "reason": "other_commit"}


@pytest.mark.parametrize("flag", ["--skip-worktree", "--assume-unchanged"])
def test_edits_hidden_by_index_flags_make_the_run_dirty(project: Project, flag: str) -> None:
    run_git(project.root, "update-index", flag, "tests/test_bad.py")
    project.write({"tests/test_bad.py": FIXED})
    assert run_git(project.root, "status", "--porcelain").strip() == ""  # git sees nothing
    assert project.pytest().returncode == 0
    assert project.record() == {"refused": "unbacked_pass", "reason": "dirty_tree"}


def test_an_ignored_conftest_pytest_loads_makes_the_run_dirty(project: Project) -> None:
    project.write({"conftest.py": "def pytest_collection_modifyitems(items):\n"
                                  "    items[:] = [i for i in items if 'bad' not in i.nodeid]\n"})
    assert run_git(project.root, "status", "--porcelain").strip() == ""  # ignored
    assert project.pytest().returncode == 0
    assert project.record() == {"refused": "unbacked_pass", "reason": "dirty_tree"}


def test_a_receipt_the_code_under_test_inserts_is_not_believed(tmp_path: Path) -> None:
    project = Project(tmp_path / "forging", bad=FORGE)
    assert project.pytest().returncode == 1
    assert project.record() == {"refused": "unbacked_pass", "reason": "run_failed"}
