"""HEAD read from git's own files (``warpline.git.gitfiles``) agrees with pygit2, and every
layout it does not read for sure is handed back (None) rather than guessed.

Real repositories, changed with real git commands (pack-refs, symbolic-ref, worktree add,
shallow clones, update-index), each answer checked against libgit2's.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FixtureRepo, run_git
from warpline.git.gitfiles import index_may_track, plain_repo
from warpline.service.shared.context import catch_up, ingest_status, open_context

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git CLI")


def _git(cwd: Path, *args: str) -> str:
    return run_git(cwd, *args).strip()


def _pygit2_head(path: Path) -> str:
    return str(pygit2.Repository(str(path)).head.peel(pygit2.Commit).id)


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    fixture = FixtureRepo(tmp_path / "repo")
    fixture.commit({"pkg/mod.py": "def f():\n    return 1\n"}, "one")
    fixture.commit({"pkg/mod.py": "def f():\n    return 2\n"}, "two")
    return fixture


def test_a_loose_branch_ref_gives_pygit2s_head(repo: FixtureRepo) -> None:
    found = plain_repo(repo.path)
    assert found is not None
    assert found.head == _pygit2_head(repo.path) == repo.head
    assert found.root == repo.path.resolve()


def test_a_packed_ref_gives_pygit2s_head_and_a_newer_loose_ref_wins(repo: FixtureRepo) -> None:
    _git(repo.path, "pack-refs", "--all")
    assert not (repo.path / ".git" / "refs" / "heads" / "main").exists()
    found = plain_repo(repo.path)
    assert found is not None and found.head == _pygit2_head(repo.path)
    newer = repo.commit({"pkg/mod.py": "def f():\n    return 3\n"}, "three")  # loose again
    found = plain_repo(repo.path)
    assert found is not None and found.head == newer == _pygit2_head(repo.path)


def test_a_detached_head_gives_its_commit(repo: FixtureRepo) -> None:
    first = _git(repo.path, "rev-parse", "HEAD~1")
    _git(repo.path, "checkout", "-q", "--detach", first)
    found = plain_repo(repo.path)
    assert found is not None and found.head == first == _pygit2_head(repo.path)


def test_a_symbolic_ref_chain_is_left_to_pygit2(repo: FixtureRepo) -> None:
    _git(repo.path, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    _git(repo.path, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert plain_repo(repo.path) is None
    with open_context(str(repo.path)) as ctx:  # the slow path still answers HEAD
        assert ctx.head_sha() == repo.head


def test_a_linked_worktree_and_a_shallow_clone_are_left_to_pygit2(
        repo: FixtureRepo, tmp_path: Path) -> None:
    _git(repo.path, "worktree", "add", "-q", str(tmp_path / "wt"), "HEAD~1")
    assert plain_repo(tmp_path / "wt") is None
    with open_context(str(tmp_path / "wt")) as ctx:
        assert ctx.head_sha() == _git(repo.path, "rev-parse", "HEAD~1")
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.path}",
                    str(tmp_path / "shallow")], check=True)
    assert plain_repo(tmp_path / "shallow") is None


@pytest.mark.parametrize("key,value", [("core.bare", "true"),
                                       ("core.worktree", "/elsewhere"),
                                       ("include.path", "other.cfg")])
def test_config_that_moves_or_pulls_in_things_is_left_to_pygit2(
        repo: FixtureRepo, key: str, value: str) -> None:
    _git(repo.path, "config", key, value)
    assert plain_repo(repo.path) is None


def test_an_unborn_branch_and_a_non_repository_answer_none(tmp_path: Path) -> None:
    FixtureRepo(tmp_path / "empty")
    assert plain_repo(tmp_path / "empty") is None
    (tmp_path / "plain").mkdir()
    assert plain_repo(tmp_path / "plain") is None


def test_a_head_the_files_cannot_name_falls_back_to_pygit2(repo: FixtureRepo) -> None:
    (repo.path / ".git" / "HEAD").write_text("ref: refs/heads/../../config\n")
    assert plain_repo(repo.path) is None


def test_the_index_check_is_exact_for_v2_and_hands_v4_and_split_indexes_on(
        repo: FixtureRepo) -> None:
    git_dir = repo.path / ".git"
    assert index_may_track(git_dir, ".weft/warpline/") is False
    (repo.path / ".weft" / "warpline").mkdir(parents=True)
    (repo.path / ".weft" / "warpline" / "config.json").write_text("{}")
    _git(repo.path, "add", "-f", ".weft/warpline/config.json")
    assert index_may_track(git_dir, ".weft/warpline/") is True
    _git(repo.path, "rm", "-q", "--cached", ".weft/warpline/config.json")
    assert index_may_track(git_dir, ".weft/warpline/") is False
    _git(repo.path, "update-index", "--index-version", "4")
    assert index_may_track(git_dir, ".weft/warpline/") is True
    _git(repo.path, "update-index", "--index-version", "2")
    assert index_may_track(git_dir, ".weft/warpline/") is False
    _git(repo.path, "update-index", "--split-index")
    assert index_may_track(git_dir, ".weft/warpline/") is True
    _git(repo.path, "update-index", "--no-split-index")
    for shared in git_dir.glob("sharedindex.*"):
        shared.unlink()
    (git_dir / "index").unlink()  # no index at all: git tracks nothing
    assert index_may_track(git_dir, ".weft/warpline/") is False


def test_a_caught_up_store_answers_head_from_the_files_and_a_new_commit_is_seen(
        repo: FixtureRepo) -> None:
    with open_context(str(repo.path)) as ctx:
        catch_up(ctx)
    with open_context(str(repo.path)) as ctx:
        assert ctx.plain is not None
        report = catch_up(ctx)
        assert report.commits_ingested == 0
        assert ingest_status(ctx, report)["head_commit"] == repo.head
    newer = repo.commit({"pkg/mod.py": "def f():\n    return 9\n"}, "nine")
    _git(repo.path, "pack-refs", "--all")  # the new HEAD only in packed-refs
    with open_context(str(repo.path)) as ctx:
        report = catch_up(ctx)
        assert report.commits_ingested == 1
        assert ingest_status(ctx, report)["head_commit"] == newer
